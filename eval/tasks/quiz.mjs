//! Quiz: a question with choices, feedback on an answer, a score at the
//! end. Our own idea and checks; they answer with the first choice each
//! time (right or wrong), so they do not need to know the questions.
import { pageText, until, expect, hasButton, button } from '../checks.mjs';

const NEXT = /next|continue|submit|check|confirm|answer|finish|results?/i;
const FEEDBACK = /correct|incorrect|wrong|right|✓|✔|✗|✘|not quite|well done|the answer (is|was)/i;
// A final score, not a "Question 1 of 5" progress line.
const SCORE = /(score|you got|result|correct|final)[^\n\d]{0,30}\b\d\s*(\/|out of|of)\s*5\b|\b\d\s*(\/|out of|of)\s*5\b[^\n\d]{0,20}(correct|right|points)/i;

/** The choices of the question showing: radio buttons, else buttons that are not Next-like. */
async function choices(page) {
  const radios = page.getByRole('radio', { disabled: false }).filter({ visible: true });
  if ((await radios.count()) > 0) return radios;
  return page.getByRole('button', { disabled: false }).filter({ visible: true }).filter({ hasNotText: NEXT }).filter({ hasNotText: /restart|again|start/i });
}

/** Lines of `now` that `before` did not have. */
const fresh = (before, now) => {
  const seen = new Set(before.split('\n'));
  return now.split('\n').filter((l) => !seen.has(l)).join('\n');
};

/** Picks the first choice (then "Check", when the app has such a step); returns the page's text from before. */
async function answer(page) {
  const before = await pageText(page);
  const options = await until(async () => {
    const c = await choices(page);
    return (await c.count()) >= 2 && c;
  }, 'fewer than two choices show');
  await options.first().click();
  if (!FEEDBACK.test(fresh(before, await pageText(page))) && (await hasButton(page, /check|submit|confirm|answer/i))) {
    await button(page, /check|submit|confirm|answer/i).click();
  }
  return before;
}

export default {
  id: 'quiz',
  title: 'Quiz',
  idea: 'A quiz of 5 multiple-choice questions about world capitals: I pick an answer, it tells me whether I was right, I go on to the next question, and at the end it shows my score out of 5.',
  checks: [
    {
      name: 'a question shows with at least two choices',
      run: async ({ page }) => {
        await until(async () => /\?/.test(await pageText(page)), 'no question (a line with "?") on the page');
        expect((await (await choices(page)).count()) >= 2, 'fewer than two choices show');
      },
    },
    {
      name: 'choosing an answer says whether it was right',
      run: async ({ page }) => {
        const before = await answer(page);
        await until(async () => FEEDBACK.test(fresh(before, await pageText(page))), 'no right/wrong feedback after answering');
      },
    },
    {
      name: 'answering all five shows a score out of 5',
      run: async ({ page }) => {
        let answered = 1;
        for (let i = 0; i < 16 && !(answered >= 5 && SCORE.test(await pageText(page))); i++) {
          if (await hasButton(page, /next|continue|finish|results?/i)) await button(page, /next|continue|finish|results?/i).click();
          else if (answered < 5) {
            await answer(page);
            answered += 1;
          } else {
            // The last step's button, whatever it says ("See how I did").
            const last = page.getByRole('button', { disabled: false }).filter({ visible: true });
            if ((await last.count()) === 0) break;
            await last.last().click();
          }
          await page.waitForTimeout(100);
        }
        expect(answered >= 5, `only ${answered} questions could be answered`);
        await until(async () => SCORE.test(await pageText(page)), 'no final score out of 5 after answering five questions');
      },
    },
  ],
};
