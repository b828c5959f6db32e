// Tests for the local fake LLM server and the static server.
// Run: node --test tests/support/

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { startLlmServer } from './llm-server.mjs';
import { startStaticServer } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

let llm;
let stat;
let tmp;

before(async () => {
  llm = await startLlmServer({ port: 0 });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'tabteam-static-'));
  const root = path.join(tmp, 'root');
  await fs.mkdir(path.join(root, 'sub'), { recursive: true });
  await fs.writeFile(path.join(root, 'index.html'), '<!doctype html><title>root</title>');
  await fs.writeFile(path.join(root, 'sub', 'index.html'), '<!doctype html><title>sub</title>');
  await fs.writeFile(path.join(root, 'app_bg.wasm'), Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  await fs.writeFile(path.join(root, 'app.js'), 'export const x = 1;\n');
  await fs.writeFile(path.join(root, 'style.css'), 'body{}\n');
  await fs.writeFile(path.join(tmp, 'secret.txt'), 'TOP-SECRET-OUTSIDE-ROOT');
  stat = await startStaticServer({
    root,
    headers: { 'Content-Security-Policy': "default-src 'self'" },
  });
});

after(async () => {
  await llm?.close();
  await stat?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

beforeEach(async () => {
  const r = await fetch(`${llm.url}/_control/reset`, { method: 'POST' });
  assert.equal(r.status, 200);
});

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

async function script(turns, key) {
  const r = await fetch(`${llm.url}/_control/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(key === undefined ? { turns } : { key, turns }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

function post(p, body, headers = {}) {
  return fetch(`${llm.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function chat(content, extra = {}) {
  return { model: 'test-model', messages: [{ role: 'user', content }], ...extra };
}

/** Read a body to the end (or until the connection breaks); never throws. */
async function readRaw(res) {
  const dec = new TextDecoder();
  const reader = res.body.getReader();
  let text = '';
  let error = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
  } catch (e) {
    error = e;
  }
  return { text, error };
}

/** Split SSE text into events; asserts every event is terminated by a blank line. */
function parseSse(text) {
  assert.ok(text.endsWith('\n\n'), `SSE body must end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const ev = { event: null, data: null };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) ev.event = line.slice(7);
        else if (line.startsWith('data: ')) ev.data = line.slice(6);
        else assert.fail(`unexpected SSE line: ${JSON.stringify(line)}`);
      }
      return ev;
    });
}

async function getLog() {
  const r = await fetch(`${llm.url}/_control/log`);
  assert.equal(r.status, 200);
  return r.json();
}

function rawGet(port, rawPath) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method: 'GET' }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const LONG = 'The quick brown fox jumps over the lazy dog. ' + 'Ünïcødé ✓ 🦀 done.';

// ---------------------------------------------------------------------------
// OpenAI
// ---------------------------------------------------------------------------

test('openai streaming: exact framing, text reassembly, include_usage, [DONE]', async () => {
  await script([{ text: LONG, usage: { prompt_tokens: 11, completion_tokens: 22 } }]);
  const res = await post('/v1/chat/completions', chat('hello', { stream: true, stream_options: { include_usage: true } }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const { text, error } = await readRaw(res);
  assert.equal(error, null);
  const events = parseSse(text);
  for (const e of events) assert.equal(e.event, null);
  assert.equal(events.at(-1).data, '[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));

  for (const c of chunks) {
    assert.equal(c.object, 'chat.completion.chunk');
    assert.equal(c.model, 'test-model');
    assert.equal(c.id, chunks[0].id);
    assert.ok('usage' in c, 'with include_usage every chunk carries a usage key');
  }
  // first chunk
  assert.deepEqual(chunks[0].choices, [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  assert.equal(chunks[0].usage, null);
  // usage-only chunk last
  const usageChunk = chunks.at(-1);
  assert.deepEqual(usageChunk.choices, []);
  assert.deepEqual(usageChunk.usage, { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 });
  // finish chunk
  const finish = chunks.at(-2);
  assert.deepEqual(finish.choices, [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
  // content deltas
  const contentChunks = chunks.slice(1, -2);
  const pieces = contentChunks.map((c) => {
    assert.equal(c.choices.length, 1);
    assert.equal(c.choices[0].finish_reason, null);
    assert.deepEqual(Object.keys(c.choices[0].delta), ['content']);
    return c.choices[0].delta.content;
  });
  assert.equal(pieces.join(''), LONG);
  const cps = Array.from(LONG).length;
  assert.equal(pieces.length, Math.ceil(cps / 8));
  for (const p of pieces.slice(0, -1)) assert.equal(Array.from(p).length, 8);
});

test('openai streaming without include_usage: no usage keys, no usage chunk, custom chunk_chars', async () => {
  await script([{ text: 'abcdefghij', chunk_chars: 3, finish_reason: 'length' }]);
  const res = await post('/v1/chat/completions', chat('x', { stream: true }));
  const { text } = await readRaw(res);
  const events = parseSse(text);
  assert.equal(events.at(-1).data, '[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
  for (const c of chunks) {
    assert.ok(!('usage' in c), 'usage key must be absent without include_usage');
    assert.equal(c.choices.length, 1);
  }
  assert.deepEqual(
    chunks.slice(1, -1).map((c) => c.choices[0].delta.content),
    ['abc', 'def', 'ghi', 'j'],
  );
  assert.equal(chunks.at(-1).choices[0].finish_reason, 'length');
  assert.equal(text.match(/\[DONE\]/g).length, 1);
});

test('openai non-streaming: chat.completion with usage; prefixes do not matter', async () => {
  await script([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
  const bodies = [];
  for (const p of ['/v1/chat/completions', '/anything/deep/v1/chat/completions', '/chat/completions']) {
    const res = await post(p, chat('12345678'));
    assert.equal(res.status, 200, p);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    bodies.push(await res.json());
  }
  assert.deepEqual(bodies.map((b) => b.choices[0].message.content), ['one', 'two', 'three']);
  const b = bodies[0];
  assert.equal(b.object, 'chat.completion');
  assert.equal(b.model, 'test-model');
  assert.equal(b.choices[0].message.role, 'assistant');
  assert.equal(b.choices[0].finish_reason, 'stop');
  // default estimate: ceil(chars/4)
  assert.deepEqual(b.usage, { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 });
});

// ---------------------------------------------------------------------------
// Anthropic
// ---------------------------------------------------------------------------

test('anthropic streaming: event order, text, cumulative usage, stop_reason mapping', async () => {
  await script([{ text: 'Hello from Claude, streamed.', chunk_chars: 5, finish_reason: 'length', usage: { prompt_tokens: 40, completion_tokens: 9 } }]);
  const res = await post(
    '/v1/messages',
    { model: 'claude-test', max_tokens: 100, stream: true, system: 'sys', messages: [{ role: 'user', content: 'hi' }] },
    { 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01' },
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const { text, error } = await readRaw(res);
  assert.equal(error, null);
  const events = parseSse(text);
  const datas = events.map((e) => JSON.parse(e.data));
  events.forEach((e, i) => assert.equal(e.event, datas[i].type, 'event name equals data.type'));
  const names = events.map((e) => e.event);
  const nDeltas = Math.ceil('Hello from Claude, streamed.'.length / 5);
  assert.deepEqual(names, [
    'message_start',
    'content_block_start',
    'ping',
    ...Array(nDeltas).fill('content_block_delta'),
    'content_block_stop',
    'message_delta',
    'message_stop',
  ]);
  const start = datas[0].message;
  assert.equal(start.role, 'assistant');
  assert.equal(start.model, 'claude-test');
  assert.deepEqual(start.content, []);
  assert.equal(start.usage.input_tokens, 40);
  assert.deepEqual(datas[1].content_block, { type: 'text', text: '' });
  const deltas = datas.filter((d) => d.type === 'content_block_delta');
  for (const d of deltas) {
    assert.equal(d.index, 0);
    assert.equal(d.delta.type, 'text_delta');
  }
  assert.equal(deltas.map((d) => d.delta.text).join(''), 'Hello from Claude, streamed.');
  const md = datas.find((d) => d.type === 'message_delta');
  assert.equal(md.delta.stop_reason, 'max_tokens');
  assert.equal(md.usage.output_tokens, 9, 'message_delta usage is cumulative (total output tokens)');
  assert.equal(md.usage.input_tokens, 40);
});

test('anthropic non-streaming JSON; end_turn', async () => {
  await script([{ text: 'plain reply' }]);
  const res = await post('/proxy/v1/messages', { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] });
  assert.equal(res.status, 200);
  const b = await res.json();
  assert.equal(b.type, 'message');
  assert.deepEqual(b.content, [{ type: 'text', text: 'plain reply' }]);
  assert.equal(b.stop_reason, 'end_turn');
  assert.equal(b.usage.output_tokens, Math.ceil('plain reply'.length / 4));
});

// ---------------------------------------------------------------------------
// Scripting semantics
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Gemini
// ---------------------------------------------------------------------------

function gemini(text, extra = {}) {
  return { systemInstruction: { parts: [{ text: 'sys' }] }, contents: [{ role: 'user', parts: [{ text }] }], ...extra };
}

test('gemini streaming: CRLF-framed data events, text, finishReason and usageMetadata last, no end marker', async () => {
  await script([{ text: 'Hello from Gemini, streamed.', chunk_chars: 6, match: 'sys', usage: { prompt_tokens: 30, completion_tokens: 7, cached_tokens: 20 } }], 'gemini-test');
  const res = await post('/v1beta/models/gemini-test:streamGenerateContent?alt=sse', gemini('hi'), { 'x-goog-api-key': 'AIzaSECRET' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const { text, error } = await readRaw(res);
  assert.equal(error, null);
  assert.ok(text.endsWith('\r\n\r\n'), 'every event ends in CRLF CRLF');
  assert.ok(!text.includes('[DONE]'));
  const datas = text.slice(0, -4).split('\r\n\r\n').map((block) => {
    assert.ok(block.startsWith('data: '), block);
    return JSON.parse(block.slice(6));
  });
  const nDeltas = Math.ceil('Hello from Gemini, streamed.'.length / 6);
  assert.equal(datas.length, nDeltas + 1);
  assert.equal(datas.map((d) => d.candidates[0].content.parts[0].text).join(''), 'Hello from Gemini, streamed.');
  for (const d of datas.slice(0, -1)) {
    assert.equal(d.candidates[0].finishReason, undefined);
    assert.equal(d.candidates[0].content.role, 'model');
    assert.equal(d.modelVersion, 'gemini-test');
  }
  const last = datas.at(-1);
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.deepEqual(last.usageMetadata, { promptTokenCount: 30, candidatesTokenCount: 7, totalTokenCount: 37, cachedContentTokenCount: 20 });
  const [entry] = await getLog();
  assert.equal(entry.api, 'gemini');
  assert.equal(entry.model, 'gemini-test');
  assert.equal(entry.stream, true);
  assert.equal(entry.headers['x-goog-api-key'], '<redacted:10 chars>');
  assert.deepEqual(entry.messages, [{ role: 'user', parts: [{ text: 'hi' }] }]);
});

test('gemini non-streaming generateContent, and Google error envelopes', async () => {
  await script([{ text: 'whole', finish_reason: 'length' }, { status: 500, text: 'An internal error has occurred.' }, { status: 503 }]);
  const ok = await post('/v1beta/models/m:generateContent', gemini('hi'));
  assert.equal(ok.status, 200);
  const body = await ok.json();
  assert.equal(body.candidates[0].content.parts[0].text, 'whole');
  assert.equal(body.candidates[0].finishReason, 'MAX_TOKENS');
  const e500 = await post('/v1beta/models/m:streamGenerateContent?alt=sse', gemini('hi'));
  assert.equal(e500.status, 500);
  assert.deepEqual(await e500.json(), { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } });
  const e503 = await post('/v1beta/models/m:streamGenerateContent?alt=sse', gemini('hi'));
  assert.equal(e503.status, 503);
  assert.equal((await e503.json()).error.status, 'UNAVAILABLE');
  const unscripted = await post('/v1beta/models/m:streamGenerateContent?alt=sse', gemini('hi'));
  assert.equal(unscripted.status, 500);
  const u = await unscripted.json();
  assert.equal(u.error.status, 'INTERNAL');
  assert.match(u.error.message, /no scripted turn for model m/);
});

test('model-keyed queues, match (incl. system), repeat, fallback to default', async () => {
  await script([{ text: 'D1' }, { text: 'D2' }]);
  await script([{ match: 'banana', text: 'B' }, { text: 'ANY', repeat: 2 }], 'model-x');
  const ask = async (model, content) => {
    const r = await post('/v1/chat/completions', { model, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content }] });
    assert.equal(r.status, 200);
    return (await r.json()).choices[0].message.content;
  };
  assert.equal(await ask('model-x', 'apple'), 'ANY'); // first turn is skipped: no "banana"
  assert.equal(await ask('other-model', 'banana'), 'D1'); // no queue for that model → default
  assert.equal(await ask('model-x', [{ type: 'text', text: 'a banana split' }]), 'B'); // array content parts
  assert.equal(await ask('model-x', 'apple'), 'ANY'); // repeat: 2 → second use
  assert.equal(await ask('model-x', 'apple'), 'D2'); // model-x now empty → default
  const log = await getLog();
  assert.deepEqual(log.map((e) => e.queue), ['model-x', 'default', 'model-x', 'model-x', 'default']);
  assert.deepEqual(log.map((e) => e.turn_index_used), [1, 0, 0, 1, 1]);
  assert.deepEqual(log.map((e) => e.seq), [1, 2, 3, 4, 5]);

  // Anthropic: system is part of the matched text.
  await script([{ match: 'secret-system-marker', text: 'SYS' }], 'claude-x');
  const r = await post('/v1/messages', { model: 'claude-x', max_tokens: 5, system: [{ type: 'text', text: 'secret-system-marker' }], messages: [{ role: 'user', content: 'u' }] });
  assert.equal((await r.json()).content[0].text, 'SYS');
});

test('a summary request is answered by the summary rule, and the script keeps its order', async () => {
  const condense = await fs.readFile(path.join(HERE, '../../src/core/rolezero/prompts/condense.md'), 'utf8');
  await script([{ text: 'FIRST' }, { text: 'SECOND' }]);
  const ask = async (messages) => {
    const r = await post('/v1/chat/completions', { model: 'm', messages });
    assert.equal(r.status, 200);
    return (await r.json()).choices[0].message.content;
  };
  const summaryRequest = [
    { role: 'system', content: 'the role' },
    { role: 'user', content: 'make a\ntodo list' },
    { role: 'assistant', content: 'done' },
    { role: 'user', content: condense },
  ];
  assert.equal(await ask([{ role: 'user', content: 'go' }]), 'FIRST');
  const summary = await ask(summaryRequest);
  assert.equal(summary, 'Scripted summary of 2 earlier turns; the first began: make a todo list');
  assert.equal(await ask(summaryRequest), summary, 'the same request, the same summary');
  assert.equal(await ask([{ role: 'user', content: 'go on' }]), 'SECOND', 'the plain turn was not taken by the summaries');
  // Anthropic's system is its own field; a scripted summary turn (matched) wins over the rule.
  await script([{ match: 'getting too long', text: 'MY SUMMARY' }, { text: 'THIRD' }]);
  const r = await post('/v1/messages', { model: 'm', max_tokens: 5, system: 'the role', messages: summaryRequest.slice(1) });
  assert.equal((await r.json()).content[0].text, 'MY SUMMARY');
  const anthropic = await post('/v1/messages', { model: 'm', max_tokens: 5, system: 'the role', messages: summaryRequest.slice(1) });
  assert.equal((await anthropic.json()).content[0].text, summary);
  assert.equal(await ask([{ role: 'user', content: 'last' }]), 'THIRD');
  const log = await getLog();
  assert.deepEqual(log.map((e) => e.summary === true), [false, true, true, false, false, true, false]);
  assert.deepEqual(log.map((e) => e.outcome), Array(7).fill('ok'));
});

test('unscripted request → 500 with a clear message (openai and anthropic)', async () => {
  await script([{ match: 'never-present', text: 'x' }]);
  const r = await post('/v1/chat/completions', chat('hello', { model: 'gpt-unscripted' }));
  assert.equal(r.status, 500);
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  const b = await r.json();
  assert.match(b.error.message, /llm-server: no scripted turn for model gpt-unscripted/);
  assert.equal(b.error.param, null);
  assert.ok(b.error.type);
  const r2 = await post('/v1/messages', { model: 'claude-nothing', stream: true, max_tokens: 1, messages: [] });
  assert.equal(r2.status, 500);
  assert.match((await r2.json()).error.message, /llm-server: no scripted turn for model claude-nothing/);
  const log = await getLog();
  assert.deepEqual(log.map((e) => e.outcome), ['unscripted', 'unscripted']);
  assert.deepEqual(log.map((e) => e.turn_index_used), [null, null]);
});

test('invalid request JSON → 400 openai-style; invalid script → 400', async () => {
  const r = await post('/v1/chat/completions', '{"model": ');
  assert.equal(r.status, 400);
  const b = await r.json();
  assert.match(b.error.message, /not valid JSON/);
  assert.equal(b.error.type, 'invalid_request_error');
  const s = await fetch(`${llm.url}/_control/script`, { method: 'POST', body: JSON.stringify({ turns: [{ text: 'x', delay: 5 }] }) });
  assert.equal(s.status, 400);
  assert.match((await s.json()).error.message, /unknown field "delay"/);
});

// ---------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------

test('status 401: default openai and anthropic error bodies, custom error_body', async () => {
  await script([
    { status: 401, text: 'bad key' },
    { status: 401 },
    { status: 400, error_body: { error: { message: 'custom', type: 'x', param: 'messages', code: 'c' } } },
  ]);
  const r1 = await post('/v1/chat/completions', chat('a', { stream: true }));
  assert.equal(r1.status, 401);
  assert.equal(r1.headers.get('access-control-allow-origin'), '*');
  assert.match(r1.headers.get('content-type'), /^application\/json/);
  assert.deepEqual(await r1.json(), { error: { message: 'bad key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });

  const r2 = await post('/v1/messages', { model: 'c', max_tokens: 1, messages: [] });
  assert.equal(r2.status, 401);
  const b2 = await r2.json();
  assert.equal(b2.type, 'error');
  assert.equal(b2.error.type, 'authentication_error');
  assert.equal(typeof b2.error.message, 'string');

  const r3 = await post('/v1/chat/completions', chat('a'));
  assert.equal(r3.status, 400);
  assert.deepEqual(await r3.json(), { error: { message: 'custom', type: 'x', param: 'messages', code: 'c' } });
  const log = await getLog();
  assert.deepEqual(log.map((e) => e.outcome), ['fault:status=401', 'fault:status=401', 'fault:status=400']);
});

test('status 429 with retry-after header exposed', async () => {
  await script([{ status: 429, headers: { 'retry-after': '1', 'retry-after-ms': 1000 } }, { text: 'after retry' }]);
  const r = await post('/v1/chat/completions', chat('a'));
  assert.equal(r.status, 429);
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal(r.headers.get('retry-after-ms'), '1000');
  assert.match(r.headers.get('access-control-expose-headers'), /retry-after/);
  const b = await r.json();
  assert.equal(b.error.code, 'rate_limit_exceeded');
  const r2 = await post('/v1/chat/completions', chat('a'));
  assert.equal((await r2.json()).choices[0].message.content, 'after retry');
});

test('delay_ms delays the headers; chunk_delay_ms spaces the deltas', async () => {
  await script([{ text: 'quick' }, { text: 'slow', delay_ms: 300 }, { text: 'aabbcc', chunk_chars: 2, chunk_delay_ms: 100 }]);
  let t0 = performance.now();
  await (await post('/v1/chat/completions', chat('a'))).json();
  const fast = performance.now() - t0;
  t0 = performance.now();
  const r = await post('/v1/chat/completions', chat('a'));
  const headersAfter = performance.now() - t0;
  assert.equal((await r.json()).choices[0].message.content, 'slow');
  assert.ok(headersAfter >= 295, `headers arrived after ${headersAfter} ms, expected >= 300`);
  assert.ok(fast < 250, `undelayed request took ${fast} ms`);

  t0 = performance.now();
  const s = await post('/v1/chat/completions', chat('a', { stream: true }));
  const { text } = await readRaw(s);
  const total = performance.now() - t0;
  assert.ok(text.includes('[DONE]'));
  assert.ok(total >= 195, `3 deltas with 100 ms between took ${total} ms, expected >= 200`);
});

test('cut_after_chunks: openai stream ends without [DONE], client sees a broken body', async () => {
  await script([{ text: 'AAAABBBBCCCCDDDD', chunk_chars: 4, cut_after_chunks: 2 }]);
  const r = await post('/v1/chat/completions', chat('a', { stream: true, stream_options: { include_usage: true } }));
  assert.equal(r.status, 200);
  const { text, error } = await readRaw(r);
  assert.ok(text.includes('"content":"AAAA"'), text);
  assert.ok(text.includes('"content":"BBBB"'), text);
  assert.ok(!text.includes('CCCC'), 'nothing after the cut');
  assert.ok(!text.includes('[DONE]'), 'no [DONE] after a cut');
  assert.ok(!text.includes('finish_reason":"stop'), 'no finish chunk after a cut');
  assert.notEqual(error, null, 'an incomplete chunked body must surface as a read error');
  const log = await getLog();
  assert.equal(log[0].outcome, 'fault:cut_after_chunks=2');
});

test('cut_after_chunks: anthropic stream ends without message_stop; non-stream body truncated', async () => {
  await script([{ text: 'xxxxyyyyzzzz', chunk_chars: 4, cut_after_chunks: 1 }, { text: 'a whole non-stream reply', cut_after_chunks: 0 }]);
  const r = await post('/v1/messages', { model: 'c', stream: true, max_tokens: 9, messages: [{ role: 'user', content: 'q' }] });
  const { text, error } = await readRaw(r);
  assert.ok(text.includes('event: message_start'));
  assert.ok(text.includes('"text":"xxxx"'));
  assert.ok(!text.includes('yyyy'));
  assert.ok(!text.includes('message_stop'));
  assert.notEqual(error, null);
  const r2 = await post('/v1/chat/completions', chat('a'));
  assert.equal(r2.status, 200);
  await assert.rejects(r2.text(), 'truncated non-stream body must fail to read');
});

test('malformed: an unparseable data line after the first delta', async () => {
  await script([{ text: '1234567890', chunk_chars: 5, malformed: true }, { text: 'abcdef', chunk_chars: 3, malformed: true }]);
  const r = await post('/v1/chat/completions', chat('a', { stream: true }));
  const { text } = await readRaw(r);
  const events = parseSse(text);
  const bad = events.findIndex((e) => e.data === '{not json');
  assert.equal(bad, 2, 'role chunk, first delta, then the malformed line');
  assert.equal(JSON.parse(events[1].data).choices[0].delta.content, '12345');
  assert.equal(events.at(-1).data, '[DONE]');
  assert.equal(events.filter((e) => { try { JSON.parse(e.data); return false; } catch { return e.data !== '[DONE]'; } }).length, 1);

  const r2 = await post('/v1/messages', { model: 'c', stream: true, max_tokens: 9, messages: [] });
  const ev2 = parseSse((await readRaw(r2)).text);
  const i = ev2.findIndex((e) => e.data === '{not json');
  assert.equal(ev2[i - 1].event, 'content_block_delta');
  assert.equal(JSON.parse(ev2[i - 1].data).delta.text, 'abc');
  assert.equal(ev2.at(-1).event, 'message_stop');
  const log = await getLog();
  assert.deepEqual(log.map((e) => e.outcome), ['fault:malformed', 'fault:malformed']);
});

// ---------------------------------------------------------------------------
// CORS, log, control
// ---------------------------------------------------------------------------

test('OPTIONS preflight and CORS headers everywhere', async () => {
  for (const p of ['/v1/chat/completions', '/x/v1/messages', '/_control/script']) {
    const r = await fetch(`${llm.url}${p}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:9999',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
      },
    });
    assert.equal(r.status, 204, p);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.equal(r.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
    const allow = r.headers.get('access-control-allow-headers').split(',').map((s) => s.trim());
    for (const h of ['*', 'authorization', 'content-type', 'x-api-key', 'anthropic-version', 'anthropic-dangerous-direct-browser-access']) {
      assert.ok(allow.includes(h), `allow-headers lacks ${h}`);
    }
    assert.equal(r.headers.get('access-control-expose-headers'), '*, retry-after, retry-after-ms, x-request-id');
    assert.equal(r.headers.get('access-control-max-age'), '600');
  }
  for (const r of [await fetch(`${llm.url}/_control/health`), await fetch(`${llm.url}/nope`), await post('/v1/chat/completions', 'garbage')]) {
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.equal(r.headers.get('access-control-expose-headers'), '*, retry-after, retry-after-ms, x-request-id');
    await r.arrayBuffer();
  }
  const h = await fetch(`${llm.url}/_control/health`);
  assert.equal(h.status, 200);
  assert.equal(await h.text(), 'ok');
});

test('log records requests and redacts authorization / x-api-key', async () => {
  await script([{ text: 'a' }, { text: 'b' }]);
  const secret = 'sk-THIS-MUST-NOT-BE-LOGGED-1234567890';
  await (await post('/p/v1/chat/completions', chat('hi', { stream: true }), { authorization: `Bearer ${secret}`, 'x-custom': 'kept' })).text();
  await (await post('/v1/messages', { model: 'claude-z', system: 'be brief', max_tokens: 3, messages: [{ role: 'user', content: 'yo' }] }, { 'x-api-key': secret })).text();
  const r = await fetch(`${llm.url}/_control/log`);
  const raw = await r.text();
  assert.ok(!raw.includes(secret), 'the key must never be stored');
  const log = JSON.parse(raw);
  assert.equal(log.length, 2);
  assert.equal(log[0].headers.authorization, `<redacted:${`Bearer ${secret}`.length} chars>`);
  assert.equal(log[0].headers['x-custom'], 'kept');
  assert.equal(log[0].path, '/p/v1/chat/completions');
  assert.equal(log[0].model, 'test-model');
  assert.equal(log[0].stream, true);
  assert.deepEqual(log[0].messages, [{ role: 'user', content: 'hi' }]);
  assert.equal(log[0].turn_index_used, 0);
  assert.equal(log[0].outcome, 'ok');
  assert.equal(log[1].headers['x-api-key'], `<redacted:${secret.length} chars>`);
  assert.equal(log[1].system, 'be brief');
  assert.equal(log[1].stream, false);
  assert.deepEqual(log[1].messages, [{ role: 'user', content: 'yo' }]);

  await fetch(`${llm.url}/_control/reset`, { method: 'POST' });
  assert.deepEqual(await getLog(), []);
  const again = await post('/v1/chat/completions', chat('hi'));
  assert.equal(again.status, 500, 'reset clears queues too');
  await again.text();
});

// ---------------------------------------------------------------------------
// Static server
// ---------------------------------------------------------------------------

test('static server: MIME types, index.html, 404, extra headers', async () => {
  const wasm = await fetch(`${stat.url}/app_bg.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer())].slice(0, 4), [0x00, 0x61, 0x73, 0x6d]);
  assert.equal(wasm.headers.get('content-security-policy'), "default-src 'self'");
  // streaming compile requires the exact MIME type
  const mod = await WebAssembly.compileStreaming(fetch(`${stat.url}/app_bg.wasm`));
  assert.ok(mod instanceof WebAssembly.Module);

  const js = await fetch(`${stat.url}/app.js`);
  assert.match(js.headers.get('content-type'), /^text\/javascript/);
  await js.text();
  const css = await fetch(`${stat.url}/style.css`);
  assert.match(css.headers.get('content-type'), /^text\/css/);
  await css.text();

  const idx = await fetch(`${stat.url}/`);
  assert.match(idx.headers.get('content-type'), /^text\/html/);
  assert.match(await idx.text(), /<title>root<\/title>/);
  const sub = await fetch(`${stat.url}/sub`); // redirected to /sub/
  assert.equal(sub.status, 200);
  assert.match(await sub.text(), /<title>sub<\/title>/);

  const missing = await fetch(`${stat.url}/nope.js`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-security-policy'), "default-src 'self'");
  await missing.text();
});

test('static server: refuses path traversal', async () => {
  for (const p of ['/../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/sub/..%2f..%2fsecret.txt', '/..\\secret.txt']) {
    const r = await rawGet(stat.port, p);
    assert.ok([400, 403, 404].includes(r.status), `${p} → ${r.status}`);
    assert.ok(!r.body.includes('TOP-SECRET'), `${p} leaked the file`);
  }
  const r = await rawGet(stat.port, '/..%2fsecret.txt');
  assert.equal(r.status, 403);
});

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

test('CLI: prints exactly one LLM_SERVER_URL line, serves, exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, [path.join(HERE, 'llm-server.mjs'), '--port', '0', '--exit-with-parent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const url = await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no URL line within 5 s')), 5000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = out.match(/^LLM_SERVER_URL=(http:\/\/127\.0\.0\.1:\d+)\n$/);
        if (m) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
      child.on('exit', (c) => reject(new Error(`exited early: ${c}`)));
    });
    const h = await fetch(`${url}/_control/health`);
    assert.equal(await h.text(), 'ok');
    const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig })));
    child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, sig: null });
    assert.equal(out.split('\n').filter(Boolean).length, 1);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
