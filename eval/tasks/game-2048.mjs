//! 2048: the arrow keys move the tiles, merging raises the score, a new
//! game starts at 0. Our own idea and checks; they look at the page's
//! picture and its "Score" text, so a board of elements or a canvas passes.
import { button, numberAfter, picture, until, expect } from '../checks.mjs';

const ARROWS = ['ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown'];
const SCORE = /score/i;

export default {
  id: 'game-2048',
  title: '2048',
  idea: 'The 2048 game: a 4×4 board where the arrow keys slide the tiles, equal tiles merge, a new tile appears after each move, the score shows the merged values, and a New game button starts over.',
  checks: [
    {
      name: 'the board shows a score of 0 at the start',
      run: async ({ page }) => {
        const { n } = await until(async () => { const n = await numberAfter(page, SCORE); return n === null ? null : { n }; }, 'no "Score" with a number on the page');
        expect(n === 0, `the score at the start is ${n}`);
      },
    },
    {
      name: 'the arrow keys move the tiles',
      run: async ({ page }) => {
        const body = page.locator('body');
        const before = await picture(body);
        for (const key of ARROWS) {
          await page.keyboard.press(key);
          await page.waitForTimeout(150);
          if (!(await picture(body)).equals(before)) return;
        }
        throw new Error('the page looks the same after each arrow key');
      },
    },
    {
      name: 'merging tiles raises the score',
      run: async ({ page }) => {
        for (let i = 0; i < 60; i++) {
          await page.keyboard.press(ARROWS[i % 4]);
          if (i % 4 === 3 && (await numberAfter(page, SCORE)) > 0) return;
        }
        throw new Error(`after 60 moves the score is ${await numberAfter(page, SCORE)}`);
      },
    },
    {
      name: 'New game sets the score back to 0',
      run: async ({ page }) => {
        await button(page, /new game|restart|reset|play again|try again|start over/i).click();
        await until(async () => (await numberAfter(page, SCORE)) === 0, 'the score is not 0 after a new game');
      },
    },
  ],
};
