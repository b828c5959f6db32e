#!/usr/bin/env node
//! The eval: the built site (dist/, or --site) in headless Chromium, given
//! each idea of the task set in a fresh session, the team's questions
//! answered with one fixed reply, the run waited for (or stopped at the
//! time limit; the budget caps it in the site itself), then the task's
//! acceptance checks run on the app the last version holds, and a report
//! written: report.json, report.md, a screenshot of each app (and of the
//! site as each run left it), and each session's export.
//!
//! The app is checked full size, as "Open in new tab" shows it, but served
//! from its own origin in a fresh browser context that can reach nothing
//! else (checks.mjs): the site's preview frame has no storage, and the
//! checks need a page that reloads and remembers. The key comes from the
//! environment and goes into the page only: never to disk, logs or the
//! report. It does not start a model server: point it at one.

import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchBrowser } from './browser.mjs';
import { loadTasks, TASKS_DIR } from './tasks.mjs';
import { runChecks } from './checks.mjs';
import { configure, build, exportSession } from './site.mjs';
import { figures, lastFiles, totals, markdown } from './report.mjs';
import { startStaticServer } from '../tests/support/static-server.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const HELP = `Usage: bash scripts/eval.sh [options]

Runs the built site (dist/) on each idea of the task set, answers the
team's questions with a fixed reply, waits for the version, then runs the
task's acceptance checks on the app and prints a table. Build the site
first (trunk build --release).

Options:
  --tasks DIR        the task set (default eval/tasks)
  --only ID,ID       only these tasks (ids are the file names)
  --repeat N         run each task N times (default 1)
  --team KIND        company | fixed_sop | assistant (default: the site's)
  --budget USD       the budget of each run (default 1)
  --rounds N         rounds before the team pauses (default 40)
  --call-limit N     model calls a run may make before it pauses, its files
                     so far a version (Settings' "Model calls per run"; for
                     small local models; default 0: no limit)
  --time-limit S     stop a run after S seconds (default 900)
  --answer TEXT      the reply to every question of the team
                     (default: "Decide for me; keep it simple.")
  --out DIR          where report.json, report.md and the screenshots go
                     (default eval/out/<date-time>)
  --site URL         a running site instead of serving dist/
  --preset NAME      the Settings preset (overrides TABTEAM_EVAL_PRESET)
  -h, --help         this text

The provider, from the environment (the key is typed into the page and
never written anywhere):
  TABTEAM_EVAL_PRESET     the Settings preset: openai, anthropic, custom, …
                          (default custom: any OpenAI-compatible server)
  TABTEAM_EVAL_BASE_URL   the base URL (for custom; e.g. a local llama.cpp
                          server's http://127.0.0.1:8080/v1)
  TABTEAM_EVAL_MODEL      the model name (required)
  TABTEAM_EVAL_KEY        the API key (required; any text for a local server)
  TABTEAM_EVAL_PRICE_IN   dollars per million input tokens (needed when the
  TABTEAM_EVAL_PRICE_OUT  site knows no price for the model; 0 for local)

Example:
  TABTEAM_EVAL_PRESET=openai TABTEAM_EVAL_MODEL=gpt-4.1-mini \\
  TABTEAM_EVAL_KEY=sk-... bash scripts/eval.sh --only todo,calculator
`;

/** The options of argv, checked; throws with a person's message. */
export function options(argv, env = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      tasks: { type: 'string' }, only: { type: 'string' }, repeat: { type: 'string' }, team: { type: 'string' },
      budget: { type: 'string' }, rounds: { type: 'string' }, 'call-limit': { type: 'string' }, 'time-limit': { type: 'string' }, answer: { type: 'string' },
      out: { type: 'string' }, site: { type: 'string' }, preset: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const number = (name, fallback, min) => {
    const v = values[name] === undefined ? fallback : Number(values[name]);
    if (!Number.isFinite(v) || v < min) throw new Error(`--${name} must be a number of at least ${min} (got "${values[name]}")`);
    return v;
  };
  if (values.team && !['company', 'fixed_sop', 'assistant'].includes(values.team)) throw new Error(`--team must be company, fixed_sop or assistant (got "${values.team}")`);
  const provider = {
    preset: values.preset || env.TABTEAM_EVAL_PRESET || 'custom',
    baseUrl: env.TABTEAM_EVAL_BASE_URL || '',
    model: env.TABTEAM_EVAL_MODEL || '',
    key: env.TABTEAM_EVAL_KEY || '',
    priceIn: env.TABTEAM_EVAL_PRICE_IN === undefined ? undefined : Number(env.TABTEAM_EVAL_PRICE_IN),
    priceOut: env.TABTEAM_EVAL_PRICE_OUT === undefined ? undefined : Number(env.TABTEAM_EVAL_PRICE_OUT),
  };
  if (!provider.model) throw new Error('Set TABTEAM_EVAL_MODEL to the model to evaluate (see --help).');
  if (!provider.key) throw new Error('Set TABTEAM_EVAL_KEY to your API key (any text for a local server; see --help).');
  if (provider.preset === 'custom' && !provider.baseUrl) throw new Error('Set TABTEAM_EVAL_BASE_URL for the custom preset (see --help).');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  return {
    tasksDir: values.tasks ?? TASKS_DIR,
    only: values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : null,
    repeat: number('repeat', 1, 1),
    team: values.team ?? null,
    budget: number('budget', 1, 0.01),
    rounds: number('rounds', 40, 1),
    callLimit: number('call-limit', 0, 0),
    timeLimit: number('time-limit', 900, 1) * 1000,
    answer: values.answer ?? 'Decide for me; keep it simple.',
    out: values.out ?? join(ROOT, 'eval', 'out', stamp),
    site: values.site ?? null,
    provider,
  };
}

/** Writes `files` under `dir` (paths kept inside it). */
function writeApp(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  for (const [path, content] of Object.entries(files)) {
    const target = normalize(join(dir, path));
    if (!target.startsWith(dir)) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** The app's entry page: index.html, else the first HTML file. */
const entry = (files) => (files['index.html'] !== undefined ? '' : Object.keys(files).find((p) => p.endsWith('.html')) ?? null);

/** Runs the eval; returns the report {provider, options, rows, total}. `log` prints progress. */
export async function evaluate(opts, log = (line) => console.log(line)) {
  const tasks = await loadTasks(opts.tasksDir, opts.only);
  mkdirSync(opts.out, { recursive: true });
  const appsDir = join(opts.out, 'apps');
  const site = opts.site ? null : await startStaticServer({ root: join(ROOT, 'dist') });
  const apps = await startStaticServer({ root: (mkdirSync(appsDir, { recursive: true }), appsDir) });
  const browser = await launchBrowser();
  const rows = [];
  try {
    for (const task of tasks) {
      for (let run = 1; run <= opts.repeat; run++) {
        const name = opts.repeat > 1 ? `${task.id}-${run}` : task.id;
        log(`${name}: building…`);
        const start = Date.now();
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        let row;
        try {
          const page = await context.newPage();
          await page.goto(opts.site ?? site.url);
          await configure(page, opts.provider, opts);
          const outcome = await build(page, task.idea, { answer: opts.answer, timeLimit: opts.timeLimit });
          const seconds = (Date.now() - start) / 1000;
          // The site as the run left it (the conversation, the status), for a look when a run goes wrong.
          await page.screenshot({ path: join(opts.out, `${name}-site.png`) });
          const data = await exportSession(page);
          const files = lastFiles(data);
          // The session as exported (no key is ever in it), to look into a run.
          writeFileSync(join(opts.out, `${name}-session.json`), `${JSON.stringify(data, null, 1)}\n`);
          writeApp(join(appsDir, name), files);
          const page0 = entry(files);
          const shot = join(opts.out, `${name}.png`);
          const checks = page0 === null
            ? { checks: task.checks.map((c) => ({ name: c.name, passed: false, error: 'the project has no HTML page' })), passed: 0, total: task.checks.length }
            : await runChecks(browser, task, `${apps.url}/${name}/${page0}`, { screenshot: shot });
          row = {
            task: task.id, run, status: outcome.status, timedOut: outcome.timedOut, questions: outcome.questions, ...figures(data), seconds,
            checks: { passed: checks.passed, total: checks.total, results: checks.checks, pageErrors: checks.pageErrors ?? [] }, screenshot: page0 === null ? null : `${name}.png`,
          };
        } catch (e) {
          row = { task: task.id, run, status: `the harness failed: ${String(e.message).split('\n')[0]}`, timedOut: false, questions: 0, ...figures({}), seconds: (Date.now() - start) / 1000, checks: { passed: 0, total: task.checks.length, results: [] }, screenshot: null };
        } finally {
          await context.close();
        }
        rows.push(row);
        log(`${name}: version ${row.version || 'none'}, checks ${row.checks.passed}/${row.checks.total} (${row.status})`);
      }
    }
  } finally {
    await browser.close();
    await apps.close();
    await site?.close();
  }
  const { key, baseUrl, ...shown } = opts.provider;
  const report = {
    provider: shown,
    options: { team: opts.team ?? 'site default', budget: opts.budget, rounds: opts.rounds, callLimit: opts.callLimit, timeLimitSeconds: opts.timeLimit / 1000, repeat: opts.repeat, answer: opts.answer },
    rows,
    total: totals(rows),
  };
  writeFileSync(join(opts.out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(opts.out, 'report.md'), `# Eval: ${shown.preset} ${shown.model}\n\n${markdown(report)}`);
  return report;
}

if (process.argv[1] && normalize(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let opts;
  try {
    opts = options(process.argv.slice(2));
  } catch (e) {
    console.error(`${e.message}\n\n${HELP}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log(HELP);
    process.exit(0);
  }
  let report;
  try {
    report = await evaluate(opts);
  } catch (e) {
    console.error(`The eval could not run: ${e.message}`);
    process.exit(1);
  }
  console.log(`\n${markdown(report)}\nReport: ${join(opts.out, 'report.md')} (and report.json, screenshots)`);
}
