//! The figures of a run, read from the session's export JSON (the same
//! data the site shows in its cost display and Versions tab), and the
//! report: one row per task run, a total, as JSON and a Markdown table.
//!
//! What it counts and where from:
//! - version reached, the project's own tests: the last version of
//!   `meta.project.versions` (its number and its `tests`);
//! - dollars, tokens in / cached / out, model calls: `ledger.total`;
//! - format failures repaired: the team leader's and members' answers
//!   whose JSON was repaired locally ("Repaired the JSON" notes) or sent
//!   back to the model to repair (answers kept as `RoleZero.shown_only`);
//!   an answer the model repaired in vain is then also counted refused;
//! - format failures refused: answers that gave no usable command list
//!   (the error sent back to the model, which ends with the format line);
//! - fix rounds: failing test runs reported to the engineer to fix
//!   (messages caused by `Sandbox.run_tests`), plus versions made to fix
//!   an error of the preview;
//! - build s: wall time from Start until the run came to rest.
//! It does not judge the app (checks.mjs does).

const FORMAT_LINE = 'Answer with your thoughts, then one ```json block holding a list of commands';

/** The figures of one exported session. */
export function figures(data) {
  const versions = data.meta?.project?.versions ?? [];
  const last = versions.at(-1) ?? null;
  const total = data.ledger?.total ?? {};
  const messages = data.messages ?? [];
  const cause = (m) => (typeof m.cause_by === 'string' ? m.cause_by : String(m.cause_by ?? ''));
  // The commands' outputs as the role keeps them (its hand-back repeats them: not counted).
  const localRepairs = messages.filter((m) => cause(m) === 'RunCommand' && m.content.startsWith('Note:') && m.content.includes('Repaired the JSON')).length;
  const modelRepairs = messages.filter((m) => cause(m) === 'RoleZero.shown_only').length;
  const refused = messages.filter((m) => cause(m) === 'RunCommand' && m.content.includes(FORMAT_LINE) && m.content.trim().endsWith('}}].')).length;
  const failureReports = messages.filter((m) => cause(m) === 'Sandbox.run_tests').length;
  return {
    version: last?.number ?? 0,
    tests: last?.tests ? { passed: last.tests.passed, run: last.tests.passed + last.tests.failed } : null,
    dollars: total.cost ?? 0,
    tokens: { in: total.prompt_tokens ?? 0, cached: total.cached_tokens ?? 0, out: total.completion_tokens ?? 0 },
    calls: total.calls ?? 0,
    repaired: localRepairs + modelRepairs,
    refused,
    fixRounds: failureReports + versions.filter((v) => v.kind === 'fix').length,
  };
}

/** The project's files as its last version has them: path → text. */
export function lastFiles(data) {
  const last = data.meta?.project?.versions?.at(-1);
  if (!last) return {};
  const out = {};
  for (const [path, ref] of Object.entries(last.files ?? {})) {
    const file = (data.files ?? []).find((f) => f.path === path && f.version === ref.version);
    if (file) out[path] = file.content;
  }
  return out;
}

/** Sums of the rows: tasks whose checks all pass, checks passed, and the spend. */
export function totals(rows) {
  const sum = (f) => rows.reduce((s, r) => s + f(r), 0);
  return {
    runs: rows.length,
    appsPassing: rows.filter((r) => r.checks.total > 0 && r.checks.passed === r.checks.total).length,
    checks: { passed: sum((r) => r.checks.passed), total: sum((r) => r.checks.total) },
    withVersion: rows.filter((r) => r.version > 0).length,
    tests: { passed: sum((r) => r.tests?.passed ?? 0), run: sum((r) => r.tests?.run ?? 0) },
    dollars: sum((r) => r.dollars),
    tokens: { in: sum((r) => r.tokens.in), cached: sum((r) => r.tokens.cached), out: sum((r) => r.tokens.out) },
    calls: sum((r) => r.calls),
    repaired: sum((r) => r.repaired),
    refused: sum((r) => r.refused),
    fixRounds: sum((r) => r.fixRounds),
    seconds: sum((r) => r.seconds),
  };
}

const HEAD = ['task', 'run', 'version', 'own tests', 'checks', 'app', '$', 'tokens in / cached / out', 'calls', 'repaired', 'refused', 'fix rounds', 'build s'];

/** The report as a Markdown table (one row per run, then the total). */
export function markdown(report) {
  const { rows, total } = report;
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const tests = (t) => (t && t.run > 0 ? `${t.passed}/${t.run}` : '–');
  const out = [line(HEAD), line(HEAD.map(() => '---'))];
  for (const r of rows) {
    out.push(line([
      r.task, r.run, r.version || 'none', tests(r.tests), `${r.checks.passed}/${r.checks.total}`,
      r.checks.total > 0 && r.checks.passed === r.checks.total ? 'pass' : 'FAIL',
      r.dollars.toFixed(4), `${r.tokens.in} / ${r.tokens.cached} / ${r.tokens.out}`, r.calls, r.repaired, r.refused, r.fixRounds, r.seconds.toFixed(1),
    ]));
  }
  out.push(line([
    '**total**', total.runs, `${total.withVersion}/${total.runs}`, tests(total.tests), `${total.checks.passed}/${total.checks.total}`,
    `${total.appsPassing}/${total.runs} pass`, total.dollars.toFixed(4), `${total.tokens.in} / ${total.tokens.cached} / ${total.tokens.out}`,
    total.calls, total.repaired, total.refused, total.fixRounds, total.seconds.toFixed(1),
  ]));
  // Why each failing run failed, under the table.
  const why = rows.filter((r) => r.checks.passed < r.checks.total).map((r) => {
    const failed = r.checks.results.filter((c) => !c.passed).map((c) => `${c.name} (${c.error})`);
    return `- ${r.task} run ${r.run}: ${r.status}${failed.length ? ` Failed: ${failed.join('; ')}.` : ''}`;
  });
  return `${out.join('\n')}\n${why.length ? `\n${why.join('\n')}\n` : ''}`;
}
