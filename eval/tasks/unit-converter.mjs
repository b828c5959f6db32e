//! Unit converter: temperature, length and weight conversions. Our own
//! idea and checks; a unit or a kind is chosen in whatever the app offers
//! (a select, a tab, a radio button, a button), the value is typed in the
//! first number field, the result is any number the page shows, within 1 %.
import { numberField, showsNumber, hasButton, button, until } from '../checks.mjs';

/** Picks the option, tab, radio or button named `name` (the `nth` when there are several selects). */
async function pick(page, name, nth = 0) {
  const selects = page.locator('select').filter({ visible: true });
  const matching = [];
  for (let i = 0; i < (await selects.count()); i++) {
    const labels = await selects.nth(i).locator('option').allTextContents();
    const hit = labels.find((l) => name.test(l));
    if (hit) matching.push([selects.nth(i), hit]);
  }
  if (matching.length > 0) {
    const [select, label] = matching[Math.min(nth, matching.length - 1)];
    await select.selectOption({ label });
    return;
  }
  const control = page.getByRole('tab', { name }).or(page.getByRole('radio', { name })).or(page.getByRole('button', { name })).filter({ visible: true });
  if ((await control.count()) > nth) await control.nth(nth).click();
  else if ((await control.count()) > 0) await control.last().click();
  else throw new Error(`nothing to choose ${name} with`);
}

async function convert(page, { kind, from, to, value }) {
  if (kind) await pick(page, kind).catch(() => {});
  await pick(page, from, 0);
  await pick(page, to, 1);
  const input = numberField(page);
  await input.fill(String(value));
  await input.dispatchEvent('change');
  if (await hasButton(page, /convert|calculate|^\s*=\s*$/i)) await button(page, /convert|calculate|^\s*=\s*$/i).click();
}

const CASES = [
  { name: '100 Celsius is 212 Fahrenheit', kind: /temperature/i, from: /celsius|°c/i, to: /fahrenheit|°f/i, value: 100, expect: 212 },
  { name: '5 miles is 8.05 kilometres', kind: /length|distance/i, from: /miles?\b/i, to: /kilomet/i, value: 5, expect: 8.04672 },
  { name: '10 kilograms is 22.05 pounds', kind: /weight|mass/i, from: /kilogram|kg/i, to: /pound|lb/i, value: 10, expect: 22.0462 },
  { name: '3 metres is 9.84 feet', kind: /length|distance/i, from: /^\s*met(er|re)s?\b|^\s*m\b/i, to: /feet|foot|ft/i, value: 3, expect: 9.84252 },
];

export default {
  id: 'unit-converter',
  title: 'Unit converter',
  idea: 'A unit converter for length (metres, kilometres, miles, feet), temperature (Celsius, Fahrenheit) and weight (kilograms, pounds): I type a value, pick the units to convert from and to, and see the result.',
  checks: CASES.map((c) => ({
    name: c.name,
    run: async ({ page }) => {
      await convert(page, c);
      await showsNumber(page, c.expect, { within: 0.01 });
    },
  })),
};
