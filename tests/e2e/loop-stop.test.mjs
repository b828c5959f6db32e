// A fix loop that stops itself (issue #33, Done-when 3): the engineer runs
// the same failing step twice (its thoughts differ, as a model's do, so
// only the same-error guard can see the loop); the team pauses after the
// second attempt, the person reads what happened and what to do, and
// Resume lets the engineer try again, which now works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, requests, configure, roleZeroAnswer as answer } from './harness.mjs';

const env = useSiteAndLlm();

const MODEL = 'e2e-loop-stop';
const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const PAGE = '<!doctype html>\n<html>\n<body>\n<h1 style="color:red">Hello</h1>\n</body>\n</html>\n';
// The same step each time: a replace in a file that does not exist.
const badFix = cmd('Editor.replace', { path: 'index.html', old: '<h1>', new: '<h1 style="color:red">' });

// Alex's turns first, matched by his name in his system prompt; Mike's
// after them, unmatched, taken in order by Mike's requests.
const ALEX = 'named Alex';
const turns = [
  { match: ALEX, text: answer('Making the title red.', [badFix]) },
  { match: ALEX, text: answer('That did not work; trying the fix again.', [badFix]) },
  // After Resume: a different step, which works.
  { match: ALEX, text: answer('The page does not exist yet: writing it.', [cmd('Editor.write', { path: 'index.html', content: PAGE }), end()]) },
  { text: 'TASK' },
  { text: answer('One task for Alex.', [
    cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Make the title red', assignee: 'Alex' }),
    cmd('TeamLeader.publish_team_message', { content: 'Make the title red in index.html', send_to: 'Alex' }),
    cmd('RoleZero.reply_to_human', { content: 'Alex is on it.' }),
    end(),
  ]) },
  { text: answer('Done.', [cmd('Plan.finish_current_task'), cmd('RoleZero.reply_to_human', { content: 'The title is red.' }), end()]) },
  // Past his script, Mike has nothing to do (he hears of the pause too).
  { text: answer('Waiting.', [end()]), repeat: 5 },
];

test('a fix loop that repeats the same failing step stops after the second attempt; Resume carries on', async () => {
  await script(env.llm, MODEL, turns);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, MODEL, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A page with a red title');
  await page.getByTestId('start').click();

  const resume = page.getByTestId('resume');
  const error = page.locator('[data-testid=conversation] article.error').last();
  try {
    await error.waitFor({ timeout: 60000 });
    await resume.waitFor({ timeout: 10000 });
  } catch (e) {
    await screenshot(page, 'loop-stop-failed');
    throw new Error(`no pause: status "${await page.getByTestId('status').textContent()}"`);
  }
  // Stopped after the second identical attempt: no third call was made.
  const asked = (await requests(env.llm, MODEL)).map((r) => /named (\w+)/.exec(r.messages[0].content)?.[1]);
  assert.deepEqual(asked.filter((who) => who === 'Alex').length, 2, `Alex asked twice, no third time: ${asked}`);
  const said = (await error.innerText()).replace(/\s+/g, ' ');
  assert.match(said, /Alex got the same error twice in a row from the same steps, so the last fix did not change it: “Command Editor\.replace failed: [^”]+”\. Give the team more detail in a follow-up, or Resume to let it try again\./);
  const status = await page.getByTestId('status').textContent();
  assert.ok(/Paused|paused|stopped/i.test(status), `the status says the team stands still: ${status}`);
  await error.scrollIntoViewIfNeeded();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: 'tests/e2e/screenshots/loop-stop-1280x900.png' });

  // Resume: Alex tries again, differently, and the request becomes version 1.
  await resume.click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 60000 });
  const after = (await requests(env.llm, MODEL)).map((r) => /named (\w+)/.exec(r.messages[0].content)?.[1]);
  assert.equal(after.filter((who) => who === 'Alex').length, 3, `Alex's third attempt, after Resume: ${after}`);
  assert.ok((await page.getByTestId('conversation').textContent()).includes('The title is red.'));
  assert.deepEqual(problems.filter((p) => p.startsWith('pageerror')), []);
  await context.close();
});
