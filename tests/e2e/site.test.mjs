// The built site renders in Chromium and responds to input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, openPage, screenshot } from './harness.mjs';

let env;
before(async () => {
  env = await startSite();
});
after(async () => {
  await env?.close();
});

test('the site renders from wasm and reacts to typing', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  // The heading is rendered by the wasm app (index.html has none), so its
  // presence proves the module loaded and mounted.
  const heading = page.getByRole('heading', { level: 1 });
  await heading.waitFor({ timeout: 15000 });
  assert.equal(await heading.textContent(), 'tabteam');
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  assert.equal(await page.getByTestId('idea-count').textContent(), '34 characters');
  await screenshot(page, 'site-home');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page works at phone width', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url, { viewport: { width: 390, height: 844 } });
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px at phone width`);
  await screenshot(page, 'site-home-phone');
  assert.deepEqual(problems, []);
  await context.close();
});
