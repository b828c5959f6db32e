// Prompt caching end to end (issue #22): the company runs on the Anthropic
// preset against the local scripted server, whose stream reports cache
// reads and writes; the site sends cache_control breakpoints, the cost
// meter shows the cached share, and its figures are the ledger's (read from
// the session IndexedDB keeps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, requests, configureAnthropic, closeSettings } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const env = useSiteAndLlm();

// Priced by the table's `claude-sonnet-4` row: $3 in, $15 out, cache reads
// $0.30, cache writes $3.75 per million tokens.
const MODEL = 'claude-sonnet-4-e2e-cache';
const PRICE = { input: 3, output: 15, read: 0.3, write: 3.75 };

/** Every row of IndexedDB store `name` in the site's database, `json` parsed. */
function rows(page, name) {
  return page.evaluate((name) => new Promise((resolve, reject) => {
    const open = indexedDB.open('tabteam');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction(name).objectStore(name).getAll();
      get.onsuccess = () => { db.close(); resolve(get.result.map((r) => JSON.parse(r.json))); };
      get.onerror = () => { db.close(); reject(get.error); };
    };
  }), name);
}

test('cache reads reported by Anthropic show on the cost meter, as the ledger counts them', async () => {
  // Each call: 200 uncached input tokens, 1,800 read from the cache (the
  // first call writes 1,500 instead), 40 out.
  const usage = (i) => (i === 0
    ? { input_tokens: 200, cache_creation_input_tokens: 1500, output_tokens: 40 }
    : { input_tokens: 200, cache_read_input_tokens: 1800, cache_creation_input_tokens: 100, output_tokens: 40 });
  const turns = companyTurns().map((t, i) => ({ ...t, usage: usage(i) }));
  await script(env.llm, MODEL, turns);

  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await configureAnthropic(page, env.llm, MODEL);
  assert.match(await page.getByTestId('price').textContent(), /\$3\.00 \/ \$15\.00/, 'the table prices the model');
  await closeSettings(page);
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  await page.getByTestId('start').click();
  try {
    await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
  } catch (e) {
    await screenshot(page, 'cost-cache-failed');
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; page errors: ${problems.join(' | ')}`);
  }

  // The site spoke Anthropic and marked its breakpoints.
  const sent = await requests(env.llm, MODEL);
  assert.equal(sent.length, turns.length, 'every scripted call made');
  for (const r of sent) {
    assert.ok(r.path.endsWith('/v1/messages'), r.path);
    assert.deepEqual(r.request_body.system.at(-1).cache_control, { type: 'ephemeral' }, 'the system prompt is a breakpoint');
    const marks = [r.request_body.system, ...r.request_body.messages.map((m) => m.content)]
      .flatMap((c) => (Array.isArray(c) ? c : []))
      .filter((b) => b.cache_control);
    assert.ok(marks.length <= 4, 'at most 4 breakpoints');
  }

  // What the ledger should hold, from what the server reported.
  const want = turns.reduce((acc, t) => {
    const u = t.usage;
    const read = u.cache_read_input_tokens ?? 0;
    const written = u.cache_creation_input_tokens ?? 0;
    acc.input += u.input_tokens + read + written;
    acc.cached += read;
    acc.written += written;
    acc.dollars += (u.input_tokens * PRICE.input + read * PRICE.read + written * PRICE.write + u.output_tokens * PRICE.output) / 1e6;
    return acc;
  }, { input: 0, cached: 0, written: 0, dollars: 0 });

  // The ledger the session keeps.
  const ledger = (await rows(page, 'tails')).map((t) => t.ledger).find((l) => l && l.total);
  assert.ok(ledger, 'the session keeps its ledger');
  assert.equal(ledger.total.calls, turns.length);
  assert.equal(ledger.total.prompt_tokens, want.input);
  assert.equal(ledger.total.cached_tokens, want.cached);
  assert.equal(ledger.total.cache_write_tokens, want.written);
  assert.ok(Math.abs(ledger.total.cost - want.dollars) < 1e-9, `ledger $${ledger.total.cost} vs $${want.dollars}`);

  // The meter shows the ledger's figures: dollars, and the cached share.
  const meter = await page.getByTestId('cost').textContent();
  assert.ok(meter.includes(`$${ledger.total.cost.toFixed(4)} of $3.00`), meter);
  const share = Math.round((100 * ledger.total.cached_tokens) / ledger.total.prompt_tokens);
  assert.equal(
    (await page.getByTestId('cache').textContent()).trim(),
    `· ${ledger.total.cached_tokens} of ${ledger.total.prompt_tokens} input tokens cached (${share}%)`,
  );
  // The per-role table's cached column adds up to the same.
  await page.locator('details.tokens summary').click();
  const cachedColumn = await page.locator('details.tokens tbody tr td:nth-child(4)').allTextContents();
  assert.equal(cachedColumn.reduce((a, b) => a + Number(b), 0), ledger.total.cached_tokens);
  await screenshot(page, 'cost-cache-meter');
  assert.deepEqual(problems, []);
  await context.close();
});
