//! Expense tracker with a chart: adding expenses lists them, totals them
//! and draws them. Our own idea and checks; the chart is any canvas, SVG
//! or image-role element whose picture changes when an expense is added.
import { field, button, hasButton, shows, pageText, picture, until, expect } from '../checks.mjs';

const CHART = 'canvas, svg, [role=img], figure';

/** The chart's picture, or null when none shows. */
async function chart(page) {
  const charts = page.locator(CHART).filter({ visible: true });
  for (let i = 0; i < (await charts.count()); i++) {
    const box = await charts.nth(i).boundingBox();
    if (box && box.width >= 60 && box.height >= 60) return picture(charts.nth(i));
  }
  return null;
}

async function category(page, name) {
  const select = field(page, /categor/i);
  if ((await select.count()) > 0) {
    if ((await select.evaluate((e) => e.tagName)) === 'SELECT') return select.selectOption({ label: name }).catch(() => select.selectOption(name));
    return select.fill(name);
  }
  await page.getByRole('radio', { name }).or(page.getByRole('button', { name, exact: true })).first().click();
}

async function add(page, what, amount, kind) {
  await field(page, /descri|name|item|what|title|note|label|expense/i).fill(what);
  await field(page, /amount|cost|price|sum|value|\$|€/i).fill(String(amount));
  await category(page, kind);
  if (await hasButton(page, /add|save|submit|record|\+/i)) await button(page, /add|save|submit|record|\+/i).click();
  else await page.keyboard.press('Enter');
  await shows(page, new RegExp(`\\b${what}\\b`, 'i'));
}

let before = null;

export default {
  id: 'expenses',
  title: 'Expense tracker with a chart',
  idea: 'An expense tracker: I add an expense with a description, an amount and a category (Food, Transport, Fun), and see the list of expenses, their total, and a chart of spending by category.',
  checks: [
    {
      name: "adding 'Coffee' 3.50 (Food) lists it",
      run: async ({ page }) => {
        before = await chart(page);
        await add(page, 'Coffee', 3.5, 'Food');
      },
    },
    { name: "adding 'Bus' 2 (Transport) lists it too", run: async ({ page }) => { await add(page, 'Bus', 2, 'Transport'); await shows(page, /\bCoffee\b/i); } },
    { name: 'the total reads 5.50', run: ({ page }) => until(async () => /total[^\d\n]{0,20}\n?[^\d\n]{0,10}5\.50?\b/i.test(await pageText(page)), 'no "Total … 5.50" on the page') },
    {
      name: 'a chart shows the spending',
      run: async ({ page }) => {
        const after = await until(() => chart(page), 'no chart (canvas, SVG or image) of at least 60×60 shows');
        expect(before === null || !after.equals(before), 'the chart looks the same as before any expense');
      },
    },
  ],
};
