// The folded summary (issue #33, item 3): when a role's history no longer
// fits its model's window, the model writes a summary that replaces its
// older part. The conversation shows it folded under one line ("Earlier
// work summarised (N messages)"), the model's words inside, never the
// prompt that asked for it; the same after a reload. The window is made
// small in Settings (the person's own figures) after the first request,
// just above the largest prompt that request sent, so the follow-up, whose
// history is longer, must be condensed. The scripted server answers every
// summary request (matched by the summary prompt's words) with one text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, script, requests, configure, openSettings, closeSettings } from './harness.mjs';
import { cmd, oneTask } from './scripts/one-task.mjs';

const env = useSiteAndLlm();

const MODEL = 'e2e-summary';
// The first words of `rolezero/prompts/condense.md`, and how a summary opens in a prompt (`SUMMARY_HEADING`).
const ASKS_SUMMARY = 'The conversation above is getting too long to send again';
const HEADING = '[Summary of the earlier work in this project, written by you]';
const SUMMARY = 'The person asked for a page with a title; Alex wrote index.html and Mike told the person it was ready.';

const PAGE = `<!doctype html>\n<html>\n<body>\n<h1>Hello</h1>\n${'<p>A paragraph of the page, long enough to weigh in the history.</p>\n'.repeat(160)}</body>\n</html>\n`;

/** The estimate `core::window` makes of a request: 3 bytes a token, 4 a turn. */
const estimate = (messages) => messages.reduce((sum, m) => sum + Math.ceil(Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) / 3) + 4, 0);

const conversationText = (page) => page.getByTestId('conversation').evaluate((el) => {
  const copy = el.cloneNode(true);
  copy.querySelectorAll('details.commands').forEach((d) => d.remove());
  return copy.textContent;
});

/** Waits for the status to say `done` (for a follow-up, its own version's
 * words: the status says "Done" from the run before until it starts). */
async function waitDone(page, shot, done = 'Done') {
  try {
    await page.getByTestId('status').filter({ hasText: done }).waitFor({ timeout: 60000 });
  } catch (e) {
    await screenshot(page, `${shot}-failed`);
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; ${(await requests(env.llm, MODEL)).length} requests`);
  }
}

test('a condensed history shows as a folded summary, live and after a reload', async () => {
  await script(env.llm, MODEL, [
    { match: ASKS_SUMMARY, text: SUMMARY, repeat: 50 },
    ...oneTask('1', 'Write the page', [cmd('Editor.write', { path: 'index.html', content: PAGE })], 'The page is ready.'),
    ...oneTask('2', 'Make the title red', [cmd('Editor.replace', { path: 'index.html', old: '<h1>', new: '<h1 style="color:red">' })], 'The title is red.'),
  ]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, MODEL, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A page with a title');
  await page.getByTestId('start').click();
  await waitDone(page, 'summary-first');
  const first = await requests(env.llm, MODEL);
  assert.ok(!first.some((r) => r.messages.at(-1).content.startsWith(ASKS_SUMMARY)), 'nothing condensed on the default window');
  assert.equal(await page.getByTestId('summary').count(), 0);

  // A window just above the largest prompt so far: the follow-up's longer history does not fit.
  const largest = Math.max(...first.map((r) => estimate(r.messages)));
  await openSettings(page);
  await page.getByTestId('window-context').fill(String(largest + 300));
  await page.getByTestId('window-context').dispatchEvent('change');
  await page.getByTestId('window-output').fill('256');
  await page.getByTestId('window-output').dispatchEvent('change');
  assert.equal(await page.getByTestId('window-error').count(), 0, `a window of ${largest + 300} is accepted`);
  await closeSettings(page);
  await page.getByTestId('follow-up').fill('make the title red');
  await page.getByTestId('follow-up').press('Enter');
  await waitDone(page, 'summary-follow-up', 'Done: version 2');

  const all = await requests(env.llm, MODEL);
  const asked = all.filter((r) => r.messages.at(-1).content.startsWith(ASKS_SUMMARY));
  assert.ok(asked.length >= 1, 'the history was condensed');
  assert.ok(all.some((r) => r.messages.some((m) => typeof m.content === 'string' && m.content.startsWith(HEADING))), 'a later prompt starts from the summary');
  for (const r of all.slice(first.length)) assert.ok(estimate(r.messages) <= largest + 300 - 256, 'every prompt fits the window');

  // Folded: one line, the model's words inside, no prompt text anywhere.
  const summaries = page.getByTestId('summary');
  const n = await summaries.count();
  assert.equal(n, asked.length, 'one folded summary per condensation');
  const label = (await summaries.first().locator('summary').innerText()).replace(/\s+/g, ' ').trim();
  assert.match(label, /^(Mike|Alex) Earlier work summarised \(\d+ messages?\)$/);
  assert.equal(await summaries.first().locator('details').evaluate((d) => d.open), false, 'closed at first');
  assert.equal(await summaries.first().getByText(SUMMARY).isVisible(), false);
  const text = await conversationText(page);
  assert.ok(!text.includes(ASKS_SUMMARY) && !text.includes(HEADING), 'no prompt text in the conversation');
  await summaries.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(screenshotDir, 'summary-closed-1280x900.png') });
  await summaries.first().locator('summary').click();
  assert.equal(await summaries.first().getByText(SUMMARY).isVisible(), true, 'open, it shows the summary');
  await page.screenshot({ path: join(screenshotDir, 'summary-open-1280x900.png') });
  const live = await summaries.evaluateAll((els) => els.map((e) => e.querySelector('summary').textContent));

  // Reopened: the same summaries, folded again.
  // The reload reopens it by itself: this tab had it open (issue #32, item 4).
  await page.reload();
  await waitDone(page, 'summary-reload');
  await summaries.first().waitFor({ state: 'attached', timeout: 10000 });
  assert.deepEqual(await summaries.evaluateAll((els) => els.map((e) => e.querySelector('summary').textContent)), live);
  assert.equal(await summaries.first().locator('details').evaluate((d) => d.open), false);
  assert.deepEqual(problems.filter((p) => p.startsWith('pageerror')), []);
  await context.close();
});
