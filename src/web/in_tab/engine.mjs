// The "In this tab" model runtime: a GGUF model run by @wllama/wllama
// (llama.cpp compiled to WebAssembly; it runs the model in its own Worker),
// loaded the first time a person picks or uses the in-tab provider. Copied
// by scripts/site-post-build.mjs to lazy/intab/engine.mjs beside wllama's
// module and wasm; the service worker keeps them once fetched.
//
// - download(url, onProgress, signal): the model file into Cache Storage
//   (`intab-models-v1`, keyed by its URL), with progress and cancel; asked
//   for once, then read from there, offline too.
// - keepFile(file): a .gguf picked from disk, kept the same way under a
//   `file:` key.
// - isKept(key): whether a model is in the cache.
// - chat(body, signal): an OpenAI chat-completions request body (what the
//   core's OpenAI codec wrote; wllama speaks the same API) answered as a
//   `Response` with the streamed answer in server-sent events, the way a
//   llama.cpp server would answer it; `response_format` (the answer's JSON
//   schema) becomes wllama's grammar-constrained sampling.
//
// Deliberately not here: reading the answer (the core's OpenAI codec does),
// retries, prices, what a failure means to the person (an error status with
// words; the core maps it). One thread unless the page is cross-origin
// isolated (docs/decisions/in-tab-model.md).
const CACHE = 'intab-models-v1';
const BASE = new URL('./', import.meta.url);

let wllama = null; // the runtime, made once
let loaded = null; // { key, promise } of the model loaded in it
let busy = Promise.resolve(); // one generation at a time

/** How many threads the model runs on here, and why. */
export function threads() {
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = Math.max(1, Math.min(4, (navigator.hardwareConcurrency || 1) - 1));
  return isolated ? cores : 1;
}

async function cache() {
  return caches.open(CACHE);
}

export async function isKept(key) {
  try {
    return !!(await (await cache()).match(key));
  } catch (e) {
    return false;
  }
}

/** Downloads `url` into the cache; `onProgress(loaded, total)` as bytes come. */
export async function download(url, onProgress, signal) {
  const response = await fetch(url, { credentials: 'omit', redirect: 'follow', signal });
  if (!response.ok) throw new Error(`the server answered ${response.status} for the model file`);
  const total = Number(response.headers.get('content-length')) || 0;
  const reader = response.body.getReader();
  const parts = [];
  let got = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.byteLength;
    onProgress(got, total);
  }
  if (total && got !== total) throw new Error(`the download stopped at ${got} of ${total} bytes`);
  const blob = new Blob(parts, { type: 'application/octet-stream' });
  await (await cache()).put(url, new Response(blob, { headers: { 'content-length': String(blob.size) } }));
  await keepRuntime();
  return blob.size;
}

/** Fetches the runtime's own files through the page, so that the service
 *  worker keeps them (it keeps them on first use) while the network is
 *  there: with the model, the runtime is asked for once too. */
async function keepRuntime() {
  await Promise.all(['engine.mjs', 'wllama.mjs', 'wllama.wasm'].map((f) =>
    fetch(new URL(f, BASE).href).then((r) => r.arrayBuffer()).catch(() => null)));
}

/** Keeps a model file picked from disk; returns its key. */
export async function keepFile(file) {
  const key = new URL(`file/${encodeURIComponent(file.name)}`, 'https://in-this-tab.invalid/').href;
  await (await cache()).put(key, new Response(file, { headers: { 'content-length': String(file.size) } }));
  await keepRuntime();
  return key;
}

async function runtime() {
  if (!wllama) {
    const { Wllama } = await import(new URL('wllama.mjs', BASE).href);
    const made = new Wllama({ default: new URL('wllama.wasm', BASE).href }, { suppressNativeLog: true, logger: quiet });
    // No compatibility shims from a CDN: everything comes from this site.
    if (typeof made.setCompat === 'function') made.setCompat(null);
    wllama = made;
  }
  return wllama;
}

const quiet = { debug() {}, log() {}, warn: console.warn.bind(console), error: console.error.bind(console) };

async function load(key) {
  if (loaded && loaded.key === key) return loaded.promise;
  const promise = (async () => {
    const kept = await (await cache()).match(key);
    if (!kept) throw notKept(key);
    const blob = await kept.blob();
    const w = await runtime();
    if (w.isModelLoaded()) await w.exit().catch(() => {});
    wllama = null;
    const fresh = await runtime();
    await fresh.loadModel([blob], { n_ctx: 8192, n_threads: threads(), seed: 42, n_gpu_layers: 0 });
    return fresh;
  })();
  loaded = { key, promise };
  promise.catch(() => {
    if (loaded && loaded.promise === promise) loaded = null;
  });
  return promise;
}

class NotKept extends Error {}
function notKept(key) {
  return new NotKept(`The model is not in this browser yet (${key}). Open Settings, choose it under "In this tab" and press Download.`);
}

function errorResponse(status, message) {
  return new Response(JSON.stringify({ error: { message, type: 'in_tab' } }), { status, headers: { 'content-type': 'application/json' } });
}

/** The figures of every answer so far (tests and benches read them). */
export const timings = [];

const encoder = new TextEncoder();
const event = (data) => encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

/** Answers an OpenAI chat-completions body as a streamed `Response`. */
export async function chat(bodyText, signal) {
  let body;
  try {
    body = JSON.parse(bodyText);
  } catch (e) {
    return errorResponse(400, 'the request was not JSON');
  }
  let w;
  try {
    w = await load(body.model);
  } catch (e) {
    if (e instanceof NotKept) return errorResponse(404, e.message);
    return errorResponse(500, `The model could not be loaded in this tab (${e && e.message || e}).`);
  }
  if (signal && signal.aborted) return errorResponse(499, 'stopped');
  const params = {
    messages: body.messages,
    stream: true,
    max_tokens: body.max_tokens || 512,
    temperature: body.temperature ?? 0.2,
    seed: 42,
    abortSignal: signal,
  };
  if (body.response_format) params.response_format = body.response_format;
  let previous = busy;
  let release;
  busy = new Promise((r) => (release = r));
  const stream = new ReadableStream({
    async start(controller) {
      await previous;
      try {
        await w.createChatCompletion({
          ...params,
          onData(chunk) {
            // wllama reports its counts as llama.cpp's `timings`; the
            // usage a server sends with `stream_options.include_usage`
            // is the same figures, so the cost meter counts real tokens.
            const t = chunk.timings;
            if (t && !chunk.usage) {
              const cached = t.cache_n || 0;
              chunk.usage = { prompt_tokens: cached + t.prompt_n, completion_tokens: t.predicted_n, prompt_tokens_details: { cached_tokens: cached } };
            }
            if (t) timings.push(t);
            controller.enqueue(event(chunk));
          },
        });
        controller.enqueue(event('[DONE]'));
        controller.close();
      } catch (e) {
        if (signal && signal.aborted) controller.error(new DOMException('stopped', 'AbortError'));
        else {
          controller.enqueue(event({ error: { message: `The model in this tab failed (${e && e.message || e}).`, type: 'in_tab' } }));
          controller.close();
        }
      } finally {
        release();
      }
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}
