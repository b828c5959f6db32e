//! Markdown previewer: what is typed shows rendered (a heading, bold, a
//! list, a link) as it is typed. Our own idea and checks; they ask for
//! the rendered roles (heading, list item, link) and a bold weight, not
//! for particular tags.
import { textbox, until, expect } from '../checks.mjs';

async function type(page, markdown) {
  await textbox(page).fill(markdown);
}

export default {
  id: 'markdown',
  title: 'Markdown previewer',
  idea: 'A markdown previewer: I type markdown in a box and see it rendered beside it as I type (headings, bold, italics, lists and links).',
  checks: [
    {
      name: "'# Hello world' shows a heading",
      run: async ({ page }) => {
        await type(page, '# Hello world');
        await page.getByRole('heading', { name: 'Hello world' }).filter({ visible: true }).first().waitFor();
      },
    },
    {
      name: "'**strong words**' shows in bold",
      run: async ({ page }) => {
        await type(page, 'Some **strong words** here');
        const weight = await until(async () => {
          const el = page.getByText('strong words', { exact: true }).filter({ visible: true }).first();
          if ((await el.count()) === 0) return null;
          return el.evaluate((e) => getComputedStyle(e).fontWeight);
        }, "'strong words' is not shown on its own");
        expect(Number(weight) >= 600 || weight === 'bold', `'strong words' has font weight ${weight}`);
      },
    },
    {
      name: "'- apple' and '- pear' show as a list",
      run: async ({ page }) => {
        await type(page, '- apple\n- pear\n');
        await page.getByRole('listitem').filter({ hasText: /^\W*apple\W*$/i }).filter({ visible: true }).first().waitFor();
        await page.getByRole('listitem').filter({ hasText: /^\W*pear\W*$/i }).filter({ visible: true }).first().waitFor();
      },
    },
    {
      name: "'[docs](https://example.com)' shows a link to it",
      run: async ({ page }) => {
        await type(page, 'See the [docs](https://example.com).');
        const link = page.getByRole('link', { name: 'docs', exact: true }).filter({ visible: true }).first();
        const href = (await link.getAttribute('href')) ?? '';
        expect(href.replace(/\/$/, '') === 'https://example.com', `the link goes to "${href}", not https://example.com`);
      },
    },
  ],
};
