// The scripted company run that the session tests (sessions.test.mjs,
// duplicate-tab.test.mjs) share: starting it, waiting on the status line,
// what a finished run shows, and the uninterrupted run they compare with.
import assert from 'node:assert/strict';
import { openPage, screenshot, script, configure } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

export const IDEA = 'A 2048 game in HTML and JavaScript';

/** Points the page at `model` (20 rounds) and starts the company on IDEA. */
export async function startRun(env, page, model) {
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill(IDEA);
  await page.getByTestId('start').click();
}

/** Waits until the status line matches `pattern`; else screenshot `<shot>-failed` and say what it showed. */
export async function waitForStatus(page, pattern, { shot, timeout = 30000 }) {
  try {
    await page.getByTestId('status').filter({ hasText: pattern }).waitFor({ timeout });
  } catch (e) {
    await screenshot(page, `${shot}-failed`);
    throw new Error(`status never matched ${pattern}: "${await page.getByTestId('status').textContent().catch(() => '?')}"`);
  }
}

/** What a finished run shows: the conversation (answers abandoned by a reload left out), the plan, the files. */
export async function finalState(page) {
  const entries = await page.locator('[data-testid=conversation] article').evaluateAll((articles) =>
    articles.map((a) => a.innerText.replace(/\s+/g, ' ').trim()).filter((t) => !t.includes('abandoned when the tab closed')));
  const plan = (await page.getByTestId('plan').innerText()).replace(/\s+/g, ' ');
  const files = (await page.getByTestId('files').innerText()).replace(/\s+/g, ' ');
  return { entries, plan, files };
}

/** Polls `condition` every 50 ms until it holds, failing after `timeout` ms. */
export async function waitFor(condition, what, timeout = 15000) {
  const end = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The company run uninterrupted, scripted as `model`, in a page of its
 * own: what it shows once done (the session listed as finished, no page
 * problems).
 */
export async function referenceRun(env, model) {
  await script(env.llm, model, companyTurns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await startRun(env, page, model);
  await waitForStatus(page, 'Done', { shot: model });
  const reference = await finalState(page);
  assert.ok(reference.entries.length > 8, 'a real conversation');
  await page.locator('[data-testid=session][data-status=finished]').first().waitFor({ state: 'attached' });
  assert.deepEqual(problems, []);
  await context.close();
  return reference;
}
