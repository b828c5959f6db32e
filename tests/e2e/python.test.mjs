// Python projects in the tab (issue #36), on one page: the software company
// writes a command-line 2048 game in Python; QA's first test run fails (a
// unittest failure and a plain `def test_` assert, each with its file and
// line), the engineer fixes it, the rerun passes and version 1's tests pass;
// the Terminal runs main.py, which reads moves with input(), and shows a
// traceback with its file and line and "Ask the team to fix"; a follow-up
// whose change makes a test loop for ever is stopped by the time limit,
// marked as breaking the tests and rolled back; reloaded offline, the
// Terminal runs the game again (Pyodide from the browser's cache), and
// Stop ends it while it waits for input.
// Prints Pyodide's cold and warm times to the first test result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, requests, showTab, showSessions } from './harness.mjs';
import { pythonTurns, loopingFollowUp } from './scripts/python-2048.mjs';

const env = useSiteAndLlm();
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe's critical, serious and moderate violations inside `selector`. */
async function axeViolations(page, selector) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const found = await page.evaluate(async (sel) => (await window.axe.run(document.querySelector(sel), { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), selector);
  return found;
}

const shootPane = (page, id, name) => page.getByTestId(id).screenshot({ path: join(screenshotDir, `${name}.png`) });
const version = (page, n) => page.locator(`[data-testid=version][data-number="${n}"]`);

async function waitDone(page, shot, timeout = 120000) {
  try {
    await page.getByTestId('status').filter({ hasText: /Done: version \d+/ }).waitFor({ timeout });
  } catch (e) {
    await screenshot(page, `${shot}-failed`);
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"`);
  }
}

/** Runs main.py in the Terminal and plays: one move left, then quit. */
async function playInTerminal(page, shot) {
  const terminal = page.getByTestId('terminal');
  const state = page.getByTestId('terminal-state');
  await page.getByTestId('run-program').click();
  await state.filter({ hasText: 'Waiting for your input' }).waitFor({ timeout: 60000 });
  assert.match(await terminal.textContent(), /2048 in the terminal[\s\S]*Score: 0[\s\S]*Move \(w\/a\/s\/d, q quits\): $/);
  const input = page.getByTestId('terminal-input');
  assert.ok(await input.evaluate((el) => el === document.activeElement), 'the input line has the focus when the program asks');
  await input.fill('a');
  await input.press('Enter');
  await terminal.filter({ hasText: /quits\): a\nScore: \d+/ }).waitFor({ timeout: 10000 });
  await state.filter({ hasText: 'Waiting for your input' }).waitFor({ timeout: 10000 });
  await input.fill('q');
  await input.press('Enter');
  await state.filter({ hasText: 'The program ended.' }).waitFor({ timeout: 10000 });
  assert.match(await terminal.textContent(), /Bye! Final score: \d+/);
  await shootPane(page, 'terminal-pane', shot);
}

test('a command-line 2048 game in Python: its tests run, fail, are fixed and pass; the Terminal plays it; a looping follow-up is rolled back; offline it still runs', async () => {
  const model = 'e2e-python-2048';
  await script(env.llm, model, [...pythonTurns(), ...loopingFollowUp()]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A command-line 2048 game in Python');
  const started = Date.now();
  await page.getByTestId('start').click();
  await waitDone(page, 'python-run');
  console.log(`# the scripted Python run, Pyodide cold then warm: ${Date.now() - started} ms`);

  // QA's first run failed, with the assertion and the line, and went to Alex.
  const log = await requests(env.llm, model);
  const text = (entry) => entry.messages.map((m) => m.content).join('\n');
  const alexFix = log.filter((e) => text(e).includes('named Alex, your goal'))[1];
  assert.match(text(alexFix), /The tests fail \(round 1 of \d\)/);
  assert.match(text(alexFix), /FAILED tests\/test_game\.py › TestMergeRow\.test_merges_equal_tiles_once: tests\/test_game\.py:11: AssertionError: Tuples differ: \(\[2, 2, 2, 2\], 0\) != \(\[4, 4, 0, 0\], 8\)/);
  assert.match(text(alexFix), /FAILED tests\/test_game\.py › test_left_move_scores_the_merge: tests\/test_game\.py:22: AssertionError: assert game\.move\('left'\)/);
  const mikeLast = log.filter((e) => text(e).includes('named Mike, your goal')).at(-1);
  assert.match(text(mikeLast), /Command Sandbox\.run_tests executed: tests: 4 passed/, 'the rerun passed, as Mike heard it');
  await version(page, 1).waitFor({ state: 'attached', timeout: 15000 });
  assert.match(await version(page, 1).textContent(), /tests: 4 passed/);

  // The Preview tab: no page, the Terminal instead; the tests again by the button (warm).
  await showTab(page, 'preview');
  assert.equal(await page.locator('.preview-empty').count(), 0, 'no "No page yet" for a Python program');
  const warm = Date.now();
  await page.getByTestId('run-tests').click();
  await page.getByTestId('run-tests').filter({ hasText: 'Running tests…' }).waitFor({ timeout: 5000 });
  await page.getByTestId('run-tests').filter({ hasText: 'Run tests' }).waitFor({ timeout: 30000 });
  await page.getByTestId('test-results').filter({ hasText: 'Tests: 4 passed' }).waitFor({ timeout: 1000 });
  console.log(`# Python tests by the button (Pyodide in memory, started afresh in the frame): ${Date.now() - warm} ms`);
  await playInTerminal(page, 'python-1-terminal');

  // A traceback names the project's file and line and can go to the team.
  await page.getByTestId('run-program').click();
  await page.getByTestId('terminal-state').filter({ hasText: 'Waiting for your input' }).waitFor({ timeout: 60000 });
  await page.getByTestId('terminal-input').fill('n');
  await page.getByTestId('terminal-input').press('Enter');
  await page.getByTestId('terminal-state').filter({ hasText: 'The program ended with an error.' }).waitFor({ timeout: 10000 });
  const error = page.getByTestId('terminal-error');
  assert.equal(await error.count(), 1);
  assert.match(await error.textContent(), /AttributeError: type object 'Game' has no attribute 'new_game' \(main\.py:25\)/);
  assert.match(await page.getByTestId('terminal').textContent(), /Traceback \(most recent call last\):\n[\s\S]*File "main\.py", line 25, in main\n    game = Game\.new_game\(\)\nAttributeError/);
  assert.equal(await error.getByTestId('ask-fix').isEnabled(), true, 'the error can go to the team');
  await shootPane(page, 'terminal-pane', 'python-1b-traceback');
  assert.deepEqual(await axeViolations(page, '[data-testid=terminal-pane]'), [], 'the Terminal passes axe');

  // A follow-up that loops for ever: stopped by the limit, marked, rolled back.
  await showTab(page, 'versions');
  await page.getByTestId('follow-up').fill('let a move wait until the board settles');
  await page.getByTestId('send').click();
  await version(page, 2).waitFor({ state: 'attached', timeout: 60000 });
  await waitDone(page, 'python-follow-up');
  const results = await page.getByTestId('test-results').textContent();
  // (A version's line counts a time-out with the failures.)
  assert.match(await version(page, 2).textContent(), /tests: 3 passed, 1 failed/, results);
  assert.match(results, /tests\/test_game\.py › \(time limit\)stopped after 5 s: the tests did not finish/);
  await version(page, 2).getByTestId('breaks-tests').waitFor();
  await shootPane(page, 'versions', 'python-2-breaks-tests');
  await version(page, 2).getByTestId('roll-back').click();
  await version(page, 3).waitFor({ state: 'attached', timeout: 5000 });
  await version(page, 3).filter({ hasText: /restore of version 1.*tests: 4 passed/ }).waitFor({ timeout: 30000 });

  // Offline: the page reloaded with no network; the Terminal runs the game.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await context.setOffline(true);
  // The reload reopens the session this tab had open (issue #32, item 4).
  await page.reload();
  await page.getByTestId('status').filter({ hasText: /Done/ }).waitFor({ timeout: 15000 });
  await showTab(page, 'preview');
  const offline = Date.now();
  await playInTerminal(page, 'python-3-terminal-offline');
  console.log(`# offline: the Terminal's program from Run to its first prompt and the game played: ${Date.now() - offline} ms`);
  // Stop ends a program that waits for input.
  await page.getByTestId('run-program').click();
  await page.getByTestId('terminal-state').filter({ hasText: 'Waiting for your input' }).waitFor({ timeout: 60000 });
  await page.getByTestId('stop-program').click();
  await page.getByTestId('terminal-state').filter({ hasText: 'Stopped.' }).waitFor({ timeout: 2000 });
  assert.equal(await page.getByTestId('terminal-input').isDisabled(), true);
  assert.equal(await page.locator('[data-testid=sandbox-frame][title="Python program"]').count(), 0, 'its frame is gone');
  await context.setOffline(false);
  assert.deepEqual(problems.filter((p) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(p)), [], 'no page errors');
  await context.close();
});
