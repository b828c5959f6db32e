// The eval itself (scripts/eval.sh) against the local scripted LLM server:
// three tasks, two built correctly and one wrongly (tests/e2e/scripts/
// eval-apps.mjs). The printed table must say exactly that: the correct
// apps pass every check, the todo list that keeps nothing fails the three
// checks about reloading and deleting; the figures come from the sessions
// (a question answered, a JSON repair, a refusal, a fix round, the spend).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, existsSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root, script } from './harness.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { evalTurns } from './scripts/eval-apps.mjs';

const MODEL = 'eval-scripted';
const KEY = 'sk-eval-secret-0123456789';
const env = {};

before(async () => {
  assert.ok(existsSync(join(root, 'dist', 'index.html')), 'run trunk build --release first');
  env.llm = await startLlmServer();
  await script(env.llm, MODEL, evalTurns());
});
after(async () => {
  await env.llm?.close();
});

/** Runs scripts/eval.sh with `args`; resolves {code, stdout, stderr}. */
function evalSh(args, extraEnv) {
  return new Promise((resolve) => {
    const child = spawn('bash', [join(root, 'scripts', 'eval.sh'), ...args], { env: { ...process.env, ...extraEnv }, cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('--help explains the options and the environment', async () => {
  const { code, stdout } = await evalSh(['--help'], {});
  assert.equal(code, 0);
  for (const word of ['--tasks', '--only', '--repeat', '--team', '--budget', '--call-limit', '--time-limit', '--answer', '--preset', 'TABTEAM_EVAL_MODEL', 'TABTEAM_EVAL_KEY', 'TABTEAM_EVAL_BASE_URL']) {
    assert.ok(stdout.includes(word), `--help mentions ${word}`);
  }
});

test('without a key it says what to set, and runs nothing', async () => {
  const { code, stderr } = await evalSh(['--only', 'todo'], { TABTEAM_EVAL_MODEL: MODEL, TABTEAM_EVAL_KEY: '', TABTEAM_EVAL_BASE_URL: 'http://127.0.0.1:9/v1' });
  assert.equal(code, 2);
  assert.match(stderr, /Set TABTEAM_EVAL_KEY/);
});

test('the scripted run: two correct apps pass, the wrong one fails, and the table says so', async () => {
  const out = mkdtempSync(join(tmpdir(), 'tabteam-eval-'));
  const { code, stdout, stderr } = await evalSh(['--only', 'calculator,fruit-search,todo', '--team', 'company', '--budget', '2', '--rounds', '20', '--time-limit', '90', '--out', out], {
    TABTEAM_EVAL_PRESET: 'custom',
    TABTEAM_EVAL_BASE_URL: `${env.llm.url}/v1`,
    TABTEAM_EVAL_MODEL: MODEL,
    TABTEAM_EVAL_KEY: KEY,
    TABTEAM_EVAL_PRICE_IN: '1',
    TABTEAM_EVAL_PRICE_OUT: '2',
  });
  assert.equal(code, 0, stderr);
  const rows = stdout.split('\n').filter((l) => l.startsWith('| '));
  const cells = (task) => rows.find((l) => l.startsWith(`| ${task} `))?.split('|').slice(1, -1).map((c) => c.trim());
  // task, run, version, own tests, checks, app
  assert.deepEqual(cells('calculator').slice(0, 6), ['calculator', '1', '1', '2/2', '5/5', 'pass']);
  assert.deepEqual(cells('fruit-search').slice(0, 6), ['fruit-search', '1', '1', '–', '5/5', 'pass']);
  assert.deepEqual(cells('todo').slice(0, 6), ['todo', '1', '1', '–', '2/5', 'FAIL']);
  assert.deepEqual(cells('**total**').slice(0, 6), ['**total**', '3', '3/3', '2/2', '12/15', '2/3 pass']);

  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const todo = report.rows.find((r) => r.task === 'todo');
  assert.deepEqual(todo.checks.results.filter((c) => !c.passed).map((c) => c.name), [
    'a reload keeps both tasks',
    "deleting 'Walk the dog' removes it and keeps 'Buy milk'",
    'the deletion survives a reload',
  ]);
  const calc = report.rows.find((r) => r.task === 'calculator');
  assert.equal(calc.questions, 1, 'the team leader asked one question');
  assert.equal(calc.calls, 11, 'the calculator took eleven model calls');
  assert.ok(calc.dollars > 0 && calc.tokens.in > 0 && calc.tokens.out > 0, JSON.stringify(calc));
  assert.equal(report.total.calls, 11 + 4 + 5);
  // The fruit search's trailing comma was repaired, the todo leader's answer without commands refused,
  // and the calculator's failing test went to the engineer once (repaired, refused, fix rounds).
  const figure = (task) => report.rows.find((r) => r.task === task);
  assert.deepEqual(['calculator', 'fruit-search', 'todo'].map((t) => [figure(t).repaired, figure(t).refused, figure(t).fixRounds]), [[0, 0, 1], [1, 0, 0], [0, 1, 0]]);
  // A screenshot of each app, and the key nowhere on disk or in the output.
  for (const r of report.rows) assert.ok(statSync(join(out, r.screenshot)).size > 1000, r.screenshot);
  assert.ok(!stdout.includes(KEY) && !stderr.includes(KEY));
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of walk(out)) assert.ok(!readFileSync(file).includes(KEY), `${file} holds the key`);
  rmSync(out, { recursive: true, force: true });
});

test('a run past its time limit is stopped and reported with no version', async () => {
  const model = 'eval-scripted-slow';
  await script(env.llm, model, [{ match: 'named Mike, your goal', text: 'TASK', delay_ms: 30000 }]);
  const out = mkdtempSync(join(tmpdir(), 'tabteam-eval-'));
  const { code, stdout, stderr } = await evalSh(['--only', 'todo', '--time-limit', '3', '--out', out], {
    TABTEAM_EVAL_BASE_URL: `${env.llm.url}/v1`,
    TABTEAM_EVAL_MODEL: model,
    TABTEAM_EVAL_KEY: KEY,
    TABTEAM_EVAL_PRICE_IN: '1',
    TABTEAM_EVAL_PRICE_OUT: '2',
  });
  assert.equal(code, 0, stderr);
  const row = stdout.split('\n').find((l) => l.startsWith('| todo '));
  assert.deepEqual(row.split('|').slice(1, 7).map((c) => c.trim()), ['todo', '1', 'none', '–', '0/5', 'FAIL']);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.equal(report.rows[0].timedOut, true);
  assert.match(report.rows[0].status, /^Stopped by you/);
  rmSync(out, { recursive: true, force: true });
});

test('the options: --only, --repeat, --team and the provider variables are read, and a wrong one is explained', async () => {
  const { options } = await import('../../eval/run.mjs');
  const env = { TABTEAM_EVAL_MODEL: 'm', TABTEAM_EVAL_KEY: 'k', TABTEAM_EVAL_PRESET: 'anthropic', TABTEAM_EVAL_PRICE_IN: '3' };
  const o = options(['--only', 'todo, quiz', '--repeat', '3', '--team', 'fixed_sop', '--budget', '0.5', '--time-limit', '60'], env);
  assert.deepEqual([o.only, o.repeat, o.team, o.budget, o.timeLimit, o.provider.preset, o.provider.priceIn, o.provider.priceOut], [['todo', 'quiz'], 3, 'fixed_sop', 0.5, 60000, 'anthropic', 3, undefined]);
  assert.equal(o.callLimit, 0, 'no call limit unless asked');
  assert.equal(options(['--call-limit', '8'], env).callLimit, 8);
  assert.throws(() => options(['--call-limit', 'many'], env), /--call-limit must be a number of at least 0/);
  assert.throws(() => options(['--team', 'dream'], env), /--team must be company, fixed_sop or assistant/);
  assert.throws(() => options(['--repeat', '0'], env), /--repeat must be a number of at least 1/);
  assert.throws(() => options([], { TABTEAM_EVAL_MODEL: 'm', TABTEAM_EVAL_KEY: 'k' }), /Set TABTEAM_EVAL_BASE_URL/);
  assert.equal(options(['--preset', 'openai'], env).provider.preset, 'openai', '--preset wins over the environment');
});
