// Per-role models: the engineer on another model. Set in Settings (advanced),
// his calls carry that model, the others keep the team's, and the choice is
// kept with the settings across a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, openSettings, closeSettings } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const env = useSiteAndLlm();

test('the engineer calls his own model; the choice survives a reload', async () => {
  const model = 'e2e-team-model';
  const big = 'e2e-big-model';
  const turns = companyTurns();
  const alex = turns.findIndex((t) => t.text.startsWith('Coding.'));
  assert.ok(alex > 0);
  await script(env.llm, model, turns.filter((_, i) => i !== alex));
  await script(env.llm, big, [turns[alex]]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await openSettings(page);
  await page.getByTestId('role-models').locator('summary').click();
  await page.getByTestId('role-model-Alex').fill(big);
  await page.getByTestId('role-model-Alex').dispatchEvent('change');
  // An unknown model asks for its price before the team can start.
  assert.match(await page.getByTestId('problems').textContent(), /"e2e-big-model" \(Alex's model\)/);
  for (const [id, value] of [['role-price-in-Alex', 5], ['role-price-out-Alex', 10]]) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  await screenshot(page, 'role-models-1-settings');
  await closeSettings(page);
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  assert.equal(await page.getByTestId('problems').textContent(), '');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });

  const mine = await requests(env.llm, model);
  const his = await requests(env.llm, big);
  assert.equal(his.length, 1, 'Alex asked his model once');
  assert.equal(his[0].request_body.model, big);
  assert.ok(JSON.stringify(his[0].messages).includes('Alex'));
  assert.equal(mine.length, turns.length - 1);
  assert.ok(mine.every((e) => e.request_body.model === model));
  await screenshot(page, 'role-models-2-done');

  // Saved with the settings (the key is not, unless asked).
  await page.reload();
  await openSettings(page);
  await page.getByTestId('role-models').locator('summary').click();
  assert.equal(await page.getByTestId('role-model-Alex').inputValue(), big);
  assert.equal(await page.getByTestId('role-price-in-Alex').inputValue(), '5');
  assert.equal(await page.getByTestId('key').inputValue(), '');
  assert.deepEqual(problems, []);
  await context.close();
});
