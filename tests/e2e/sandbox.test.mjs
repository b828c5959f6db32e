// The sandbox end to end: the team's 2048 game runs in the preview and
// answers a key press; QA's failing test goes to the engineer, is fixed by
// the scripted reply, and passes; generated code cannot reach the app's
// IndexedDB, storage, key or DOM, nor the network; an endless test is
// stopped by the time limit while the page stays responsive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, requests } from './harness.mjs';
import { debugLoopTurns, hostileTurns } from './scripts/sandbox-2048.mjs';

const env = useSiteAndLlm();

async function runTeam(page, model, idea) {
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill(idea);
  await page.getByTestId('start').click();
  try {
    // "Done: version N …": the version's own test run has ended too (before
    // it the status says "Done; running version N's tests…"), so a click on Run
    // tests below starts the only run.
    await page.getByTestId('status').filter({ hasText: /Done: version \d+/ }).waitFor({ timeout: 60000 });
  } catch (e) {
    await screenshot(page, `sandbox-${model}-failed`);
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"`);
  }
}

// The pane alone, scrolled into view: a full-page shot leaves the
// out-of-process sandbox frame blank when it is below the fold.
const shootPane = (page, name) => page.getByTestId('preview').screenshot({ path: join(screenshotDir, `${name}.png`) });

// The host frame (sandbox/host.html) in the pane, and in it the sandboxed page.
const previewFrame = (page) => page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');

test('the 2048 game runs in the preview; a failing test goes to the engineer and passes after the fix', async () => {
  const model = 'e2e-sandbox-2048';
  await script(env.llm, model, debugLoopTurns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await runTeam(page, model, 'A 2048 game in HTML and JavaScript, tested');

  // The conversation shows the loop: the failure sent to Alex, the fix, the pass.
  const conversation = await page.getByTestId('conversation').textContent();
  for (const seen of ['Edward → Alex', 'The tests fail (round 1 of 3)', 'FAILED tests/game.test.js › merges equal tiles once', 'The 2048 game is ready and its tests pass.']) {
    assert.ok(conversation.includes(seen), `conversation shows ${seen}`);
  }
  const log = await requests(env.llm, model);
  assert.equal(log.length, debugLoopTurns().length, 'every scripted turn used, no more');
  const text = (entry) => entry.messages.map((m) => m.content).join('\n');
  const alexFix = log.filter((e) => text(e).includes('named Alex, your goal'))[1];
  assert.match(text(alexFix), /\[Message\] from Edward: The tests fail \(round 1 of 3\)/);
  assert.match(text(alexFix), /FAILED tests\/game\.test\.js › merges equal tiles once: .*expected \[4,4,0,0\] but got \[2,2,2,2\]/);
  const edwardFirst = log.filter((e) => text(e).includes('named Edward, your goal'));
  assert.equal(edwardFirst.length, 2);
  const mikeLast = log.filter((e) => text(e).includes('named Mike, your goal')).at(-1);
  assert.match(text(mikeLast), /Command Sandbox\.run_tests executed: tests: 3 passed/, 'the rerun passed, as Mike heard it');
  assert.match(text(mikeLast), /Command Sandbox\.read_console executed: \[log\] 2048 ready/);

  // The preview shows the game (rebuilt from the fixed files) and answers a key press.
  const frame = previewFrame(page);
  await frame.locator('#board .tile').first().waitFor({ timeout: 10000 });
  assert.equal(await frame.locator('#board .tile').count(), 16);
  assert.equal(await frame.locator('#score').textContent(), 'Score: 0');
  await page.getByTestId('console').filter({ hasText: '2048 ready' }).waitFor();
  await shootPane(page, 'sandbox-1-preview');
  await frame.locator('#board').click();
  await page.keyboard.press('ArrowLeft');
  await frame.locator('#score').filter({ hasText: 'Score: 4' }).waitFor({ timeout: 5000 });
  assert.equal(await frame.locator('#board .tile').nth(0).textContent(), '4');
  await page.getByTestId('console').filter({ hasText: 'moved left score 4' }).waitFor();
  await shootPane(page, 'sandbox-2-after-key');

  // The button runs the tests again; the results are listed per test.
  await page.getByTestId('run-tests').click();
  await page.getByTestId('test-results').filter({ hasText: 'Tests: 3 passed' }).waitFor({ timeout: 15000 });
  assert.equal(await page.locator('[data-testid=test-results] li.passed').count(), 3);

  // The preview in a tab of its own, still sandboxed.
  const [tab] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-tab').click()]);
  const tabFrame = tab.frameLocator('iframe').frameLocator('iframe');
  await tabFrame.locator('#board .tile').first().waitFor({ timeout: 10000 });
  assert.equal(await tab.frameLocator('iframe').locator('iframe').getAttribute('sandbox'), 'allow-scripts');
  await screenshot(tab, 'sandbox-3-own-tab');
  assert.deepEqual(problems, []);
  await context.close();
});

test('generated code cannot reach the app, and an endless test is stopped in time', async () => {
  const model = 'e2e-sandbox-hostile';
  await script(env.llm, model, hostileTurns(`${env.llm.url}/_control/health`));
  const { page, context } = await openPage(env.browser, env.site.url);
  // Something to steal: a database and a storage entry of the app's origin.
  await page.evaluate(() => new Promise((resolve, reject) => {
    localStorage.setItem('tabteam-e2e-secret', 'secret-value');
    const req = indexedDB.open('tabteam-e2e-secret');
    req.onupgradeneeded = () => req.result.createObjectStore('s');
    req.onsuccess = () => {
      const t = req.result.transaction('s', 'readwrite');
      t.objectStore('s').put('secret-value', 'secret');
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
    };
    req.onerror = () => reject(req.error);
  }));
  // The probe for the health URL really answers from a page (so "blocked" below means the sandbox).
  assert.equal(await page.evaluate(async (url) => (await fetch(url)).status, `${env.llm.url}/_control/health`), 200);
  await runTeam(page, model, 'A page');

  const frame = previewFrame(page);
  await frame.locator('#out').filter({ hasText: 'cookie' }).waitFor({ timeout: 10000 }).catch(async (e) => {
    await screenshot(page, 'sandbox-hostile-failed');
    throw new Error(`the probes did not finish: "${await frame.locator('#out').textContent().catch(() => '?')}"; console: ${await page.getByTestId('console').textContent()}`);
  });
  const out = await frame.locator('#out').textContent();
  for (const what of ['indexedDB', 'localStorage', 'fetch', 'parent DOM', 'top DOM', 'cookie']) {
    assert.match(out, new RegExp(`${what}: blocked \\w+`), `${what} is blocked: ${out}`);
  }
  assert.ok(!out.includes('secret-value') && !out.includes('sk-e2e'), out);
  const consoleText = await page.getByTestId('console').textContent();
  assert.match(consoleText, /indexedDB: blocked SecurityError/);
  await shootPane(page, 'sandbox-4-isolation');

  // Run the tests: the worker's probes are blocked too, and the endless
  // test is stopped at the 5 s limit while the page keeps working.
  const started = Date.now();
  await page.getByTestId('run-tests').click();
  const ticks = await page.evaluate(() => new Promise((resolve) => {
    let n = 0;
    const id = setInterval(() => { n += 1; if (n === 20) { clearInterval(id); resolve(n); } }, 50);
  }));
  const tickMs = Date.now() - started;
  assert.equal(ticks, 20);
  assert.ok(tickMs < 3000, `the page's timers ran on time during the endless test (${tickMs} ms for 20 × 50 ms)`);
  await page.getByTestId('run-tests').filter({ hasText: 'Running tests' }).waitFor({ timeout: 1000 });
  // The version's own report is already shown: the click's run has ended
  // when the button reads "Run tests" again.
  await page.getByTestId('run-tests').filter({ hasText: /^Run tests$/ }).waitFor({ timeout: 20000 });
  const elapsed = Date.now() - started;
  const results = await page.getByTestId('test-results').textContent();
  assert.match(results, /Tests: 1 passed, 1 timed out/);
  assert.match(results, /tests\/loop\.test\.js › \(time limit\)stopped after 5 s/);
  assert.match(results, /tests\/probe\.test\.js › the worker cannot reach the app/);
  // Not stopped early nor late. The limit runs on the page's timers and
  // `elapsed` on this process's wall clock, which can differ by tens of
  // milliseconds on a loaded machine (4,946 ms was seen once): 200 ms of slack.
  assert.ok(elapsed >= 4800 && elapsed < 12000, `stopped at the limit (${elapsed} ms)`);
  // The app still answers clicks.
  await page.getByText('Tokens per role').click();
  await shootPane(page, 'sandbox-5-time-limit');
  await context.close();
});
