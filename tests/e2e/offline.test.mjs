// Installable and offline (issue #21): after one visit the service worker
// (www/sw.js, written by scripts/service-worker.mjs) holds the build, and
// the site starts and replays the sample run with the server gone and the
// browser offline: the game runs in the Preview, its tests pass, and the
// design's diagrams draw (the sandboxed frames are srcdoc documents in the
// host frame sandbox/host.html, which the worker serves); a new build (a new app-<hash>/ folder) gets a new cache,
// and the old one is deleted once no tab runs the old build.
//
// Each test serves its own copy of dist/, so it can stop the server or
// change the build under the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSite, cspViolations, screenshot, root, showTab } from './harness.mjs';
import { waitFor } from './company-run.mjs';
import { startStaticServer } from '../support/static-server.mjs';
import { versionedName } from '../../scripts/content-version.mjs';
import { serviceWorker, writeServiceWorker } from '../../scripts/service-worker.mjs';

const TEMPLATE = join(root, 'www', 'sw.js');
const dist = join(root, 'dist');

let env;
const copies = [];
before(async () => {
  env = await startSite();
});
after(async () => {
  await env?.close();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of dist/ served on its own port. */
async function servedCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'tabteam-offline-'));
  copies.push(dir);
  cpSync(dist, dir, { recursive: true });
  return { dir, server: await startStaticServer({ root: dir }) };
}

async function openPage(context, url) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  return { page, problems };
}

/** Waits until the service worker controls `page` (so its install, which fills the cache, is done). */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
}

/** The names of the page's caches, and the paths each holds. */
const cacheContents = (page) => page.evaluate(async () => {
  const out = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    out[name] = (await cache.keys()).map((r) => new URL(r.url).pathname.slice(1)).sort();
  }
  return out;
});

const appFolder = (dir) => readdirSync(dir).find((n) => /^app-[0-9a-f]{12}$/.test(n));

test('after one visit the site starts and replays the sample run with no network', async () => {
  // The build wrote the worker the hook would write now: same files, same version.
  const { version, files, text } = serviceWorker(dist, TEMPLATE);
  assert.equal(readFileSync(join(dist, 'sw.js'), 'utf8'), text);
  assert.ok(files.includes('index.html') && files.includes(`${appFolder(dist)}/split_run.wasm`), `the worker keeps the page and the app: ${files}`);
  // The module `project` (the Preview and the other Project tabs) and the chunk it shares with `run`.
  const app = readdirSync(join(dist, appFolder(dist)));
  const lazyWasm = app.filter((n) => n === 'split_project.wasm' || /^chunk_[0-9]+\.wasm$/.test(n));
  assert.ok(lazyWasm.length >= 2, `the build has the module project and a chunk: ${app}`);
  for (const n of lazyWasm) assert.ok(files.includes(`${appFolder(dist)}/${n}`), `the worker keeps ${n}`);
  for (const f of ['sandbox/host.html', 'sandbox/host.js', 'sandbox/protocol.js', 'sandbox/diagram.js', 'lazy/mermaid/mermaid.min.js', 'manifest.webmanifest']) {
    assert.ok(files.includes(f), `the worker keeps ${f}`);
  }

  const { server } = await servedCopy();
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, problems } = await openPage(context, server.url);
  // The manifest is linked and served.
  const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel=manifest]').href)).json());
  assert.equal(manifest.short_name, 'tabteam');
  assert.equal(manifest.display, 'standalone');
  await controlled(page);
  const cached = await cacheContents(page);
  assert.deepEqual(Object.keys(cached), [`tabteam-${version}`]);
  assert.deepEqual(cached[`tabteam-${version}`], files, 'the cache holds every file of the build');

  // No network at all: the server is gone and the browser is offline.
  await server.close();
  await context.setOffline(true);
  const providerCalls = [];
  page.on('request', (r) => { if (!r.url().startsWith(server.url) && !/^(data|blob):/.test(r.url())) providerCalls.push(r.url()); });
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await page.getByTestId('replay').click();
  await page.getByTestId('replay-banner').waitFor({ timeout: 10000 });
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 90000 });
  const conversation = await page.getByTestId('conversation').textContent();
  assert.ok(conversation.includes('Your 2048 game is ready'), 'the replay played to its end');
  assert.equal(await page.locator('[data-testid=plan] li.done').count(), 5);
  await screenshot(page, 'offline-replay-done');

  // The game it built runs in the Preview, offline, and answers a key.
  await showTab(page, 'preview');
  const game = page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');
  await game.locator('#board .tile').first().waitFor({ timeout: 15000 });
  assert.equal(await game.locator('#board .tile').count(), 16, 'a 4×4 grid');
  await page.getByTestId('console').filter({ hasText: '2048 ready' }).waitFor({ timeout: 5000 });
  await game.locator('#board').click();
  await page.keyboard.press('ArrowLeft');
  await game.locator('#score').filter({ hasText: 'Score: 4' }).waitFor({ timeout: 5000 });
  await screenshot(page, 'offline-preview');
  // Its tests run again, offline, and pass.
  await page.getByTestId('run-tests').click();
  await page.getByTestId('test-results').filter({ hasText: 'Tests: 3 passed' }).waitFor({ timeout: 15000 });
  assert.equal(await page.locator('[data-testid=test-results] li.passed').count(), 3);
  await screenshot(page, 'offline-tests');
  // The design's diagrams draw, offline.
  await showTab(page, 'docs');
  await page.getByTestId('docs').getByRole('button', { name: 'Design' }).click();
  const diagrams = page.getByTestId('doc').locator('figure.diagram');
  await diagrams.nth(1).locator('svg').waitFor({ timeout: 30000 });
  assert.equal(await page.getByTestId('diagram-error').count(), 0, 'every diagram was drawn');
  assert.match(await diagrams.nth(0).locator('svg').textContent(), /Game/);
  assert.match(await diagrams.nth(1).locator('svg').textContent(), /key press/);
  await screenshot(page, 'offline-docs');

  assert.deepEqual(providerCalls, []);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

/** What the post-build hook does for a new build, on `dir`: one changed byte in the app, renamed folder, page, policy, worker. */
function nextBuild(dir) {
  const before = appFolder(dir);
  appendFileSync(join(dir, before, '__wasm_split.js'), '\n// the next build\n');
  const next = versionedName(join(dir, before), 'app');
  renameSync(join(dir, before), join(dir, next));
  let html = readFileSync(join(dir, 'index.html'), 'utf8').split(before).join(next);
  // The inline loader names the folder: the policy's script hashes change with it.
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
  html = html.replace(/'sha256-[^']+'(?: 'sha256-[^']+')*/, hashes.join(' '));
  writeFileSync(join(dir, 'index.html'), html);
  return { folder: next, ...writeServiceWorker(dir, TEMPLATE) };
}

test('a new build gets a new cache, and the old one is deleted once no tab runs the old build', async () => {
  const { dir, server } = await servedCopy();
  const first = writeServiceWorker(dir, TEMPLATE);
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const one = await openPage(context, server.url);
  await controlled(one.page);
  assert.deepEqual(Object.keys(await cacheContents(one.page)), [`tabteam-${first.version}`]);

  const second = nextBuild(dir);
  assert.notEqual(second.version, first.version);
  // The browser finds the new worker; it installs beside the old one and waits for the open tab.
  await one.page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    await registration.update();
  });
  await waitFor(() => one.page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).waiting !== null), 'the new worker to install', 30000);
  assert.deepEqual(Object.keys(await cacheContents(one.page)).sort(), [`tabteam-${first.version}`, `tabteam-${second.version}`].sort(),
    'the old cache stays while a tab runs the old build');
  assert.deepEqual(one.problems, []);
  await one.page.close();

  // The old build's last tab is gone: the new worker takes over and deletes the old cache.
  const two = await openPage(context, server.url);
  await waitFor(async () => (await two.page.evaluate(() => caches.keys())).join() === `tabteam-${second.version}`, 'the old cache to go', 30000);
  const cached = await cacheContents(two.page);
  assert.ok(cached[`tabteam-${second.version}`].includes(`${second.folder}/split_run.wasm`));

  // And offline the new build starts.
  await server.close();
  await context.setOffline(true);
  await two.page.reload();
  await two.page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  const loaded = await two.page.evaluate(() => performance.getEntriesByType('resource')
    .filter((r) => r.name.endsWith('/tabteam-site_bg.wasm')).map((r) => new URL(r.name).pathname.split('/')[1]));
  assert.deepEqual(loaded, [second.folder]);
  assert.deepEqual(two.problems, []);
  await context.close();
});
