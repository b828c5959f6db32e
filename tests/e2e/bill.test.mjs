// The bill per role and per version (issue #33, item 6) and the model's
// window in Settings (item 1). A company run on the Anthropic preset
// against the scripted server, whose stream reports each call's usage
// (cache reads and writes included), then a follow-up: the Versions tab
// shows what each version cost per role, the same after a reload, and the
// session export holds the same bill. Settings: a model nobody knows says
// its safe default; figures given are checked in words and kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  useSiteAndLlm, openPage, screenshot, screenshotDir, script, requests, configureAnthropic, openSettings, closeSettings, showTab, showSessions,
  roleZeroAnswer as answer,
} from './harness.mjs';
import { cmd, end, oneTaskByRole } from './scripts/one-task.mjs';

const env = useSiteAndLlm();

// Priced by the table's `claude-sonnet-4` row: $3 in, $15 out, cache reads
// $0.30, cache writes $3.75 per million tokens.
const MODEL = 'claude-sonnet-4-e2e-bill';
const PRICE = { input: 3, output: 15, read: 0.3, write: 3.75 };


const PAGE = '<!doctype html>\n<html>\n<body>\n<h1>Hello</h1>\n</body>\n</html>\n';

// Each call's usage, made different per call so a sum in the wrong place shows.
const usage = (i) => ({ input_tokens: 100 + 10 * i, cache_read_input_tokens: 1000 * i, cache_creation_input_tokens: i === 0 ? 900 : 50, output_tokens: 20 + i });

const calls = [
  ...oneTaskByRole('1', 'Write the page', [cmd('Editor.write', { path: 'index.html', content: PAGE })], 'The page is ready.'),
  ...oneTaskByRole('2', 'Make the title red', [cmd('Editor.replace', { path: 'index.html', old: '<h1>', new: '<h1 style="color:red">' })], 'The title is red.'),
].map(([role, turn], i) => ({ role, turn: { ...turn, usage: usage(i) }, version: i < 4 ? 1 : 2 }));

/** What each version should bill each role: {version: {role: {calls, in, cached, out, dollars}}}. */
function expectedBill() {
  const bill = {};
  for (const [i, c] of calls.entries()) {
    const u = usage(i);
    const line = ((bill[c.version] ??= {})[c.role] ??= { calls: 0, in: 0, cached: 0, out: 0, dollars: 0 });
    line.calls += 1;
    line.in += u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    line.cached += u.cache_read_input_tokens;
    line.out += u.output_tokens;
    line.dollars += (u.input_tokens * PRICE.input + u.cache_read_input_tokens * PRICE.read + u.cache_creation_input_tokens * PRICE.write + u.output_tokens * PRICE.output) / 1e6;
  }
  return bill;
}

const grouped = (n) => n.toLocaleString('en-US');
const version = (page, n) => page.locator(`[data-testid=version][data-number="${n}"]`);

/** The bill table of version `n` as the page shows it: {role: [calls, in, cached, out, dollars]}. */
async function shownBill(page, n) {
  const bill = version(page, n).getByTestId('version-bill');
  if (!(await bill.evaluate((d) => d.open))) await bill.locator('summary').click();
  return bill.getByTestId('bill-role').evaluateAll((rows) => Object.fromEntries(rows.map((r) => [r.dataset.role, [...r.querySelectorAll('td')].slice(1).map((td) => td.textContent)])));
}

function wantShown(bill) {
  return Object.fromEntries(Object.entries(bill).map(([role, l]) => [role, [String(l.calls), grouped(l.in), grouped(l.cached), grouped(l.out), `$${l.dollars.toFixed(4)}`]]));
}

/** Waits for the status to say `done` (for a follow-up, its own version's
 * words: the status says "Done" from the run before until it starts). */
async function waitDone(page, shot, done = 'Done') {
  try {
    await page.getByTestId('status').filter({ hasText: done }).waitFor({ timeout: 60000 });
  } catch (e) {
    await screenshot(page, `${shot}-failed`);
    const log = await requests(env.llm, MODEL);
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; ${log.length} requests`);
  }
}

test('the Versions tab and the export show what each version cost, per role', async () => {
  await script(env.llm, MODEL, calls.map((c) => c.turn));
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await configureAnthropic(page, env.llm, MODEL);
  await closeSettings(page);
  await page.getByLabel('Your idea').fill('A page with a title');
  await page.getByTestId('start').click();
  await waitDone(page, 'bill-first');
  await page.getByTestId('follow-up').fill('make the title red');
  await page.getByTestId('follow-up').press('Enter');
  await version(page, 2).waitFor({ state: 'attached', timeout: 60000 });
  await waitDone(page, 'bill-follow-up', 'Done: version 2');
  assert.equal((await requests(env.llm, MODEL)).length, calls.length, 'every scripted call made, no more');

  const want = expectedBill();
  await showTab(page, 'versions');
  for (const n of [1, 2]) assert.deepEqual(await shownBill(page, n), wantShown(want[n]), `version ${n}'s bill`);
  // The folded line says who spent what; the total row adds up to the version's cost.
  const summary = await version(page, 1).getByTestId('version-bill').locator('summary').textContent();
  assert.equal(summary, `Cost by role: Mike $${want[1].Mike.dollars.toFixed(4)} · Alex $${want[1].Alex.dollars.toFixed(4)}`);
  const total2 = want[2].Mike.dollars + want[2].Alex.dollars;
  assert.equal(await version(page, 2).getByTestId('bill-total').locator('td').last().textContent(), `$${total2.toFixed(4)}`);
  await page.getByTestId('versions').screenshot({ path: join(screenshotDir, 'bill-versions-1280x900.png') });

  // Reload: the same bill from the saved session.
  const row = page.locator('[data-testid=session]').filter({ hasText: 'A page with a title' }).first();
  // The reload reopens it by itself: this tab had it open (issue #32, item 4).
  await page.reload();
  await waitDone(page, 'bill-reload');
  await showTab(page, 'versions');
  await version(page, 2).waitFor({ state: 'attached', timeout: 10000 });
  for (const n of [1, 2]) assert.deepEqual(await shownBill(page, n), wantShown(want[n]), `version ${n}'s bill after a reload`);

  // The export holds it too, per version and role.
  await showSessions(page);
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('session-export').click()]);
  const doc = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(doc.bill.map((b) => [b.version, b.kind, b.request]), [[1, 'idea', 'A page with a title'], [2, 'follow_up', 'make the title red']]);
  for (const b of doc.bill) {
    const got = Object.fromEntries(b.roles.map((r) => [r.role, { calls: r.calls, in: r.prompt_tokens, cached: r.cached_tokens, out: r.completion_tokens }]));
    const expected = Object.fromEntries(Object.entries(want[b.version]).map(([role, l]) => [role, { calls: l.calls, in: l.in, cached: l.cached, out: l.out }]));
    assert.deepEqual(got, expected, `the export's bill of version ${b.version}`);
    for (const r of b.roles) assert.ok(Math.abs(r.cost - want[b.version][r.role].dollars) < 1e-9, `${r.role}: $${r.cost}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('Settings takes another model\'s window: a safe default said, figures checked in words and kept', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await openSettings(page);
  await page.getByTestId('preset').selectOption('custom');
  await page.getByTestId('model').fill('my-finetune-7b');
  const note = page.getByTestId('window-note');
  assert.match(await note.textContent(), /^This model's window is not known, so a safe default is used: 16,384 tokens in all, answers up to 4,096\./);
  assert.equal(await page.getByTestId('window-context').getAttribute('placeholder'), '16384');
  assert.equal(await page.getByTestId('window-output').inputValue(), '', 'empty until the person gives one');

  // Too small a window: said in words, in the dialog and on the first card.
  await page.getByTestId('window-context').fill('1000');
  await page.getByTestId('window-context').dispatchEvent('change');
  const error = 'The context window is 1,000 tokens: the team\'s instructions alone need more. Enter at least 2,048 (or empty the field to use 16,384).';
  assert.equal(await page.getByTestId('window-error').textContent(), error);
  await page.getByTestId('window-context').screenshot({ path: join(screenshotDir, 'window-field.png') });
  await page.getByTestId('settings').screenshot({ path: join(screenshotDir, 'window-error-1280x900.png') });

  // Good figures: used, said so, and kept after a reload.
  await page.getByTestId('window-context').fill('32000');
  await page.getByTestId('window-context').dispatchEvent('change');
  await page.getByTestId('window-output').fill('2048');
  await page.getByTestId('window-output').dispatchEvent('change');
  assert.equal(await page.getByTestId('window-error').count(), 0);
  assert.match(await note.textContent(), /^Using your figures: 32,000 tokens in all, answers up to 2,048\./);
  // Settings are kept when a run starts, as every other setting is.
  for (const [id, value] of [['price-in', 1], ['price-out', 2]]) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  await page.getByTestId('base-url').fill(`${env.llm.url}/v1`);
  await page.getByTestId('key').fill('sk-e2e-test-key');
  await closeSettings(page);
  await script(env.llm, 'my-finetune-7b', [{ text: 'TASK' }, { text: answer('Nothing to do.', [end()]) }, { text: answer('Done.', [cmd('RoleZero.reply_to_human', { content: 'Nothing to build.' }), end()]), repeat: 5 }]);
  await page.getByLabel('Your idea').fill('Say hello');
  await page.getByTestId('start').click();
  await page.getByTestId('status').waitFor({ timeout: 15000 });
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await openSettings(page);
  assert.equal(await page.getByTestId('window-context').inputValue(), '32000');
  assert.equal(await page.getByTestId('window-output').inputValue(), '2048');
  // Emptied: the safe default again.
  await page.getByTestId('window-context').fill('');
  await page.getByTestId('window-context').dispatchEvent('change');
  assert.equal(await page.getByTestId('window-output').inputValue(), '');
  assert.match(await note.textContent(), /^This model's window is not known/);
  // A known model says its own figures.
  await page.getByTestId('model').fill('gpt-4o-mini');
  assert.equal(await note.textContent(), 'Known for this model: 128,000 tokens in all, answers up to 16,384. Enter smaller figures to send less.');
  await closeSettings(page);
  assert.deepEqual(problems.filter((p) => p.startsWith('pageerror')), []);
  await context.close();
});
