// Sharing what the team built, with no server (issue #34): the app as one
// HTML file that plays when opened from disk with the network off, and a
// share link that carries the project in its fragment (#p=…), opened
// read-only in a fresh browser, copied into a new session of its own, and
// refused in words when it is damaged, too large or a decompression bomb.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSite, openPage, screenshot, screenshotDir, showTab } from './harness.mjs';

let env;
before(async () => {
  env = await startSite();
});
after(async () => {
  await env?.close();
});

/** Play the sample replay to its end (the 2048 game, version 1). */
async function replayed(page) {
  await page.getByTestId('replay').waitFor({ timeout: 15000 });
  await page.getByTestId('replay').click();
  await page.getByTestId('status').filter({ hasText: 'version 1 is ready' }).waitFor({ timeout: 120000 });
}

/** The 2048 game in `frame` plays: a key press changes the score. */
async function plays(page, frame) {
  await frame.locator('#board .tile').first().waitFor({ timeout: 15000 });
  assert.equal(await frame.locator('#board .tile').count(), 16, 'a 4×4 grid');
  assert.equal(await frame.locator('#score').textContent(), 'Score: 0');
  await frame.locator('#board').click();
  await page.keyboard.press('ArrowLeft');
  await frame.locator('#score').filter({ hasText: 'Score: 4' }).waitFor({ timeout: 5000 });
}

test('the one-file app of the replay plays from file:// with the network off', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await replayed(page);
  await showTab(page, 'code');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('one-file').click()]);
  assert.match(download.suggestedFilename(), /\.html$/);
  const path = join(screenshotDir, 'share-one-file.html');
  await download.saveAs(path);
  const html = readFileSync(path, 'utf8');
  assert.ok(!/src="(?!data:)|href="(?!data:)/.test(html), 'every script and stylesheet is inlined');
  assert.equal(await page.getByTestId('storage-note').count(), 0, 'nothing was left out');
  await context.close();

  // A fresh browser context, offline: only the file itself and its data: URLs load.
  const offline = await env.browser.newContext({ offline: true, viewport: { width: 900, height: 800 } });
  const disk = await offline.newPage();
  const fetched = [];
  disk.on('request', (r) => fetched.push(r.url()));
  const errors = [];
  disk.on('pageerror', (e) => errors.push(e.message));
  await disk.goto(pathToFileURL(path).href);
  await plays(disk, disk);
  await disk.screenshot({ path: join(screenshotDir, 'share-one-file.png') });
  assert.deepEqual(fetched.filter((u) => !/^(file|data):/.test(u)), [], 'nothing but the file and its data: URLs');
  assert.deepEqual(errors, []);
  await offline.close();
  assert.deepEqual(problems, []);
});
