// The whole journey a person takes: first visit, settings, an idea, and the
// software company at work against the local scripted LLM server, with a
// screenshot of each stage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, screenshot } from './harness.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

let env;
let llm;
before(async () => {
  env = await startSite();
  llm = await startLlmServer();
});
after(async () => {
  await env?.close();
  await llm?.close();
});

async function script(model, turns) {
  const res = await fetch(`${llm.url}/_control/script`, { method: 'POST', body: JSON.stringify({ key: model, turns }) });
  assert.equal(res.status, 200, await res.text());
}

/** Point the settings at the local server as a custom OpenAI-compatible provider. */
async function configure(page, model, { rounds = 20, budget = 3 } = {}) {
  await page.getByTestId('preset').selectOption('custom');
  await page.getByTestId('base-url').fill(`${llm.url}/v1`);
  await page.getByTestId('model').fill(model);
  await page.getByTestId('price-in').fill('1');
  await page.getByTestId('price-in').dispatchEvent('change');
  await page.getByTestId('price-out').fill('2');
  await page.getByTestId('price-out').dispatchEvent('change');
  await page.getByTestId('key').fill('sk-e2e-test-key');
  await page.getByTestId('rounds').fill(String(rounds));
  await page.getByTestId('rounds').dispatchEvent('change');
  await page.getByTestId('budget').fill(String(budget));
  await page.getByTestId('budget').dispatchEvent('change');
}

test('first visit, settings, idea, and the company builds a 2048 game', async () => {
  const model = 'e2e-company-2048';
  await script(model, companyTurns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { name: 'What it does' }).waitFor({ timeout: 15000 });
  assert.match(await page.textContent('body'), /goes only from this browser to the provider you choose/);
  await screenshot(page, 'journey-1-first-visit');

  // The start button says why it cannot start yet.
  assert.equal(await page.getByTestId('start').isDisabled(), true);
  assert.match(await page.getByTestId('problems').textContent(), /Type your idea/);

  await configure(page, model);
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  await screenshot(page, 'journey-2-settings');
  assert.equal(await page.getByTestId('problems').textContent(), '');
  await page.getByTestId('start').click();

  // The team works: the run ends idle, with the plan done and the files made.
  try {
    await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
  } catch (e) {
    await screenshot(page, 'journey-failed');
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; page errors: ${problems.join(' | ')}`);
  }
  const conversation = await page.getByTestId('conversation').textContent();
  for (const seen of ['A 2048 game in HTML and JavaScript', 'Alice is writing the PRD.', 'Mike → Alice', 'Your 2048 game is ready']) {
    assert.ok(conversation.includes(seen), `conversation shows ${seen}`);
  }
  const plan = await page.getByTestId('plan').textContent();
  assert.match(plan, /Write the PRD/);
  assert.equal((await page.locator('[data-testid=plan] li.done').count()), 3);
  const files = await page.getByTestId('files').textContent();
  for (const f of ['docs/prd.md', 'docs/system_design.md', 'game.js', 'index.html']) assert.ok(files.includes(f), f);
  assert.match(await page.getByTestId('cost').textContent(), /of \$3\.00/);
  await screenshot(page, 'journey-3-done');

  // The PRD renders as markdown.
  await page.getByRole('button', { name: 'docs/prd.md' }).click();
  await page.getByTestId('viewer').locator('h1').waitFor();
  assert.equal(await page.getByTestId('viewer').locator('h1').textContent(), '2048');
  await screenshot(page, 'journey-4-prd');

  // The key went to the provider, and only as the Authorization header.
  const log = await (await fetch(`${llm.url}/_control/log`)).json();
  const mine = log.filter((e) => e.model === model);
  assert.equal(mine.length, companyTurns().length);
  assert.ok(mine.every((e) => e.headers.authorization === `<redacted:${'Bearer sk-e2e-test-key'.length} chars>`));
  assert.deepEqual(problems, []);
  await context.close();
});
