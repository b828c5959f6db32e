// The end of a run as a person sees it: while the finished version's tests
// run in the sandbox the status says so (not yet "every role is idle"),
// then names the version and its tests; Resume is offered only when a stop
// left work to do (after Stop, not after a run that is done).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, roleZeroAnswer as answer } from './harness.mjs';

const env = useSiteAndLlm();

const cmd = (name, args = {}) => ({ command_name: name, args });
const end = () => ({ command_name: 'end' });
const write = (path, content) => cmd('Editor.write', { path, content });

const PAGE = '<!doctype html>\n<html>\n<body>\n<p>Hello</p>\n</body>\n</html>\n';
// One test waits 2.5 s (under the 5 s limit per file), so the status has
// time to be seen while the tests run.
const SLOW_TEST = "test('waits a moment', async () => {\n  await new Promise((done) => setTimeout(done, 2500));\n  expect(1 + 1).toEqual(2);\n});\n\ntest('adds', () => {\n  expect(2 + 3).toEqual(5);\n});\n";

/** Mike gives Alex one task; Alex writes the page and its slow test; Mike tells the person. */
const turns = () => [
  { text: 'TASK' },
  {
    text: answer('One task for Alex.', [
      cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Write the page and its test', assignee: 'Alex' }),
      cmd('TeamLeader.publish_team_message', { content: 'Write the page and its test', send_to: 'Alex' }),
      cmd('RoleZero.reply_to_human', { content: 'Alex is on it.' }),
      end(),
    ]),
  },
  { text: answer('On it.', [write('index.html', PAGE), write('tests/page.test.js', SLOW_TEST), end()]) },
  { text: answer('Done.', [cmd('Plan.finish_current_task'), cmd('RoleZero.reply_to_human', { content: 'The page is ready.' }), end()]) },
];

test('while the version\'s tests run the status says so, then names the version; a finished run offers no Resume', async () => {
  const model = 'e2e-run-end-tests';
  await script(env.llm, model, turns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A page with a test');
  await page.getByTestId('start').click();
  const status = page.getByTestId('status');

  // The team is idle, the tests are still running.
  try {
    await status.filter({ hasText: "running version 1's tests" }).waitFor({ timeout: 60000 });
  } catch (e) {
    await screenshot(page, 'run-end-testing-failed');
    throw new Error(`the status never said the tests run: "${await status.textContent()}"`);
  }
  assert.equal(await status.textContent(), "Done; running version 1's tests…");
  assert.equal(await page.getByTestId('resume').count(), 0, 'no Resume while the finished run\'s tests run');
  await screenshot(page, 'run-end-1-testing');

  // Then the version, with its tests.
  await status.filter({ hasText: 'version 1 is ready' }).waitFor({ timeout: 15000 });
  assert.equal(await status.textContent(), 'Done: version 1 is ready; its 2 tests pass.');
  assert.equal(await page.getByTestId('resume').count(), 0, 'nothing to resume after a finished run');
  assert.equal(await page.getByTestId('stop').count(), 0, 'no Stop when there is nothing to stop');
  await screenshot(page, 'run-end-2-done');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Resume is offered after Stop, and gone once the resumed run is done', async () => {
  const model = 'e2e-run-end-stop';
  const all = turns();
  // Alex's answer streams slowly, so Stop lands in the middle of it.
  await script(env.llm, model, [all[0], all[1], { ...all[2], chunk_chars: 4, chunk_delay_ms: 150 }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A page with a test');
  await page.getByTestId('start').click();
  await page.locator('[data-live=true]').filter({ hasText: 'On it' }).waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('resume').count(), 0, 'no Resume while the team works');
  await page.getByTestId('stop').click();
  await page.getByTestId('status').filter({ hasText: 'Stopped by you' }).waitFor({ timeout: 10000 });
  const resume = page.getByTestId('resume');
  assert.equal(await resume.isEnabled(), true, 'Resume is offered after Stop');
  await screenshot(page, 'run-end-3-stopped');

  await script(env.llm, model, all.slice(2));
  await resume.click();
  await page.getByTestId('status').filter({ hasText: 'version 1 is ready' }).waitFor({ timeout: 60000 });
  assert.equal(await page.getByTestId('resume').count(), 0, 'nothing to resume once the resumed run is done');
  assert.deepEqual(problems, []);
  await context.close();
});
