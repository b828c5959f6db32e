// Code splitting (issue #7): the page starts from the start-up wasm module
// alone; the module `run` (the team, the run panel, the session actions) is
// fetched after the first render, and a fetch that fails is said in words
// and retried by the next click. The module `project` (the Project side's
// tabs, the share page, the sandbox's work) follows the run module.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSite, cspViolations, root, screenshot } from './harness.mjs';
import { versionedName } from '../../scripts/content-version.mjs';

let env;
before(async () => {
  env = await startSite();
});
after(async () => {
  await env?.close();
});

/** A fresh page; `route` runs before the page loads. */
async function open(route) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (route) await route(context);
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective));
    new MutationObserver((_, observer) => {
      if (document.querySelector('h1')) {
        window.__firstHeading = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  return { context, page, errors };
}

const wasmTimes = (page) => page.evaluate(() => ({
  heading: window.__firstHeading,
  wasm: performance.getEntriesByType('resource')
    .filter((r) => r.name.endsWith('.wasm'))
    .map((r) => ({ name: new URL(r.name).pathname.split('/').pop(), dir: new URL(r.name).pathname.split('/').slice(-2)[0], start: r.startTime })),
}));

test('the app is served from a folder named after its content, which a change renames', async () => {
  const dist = join(root, 'dist');
  const folders = readdirSync(dist).filter((n) => n.startsWith('app'));
  assert.equal(folders.length, 1, `one app folder in dist/: ${folders}`);
  const [folder] = folders;
  assert.match(folder, /^app-[0-9a-f]{12}$/);
  assert.equal(versionedName(join(dist, folder), 'app'), folder, 'the name is the hash of what it holds');
  const { context, page } = await open();
  const html = await (await page.request.get(env.site.url)).text();
  assert.ok(!html.includes('./app/'), 'index.html names no unversioned folder');
  assert.ok(html.includes(`./${folder}/tabteam-site.js`), 'index.html loads the versioned glue');
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('/split_run.wasm')), null, { timeout: 15000 });
  const { wasm } = await wasmTimes(page);
  assert.deepEqual([...new Set(wasm.map((w) => w.dir))], [folder], `every wasm module from ${folder}: ${JSON.stringify(wasm)}`);
  await context.close();
  // One byte changed anywhere in the folder gives it another name.
  const copy = mkdtempSync(join(tmpdir(), 'tabteam-version-'));
  try {
    cpSync(join(dist, folder), copy, { recursive: true });
    assert.equal(versionedName(copy, 'app'), folder);
    writeFileSync(join(copy, '__wasm_split.js'), '// changed\n', { flag: 'a' });
    assert.notEqual(versionedName(copy, 'app'), folder);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test('the first render needs only the start-up module; the run module follows it', async () => {
  const { context, page, errors } = await open();
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('/split_run.wasm')), null, { timeout: 15000 });
  const { heading, wasm } = await wasmTimes(page);
  const names = wasm.map((w) => w.name);
  assert.deepEqual(names.filter((n) => n === 'tabteam-site_bg.wasm'), ['tabteam-site_bg.wasm'], `wasm fetched: ${names}`);
  const run = wasm.find((w) => w.name === 'split_run.wasm');
  assert.ok(run.start > heading, `the run module was fetched at ${run.start} ms, before the first heading at ${heading} ms`);
  // Once it is here, a run starts at once: the replay needs it.
  await page.getByTestId('replay').click();
  await page.getByTestId('replay-banner').waitFor({ timeout: 5000 });
  await page.locator('[data-live=true]').first().waitFor({ timeout: 10000 });
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a run module that cannot be fetched is said, and the next click fetches it', async () => {
  let blocked = true;
  const { context, page } = await open((ctx) =>
    ctx.route('**/split_run.wasm', (route) => (blocked ? route.abort() : route.continue())));
  await page.getByTestId('replay').click();
  const note = page.getByTestId('storage-note');
  await note.waitFor({ timeout: 10000 });
  assert.match(await note.textContent(), /could not be loaded/);
  assert.equal(await page.getByTestId('replay-banner').count(), 0, 'nothing started');
  assert.equal(await page.getByTestId('replay').isEnabled(), true, 'the button can be pressed again');

  blocked = false;
  await page.getByTestId('replay').click();
  await page.getByTestId('replay-banner').waitFor({ timeout: 10000 });
  await page.locator('[data-live=true]').first().waitFor({ timeout: 10000 });
  assert.match(await page.getByTestId('status').textContent(), /^Replay · /);
  assert.equal(await note.count(), 0, 'the note went once the module came');
  await context.close();
});

test('the module project (the Project side, the sandbox) follows the run module; one that cannot be fetched is said in its tab and fetched again by "Try again"', async () => {
  let blocked = true;
  const { context, page, errors } = await open((ctx) =>
    ctx.route('**/split_project.wasm', (route) => (blocked ? route.abort() : route.continue())));
  await page.getByTestId('replay').click();
  // The run's answers do not wait for it.
  await page.getByTestId('replay-banner').waitFor({ timeout: 10000 });
  await page.locator('[data-live=true]').first().waitFor({ timeout: 10000 });
  const failed = page.locator('#panel-preview').getByTestId('project-load-failed');
  await failed.waitFor({ timeout: 10000 });
  assert.match(await failed.textContent(), /^The project's views could not be loaded \(offline\?\)\. Try again$/);
  assert.equal(await page.getByTestId('preview').count(), 0, 'no preview without its module');
  await screenshot(page, 'split-project-failed');

  blocked = false;
  await failed.getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('preview').waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId('project-load-failed').count(), 0, 'every tab shows once the module came');
  await screenshot(page, 'split-project-loaded');
  const { wasm } = await wasmTimes(page);
  const run = wasm.find((w) => w.name === 'split_run.wasm');
  const project = wasm.filter((w) => w.name === 'split_project.wasm');
  assert.ok(project.length >= 1 && project.every((p) => p.start > run.start), `project after run: ${JSON.stringify(wasm)}`);
  assert.deepEqual(errors, []);
  await context.close();
});
