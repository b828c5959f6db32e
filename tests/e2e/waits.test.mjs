// A provider that rate-limits: the status line says how long the team waits
// and why, the wait clears when the call proceeds, and the run recovers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests } from './harness.mjs';

const env = useSiteAndLlm();

test('a 429 with Retry-After shows the wait and the run recovers', async () => {
  const model = 'e2e-429';
  await script(env.llm, model, [
    { status: 429, text: 'Rate limit reached, slow down', headers: { 'retry-after': '3' } },
    { text: 'QUICK' },
    { text: 'Hello again, after the wait.' },
  ]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('hello there');
  await page.getByTestId('start').click();

  const waiting = page.getByTestId('status').filter({ hasText: 'waiting 3 s: rate limited by the provider' });
  await waiting.waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('status').textContent(), /^Tabby is waiting 3 s: rate limited by the provider$/);
  await screenshot(page, 'wait-1-rate-limited');

  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 20000 });
  assert.doesNotMatch(await page.getByTestId('status').textContent(), /waiting/);
  assert.match(await page.getByTestId('conversation').textContent(), /Hello again, after the wait\./);
  await screenshot(page, 'wait-2-recovered');

  const log = await requests(env.llm, model);
  assert.deepEqual(log.map((e) => e.outcome), ['fault:status=429', 'ok', 'ok']);
  assert.deepEqual(log[0].messages, log[1].messages, 'the same call, tried again');
  assert.deepEqual(problems.filter((p) => !p.includes('429')), []);
  await context.close();
});

test('Stop during a long rate-limit wait stops at once; Resume recovers', async () => {
  const model = 'e2e-429-stop';
  await script(env.llm, model, [{ status: 429, text: 'Rate limit reached', headers: { 'retry-after': '50' } }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('hello there');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'waiting 50 s' }).waitFor({ timeout: 15000 });
  const pressed = Date.now();
  await page.getByTestId('stop').click();
  await page.getByTestId('status').filter({ hasText: 'Stopped by you' }).waitFor({ timeout: 5000 });
  assert.ok(Date.now() - pressed < 5000, 'stopped without sitting out the wait');
  assert.equal((await requests(env.llm, model)).length, 1, 'no request after Stop');
  await screenshot(page, 'wait-3-stopped');

  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Back after the stop.' }]);
  await page.getByTestId('resume').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').textContent(), /Back after the stop\./);
  assert.deepEqual(problems.filter((p) => !p.includes('429')), []);
  await context.close();
});

// Issue #32, item 9: a 500 that never goes away is not "busy". The server's
// own message shows from the first failure on, and the second identical 500
// stops the call with that error (Resume to try again) instead of about
// three minutes of silent retries; a 503 keeps its retries (see above).
test('the same 500 twice shows the server message and pauses with the error at once', async () => {
  const model = 'e2e-500';
  const said = 'An internal error has occurred. Please retry or report in the troubleshooting guide';
  await script(env.llm, model, [{ status: 500, text: said, repeat: 2 }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('hello there');
  const started = Date.now();
  await page.getByTestId('start').click();

  const status = page.getByTestId('status');
  await status.filter({ hasText: 'An internal error has occurred' }).filter({ hasText: 'waiting' }).waitFor({ timeout: 15000 });
  assert.match(await status.textContent(), /^Tabby is waiting \d s: the provider failed \(HTTP 500\); it said “An internal error has occurred\. Please retry/);
  await screenshot(page, 'wait-4-server-error-first');

  await status.filter({ hasText: 'Paused after an error' }).waitFor({ timeout: 15000 });
  assert.ok(Date.now() - started < 14000, 'paused after one short wait, not minutes of retries');
  const text = await status.textContent();
  assert.match(text, /The provider failed twice in a row with the same error \(HTTP 500\)\. The provider said: “An internal error has occurred\. Please retry/);
  assert.match(text, /then Resume/);
  assert.ok(await page.getByTestId('resume').isEnabled(), 'Resume is offered');
  await screenshot(page, 'wait-5-server-error-paused');
  const log = await requests(env.llm, model);
  assert.deepEqual(log.map((e) => e.outcome), ['fault:status=500', 'fault:status=500']);

  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Working again.' }]);
  await page.getByTestId('resume').click();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').textContent(), /Working again\./);
  assert.deepEqual(problems.filter((p) => !p.includes('500')), []);
  await context.close();
});
