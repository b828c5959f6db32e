//! Kanban board with drag and drop: three columns, a new card, dragging
//! it to Done, the board kept after a reload. Our own idea and checks;
//! a card's column is the column heading above it in the layout (side by
//! side or stacked).
import { textbox, button, hasButton, shows, until, expect } from '../checks.mjs';

// A heading may carry an icon or a count ("📋 To Do (2)").
const COLUMNS = [/^\W*to[\s-]?do\W*\d*\W*$/i, /^\W*in[\s-]?progress\W*\d*\W*$/i, /^\W*done\W*\d*\W*$/i];
const CARD = 'Write report';

const heading = (page, name) => page.getByText(name).filter({ visible: true }).first();
const card = (page) => page.getByText(CARD).filter({ visible: true }).first();

/**
 * Which column (0, 1, 2) the card sits in, by where the headings are:
 * side by side, the heading nearest across; stacked, the last heading above.
 */
async function columnOf(page) {
  const c = await card(page).boundingBox();
  const heads = await Promise.all(COLUMNS.map((n) => heading(page, n).boundingBox()));
  if (!c || heads.some((h) => !h)) return -1;
  const cx = c.x + c.width / 2;
  const cy = c.y + c.height / 2;
  const centre = (h) => h.x + h.width / 2;
  const ys = heads.map((h) => h.y);
  if (Math.max(...ys) - Math.min(...ys) < 60) {
    const gaps = heads.map((h) => Math.abs(cx - centre(h)));
    return gaps.indexOf(Math.min(...gaps));
  }
  let best = -1;
  heads.forEach((h, i) => {
    if (h.y < cy && (best < 0 || h.y > heads[best].y)) best = i;
  });
  return best;
}

async function drag(page, to) {
  const from = await card(page).boundingBox();
  const target = await columnArea(page, to);
  const body = await page.locator('body').boundingBox();
  await card(page).dragTo(page.locator('body'), { targetPosition: { x: target.x - body.x, y: target.y - body.y } });
  if ((await columnOf(page)) === to) return;
  // A board that moves cards with the pointer rather than HTML drag and drop.
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(target.x, target.y, { steps: 12 });
  await page.mouse.up();
}

/** A point inside column `i`: below its heading, within the element that holds the heading alone. */
async function columnArea(page, i) {
  return heading(page, COLUMNS[i]).evaluate((h, others) => {
    const res = others.map((source) => new RegExp(source, 'i'));
    // Whether `e` holds another column's heading.
    const holdsOther = (e) => [...e.querySelectorAll('*')].some((x) => !x.contains(h) && !h.contains(x) && res.some((re) => re.test(x.textContent)));
    let el = h;
    while (el.parentElement && el.parentElement !== document.body && !holdsOther(el.parentElement)) el = el.parentElement;
    const box = el.getBoundingClientRect();
    const hb = h.getBoundingClientRect();
    return { x: box.x + box.width / 2, y: Math.min(box.bottom - 5, hb.bottom + Math.max(20, (box.bottom - hb.bottom) / 2)) };
  }, COLUMNS.filter((_, j) => j !== i).map((re) => re.source));
}

export default {
  id: 'kanban',
  title: 'Kanban board with drag and drop',
  idea: 'A kanban board with three columns, To do, In progress and Done: I add a card to To do, drag cards from one column to another, and the board is the same after I reload the page.',
  checks: [
    { name: 'the three columns show', run: async ({ page }) => { for (const c of COLUMNS) await heading(page, c).waitFor(); } },
    {
      name: `adding '${CARD}' puts it in To do`,
      run: async ({ page }) => {
        const box = textbox(page);
        await box.fill(CARD);
        if (await hasButton(page, /add|create|new|\+/i)) await button(page, /add|create|new|\+/i).click();
        else await box.press('Enter');
        await shows(page, new RegExp(CARD, 'i'));
        expect((await columnOf(page)) === 0, 'the new card is not under To do');
      },
    },
    {
      name: 'dragging the card to Done moves it there',
      run: async ({ page }) => {
        await drag(page, 2);
        await until(async () => (await columnOf(page)) === 2, 'after the drag the card is not under Done');
      },
    },
    { name: 'a reload keeps the card in Done', run: async ({ page, reload }) => { await reload(); await shows(page, new RegExp(CARD, 'i')); expect((await columnOf(page)) === 2, 'after a reload the card is not under Done'); } },
  ],
};
