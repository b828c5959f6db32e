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
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { startSite, openPage, screenshot, screenshotDir, showTab, showSessions, enterKey, openSettings, closeSettings, root } from './harness.mjs';

const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

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

/** The fragment of a link for `bytes` (already compressed): `#p=1.` + base64url. */
const fragmentOf = (bytes) => `#p=1.${Buffer.from(bytes).toString('base64url')}`;

/** axe's serious and worse violations on `page`, as lines. */
async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => ['critical', 'serious', 'moderate'].includes(v.impact)).map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** The file paths the Code tab lists. */
async function filePaths(page) {
  await showTab(page, 'code');
  const names = await page.locator('[data-testid=files] ul li button.link').allTextContents();
  return names.sort();
}

test('a share link of the replay opens read-only elsewhere, and Make a copy makes a session with the same files and no key', async () => {
  const sender = await openPage(env.browser, env.site.url);
  const page = sender.page;
  await replayed(page);
  // The sender's key never travels with the project.
  await enterKey(page, 'sk-sender-secret-key');
  const files = await filePaths(page);
  assert.ok(files.includes('game.js') && files.includes('index.html'), files.join(', '));
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').inputValue();
  assert.ok(link.startsWith(`${env.site.url}/#p=1.`) || link.startsWith(`${env.site.url}#p=1.`), link.slice(0, 80));
  assert.match(await page.getByTestId('share-made').textContent(), /It holds the project's files \(\d+ KB\), read-only for whoever opens it; never your key or settings/);
  const read = (url) => JSON.parse(inflateRawSync(Buffer.from(url.split('#p=1.')[1], 'base64url')).toString('utf8'));
  assert.equal(read(link).conversation, undefined, 'no conversation unless asked for');
  // With the conversation, as the person read it.
  await page.getByTestId('share-conversation').check();
  await page.getByTestId('share').click();
  await page.getByTestId('share-made').filter({ hasText: 'files and the conversation' }).waitFor();
  const withTalk = await page.getByTestId('share-link').inputValue();
  await page.getByTestId('files').screenshot({ path: join(screenshotDir, 'share-1-link.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('show-project').click();
  await page.getByTestId('files').screenshot({ path: join(screenshotDir, 'share-1-link-phone.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  const payload = read(withTalk);
  assert.deepEqual(Object.keys(payload.files).sort(), files, 'the link carries every file');
  assert.ok(payload.conversation.some((l) => l.who === 'Mike' && l.text.includes('Your 2048 game is ready')), 'and the conversation');
  assert.ok(!JSON.stringify(payload).includes('sk-sender'), 'and no key');
  await sender.context.close();

  // A link without the conversation carries none: not on its page, not in its copy.
  const plain = await openPage(env.browser, link);
  await plain.page.getByTestId('shared-title').waitFor({ timeout: 15000 });
  assert.equal(await plain.page.getByTestId('shared-conversation').count(), 0, 'no conversation on the page');
  await plain.page.getByTestId('shared-copy').click();
  await plain.page.getByTestId('shared-page').waitFor({ state: 'detached', timeout: 15000 });
  await plain.page.getByTestId('conversation').waitFor();
  assert.equal(await plain.page.getByTestId('shared-line').count(), 0, 'no conversation in the copy');
  assert.deepEqual(plain.problems, []);
  await plain.context.close();

  // A fresh browser opens it: the game plays read-only, in the sandbox.
  const { page: other, context, problems } = await openPage(env.browser, withTalk);
  await other.getByTestId('shared-page').waitFor({ timeout: 15000 });
  // The conversation, as text, beside the preview.
  const talk = other.getByTestId('shared-conversation');
  assert.match(await talk.textContent(), /Mike .*Your 2048 game is ready/s, 'the conversation, as text');
  const [preview, beside] = await Promise.all([other.getByTestId('shared-preview').boundingBox(), talk.boundingBox()]);
  assert.ok(beside.x >= preview.x + preview.width - 1 && beside.y < preview.y + preview.height, `beside the preview: ${JSON.stringify([preview, beside])}`);
  assert.match(await other.getByTestId('shared-title').textContent(), /^Shared with you: /);
  assert.equal(await other.getByTestId('first-card').count(), 0, 'no first card: the page is the shared project');
  assert.equal(await other.getByTestId('edit-file').count(), 0, 'nothing to edit');
  const frame = other.frameLocator('[data-testid=shared-preview] iframe').frameLocator('iframe');
  await plays(other, frame);
  assert.deepEqual(await axeViolations(other), [], 'axe: the shared page');
  await screenshot(other, 'share-2-opened');
  await other.setViewportSize({ width: 390, height: 844 });
  await screenshot(other, 'share-2-opened-phone');
  await other.setViewportSize({ width: 1280, height: 900 });

  // Make a copy: a session of this browser with the same files, no key.
  await other.getByTestId('shared-copy').click();
  await other.getByTestId('shared-page').waitFor({ state: 'detached', timeout: 15000 });
  assert.ok(!other.url().includes('#p='), 'the link leaves the address bar');
  assert.deepEqual(await filePaths(other), files);
  await showSessions(other);
  const rows = other.locator('[data-testid=session]');
  assert.equal(await rows.count(), 1);
  assert.match(await rows.first().textContent(), /\(copy\)/);
  // The copy keeps the conversation, as text its team never reads.
  const kept = other.getByTestId('conversation').getByTestId('shared-line');
  assert.equal(await kept.count(), payload.conversation.length, 'every line the link carried');
  assert.ok((await kept.allTextContents()).some((t) => t.includes('Your 2048 game is ready')));
  await showSessions(other, false);
  await openSettings(other);
  assert.equal(await other.getByTestId('key').inputValue(), '', 'no key came with the copy');
  await closeSettings(other);
  await showTab(other, 'preview');
  await plays(other, other.frameLocator('[data-testid=preview] iframe').frameLocator('iframe'));
  await screenshot(other, 'share-3-copy');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a truncated, oversized, bomb or malformed share link says why in words and stores nothing', async () => {
  const project = { title: 'x', idea: 'y', files: { 'index.html': '<p>hi</p>' } };
  const good = fragmentOf(deflateRawSync(Buffer.from(JSON.stringify(project))));
  const cases = [
    ['truncated', good.slice(0, good.length - 6), /This share link is damaged \(perhaps cut short when it was copied\)/],
    ['a decompression bomb', fragmentOf(deflateRawSync(Buffer.alloc(16 * 1024 * 1024, 32))), /unpacks to more than 4 MB .* It was not opened\./],
    ['too long to be a link', `#p=1.${'A'.repeat(140 * 1024)}`, /This share link is 141 KB long, more than a tabteam link can be \(128 KB at most\)/],
    ['not base64url', '#p=1.%%%not-a-link', /This share link is damaged .*: it holds characters a link's data never has/],
    ['not a project', fragmentOf(deflateRawSync(Buffer.from('{"hello": "world"}'))), /This share link does not hold a project: its contents are not a project's/],
    ['a path outside the project', fragmentOf(deflateRawSync(Buffer.from(JSON.stringify({ ...project, files: { '../../etc/passwd': 'x' } })))), /"\.\.\/\.\.\/etc\/passwd" is not a file path a project can have/],
    ['a newer format', '#p=9.AAAA', /made by a newer tabteam \(format 9\)/],
  ];
  const context = await env.browser.newContext();
  for (const [name, hash, said] of cases) {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.site.url}/${hash}`);
    const error = page.getByTestId('shared-error');
    await error.waitFor({ timeout: 15000 });
    assert.match(await error.textContent(), said, name);
    assert.deepEqual(errors, [], name);
    if (name === 'a decompression bomb') await screenshot(page, 'share-4-bomb');
    await page.getByTestId('shared-leave').click();
    await page.getByTestId('first-card').waitFor();
    await showSessions(page);
    assert.equal(await page.locator('[data-testid=session]').count(), 0, `${name}: nothing stored`);
    await page.close();
  }
  await context.close();
});

test('a project too large for a link is offered as one file, its size said', async () => {
  // 80 KB of random text compresses to a link of about 80 KB: readable, too long to make.
  const project = { title: 'Big', idea: 'a page with a big file', files: { 'index.html': '<!doctype html><p id="big">big</p>', 'data.txt': randomBytes(60 * 1024).toString('base64') } };
  const link = `${env.site.url}/${fragmentOf(deflateRawSync(Buffer.from(JSON.stringify(project))))}`;
  const { page, context, problems } = await openPage(env.browser, link);
  await page.getByTestId('shared-copy').click();
  await page.getByTestId('shared-page').waitFor({ state: 'detached', timeout: 15000 });
  await showTab(page, 'code');
  await page.getByTestId('share').click();
  const said = await page.getByTestId('share-error').textContent();
  assert.match(said, /^This project is \d+ KB as a link, more than the 64 KB a link can carry\. Download it as one file instead\.$/);
  assert.ok(Number(/(\d+) KB/.exec(said)[1]) > 64, said);
  assert.equal(await page.getByTestId('share-link').count(), 0, 'no link made');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('share-one-file').click()]);
  assert.match(download.suggestedFilename(), /^big-copy\.html$/);
  const html = readFileSync(await download.path(), 'utf8');
  assert.ok(html.includes('<p id="big">big</p>'), 'the one file holds the page');
  await page.getByTestId('files').screenshot({ path: join(screenshotDir, 'share-5-too-large.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the one-file app carries the project\'s pictures: <img src> and CSS url() of project files, from file:// offline', async () => {
  const logo = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#2563eb"/></svg>';
  const dots = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="3" fill="#f59e0b"/></svg>';
  const project = {
    title: 'Logo',
    idea: 'a page with a logo',
    files: {
      'index.html': '<!doctype html><html><head><link rel="stylesheet" href="css/style.css"></head><body><img id="logo" alt="Logo" src="img/logo.svg"><div id="band">band</div></body></html>',
      'css/style.css': '#band { height: 40px; background: url("../img/dots.svg") repeat; }',
      'img/logo.svg': logo,
      'img/dots.svg': dots,
    },
  };
  const link = `${env.site.url}/${fragmentOf(deflateRawSync(Buffer.from(JSON.stringify(project))))}`;
  const { page, context, problems } = await openPage(env.browser, link);
  await page.getByTestId('shared-copy').click();
  await page.getByTestId('shared-page').waitFor({ state: 'detached', timeout: 15000 });
  await showTab(page, 'code');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('one-file').click()]);
  const path = join(screenshotDir, 'share-one-file-images.html');
  await download.saveAs(path);
  const html = readFileSync(path, 'utf8');
  assert.ok(!/src="(?!data:)|href="(?!data:)/.test(html), 'the picture and the stylesheet are inlined');
  assert.deepEqual(problems, []);
  await context.close();

  const offline = await env.browser.newContext({ offline: true, viewport: { width: 600, height: 300 } });
  const disk = await offline.newPage();
  const fetched = [];
  disk.on('request', (r) => fetched.push(r.url()));
  await disk.goto(pathToFileURL(path).href);
  await disk.locator('#logo').waitFor();
  assert.equal(await disk.locator('#logo').evaluate(async (img) => { await img.decode(); return img.naturalWidth; }), 64, 'the logo shows');
  assert.match(await disk.locator('#band').evaluate((el) => getComputedStyle(el).backgroundImage), /^url\("data:image\/svg\+xml;/, "the stylesheet's url() is inlined");
  await disk.screenshot({ path: join(screenshotDir, 'share-one-file-images.png') });
  assert.deepEqual(fetched.filter((u) => !/^(file|data):/.test(u)), [], 'nothing but the file and its data: URLs');
  await offline.close();
});
