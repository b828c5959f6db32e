//! Todo list with persistence: adding by Enter, the list surviving a
//! reload, deleting. Our own idea and checks.
import { textbox, shows, hides, rowOf, WAIT } from '../checks.mjs';

const REMOVE = /delete|remove|trash|×|✕|✖|🗑|^x$/i;

async function add(page, text) {
  const box = textbox(page);
  await box.fill(text);
  await box.press('Enter');
  await shows(page, new RegExp(`\\b${text}\\b`, 'i'));
}

export default {
  id: 'todo',
  title: 'Todo list with persistence',
  idea: 'A todo list: I type a task and press Enter to add it to the list, I can delete a task, and the list is still there after I reload the page.',
  checks: [
    { name: "typing 'Buy milk' and Enter shows it in the list", run: ({ page }) => add(page, 'Buy milk') },
    { name: 'a second task shows beside the first', run: async ({ page }) => { await add(page, 'Walk the dog'); await shows(page, /\bBuy milk\b/i); } },
    { name: 'a reload keeps both tasks', run: async ({ page, reload }) => { await reload(); await shows(page, /\bBuy milk\b/i); await shows(page, /\bWalk the dog\b/i); } },
    {
      name: "deleting 'Walk the dog' removes it and keeps 'Buy milk'",
      run: async ({ page }) => {
        await rowOf(page, /Walk the dog/i, REMOVE).getByRole('button', { name: REMOVE }).first().click();
        await hides(page, /\bWalk the dog\b/i);
        await shows(page, /\bBuy milk\b/i, { timeout: WAIT });
      },
    },
    { name: 'the deletion survives a reload', run: async ({ page, reload }) => { await reload(); await shows(page, /\bBuy milk\b/i); await hides(page, /\bWalk the dog\b/i); } },
  ],
};
