// Accessibility (issue #21): axe-core (npm `axe-core`, a dev dependency)
// checks the first screen, a running session and a finished one, in the
// light and the dark theme, and finds no critical, serious or moderate
// violation.
// Screens are reached by test ids and roles, not by layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, script, root, openSettings, closeSettings, showTab } from './harness.mjs';
import { startRun, waitForStatus } from './company-run.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

const env = useSiteAndLlm();

/** What fails the test: every impact but "minor" (axe's best-practice nits). */
const FAILING = new Set(['critical', 'serious', 'moderate']);

/**
 * axe's critical, serious and moderate violations on the page as it is
 * now, as readable lines; minor ones go to the test's diagnostics, to
 * read, not to fail on.
 */
async function violations(page, t) {
  // Evaluated through the driver, so the page's policy (no inline script) does not apply.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  });
  for (const v of found.filter((v) => !FAILING.has(v.impact))) {
    t.diagnostic(`${v.impact} ${v.id} (${v.help}): ${v.nodes.slice(0, 3).join('; ')}`);
  }
  t.diagnostic(`axe: ${found.length} violated rule(s) in all`);
  return found
    .filter((v) => FAILING.has(v.impact))
    .map((v) => `${v.impact} ${v.id} (${v.help}):\n  ${v.nodes.slice(0, 5).join('\n  ')}`);
}

/**
 * Checks the page in both themes (the theme switch's radio buttons in the
 * Settings dialog, by name), and the dialog itself while it is open.
 */
async function checkBothThemes(page, name, t) {
  const found = [];
  for (const theme of ['Light', 'Dark']) {
    await openSettings(page);
    await page.getByRole('radio', { name: theme, exact: true }).check({ force: true });
    // Colours change with a short transition: check the colours it ends on.
    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
    found.push(...(await violations(page, t)).map((v) => `[${name}, ${theme}, Settings open] ${v}`));
    await closeSettings(page);
    found.push(...(await violations(page, t)).map((v) => `[${name}, ${theme}] ${v}`));
    await screenshot(page, `a11y-${name}-${theme.toLowerCase()}`);
  }
  return found;
}

test('the first screen has no critical, serious or moderate accessibility violation', async (t) => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await page.getByTestId('replay').waitFor();
  assert.deepEqual(await checkBothThemes(page, 'first-screen', t), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a running and a finished session have no critical, serious or moderate accessibility violation', async (t) => {
  const model = 'a11y-company';
  // Every answer streams slowly enough to be checked while it is typed.
  await script(env.llm, model, companyTurns().map((turn) => ({ ...turn, chunk_chars: 8, chunk_delay_ms: 15 })));
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  await startRun(env, page, model);
  await page.locator('[data-live=true]').first().waitFor({ timeout: 15000 });
  const running = await violations(page, t);
  await screenshot(page, 'a11y-running');
  await waitForStatus(page, 'Done', { shot: 'a11y-finished', timeout: 90000 });
  await page.locator('[data-testid=session][data-status=finished]').first().waitFor({ state: 'attached' });
  // With what a person opens: every folded part, and a file in the viewer.
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await showTab(page, 'code');
  await page.getByTestId('files').getByRole('button', { name: 'docs/prd.md' }).click();
  await page.getByTestId('viewer').waitFor();
  const finished = await checkBothThemes(page, 'finished', t);
  assert.deepEqual([...running.map((v) => `[running] ${v}`), ...finished], []);
  assert.deepEqual(problems, []);
  await context.close();
});
