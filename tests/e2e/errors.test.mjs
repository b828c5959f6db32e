// What a person sees when things go wrong: a bad key, a budget used up, a
// busy provider that says nothing of when to come back, a conversation too
// long for the model, and model output that tries to run script in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, openSettings, closeSettings } from './harness.mjs';

const env = useSiteAndLlm();

async function start(page, model, { team = 'assistant', budget = 3, priceIn = 1, priceOut = 2 } = {}) {
  await configure(page, env.llm, model, { team, budget, priceIn, priceOut, key: 'sk-wrong-key' });
  await page.getByLabel('Your idea').fill('hello there');
  await page.getByTestId('start').click();
}

test('a bad key says so and what to do', async () => {
  const model = 'e2e-401';
  await script(env.llm, model, [{ status: 401, text: 'Incorrect API key provided: sk-wron*******' }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model);
  const status = page.getByTestId('status').filter({ hasText: 'Paused after an error' });
  await status.waitFor({ timeout: 15000 });
  const text = await status.textContent();
  assert.match(text, /The provider rejected the API key\./);
  assert.match(text, /Check the key in Settings, then Resume\./);
  assert.ok(!text.includes('sk-wrong-key'), 'the key is never shown');
  await screenshot(page, 'error-bad-key');
  const log = await requests(env.llm, model);
  assert.equal(log.length, 1, 'a 401 is not retried');
  await context.close();
});

test('a budget used up stops the run with the reason', async () => {
  const model = 'e2e-budget';
  // The first answer costs far more than the budget ($1000 per million tokens).
  await script(env.llm, model, [{ text: 'TASK', usage: { prompt_tokens: 1000, completion_tokens: 1000 } }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model, { budget: 0.5, priceIn: 1000, priceOut: 1000 });
  const status = page.getByTestId('status').filter({ hasText: 'budget is used up' });
  await status.waitFor({ timeout: 15000 });
  assert.match(await status.textContent(), /Raise the budget in Settings, then Resume/);
  await screenshot(page, 'error-budget');
  const log = await requests(env.llm, model);
  assert.equal(log.length, 1, 'no call after the budget ran out');
  await saidOnce(page, 'budget is used up');
  await context.close();
});

/**
 * A pause the person chose is said once, by the status line: no error
 * bubble in the conversation repeats it (issue #30).
 */
async function saidOnce(page, words) {
  assert.equal(await page.locator('.entry.error').count(), 0, 'no error bubble');
  const text = await page.locator('body').innerText();
  assert.equal(text.split(words).length - 1, 1, `"${words}" once on the page:\n${text}`);
}

test('at the call limit the run pauses, said once by the status line', async () => {
  const model = 'e2e-call-limit';
  // The assistant's first call (the request's kind) is the one allowed.
  await script(env.llm, model, [{ text: 'TASK' }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await openSettings(page);
  await page.getByTestId('call-limit').fill('1');
  await page.getByTestId('call-limit').dispatchEvent('change');
  await closeSettings(page);
  await page.getByLabel('Your idea').fill('hello there');
  await page.getByTestId('start').click();
  const status = page.getByTestId('status').filter({ hasText: 'Settings allow a run' });
  await status.waitFor({ timeout: 15000 });
  assert.match(await status.textContent(), /^Paused: the team made the 1 model call Settings allow a run\. What it wrote so far is a version; Resume to let it go on\.$/);
  await page.locator('.entry').first().waitFor();
  await screenshot(page, 'call-limit-pause');
  await saidOnce(page, 'Settings allow');
  assert.equal((await requests(env.llm, model)).length, 1, 'no call past the limit');
  assert.deepEqual(problems.filter((p) => !p.includes('favicon')), [], 'no errors in the page');
  await context.close();
});

/** The status line's text now. */
const statusText = (page) => page.getByTestId('status').textContent();

test('a busy provider without Retry-After is asked again after 5 s, then 10 s, counted down', async () => {
  const model = 'e2e-busy-recovers';
  await script(env.llm, model, [{ status: 503, text: 'Service Unavailable', repeat: 2 }, { text: 'QUICK' }, { text: 'Back after the outage.' }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  // The page's timers on a fake clock: the test moves time on instead of
  // sitting out the waits.
  await page.clock.install();
  await start(page, model);
  const status = page.getByTestId('status');
  await status.filter({ hasText: 'waiting 5 s' }).waitFor({ timeout: 15000 });
  assert.match(await statusText(page), /Tabby is waiting 5 s: the provider is busy \(HTTP 503\)/);
  await page.clock.runFor(1000);
  await status.filter({ hasText: 'waiting 4 s' }).waitFor({ timeout: 5000 });
  await screenshot(page, 'busy-1-countdown');
  assert.equal((await requests(env.llm, model)).length, 1, 'no new try before the wait is over');
  await page.clock.runFor(4500);
  await status.filter({ hasText: 'waiting 10 s' }).waitFor({ timeout: 5000 });
  assert.equal((await requests(env.llm, model)).length, 2, 'the second try came after 5 s; the next wait is 10 s');
  await page.clock.runFor(10500);
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').textContent(), /Back after the outage\./);
  const log = await requests(env.llm, model);
  assert.deepEqual(log.map((e) => e.outcome), ['fault:status=503', 'fault:status=503', 'ok', 'ok']);
  assert.deepEqual(problems.filter((p) => !p.includes('503')), []);
  await context.close();
});

test('a rate limit that outlasts the schedule pauses with "the provider is busy"', async () => {
  const model = 'e2e-busy-pauses';
  await script(env.llm, model, [{ status: 429, text: 'Rate limit reached for requests', repeat: 7 }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await page.clock.install();
  await start(page, model);
  await page.getByTestId('status').filter({ hasText: 'waiting 5 s' }).waitFor({ timeout: 15000 });
  // 5 + 10 + 20 + 40 + 60 + 60 s, a little at a time, as the page would live them.
  for (let s = 0; s < 200 && (await requests(env.llm, model)).length < 7; s += 5) await page.clock.runFor(5000);
  const paused = page.getByTestId('status').filter({ hasText: 'Paused after an error' });
  await paused.waitFor({ timeout: 15000 });
  const text = await paused.textContent();
  assert.match(text, /The provider is busy \(too many requests\); Resume when you want to try again\./);
  assert.doesNotMatch(text, /Fix it|try again later/);
  await screenshot(page, 'busy-2-paused');
  assert.equal((await requests(env.llm, model)).length, 7, 'the first try and six more');
  await context.close();
});

test('a conversation too long for the model says so and names the choices', async () => {
  const model = 'e2e-context-window';
  // What a LiteLLM proxy sends: its advice to its operator must not reach the person.
  const message = "litellm.ContextWindowExceededError: litellm.BadRequestError: This model's maximum context length is 8192 tokens. "
    + 'Received Model Group=gpt-4\nAvailable Model Group Fallbacks=None (Set `context_window_fallback` in your config)';
  await script(env.llm, model, [{ status: 400, error_body: { error: { message, type: null, param: null, code: '400' } } }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model);
  const paused = page.getByTestId('status').filter({ hasText: 'Paused after an error' });
  await paused.waitFor({ timeout: 15000 });
  const text = await paused.textContent();
  assert.match(text, /The conversation is too long for this model\. Choose a model with a larger context window in Settings and Resume, or start a new session\./);
  const shown = await page.locator('body').textContent();
  assert.ok(!shown.includes('context_window_fallback') && !shown.includes('litellm'), 'no operator advice on the page');
  await screenshot(page, 'error-context-window');
  await context.close();
});

test('model output cannot run script in the page', async () => {
  const model = 'e2e-xss';
  const hostile = [
    'Here you go:',
    '<script>window.__pwned = "script"</script>',
    '<img src="x" onerror="window.__pwned = \'img\'">',
    '<iframe srcdoc="<script>parent.__pwned = \'iframe\'</script>"></iframe>',
    '[click me](javascript:window.__pwned=\'link\')',
    '<a href="javascript:window.__pwned=\'a\'">a tag</a>',
  ].join('\n\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: hostile }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await start(page, model);
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  const conversation = page.getByTestId('conversation');
  assert.match(await conversation.textContent(), /window.__pwned = "script"/, 'shown as text');
  for (const selector of ['script', 'img', 'iframe', 'a[href^="javascript"]']) {
    assert.equal(await conversation.locator(selector).count(), 0, `no ${selector} from the model`);
  }
  // Clicking what looks like the links does nothing either.
  await conversation.getByText('click me').first().click();
  await conversation.getByText('a tag').first().click();
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await screenshot(page, 'xss-inert');
  assert.deepEqual(problems.filter((p) => !p.includes('Failed to load resource')), []);
  await context.close();
});
