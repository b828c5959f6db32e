// Local fake LLM server for tests (OpenAI Chat Completions, Anthropic Messages,
// Gemini generateContent / streamGenerateContent).
//
// Plain Node.js, built-ins only. The contract (Turn format, control API) is
// documented in tests/support/README.md — keep the two in sync.
//
// Library use:
//   import { startLlmServer } from './llm-server.mjs';
//   const srv = await startLlmServer();            // port 0 → a free port
//   ... srv.url ...                                // http://127.0.0.1:<port>
//   await srv.close();
//
// CLI use:
//   node tests/support/llm-server.mjs [--port N] [--host H] [--exit-with-parent]
//                                     [--exit-on-stdin-close] [--max-lifetime SECONDS]
//   prints exactly one line `LLM_SERVER_URL=http://127.0.0.1:<port>` on stdout.

import http from 'node:http';
import { readFileSync } from 'node:fs';
import { parseServerArgs, runServerCli } from './cli.mjs';

// The closing turn of a request for a summary of a role's earlier work
// (`src/core/rolezero/prompts/condense.md`, read from the one place it is
// written). Such a request is answered by a turn whose `match` matches it,
// or else by `summaryOf` the request: it never takes the queue's next
// plain turn, so a script keeps its order whether or not the team
// condensed a history.
const CONDENSE = readFileSync(new URL('../../src/core/rolezero/prompts/condense.md', import.meta.url), 'utf8').trim();

const MAX_BODY_BYTES = 32 * 1024 * 1024;

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*, retry-after, retry-after-ms, x-request-id',
};

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers':
    '*, authorization, content-type, x-api-key, x-goog-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
  'access-control-max-age': '600',
};

// Header values that must never be stored in the log (only their length is kept).
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
]);
// Query parameters that may carry keys (e.g. Gemini's ?key=).
const SECRET_QUERY_PARAMS = new Set(['key', 'api_key', 'api-key', 'apikey', 'access_token']);

const TURN_FIELDS = new Set([
  'text',
  'match',
  'status',
  'error_body',
  'headers',
  'delay_ms',
  'chunk_chars',
  'chunk_delay_ms',
  'cut_after_chunks',
  'malformed',
  'usage',
  'finish_reason',
  'repeat',
]);

// ---------------------------------------------------------------------------
// Turn validation
// ---------------------------------------------------------------------------

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isNonNegInt(v) {
  return Number.isInteger(v) && v >= 0;
}

/** Returns an error string, or null when the turn is valid. */
function validateTurn(t, i) {
  const where = `turns[${i}]`;
  if (!isPlainObject(t)) return `${where} must be an object`;
  for (const k of Object.keys(t)) {
    if (!TURN_FIELDS.has(k)) {
      return `${where}: unknown field "${k}" (allowed: ${[...TURN_FIELDS].join(', ')})`;
    }
  }
  if (t.text !== undefined && typeof t.text !== 'string') return `${where}.text must be a string`;
  if (t.match !== undefined && typeof t.match !== 'string') return `${where}.match must be a string`;
  if (t.status !== undefined && !(Number.isInteger(t.status) && t.status >= 200 && t.status <= 599)) {
    return `${where}.status must be an integer HTTP status (200-599)`;
  }
  if ((t.status === undefined || t.status === 200) && typeof t.text !== 'string') {
    return `${where}.text is required for a successful (status 200) turn`;
  }
  if (t.error_body !== undefined && !isPlainObject(t.error_body) && !Array.isArray(t.error_body)) {
    return `${where}.error_body must be a JSON object`;
  }
  if (t.headers !== undefined) {
    if (!isPlainObject(t.headers)) return `${where}.headers must be an object`;
    for (const [k, v] of Object.entries(t.headers)) {
      if (typeof v !== 'string' && typeof v !== 'number') {
        return `${where}.headers["${k}"] must be a string or number`;
      }
    }
  }
  for (const k of ['delay_ms', 'chunk_delay_ms', 'cut_after_chunks']) {
    if (t[k] !== undefined && !isNonNegInt(t[k])) return `${where}.${k} must be a non-negative integer`;
  }
  if (t.chunk_chars !== undefined && !(Number.isInteger(t.chunk_chars) && t.chunk_chars >= 1)) {
    return `${where}.chunk_chars must be an integer >= 1`;
  }
  if (t.repeat !== undefined && !(Number.isInteger(t.repeat) && t.repeat >= 1)) {
    return `${where}.repeat must be an integer >= 1`;
  }
  if (t.malformed !== undefined && typeof t.malformed !== 'boolean') return `${where}.malformed must be a boolean`;
  if (t.finish_reason !== undefined && typeof t.finish_reason !== 'string') {
    return `${where}.finish_reason must be a string`;
  }
  if (t.usage !== undefined) {
    if (!isPlainObject(t.usage)) return `${where}.usage must be an object`;
    for (const [k, v] of Object.entries(t.usage)) {
      if (!isNonNegInt(v)) return `${where}.usage.${k} must be a non-negative integer`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------
// Request helpers
// ---------------------------------------------------------------------------

/** Text of an OpenAI/Anthropic `content` value (string, or array of parts). */
function contentText(c) {
  if (c == null) return '';
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map(contentText).filter((s) => s !== '').join('\n');
  if (typeof c === 'object') {
    if (typeof c.text === 'string') return c.text;
    if (c.content !== undefined) return contentText(c.content);
  }
  return '';
}

/** The text of Gemini `contents` / `systemInstruction` (objects with `parts`). */
function geminiText(c) {
  if (c == null) return '';
  if (Array.isArray(c)) return c.map(geminiText).filter((s) => s !== '').join('\n');
  if (typeof c === 'object' && Array.isArray(c.parts)) return c.parts.map(contentText).filter((s) => s !== '').join('\n');
  return '';
}

/** The texts of a request's turns, the system prompt first (if any). */
function requestTurns(kind, body) {
  if (kind === 'gemini') {
    const contents = Array.isArray(body.contents) ? body.contents : [];
    return [geminiText(body.systemInstruction), ...contents.map(geminiText)].filter((s) => s !== '');
  }
  const turns = [];
  if (kind === 'anthropic' && body.system !== undefined) turns.push(contentText(body.system));
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) turns.push(contentText(m && m.content));
  }
  return turns.filter((s) => s !== '');
}

/** Whether a request asks for a summary: its last turn is the condense prompt. */
export function isSummaryRequest(turns) {
  return turns.length > 0 && turns[turns.length - 1].trim() === CONDENSE;
}

/** A summary request's answer: short, the same for the same request (how many turns it summarises, how the first after the system prompt opens). */
export function summaryOf(turns, hasSystem) {
  const summarised = turns.slice(hasSystem ? 1 : 0, -1);
  const opening = Array.from(summarised[0] ?? '').slice(0, 80).join('').replace(/\n/g, ' ');
  return `Scripted summary of ${summarised.length} earlier turns; the first began: ${opening}`;
}

/** The text a turn's `match` is tested against. */
function requestText(kind, body) {
  if (kind === 'gemini') {
    return [geminiText(body.systemInstruction), geminiText(body.contents)].filter((s) => s !== '').join('\n');
  }
  const parts = [];
  if (kind === 'anthropic' && body.system !== undefined) parts.push(contentText(body.system));
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) parts.push(contentText(m && m.content));
  }
  return parts.filter((s) => s !== '').join('\n');
}

function redactHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    out[name] = SECRET_HEADERS.has(name) ? `<redacted:${String(v).length} chars>` : v;
  }
  return out;
}

function redactedQuery(url) {
  const out = {};
  for (const [k, v] of url.searchParams) {
    out[k] = SECRET_QUERY_PARAMS.has(k.toLowerCase()) ? `<redacted:${v.length} chars>` : v;
  }
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('request body too large'), { tooLarge: true }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function estimateTokens(chars) {
  return Math.ceil(chars / 4);
}

function splitChunks(text, n) {
  const cps = Array.from(text); // code points: never split a surrogate pair
  const out = [];
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(''));
  return out;
}

// ---------------------------------------------------------------------------
// Error bodies
// ---------------------------------------------------------------------------

function openaiErrorType(status) {
  if (status === 401) return ['invalid_request_error', 'invalid_api_key'];
  if (status === 403) return ['permission_error', 'permission_denied'];
  if (status === 404) return ['invalid_request_error', 'model_not_found'];
  if (status === 429) return ['requests', 'rate_limit_exceeded'];
  if (status >= 500) return ['server_error', 'server_error'];
  return ['invalid_request_error', null];
}

function anthropicErrorType(status) {
  switch (status) {
    case 400: return 'invalid_request_error';
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 529: return 'overloaded_error';
    default: return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function openaiError(message, type, code) {
  return { error: { message, type, param: null, code } };
}

/** Google's canonical status names, as the Gemini API puts them in `error.status`. */
function googleStatus(status) {
  switch (status) {
    case 400: return 'INVALID_ARGUMENT';
    case 401: return 'UNAUTHENTICATED';
    case 403: return 'PERMISSION_DENIED';
    case 404: return 'NOT_FOUND';
    case 429: return 'RESOURCE_EXHAUSTED';
    case 500: return 'INTERNAL';
    case 503: return 'UNAVAILABLE';
    case 504: return 'DEADLINE_EXCEEDED';
    default: return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}

function defaultErrorBody(kind, status, message) {
  if (kind === 'gemini') {
    return { error: { code: status, message, status: googleStatus(status) } };
  }
  if (kind === 'anthropic') {
    return { type: 'error', error: { type: anthropicErrorType(status), message } };
  }
  const [type, code] = openaiErrorType(status);
  return openaiError(message, type, code);
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

function createState() {
  return {
    queues: new Map(), // key -> { nextIndex, turns: [{ index, turn, remaining }] }
    log: [],
    seq: 0,
  };
}

/**
 * Start the fake LLM server.
 * @param {{port?: number, host?: string}} [opts]
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>}>}
 */
export function startLlmServer({ port = 0, host = '127.0.0.1' } = {}) {
  const state = createState();
  const timers = new Set();
  let closed = false;

  // A sleep that is cut short (resolves early) when the server closes.
  function sleep(ms) {
    if (!ms || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { resolve };
      entry.t = setTimeout(() => {
        timers.delete(entry);
        resolve();
      }, ms);
      timers.add(entry);
    });
  }

  const server = http.createServer({ noDelay: true, keepAliveTimeout: 5000 }, (req, res) => {
    handle(req, res).catch((err) => {
      try {
        if (!res.headersSent) {
          sendJson(res, 500, openaiError(`llm-server: internal error: ${err && err.stack || err}`, 'server_error', 'internal'));
        } else {
          res.destroy();
        }
      } catch {
        /* ignore */
      }
    });
  });

  function sendJson(res, status, obj, extraHeaders = {}) {
    const body = JSON.stringify(obj);
    res.writeHead(status, {
      ...CORS_HEADERS,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...extraHeaders,
    });
    res.end(body);
  }

  function sendText(res, status, text, extraHeaders = {}) {
    res.writeHead(status, {
      ...CORS_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      ...extraHeaders,
    });
    res.end(text);
  }

  // Terminate the connection mid-response: the client sees an incomplete body.
  function cutConnection(res) {
    const sock = res.socket;
    if (!sock) return;
    sock.end(); // flush what was written, then FIN — no chunked terminator is sent
    const t = setTimeout(() => sock.destroy(), 200);
    t.unref();
  }

  async function handle(req, res) {
    const url = new URL(req.url, 'http://llm-server.invalid');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;

    if (req.method === 'OPTIONS') {
      const headers = { ...CORS_HEADERS, ...PREFLIGHT_HEADERS, 'content-length': '0' };
      if (req.headers['access-control-request-private-network'] === 'true') {
        headers['access-control-allow-private-network'] = 'true';
      }
      res.writeHead(204, headers);
      res.end();
      return;
    }

    if (path === '/_control' || path.startsWith('/_control/')) return control(req, res, path);

    let kind = null;
    if (path.endsWith('/chat/completions')) kind = 'openai';
    else if (path.endsWith('/messages')) kind = 'anthropic';
    else if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) kind = 'gemini';
    if (!kind) {
      sendJson(res, 404, openaiError(`llm-server: no route for ${req.method} ${url.pathname}`, 'invalid_request_error', 'not_found'));
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, openaiError(`llm-server: ${req.method} not allowed on ${url.pathname} (use POST)`, 'invalid_request_error', 'method_not_allowed'), { allow: 'POST, OPTIONS' });
      return;
    }
    return model(req, res, url, kind);
  }

  async function control(req, res, path) {
    const route = `${req.method} ${path}`;
    switch (route) {
      case 'GET /_control/health':
      case 'HEAD /_control/health':
        sendText(res, 200, 'ok');
        return;
      case 'GET /_control/log':
        sendJson(res, 200, state.log);
        return;
      case 'GET /_control/queues': {
        const out = {};
        for (const [k, q] of state.queues) {
          out[k] = q.turns.map((e) => ({ index: e.index, remaining: e.remaining, match: e.turn.match ?? null }));
        }
        sendJson(res, 200, out);
        return;
      }
      case 'POST /_control/reset':
        await drain(req);
        state.queues.clear();
        state.log.length = 0;
        state.seq = 0;
        sendJson(res, 200, { ok: true });
        return;
      case 'POST /_control/script': {
        let body;
        try {
          body = JSON.parse(await readBody(req));
        } catch (e) {
          sendJson(res, 400, openaiError(`llm-server: control body is not valid JSON: ${e.message}`, 'invalid_request_error', 'invalid_json'));
          return;
        }
        if (!isPlainObject(body) || !Array.isArray(body.turns)) {
          sendJson(res, 400, openaiError('llm-server: /_control/script expects {"key"?: string, "turns": [Turn, ...]}', 'invalid_request_error', 'invalid_script'));
          return;
        }
        const key = body.key === undefined || body.key === null ? 'default' : body.key;
        if (typeof key !== 'string' || key === '') {
          sendJson(res, 400, openaiError('llm-server: "key" must be a non-empty string', 'invalid_request_error', 'invalid_script'));
          return;
        }
        for (let i = 0; i < body.turns.length; i++) {
          const err = validateTurn(body.turns[i], i);
          if (err) {
            sendJson(res, 400, openaiError(`llm-server: invalid turn: ${err}`, 'invalid_request_error', 'invalid_script'));
            return;
          }
        }
        let q = state.queues.get(key);
        if (!q) {
          q = { nextIndex: 0, turns: [] };
          state.queues.set(key, q);
        }
        const indices = [];
        for (const turn of body.turns) {
          const index = q.nextIndex++;
          indices.push(index);
          q.turns.push({ index, turn: structuredClone(turn), remaining: turn.repeat ?? 1 });
        }
        sendJson(res, 200, { ok: true, key, indices, queued: q.turns.length });
        return;
      }
      default:
        sendJson(res, 404, openaiError(`llm-server: no control route ${route}`, 'invalid_request_error', 'not_found'));
    }
  }

  function drain(req) {
    return readBody(req).catch(() => '');
  }

  /** Pick (and consume) the turn for a request. A summary request takes only a turn whose `match` matches it. */
  function takeTurn(modelName, text, summary) {
    let key = 'default';
    if (typeof modelName === 'string') {
      const mq = state.queues.get(modelName);
      if (mq && mq.turns.length > 0) key = modelName;
    }
    const q = state.queues.get(key);
    if (!q) return { key, entry: null, queued: 0 };
    const pos = q.turns.findIndex((e) => (e.turn.match === undefined ? !summary : text.includes(e.turn.match)));
    if (pos < 0) return { key, entry: null, queued: q.turns.length };
    const entry = q.turns[pos];
    entry.remaining -= 1;
    if (entry.remaining <= 0) q.turns.splice(pos, 1);
    return { key, entry, queued: q.turns.length };
  }

  async function model(req, res, url, kind) {
    let gone = false;
    res.on('close', () => {
      gone = true;
    });

    const seq = ++state.seq;
    const entry = {
      seq,
      path: url.pathname,
      query: redactedQuery(url),
      api: kind,
      model: null,
      stream: false,
      messages: null,
      headers: redactHeaders(req.headers),
      queue: null,
      turn_index_used: null,
      outcome: 'unscripted',
      client_closed_early: false,
      request_body: null,
    };
    if (kind === 'anthropic') entry.system = null;
    state.log.push(entry);
    res.on('close', () => {
      if (!res.writableFinished && !entry.outcome.startsWith('fault:cut')) entry.client_closed_early = true;
    });

    const reqId = `req_llmsrv_${seq}`;
    const idHeaders = { 'x-request-id': reqId };
    if (kind === 'anthropic') idHeaders['request-id'] = reqId;

    let raw;
    try {
      raw = await readBody(req);
    } catch (e) {
      entry.outcome = 'fault:bad_request_body';
      if (e && e.tooLarge) {
        sendJson(res, 413, openaiError('llm-server: request body too large', 'invalid_request_error', 'request_too_large'), { connection: 'close' });
      }
      return;
    }
    let body;
    try {
      body = JSON.parse(raw);
      if (!isPlainObject(body)) throw new Error('top-level value is not an object');
    } catch (e) {
      entry.outcome = 'fault:bad_request_json';
      sendJson(res, 400, openaiError(`llm-server: request body is not valid JSON: ${e.message}`, 'invalid_request_error', 'invalid_json'), idHeaders);
      return;
    }

    // Gemini names the model in the path and streams by method, not by field.
    const geminiPath = kind === 'gemini' ? /\/models\/([^/:]+):(stream)?/i.exec(url.pathname) : null;
    const modelName = geminiPath ? decodeURIComponent(geminiPath[1]) : body.model;
    entry.model = modelName ?? null;
    entry.stream = geminiPath ? geminiPath[2] !== undefined : body.stream === true;
    entry.messages = kind === 'gemini' ? body.contents ?? null : body.messages ?? null;
    if (kind === 'anthropic') entry.system = body.system ?? null;
    entry.request_body = body;

    const text = requestText(kind, body);
    const turns = requestTurns(kind, body);
    const summary = isSummaryRequest(turns);
    const picked = takeTurn(modelName, text, summary);
    entry.queue = picked.key;
    if (!picked.entry && summary) {
      const hasSystem = kind === 'gemini' ? geminiText(body.systemInstruction) !== '' : kind === 'anthropic' ? body.system !== undefined : body.messages?.[0]?.role === 'system';
      picked.entry = { index: null, turn: { text: summaryOf(turns, hasSystem) } };
      entry.summary = true;
    }

    if (!picked.entry) {
      entry.outcome = 'unscripted';
      const shown = modelName === undefined ? '(none)' : String(modelName);
      const snippet = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      const message =
        `llm-server: no scripted turn for model ${shown} ` +
        `(queue '${picked.key}' has ${picked.queued} turn(s), none matching; ` +
        `request text: ${JSON.stringify(snippet)})`;
      const errBody = kind === 'gemini' ? defaultErrorBody(kind, 500, message) : openaiError(message, 'llm_server_unscripted', 'unscripted');
      if (kind === 'anthropic') errBody.type = 'error';
      sendJson(res, 500, errBody, idHeaders);
      return;
    }

    const turn = picked.entry.turn;
    entry.turn_index_used = picked.entry.index;

    const status = turn.status ?? 200;
    const faults = [];
    if (status !== 200) faults.push(`status=${status}`);
    else {
      if (turn.cut_after_chunks !== undefined) faults.push(`cut_after_chunks=${turn.cut_after_chunks}`);
      if (turn.malformed) faults.push('malformed');
    }
    entry.outcome = faults.length ? `fault:${faults.join(',')}` : 'ok';

    const extraHeaders = { ...idHeaders };
    for (const [k, v] of Object.entries(turn.headers ?? {})) extraHeaders[k.toLowerCase()] = String(v);

    await sleep(turn.delay_ms);
    if (gone || closed) return;

    if (status !== 200) {
      const message = turn.text || `llm-server: scripted error ${status}`;
      sendJson(res, status, turn.error_body ?? defaultErrorBody(kind, status, message), extraHeaders);
      return;
    }

    const replyText = turn.text ?? '';
    const usageIn = turn.usage ?? {};
    const promptTokens = usageIn.prompt_tokens ?? usageIn.input_tokens ?? estimateTokens(text.length);
    const completionTokens =
      usageIn.completion_tokens ?? usageIn.output_tokens ?? estimateTokens(Array.from(replyText).length);
    const finish = turn.finish_reason ?? 'stop';
    const ctx = { res, turn, modelName: modelName ?? 'unknown', seq, replyText, promptTokens, completionTokens, finish, extraHeaders, body, isGone: () => gone || closed };

    if (entry.stream) {
      if (kind === 'openai') await streamOpenAI(ctx);
      else if (kind === 'gemini') await streamGemini(ctx);
      else await streamAnthropic(ctx);
    } else {
      const whole = { openai: openaiCompletion, anthropic: anthropicMessage, gemini: geminiResponse }[kind];
      sendWhole(ctx, whole(ctx));
    }
  }

  function sendWhole({ res, turn, extraHeaders }, obj) {
    if (turn.malformed) {
      const bad = '{not json';
      res.writeHead(200, { ...CORS_HEADERS, 'content-type': 'application/json', 'content-length': bad.length, ...extraHeaders });
      res.end(bad);
      return;
    }
    if (turn.cut_after_chunks !== undefined) {
      const full = JSON.stringify(obj);
      const half = full.slice(0, Math.floor(full.length / 2));
      res.writeHead(200, { ...CORS_HEADERS, 'content-type': 'application/json', 'content-length': Buffer.byteLength(full), ...extraHeaders });
      res.write(half);
      cutConnection(res);
      return;
    }
    sendJson(res, 200, obj, extraHeaders);
  }

  function openaiUsage(c) {
    return {
      prompt_tokens: c.promptTokens,
      completion_tokens: c.completionTokens,
      total_tokens: c.promptTokens + c.completionTokens,
    };
  }

  function openaiCompletion(c) {
    return {
      id: `chatcmpl-llmsrv-${c.seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: c.modelName,
      system_fingerprint: 'fp_llm_server',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: c.replyText, refusal: null },
          logprobs: null,
          finish_reason: c.finish,
        },
      ],
      usage: openaiUsage(c),
    };
  }

  function anthropicStopReason(finish) {
    if (finish === 'stop') return 'end_turn';
    if (finish === 'length') return 'max_tokens';
    if (finish === 'tool_calls') return 'tool_use';
    return finish;
  }

  /**
   * The prompt-cache figures a turn scripts in `usage`
   * (`cache_read_input_tokens`, `cache_creation_input_tokens`), reported
   * beside `input_tokens` as Anthropic does; none when not scripted.
   */
  function anthropicCacheUsage(c) {
    const usage = c.turn.usage ?? {};
    const out = {};
    for (const k of ['cache_creation_input_tokens', 'cache_read_input_tokens']) if (usage[k] !== undefined) out[k] = usage[k];
    return out;
  }

  function anthropicMessage(c) {
    return {
      id: `msg_llmsrv_${c.seq}`,
      type: 'message',
      role: 'assistant',
      model: c.modelName,
      content: [{ type: 'text', text: c.replyText }],
      stop_reason: anthropicStopReason(c.finish),
      stop_sequence: null,
      usage: { input_tokens: c.promptTokens, ...anthropicCacheUsage(c), output_tokens: c.completionTokens },
    };
  }

  function geminiFinishReason(finish) {
    if (finish === 'stop') return 'STOP';
    if (finish === 'length') return 'MAX_TOKENS';
    if (finish === 'content_filter') return 'SAFETY';
    return finish;
  }

  /** `usageMetadata`; a scripted `cached_tokens` is reported as `cachedContentTokenCount`. */
  function geminiUsage(c, done) {
    const u = { promptTokenCount: c.promptTokens, totalTokenCount: c.promptTokens + (done ? c.completionTokens : 0) };
    if (done) u.candidatesTokenCount = c.completionTokens;
    const cached = (c.turn.usage ?? {}).cached_tokens;
    if (cached !== undefined) u.cachedContentTokenCount = cached;
    return u;
  }

  function geminiChunk(c, text, done) {
    const candidate = { content: { parts: [{ text }], role: 'model' }, index: 0 };
    if (done) candidate.finishReason = geminiFinishReason(c.finish);
    return { candidates: [candidate], usageMetadata: geminiUsage(c, done), modelVersion: c.modelName, responseId: `llmsrv${c.seq}` };
  }

  function geminiResponse(c) {
    return geminiChunk(c, c.replyText, true);
  }

  /**
   * Gemini's alt=sse stream: `data:` events ended by CRLF CRLF, as the real
   * API sends them; a last chunk with an empty text part carries
   * `finishReason` and the whole usage; no end marker (the body just ends).
   */
  async function streamGemini(c) {
    const { res } = c;
    const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\r\n\r\n`);
    sseHead(c);
    const whole = await streamDeltas(c, (text) => send(geminiChunk(c, text, false)), 'data: {not json\r\n\r\n');
    if (!whole) return;
    // The last chunk: an empty text part with the finish reason and the usage.
    send(geminiChunk(c, '', true));
    res.end();
  }

  function sseHead(c) {
    c.res.writeHead(200, {
      ...CORS_HEADERS,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...c.extraHeaders,
    });
  }

  async function streamOpenAI(c) {
    const { res } = c;
    const id = `chatcmpl-llmsrv-${c.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = !!(c.body.stream_options && c.body.stream_options.include_usage);
    const chunk = (choices) => {
      const o = { id, object: 'chat.completion.chunk', created, model: c.modelName, system_fingerprint: 'fp_llm_server', choices };
      if (includeUsage) o.usage = null;
      return o;
    };
    const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);

    sseHead(c);
    send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));

    const whole = await streamDeltas(
      c,
      (text) => send(chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }])),
      'data: {not json\n\n',
    );
    if (!whole) return;

    send(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: c.finish }]));
    if (includeUsage) {
      send({ id, object: 'chat.completion.chunk', created, model: c.modelName, system_fingerprint: 'fp_llm_server', choices: [], usage: openaiUsage(c) });
    }
    res.end('data: [DONE]\n\n');
  }

  /**
   * The reply's text as deltas, paced and cut as the turn says (a malformed
   * event after the first delta when asked). False when the stream was cut
   * or the client left: the caller then sends nothing more.
   */
  async function streamDeltas(c, sendDelta, malformedEvent) {
    const { res, turn } = c;
    const deltas = splitChunks(c.replyText, turn.chunk_chars ?? 8);
    const cutAt = turn.cut_after_chunks;
    if (cutAt === 0) return cutConnection(res), false;
    for (let i = 0; i < deltas.length; i++) {
      if (i > 0 && turn.chunk_delay_ms) {
        await sleep(turn.chunk_delay_ms);
        if (c.isGone()) return false;
      }
      sendDelta(deltas[i]);
      if (i === 0 && turn.malformed) res.write(malformedEvent);
      if (cutAt !== undefined && i + 1 >= cutAt) return cutConnection(res), false;
    }
    // Fewer deltas than the cut point: cut before the finish event.
    if (cutAt !== undefined) return cutConnection(res), false;
    return true;
  }

  async function streamAnthropic(c) {
    const { res } = c;
    const send = (event, obj) => res.write(`event: ${event}\ndata: ${JSON.stringify(obj)}\n\n`);

    sseHead(c);
    send('message_start', {
      type: 'message_start',
      message: {
        id: `msg_llmsrv_${c.seq}`,
        type: 'message',
        role: 'assistant',
        model: c.modelName,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: c.promptTokens, ...anthropicCacheUsage(c), output_tokens: Math.min(1, c.completionTokens) },
      },
    });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('ping', { type: 'ping' });

    const whole = await streamDeltas(
      c,
      (text) => send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      'event: content_block_delta\ndata: {not json\n\n',
    );
    if (!whole) return;

    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: anthropicStopReason(c.finish), stop_sequence: null },
      usage: { input_tokens: c.promptTokens, ...anthropicCacheUsage(c), output_tokens: c.completionTokens },
    });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      const shownHost = urlHost(host);
      const url = `http://${shownHost}:${addr.port}`;
      resolve({
        url,
        port: addr.port,
        close() {
          if (closed) return Promise.resolve();
          closed = true;
          for (const e of timers) {
            clearTimeout(e.t);
            e.resolve();
          }
          timers.clear();
          return new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}

function urlHost(host) {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

runServerCli(import.meta.url, {
  name: 'llm-server',
  urlLine: 'LLM_SERVER_URL',
  parse: (argv) => parseServerArgs(argv, { name: 'llm-server' }),
  start: (opts) => startLlmServer({ port: opts.port, host: opts.host }),
});
