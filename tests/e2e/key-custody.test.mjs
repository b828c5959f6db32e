// Key custody: "Remember the key on this device" off takes effect the moment
// it is unticked (the stored key is deleted; the field keeps it for this
// tab), and after tick, untick, reload and a run through the provider's
// faults, the key is nowhere the site keeps things: localStorage,
// sessionStorage, every IndexedDB database and store, Cache Storage, or an
// exported session file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, openSettings, closeSettings, newSession, showSessions } from './harness.mjs';

const env = useSiteAndLlm();

// Distinctive, so a hit cannot be anything else; not key-shaped for the
// redactor (no `sk-` prefix), so a leak would not be masked into hiding.
const KEY = 'custody-7f3a9c1e-KEEPOUT-42d8';

/**
 * Every place in the page's storage that holds `needle`, and how much was
 * searched (so an empty result is not an empty search). IndexedDB values
 * are searched as JSON, with binary values and blobs read as text.
 */
async function findEverywhere(page, needle) {
  return page.evaluate(async (needle) => {
    const hits = [];
    const blobs = [];
    const text = (value) =>
      typeof value === 'string'
        ? value
        : JSON.stringify(value, (_, v) => {
            if (v instanceof Blob) {
              blobs.push(v);
              return '[blob]';
            }
            if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return new TextDecoder().decode(v);
            return v;
          });
    const scan = (where, value) => {
      if ((text(value) ?? '').includes(needle)) hits.push(where);
    };
    const request = (req) => new Promise((resolve, reject) => {
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    for (const [name, storage] of [['localStorage', localStorage], ['sessionStorage', sessionStorage]]) {
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        scan(`${name}:${key}`, `${key}=${storage.getItem(key)}`);
      }
    }
    let stores = 0;
    let records = 0;
    const databases = await indexedDB.databases();
    for (const { name } of databases) {
      const db = await request(indexedDB.open(name));
      for (const store of db.objectStoreNames) {
        const objects = db.transaction(store, 'readonly').objectStore(store);
        const [keys, values] = await Promise.all([request(objects.getAllKeys()), request(objects.getAll())]);
        stores += 1;
        records += values.length;
        scan(`indexedDB:${name}/${store}`, [keys, values]);
      }
      db.close();
    }
    for (const blob of blobs) scan('indexedDB blob', await blob.text());
    let cached = 0;
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        cached += 1;
        const res = await cache.match(req);
        scan(`cache:${name}:${req.url}`, `${req.url} ${JSON.stringify([...req.headers])} ${res ? await res.text() : ''}`);
      }
    }
    return { hits, databases: databases.map((d) => d.name), stores, records, cached };
  }, needle);
}

/** Start a run of the assistant team for `model` with the key typed in. */
async function run(page, model, { remember } = {}) {
  await newSession(page);
  await configure(page, env.llm, model, { team: 'assistant', key: KEY });
  if (remember !== undefined) {
    await openSettings(page);
    await page.getByTestId('remember').setChecked(remember);
    await closeSettings(page);
  }
  await page.getByLabel('Your idea').fill('say hello');
  await page.getByTestId('start').click();
}

/** Wait until the status line says `text`; return the whole status. */
async function status(page, text, timeout = 20000) {
  const line = page.getByTestId('status').filter({ hasText: text });
  await line.waitFor({ timeout });
  return line.textContent();
}

test('unticking "remember" forgets the stored key at once; the field keeps it for this tab', async () => {
  const model = 'e2e-custody-untick';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Hello from the remembered run.' }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await run(page, model, { remember: true });
  await status(page, 'Done');
  // Ticked: Start kept the key (so the searches below can find one).
  assert.deepEqual((await findEverywhere(page, KEY)).hits, ['localStorage:tabteam.key.v1']);

  await openSettings(page);
  await page.getByTestId('remember').uncheck();
  assert.deepEqual((await findEverywhere(page, KEY)).hits, [], 'gone at once, before any Start or reload');
  assert.equal(await page.getByTestId('key').inputValue(), KEY, 'the field keeps the key for this tab');
  await screenshot(page, 'custody-1-unticked');

  await page.reload();
  await openSettings(page);
  await page.getByTestId('remember').waitFor();
  assert.equal(await page.getByTestId('remember').isChecked(), false, 'the box stays unticked after a reload');
  assert.equal(await page.getByTestId('key').inputValue(), '', 'the key field is empty after a reload');
  const found = await findEverywhere(page, KEY);
  assert.deepEqual(found.hits, []);
  assert.ok(found.records > 0, `the search read the saved session (${JSON.stringify(found)})`);
  await screenshot(page, 'custody-2-reloaded');
  assert.deepEqual(problems, []);
  await context.close();
});

test('after tick, untick, reload and faults, the key is in no storage and no export', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  const ok = 'e2e-custody-ok';
  await script(env.llm, ok, [{ text: 'QUICK' }, { text: 'Remembered for a moment.' }]);
  await run(page, ok, { remember: true });
  await status(page, 'Done');
  await openSettings(page);
  await page.getByTestId('remember').uncheck();
  await page.reload();
  await openSettings(page);
  await page.getByTestId('remember').waitFor();
  await closeSettings(page);

  // The key typed again (kept in memory only), then the provider's faults.
  // Busy faults carry `retry-after: 0` so their retries take no time here
  // (the waits themselves are errors.test.mjs's business).
  const faults = [
    ['e2e-custody-401', [{ status: 401, text: 'Incorrect API key provided' }], 'rejected the API key'],
    ['e2e-custody-429', [{ status: 429, text: 'Rate limit reached', headers: { 'retry-after': '0' }, repeat: 7 }], 'provider is busy'],
    ['e2e-custody-500', [{ status: 500, text: 'Internal error', headers: { 'retry-after': '0' }, repeat: 7 }], 'failed twice in a row'],
  ];
  for (const [model, turns, says] of faults) {
    await script(env.llm, model, turns);
    await run(page, model);
    const text = await status(page, says);
    assert.match(text, /Paused after an error/);
    assert.ok(!text.includes(KEY), 'the key is never shown');
    const log = await requests(env.llm, model);
    assert.ok(log.length >= 1 && log.every((e) => e.outcome.startsWith('fault:')), `${model}: ${JSON.stringify(log.map((e) => e.outcome))}`);
  }
  await screenshot(page, 'custody-3-after-faults');

  // Every session the faults left behind, exported: none holds the key.
  await showSessions(page);
  const rows = page.locator('[data-testid=session]');
  const count = await rows.count();
  assert.ok(count >= 4, `a session per run (${count})`);
  for (let i = 0; i < count; i++) {
    const [download] = await Promise.all([page.waitForEvent('download'), rows.nth(i).getByTestId('session-export').click()]);
    const exported = readFileSync(await download.path(), 'utf8');
    assert.ok(exported.length > 100, 'an export with content');
    assert.ok(!exported.includes(KEY), `export ${download.suggestedFilename()} holds no key`);
  }

  const found = await findEverywhere(page, KEY);
  assert.deepEqual(found.hits, [], `no key in storage (searched ${JSON.stringify(found)})`);
  assert.ok(found.stores > 0 && found.records > 0, 'IndexedDB was searched and holds the sessions');
  // The key did reach the provider, in the header only (the server log keeps its length, not its value).
  const sent = await requests(env.llm, 'e2e-custody-401');
  assert.ok(!JSON.stringify(sent).includes(KEY), 'the test server never logs the key');
  assert.deepEqual(problems.filter((p) => !/401|429|500|Failed to load resource/.test(p)), []);
  await context.close();
});

test('ticking "remember" keeps the key at once: after Done and a reload, without Start, the box is ticked and the key there', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await openSettings(page);
  await page.getByTestId('key').fill(KEY);
  await page.getByTestId('remember').check();
  await closeSettings(page);
  assert.deepEqual((await findEverywhere(page, KEY)).hits, ['localStorage:tabteam.key.v1'], 'kept at once, before any Start');
  await page.reload();
  await openSettings(page);
  await page.getByTestId('remember').waitFor();
  assert.equal(await page.getByTestId('remember').isChecked(), true, 'the box stays ticked after a reload');
  assert.equal(await page.getByTestId('key').inputValue(), KEY, 'the key is filled in after a reload');
  // Unticking still forgets it at once.
  await page.getByTestId('remember').uncheck();
  assert.deepEqual((await findEverywhere(page, KEY)).hits, []);
  await closeSettings(page);
  assert.deepEqual(problems, []);
  await context.close();
});
