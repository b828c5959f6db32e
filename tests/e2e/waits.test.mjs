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
