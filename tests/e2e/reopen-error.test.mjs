// A session paused by an error and reopened after a reload says what
// happened (not "Stopped by you"), and Resume without the key (not
// remembered) asks for it instead of sending a request bound to fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, openSettings, closeSettings, showSessions } from './harness.mjs';

const env = useSiteAndLlm();

test('an error survives a reload, and Resume asks for the key it needs', async () => {
  const model = 'e2e-reopen-401';
  await script(env.llm, model, [{ status: 401, text: 'Incorrect API key provided' }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant', budget: 3, priceIn: 1, priceOut: 2, key: 'sk-not-remembered' });
  // A provider that needs a key (OpenAI's preset), pointed at the local server.
  await openSettings(page);
  await page.getByTestId('preset').selectOption('openai');
  await page.getByTestId('base-url').fill(`${env.llm.url}/v1`);
  await page.getByTestId('model').fill(model);
  for (const [id, value] of [['price-in', 1], ['price-out', 2]]) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  await page.getByTestId('key').fill('sk-not-remembered');
  await closeSettings(page);
  await page.getByLabel('Your idea').fill('hello there');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'Paused after an error' }).waitFor({ timeout: 15000 });

  await page.reload();
  await showSessions(page);
  const row = page.getByTestId('session').first();
  await row.waitFor({ timeout: 15000 });
  assert.equal(await row.getAttribute('data-status'), 'paused');
  await row.getByTestId('session-open').click();
  const status = page.getByTestId('status');
  await status.filter({ hasText: 'Paused after an error' }).waitFor({ timeout: 15000 });
  const text = await status.textContent();
  assert.match(text, /The provider rejected the API key\./, text);
  assert.doesNotMatch(text, /Stopped by you/);
  await screenshot(page, 'reopen-error-1-status');

  // "Remember" was off: the key is gone after the reload; the note opens Settings.
  await page.getByTestId('resume').click();
  const note = page.getByTestId('resume-note');
  await note.waitFor({ timeout: 5000 });
  assert.equal(await note.textContent(), 'Enter your API key in Settings to resume.');
  await page.getByTestId('resume-settings').click();
  assert.equal(await page.getByTestId('key').inputValue(), '');
  assert.match(await page.getByTestId('key').getAttribute('class'), /needs-attention/);
  await screenshot(page, 'reopen-error-2-key-needed');
  await page.waitForTimeout(300);
  assert.equal((await requests(env.llm, model)).length, 1, 'no request without a key');

  // Typing the key clears the note.
  await page.getByTestId('key').fill('sk-typed-again');
  assert.equal(await note.count(), 0);
  await context.close();
});
