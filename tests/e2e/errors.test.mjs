// What a person sees when things go wrong: a bad key, a budget used up, and
// model output that tries to run script in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests } from './harness.mjs';

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
  assert.match(text, /rejected the API key/);
  assert.match(text, /check the key in Settings/);
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
  assert.match(await status.textContent(), /Raise the budget in Settings, then resume/);
  await screenshot(page, 'error-budget');
  const log = await requests(env.llm, model);
  assert.equal(log.length, 1, 'no call after the budget ran out');
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
