// A duplicated tab (issue #6): browsers copy sessionStorage, where the tab's
// lease holder id lives, into a duplicate (Chromium's "Duplicate tab", a
// same-origin window.open). The duplicate must still be another holder: the
// session its original runs shows as open in another tab, the duplicate
// writes nothing to it, and the original's run ends as it would alone. A
// reload of one tab, though, must take its own lease back at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, enterKey, showSessions } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';
import { IDEA, startRun as start, waitForStatus as waitOn, finalState, waitFor, referenceRun } from './company-run.mjs';

const env = useSiteAndLlm();
const startRun = (page, model) => start(env, page, model);
const waitForStatus = (page, pattern, name, timeout) => waitOn(page, pattern, { shot: `duplicate-${name}`, timeout });

const TAB_KEY = 'tabteam.tab';

const holderOf = (page) => page.evaluate((key) => sessionStorage.getItem(key), TAB_KEY);

/** The records of IndexedDB store `name` in the site's database: each row's `json`, parsed, with its `key`. */
async function rows(page, name) {
  return (await rawRows(page, name)).map((row) => ({ ...JSON.parse(row.json), key: row.s ?? row.id }));
}

function rawRows(page, name) {
  return page.evaluate((name) => new Promise((resolve, reject) => {
    const open = indexedDB.open('tabteam');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction(name).objectStore(name).getAll();
      get.onsuccess = () => { db.close(); resolve(get.result); };
      get.onerror = () => { db.close(); reject(get.error); };
    };
  }), name);
}

let reference;

test('an uninterrupted run, for reference', async () => {
  reference = await referenceRun(env, 'e2e-duplicate-reference');
});

test('a duplicated tab finds the running session held by its original, which runs on undisturbed', async () => {
  assert.ok(reference, 'the reference run ran first');
  const model = 'e2e-duplicate-running';
  const turns = companyTurns();
  // Call 2 (Alice's PRD) takes a while: the duplicate opens meanwhile.
  const k = 2;
  turns[k] = { ...turns[k], delay_ms: 8000 };
  await script(env.llm, model, turns);
  const { page: a, context, problems } = await openPage(env.browser, env.site.url);
  await startRun(a, model);
  await a.locator('[data-testid=session][data-status=running]').first().waitFor({ state: 'attached' });
  await waitFor(async () => (await requests(env.llm, model)).length === k + 1, `call ${k} under way`);
  const original = await holderOf(a);
  assert.ok(original, 'the original tab has its holder id');
  const [session] = await rows(a, 'sessions');
  assert.equal((await rows(a, 'locks')).find((l) => l.key === session.id)?.holder, original, 'the original holds the lease');

  // The duplicate: a page of the same browser whose sessionStorage starts
  // as a copy of the original's, before the app starts (only on its first
  // load, as a real duplicate: its reloads keep what the app stored).
  const b = await context.newPage();
  const bProblems = [];
  b.on('pageerror', (err) => bProblems.push(`pageerror: ${err.message}`));
  await b.addInitScript(([key, id]) => {
    if (!sessionStorage.getItem(key)) sessionStorage.setItem(key, id);
  }, [TAB_KEY, original]);
  const opened = Date.now();
  await b.goto(env.site.url);
  // On load the app reopens the session that is running; here it is refused.
  const note = b.getByTestId('storage-note');
  await note.filter({ hasText: 'open in another tab' }).waitFor({ timeout: 10000 });
  const refusedAfter = Date.now() - opened;
  await screenshot(b, 'duplicate-refused');
  const duplicate = await holderOf(b);
  assert.ok(duplicate && duplicate !== original, `the duplicate claimed an id of its own (${duplicate} vs ${original})`);
  assert.match(await note.innerText(), new RegExp(`open in another tab \\(${original}\\)`));
  assert.equal(await b.getByTestId('status').filter({ hasText: 'Interrupted' }).count(), 0, 'the duplicate did not open the session');
  assert.equal(await b.locator('[data-testid=session].current').count(), 0, 'no session is current in the duplicate');

  // Opening it by hand is refused the same way; so it is after a reload,
  // which keeps the duplicate's own id.
  await showSessions(b);
  await b.locator('[data-testid=session]').filter({ hasText: IDEA }).first().getByTestId('session-open').click();
  await note.filter({ hasText: 'open in another tab' }).waitFor({ timeout: 10000 });
  assert.equal(await b.locator('[data-testid=session].current').count(), 0, 'still no session current');
  await b.reload();
  await note.filter({ hasText: 'open in another tab' }).waitFor({ timeout: 10000 });
  assert.equal(await holderOf(b), duplicate, 'a reload of the duplicate keeps its id');

  // The duplicate wrote nothing: the lease is still the original's, and
  // the session is still running (opening it would have marked it
  // interrupted), while call 2 is still under way.
  assert.equal((await requests(env.llm, model)).length, k + 1, 'call 2 still under way: nothing has moved on');
  assert.equal((await rows(b, 'locks')).find((l) => l.key === session.id)?.holder, original, 'the lease is still the original tab\'s');
  assert.equal((await rows(b, 'sessions')).find((s) => s.id === session.id)?.status, session.status, 'the session record is as the original left it');

  // The original runs on as if alone.
  await waitForStatus(a, 'Done', 'original');
  await screenshot(a, 'duplicate-original-done');
  assert.deepEqual(await finalState(a), reference, 'the same outcome as a run with no duplicate');
  assert.equal((await requests(env.llm, model)).length, turns.length, 'every call made once, by the original');
  assert.deepEqual(problems, []);
  assert.deepEqual(bProblems, []);
  console.log(`# duplicate refused ${refusedAfter} ms after its load began`);
  await context.close();
});

test('a tab opened by window.open (Chromium copies its sessionStorage) is another holder too', async () => {
  const model = 'e2e-duplicate-window-open';
  const cmds = (list) => `Here.\n\`\`\`json\n${JSON.stringify(list)}\n\`\`\``;
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: cmds([{ command_name: 'RoleZero.reply_to_human', args: { content: 'Tiles painted.' } }, { command_name: 'end' }]) },
  ]);
  const { page: a, context } = await openPage(env.browser, env.site.url);
  // What each page's sessionStorage holds before the app runs.
  await context.addInitScript((key) => { window.__tabAtStart = sessionStorage.getItem(key); }, TAB_KEY);
  await configure(a, env.llm, model, { team: 'assistant' });
  await a.getByLabel('Your idea').fill('Paint the tiles');
  await a.getByTestId('start').click();
  await waitForStatus(a, 'Done', 'window-open');
  const original = await holderOf(a);
  // The finished session stays open (leased) in the original tab.
  const [b] = await Promise.all([context.waitForEvent('page'), a.evaluate(() => window.open(location.href))]);
  await showSessions(b);
  await b.getByTestId('session-open').first().waitFor();
  assert.equal(await b.evaluate(() => window.__tabAtStart), original, 'Chromium copied the opener\'s sessionStorage');
  await b.locator('[data-testid=session]').filter({ hasText: 'Paint the tiles' }).getByTestId('session-open').click();
  await b.getByTestId('storage-note').filter({ hasText: 'open in another tab' }).waitFor({ timeout: 10000 });
  assert.notEqual(await holderOf(b), original);
  await screenshot(b, 'duplicate-window-open-refused');
  await context.close();
});

test('a reload takes its own lease back at once', async () => {
  const model = 'e2e-duplicate-reload';
  const turns = companyTurns();
  const k = 2;
  // The slow copy is cut off by the reload; the plain copy answers the retry.
  await script(env.llm, model, [...turns.slice(0, k), { ...turns[k], delay_ms: 20000 }, ...turns.slice(k)]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await startRun(page, model);
  await waitFor(async () => (await requests(env.llm, model)).length === k + 1, `call ${k} under way`);
  const before = await holderOf(page);
  const reloaded = Date.now();
  await page.reload();
  // Within the lease (20 s) only its own holder gets the session back.
  await waitForStatus(page, 'Interrupted', 'reload', 15000);
  const backAfter = Date.now() - reloaded;
  assert.equal(await holderOf(page), before, 'the reloaded tab kept its id');
  assert.equal(await page.getByTestId('storage-note').count(), 0, 'no lock note');
  // The claim waits up to 1.5 s only for a duplicate; a reload is granted at once.
  assert.ok(backAfter < 5000, `the session was back ${backAfter} ms after the reload`);
  console.log(`# reload: session back (interrupted, leased) ${backAfter} ms after page.reload()`);
  await enterKey(page, 'sk-e2e-test-key');
  await page.getByTestId('resume').click();
  await waitForStatus(page, 'Done', 'reload');
  await context.close();
});
