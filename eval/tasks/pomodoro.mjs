//! Pomodoro timer: 25:00, Start counts down each second, Pause holds it,
//! Reset brings back 25:00. Our own idea and checks (real time: about 5 s).
import { button, pageText, until, expect, pause } from '../checks.mjs';

const clock = async (page) => (await pageText(page)).match(/\b(\d{1,2})\s*:\s*(\d{2})\b/);
const seconds = (m) => Number(m[1]) * 60 + Number(m[2]);

export default {
  id: 'pomodoro',
  title: 'Pomodoro timer',
  idea: 'A pomodoro timer: it shows 25:00, Start counts down every second, Pause stops it, and Reset goes back to 25:00.',
  checks: [
    { name: 'it shows 25:00', run: ({ page }) => until(async () => (await pageText(page)).match(/\b25\s*:\s*00\b/), 'no 25:00 on the page') },
    {
      name: 'Start counts down by the second',
      run: async ({ page }) => {
        await button(page, /start|play|begin|resume/i).click();
        await pause(2300);
        const m = await clock(page);
        expect(m, 'no mm:ss on the page after Start');
        const left = seconds(m);
        expect(left >= 25 * 60 - 4 && left <= 25 * 60 - 1, `2.3 s after Start the timer shows ${m[0]}`);
      },
    },
    {
      name: 'Pause holds the time',
      run: async ({ page }) => {
        await button(page, /pause|stop|hold/i).click();
        const held = (await clock(page))[0];
        await pause(1500);
        const later = (await clock(page))?.[0];
        expect(later === held && held !== '25:00', `paused at ${held}, 1.5 s later it shows ${later}`);
      },
    },
    { name: 'Reset shows 25:00 again', run: async ({ page }) => { await button(page, /reset|restart/i).click(); await until(async () => (await pageText(page)).match(/\b25\s*:\s*00\b/), 'no 25:00 after Reset'); } },
  ],
};
