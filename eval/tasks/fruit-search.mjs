//! Search/filter list: the list narrows as one types, ignoring case, and
//! says when nothing matches. Our own idea and checks.
import { textbox, shows, hides } from '../checks.mjs';

const word = (w) => new RegExp(`(^|[^a-z])${w}([^a-z]|$)`, 'i');

async function search(page, text) {
  await textbox(page).fill(text);
}

export default {
  id: 'fruit-search',
  title: 'Search and filter list',
  idea: 'A list of 20 fruits (among them Apple, Banana, Cherry, Mango and Pineapple) with a search box: typing filters the list as I type, ignoring upper and lower case, and "No results" shows when nothing matches.',
  checks: [
    { name: 'the list shows Apple, Banana and Mango', run: async ({ page }) => { for (const f of ['Apple', 'Banana', 'Mango']) await shows(page, word(f)); } },
    {
      name: "typing 'an' keeps Banana and Mango and hides Apple and Cherry",
      run: async ({ page }) => {
        await search(page, 'an');
        await hides(page, word('Apple'));
        await hides(page, word('Cherry'));
        await shows(page, word('Banana'));
        await shows(page, word('Mango'));
      },
    },
    {
      name: "'APP' finds Apple and Pineapple, whatever the case",
      run: async ({ page }) => {
        await search(page, 'APP');
        await shows(page, word('Apple'));
        await shows(page, word('Pineapple'));
        await hides(page, word('Banana'));
      },
    },
    { name: "'zzz' says there are no results", run: async ({ page }) => { await search(page, 'zzz'); await shows(page, /no (results|matches|fruits?)|nothing (found|matches)|not found/i); await hides(page, word('Mango')); } },
    { name: 'clearing the search shows the whole list again', run: async ({ page }) => { await search(page, ''); for (const f of ['Apple', 'Cherry', 'Pineapple']) await shows(page, word(f)); } },
  ],
};
