// What models write runs in the tab (issue #35), end to end in Chromium with
// a local package CDN of real npm packages (tests/support/package-server.mjs):
// a Vite-shaped React + TypeScript + Tailwind project with a chart.js chart
// previews, a click changes the count, the Tailwind class colours the
// button, and its vitest-style tests (a .ts module, a package) pass; then
// the package server is stopped, the browser goes offline, the page is
// reloaded, and the same project still previews and tests from the
// browser's package cache. A Preact + htm page previews too, and its
// node:fs import gives a readable line in the console and reaches the
// engineer.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, requests, openSettings, closeSettings, showTab, showSessions } from './harness.mjs';
import { startPackageServer } from '../support/package-server.mjs';
import { REACT_PROJECT, PREACT_PROJECT, projectTurns } from './scripts/stacks.mjs';

const env = useSiteAndLlm();
// Each test has its own package server (the first one stops its server).
const servers = [];
after(async () => {
  for (const server of servers) await server.close();
});
async function packageServer() {
  const server = await startPackageServer();
  servers.push(server);
  return server;
}

const previewFrame = (page) => page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');
const shootPane = (page, name) => page.getByTestId('preview').screenshot({ path: join(screenshotDir, `${name}.png`) });

async function runTeam(page, model, idea, cdn) {
  await configure(page, env.llm, model, { rounds: 20 });
  await openSettings(page);
  await page.getByTestId('package-cdn').fill(cdn.url);
  await page.getByTestId('package-cdn').dispatchEvent('change');
  await closeSettings(page);
  await page.getByLabel('Your idea').fill(idea);
  const started = Date.now();
  await page.getByTestId('start').click();
  try {
    await page.getByTestId('status').filter({ hasText: /Done: version \d+/ }).waitFor({ timeout: 90000 });
  } catch (e) {
    await screenshot(page, `stacks-${model}-failed`);
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"`);
  }
  return started;
}

test('a React + TypeScript + Tailwind project previews and tests, then again offline from the package cache', async () => {
  const model = 'e2e-stacks-react';
  await script(env.llm, model, projectTurns(REACT_PROJECT));
  const cdn = await packageServer();
  const { page, context } = await openPage(env.browser, env.site.url);
  const started = await runTeam(page, model, 'A click counter with a chart of the clicks, in React and TypeScript with Tailwind', cdn);
  await showTab(page, 'preview');
  const frame = previewFrame(page);
  const button = frame.locator('#count');
  await button.waitFor({ timeout: 30000 });
  console.log(`# run + first preview: ${Date.now() - started} ms`);
  assert.equal(await button.textContent(), 'Clicked 0 times');
  await button.click();
  await button.filter({ hasText: 'Clicked 1 times' }).waitFor({ timeout: 5000 });
  // Tailwind's bg-blue-500 (its browser build, from the package cache).
  const colour = await button.evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.match(colour, /^(rgb\(59, 130, 246\)|oklch\(0\.623 0\.214 259\.815\)|color\(srgb 0\.23\d* 0\.51\d* 0\.96\d*\))$/, `the button is Tailwind's blue-500, not ${colour}`);
  assert.equal(await frame.locator('canvas').count(), 1, 'chart.js drew into its canvas');
  await page.getByTestId('console').filter({ hasText: 'chart ready in development mode' }).waitFor({ timeout: 5000 });
  await shootPane(page, 'stacks-1-react-preview');

  // The version's tests ran in the sandbox: the .ts module and the package imported.
  await page.getByTestId('run-tests').click();
  await page.getByTestId('test-results').filter({ hasText: 'Tests: 2 passed' }).waitFor({ timeout: 20000 });
  const log = await requests(env.llm, model);
  const text = (entry) => entry.messages.map((m) => m.content).join('\n');
  const mikeLast = log.filter((e) => text(e).includes('named Mike, your goal')).at(-1);
  assert.match(text(mikeLast), /Command Sandbox\.run_tests executed: tests: 2 passed/);
  const alex = log.find((e) => text(e).includes('named Alex, your goal'));
  assert.match(text(alex), /What runs: the project runs in the person's browser tab/, 'the engineer was told what runs');
  const fetched = cdn.requests.map((r) => r.split('?')[0]);
  for (const module of ['/react@18.3.1', '/react-dom@18.3.1/client', '/chart.js@4.6.1/auto', '/chart.js@4.6.1', '/@tailwindcss/browser@4/dist/index.global.js']) {
    assert.ok(fetched.includes(module), `${module} came from the package server: ${fetched.join(' ')}`);
  }

  // Offline: the package server gone, the browser offline, the page reloaded.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await cdn.close();
  const before = cdn.requests.length;
  await context.setOffline(true);
  const reloaded = Date.now();
  // The reload reopens the session this tab had open (issue #32, item 4).
  await page.reload();
  await page.getByTestId('status').filter({ hasText: /Done/ }).waitFor({ timeout: 15000 });
  await showTab(page, 'preview');
  const again = previewFrame(page).locator('#count');
  await again.waitFor({ timeout: 30000 });
  console.log(`# reload offline + preview from the cache: ${Date.now() - reloaded} ms`);
  await again.click();
  await again.filter({ hasText: 'Clicked 1 times' }).waitFor({ timeout: 5000 });
  assert.match(await again.evaluate((b) => getComputedStyle(b).backgroundColor), /^(rgb\(59, 130, 246\)|oklch|color\(srgb)/);
  await page.getByTestId('run-tests').click();
  await page.getByTestId('test-results').filter({ hasText: 'Tests: 2 passed' }).waitFor({ timeout: 20000 });
  assert.equal(cdn.requests.length, before, 'nothing reached the (closed) package server');
  await shootPane(page, 'stacks-2-react-offline');
  await context.setOffline(false);
  await context.close();
});

test('a Preact + htm page previews; its node:fs import is said in words to the person and the engineer', async () => {
  const model = 'e2e-stacks-preact';
  await script(env.llm, model, projectTurns(PREACT_PROJECT, { testRounds: 2 }));
  const cdn = await packageServer();
  const { page, context } = await openPage(env.browser, env.site.url);
  await runTeam(page, model, 'A todo list with Preact and htm', cdn);
  await showTab(page, 'preview');
  const frame = previewFrame(page);
  try {
    await frame.locator('#todos li').first().waitFor({ timeout: 30000 });
  } catch (e) {
    await shootPane(page, 'stacks-preact-failed');
    throw new Error(`no todo list; the console says: ${await page.getByTestId('console').textContent().catch(() => '(none)')}`);
  }
  await frame.locator('#add').click();
  await frame.locator('#todos li').nth(1).waitFor({ timeout: 5000 });
  assert.equal(await frame.locator('#todos li').nth(1).textContent(), 'Item 2');
  const console_ = page.getByTestId('console');
  await console_.filter({ hasText: 'src/store.ts imports "node:fs", a Node.js built-in module' }).waitFor({ timeout: 5000 });
  await shootPane(page, 'stacks-3-preact-node-fs');
  const log = await requests(env.llm, model);
  const text = (entry) => entry.messages.map((m) => m.content).join('\n');
  const alexFix = log.filter((e) => text(e).includes('named Alex, your goal')).at(-1);
  assert.match(text(alexFix), /src\/store\.ts imports "node:fs", a Node\.js built-in module; the project runs in the browser tab/, 'the engineer got the words');
  await context.close();
});
