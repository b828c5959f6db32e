//! A small canvas game (snake): a drawn canvas that moves by itself, ends
//! when the snake hits a wall, and starts again. Our own idea and checks;
//! "game over" is a message in the page or the picture standing still.
import { canvasState, pageText, hasButton, button, until, expect, pause } from '../checks.mjs';

const OVER = /game over|you lost|you died|crashed|try again|play again/i;
const START = /start|play|restart|new game|again/i;

/** Starts (or restarts) the game: Space, Enter, or a Start-like button. */
async function start(page) {
  if (await hasButton(page, START)) await button(page, START).click();
  else {
    await page.locator('canvas').first().click().catch(() => {});
    await page.keyboard.press('Space');
  }
}

/** Whether the canvas changes within `ms` (looked at every 100 ms); null when there is no canvas. */
async function moving(page, ms = 1500) {
  const a = await canvasState(page);
  if (!a) return null;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await pause(100);
    const b = await canvasState(page);
    if (b !== null && b.hash !== a.hash) return true;
  }
  return false;
}

export default {
  id: 'snake',
  title: 'A small canvas game',
  idea: 'A snake game on a canvas: the snake moves on its own, the arrow keys turn it, it grows when it eats food, the score counts the food eaten, and it is game over when the snake hits a wall; Space or a button starts a new game.',
  checks: [
    {
      name: 'a canvas of at least 150×150 is drawn',
      run: async ({ page }) => {
        const c = await until(async () => {
          const state = await canvasState(page);
          return state && state.colours >= 2 && state;
        }, 'no canvas with something drawn on it');
        expect(c.width >= 150 && c.height >= 150, `the canvas is ${c.width}×${c.height}`);
      },
    },
    {
      name: 'the snake moves on its own',
      run: async ({ page }) => {
        if (await moving(page, 800)) return;
        await start(page);
        expect(await moving(page, 800), 'the canvas does not change by itself, nor after Space or Start (or there is none)');
      },
    },
    {
      name: 'the arrow keys do not stop it and a wall ends the game',
      run: async ({ page }) => {
        await page.keyboard.press('ArrowUp');
        expect((await moving(page, 300)) !== null, 'no canvas on the page');
        await until(async () => OVER.test(await pageText(page)) || (await moving(page, 1200)) === false, 'after 20 s heading for a wall the game is not over', 20000);
      },
    },
    {
      name: 'a new game moves again',
      run: async ({ page }) => {
        await start(page);
        expect(await moving(page, 800), 'the canvas stands still after starting a new game');
      },
    },
  ],
};
