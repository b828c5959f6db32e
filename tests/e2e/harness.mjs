// Shared set-up for end-to-end tests: the built site served from dist/ on a
// free 127.0.0.1 port, and Debian's Chromium driven by playwright-core (never
// a downloaded browser). Screenshots go to tests/e2e/screenshots/ (gitignored).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../support/static-server.mjs';
import { startLlmServer } from '../support/llm-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const screenshotDir = join(here, 'screenshots');

// As root, in a closed network: no sandbox, no background connections.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Serve dist/ and launch Chromium. Returns {site, browser, close}. */
export async function startSite({ headers = {} } = {}) {
  const site = await startStaticServer({ root: join(root, 'dist'), headers });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // TABTEAM_CHROMIUM_FLAGS: extra flags for experiments (benchmarks).
    args: [...CHROMIUM_ARGS, ...(process.env.TABTEAM_CHROMIUM_FLAGS || '').split(' ').filter(Boolean)],
    headless: true,
  });
  return {
    site,
    browser,
    async close() {
      await browser.close();
      await site.close();
    },
  };
}

/** A fresh page that records console errors and uncaught exceptions. */
export async function openPage(browser, url, { viewport = { width: 1280, height: 900 } } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    // E2E_CONSOLE=1 prints what the page logs (for debugging a failing test).
    if (process.env.E2E_CONSOLE) console.log(`[page ${msg.type()}] ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  // Every Content-Security-Policy violation, for cspViolations(page).
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  await page.goto(url);
  return { page, context, problems };
}

/**
 * A widget demo page (dist/widget/`path`), recording CSP violations (in
 * `window.__violations`) and console errors from the start; resolves once
 * the page's widgets are ready (`window.tabteamDemo.ready`). Opens a new
 * context unless given one (a reload keeps the context's storage).
 */
export async function openWidgetPage(browser, url, { context, viewport = { width: 1280, height: 900 } } = {}) {
  context ??= await browser.newContext({ viewport });
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(url);
  // mount() resolves once a kept session is open, which waits up to the
  // lease (20 s) when a closed page held it: wait longer than that.
  await page.waitForFunction(() => window.tabteamDemo?.ready === true, null, { timeout: 35000 });
  return { page, context, problems };
}

/** The Content-Security-Policy violations the page has seen so far. */
export async function cspViolations(page) {
  return page.evaluate(() => window.__cspViolations);
}

export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The policy of pkg/README.md for a page whose widget calls `llmUrl`: the least the widget needs. */
export function widgetCsp(llmUrl) {
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    `connect-src 'self' ${llmUrl}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * For a widget test file: checks that `dist/widget/pkg/<engine>` is built,
 * then starts the scripted LLM server and the site under the widget's strict
 * policy before the file's tests, and stops them after. The object returned
 * is filled in by the time a test runs: {site, browser, llm, csp, close}.
 */
export function useWidgetSite(engine) {
  const env = {};
  before(async () => {
    assert.ok(existsSync(join(root, 'dist', 'widget', 'pkg', engine)), 'run scripts/build-widget.sh after trunk build');
    const llm = await startLlmServer();
    const csp = widgetCsp(llm.url);
    const site = await startSite({ headers: { 'Content-Security-Policy': csp } });
    Object.assign(env, site, {
      llm,
      csp,
      async close() {
        await site.close();
        await llm.close();
      },
    });
  });
  after(async () => {
    await env.close?.();
  });
  return env;
}

/** Start the site and the local scripted LLM server together. */
export async function startSiteAndLlm(options) {
  const env = await startSite(options);
  const llm = await startLlmServer();
  return {
    ...env,
    llm,
    async close() {
      await env.close();
      await llm.close();
    },
  };
}

/**
 * For a test file: starts the site and the scripted LLM before its tests and
 * stops them after. The object returned is filled in by the time a test runs:
 * {site, llm, browser, close}.
 */
export function useSiteAndLlm(options) {
  const env = {};
  before(async () => {
    Object.assign(env, await startSiteAndLlm(options));
  });
  after(async () => {
    await env.close?.();
  });
  return env;
}

/** A RoleZero answer: a thought, then its commands as a fenced JSON block. */
export const roleZeroAnswer = (thought, commands, indent = 2) =>
  `${thought}\n\`\`\`json\n${JSON.stringify(commands, null, indent)}\n\`\`\``;

/** Give the local LLM server the turns to answer for `model`. */
export async function script(llm, model, turns) {
  const res = await fetch(`${llm.url}/_control/script`, { method: 'POST', body: JSON.stringify({ key: model, turns }) });
  if (res.status !== 200) throw new Error(`scripting ${model}: ${res.status} ${await res.text()}`);
}

/** The requests the local LLM server saw for `model` (keys redacted). */
export async function requests(llm, model) {
  return (await (await fetch(`${llm.url}/_control/log`)).json()).filter((e) => e.model === model);
}

/**
 * Point the settings at the local server as a custom OpenAI-compatible
 * provider, in the Settings dialog (opened and closed again). Numbers are
 * committed with a change event, as a person leaving the field would.
 */
export async function configure(page, llm, model, { rounds, budget = 3, priceIn = 1, priceOut = 2, team, key = 'sk-e2e-test-key' } = {}) {
  await openSettings(page);
  await page.getByTestId('preset').selectOption('custom');
  await page.getByTestId('base-url').fill(`${llm.url}/v1`);
  await page.getByTestId('model').fill(model);
  const numbers = [['price-in', priceIn], ['price-out', priceOut], ['budget', budget]];
  if (rounds !== undefined) numbers.push(['rounds', rounds]);
  for (const [id, value] of numbers) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  if (team) await page.getByTestId('team').selectOption(team);
  await page.getByTestId('key').fill(key);
  await closeSettings(page);
}

/**
 * Settings for the scripted server as the Anthropic preset (its protocol,
 * cache reads and price table): URL, model, 20 rounds, a key. Leaves the
 * dialog open, so a test can look at what it shows.
 */
export async function configureAnthropic(page, llm, model) {
  await openSettings(page);
  await page.getByTestId('preset').selectOption('anthropic');
  await page.getByTestId('base-url').fill(llm.url);
  await page.getByTestId('model').fill(model);
  await page.getByTestId('rounds').fill('20');
  await page.getByTestId('rounds').dispatchEvent('change');
  await page.getByTestId('key').fill('sk-ant-e2e-test-key');
}

/** Open the Settings dialog (from the top bar) unless it is open. */
export async function openSettings(page) {
  const open = await page.getByTestId('settings').evaluate((d) => d.open).catch(() => false);
  if (!open) await page.getByTestId('open-settings').click();
  await page.getByTestId('close-settings').waitFor();
}

/** Close the Settings dialog with its Done button. */
export async function closeSettings(page) {
  await page.getByTestId('close-settings').click();
  await page.getByTestId('close-settings').waitFor({ state: 'detached' });
}

/** Type the API key: in the first card when it shows, else in the Settings dialog. */
export async function enterKey(page, key) {
  const field = page.getByTestId('key');
  if ((await field.count()) === 1 && (await field.isVisible())) return field.fill(key);
  await openSettings(page);
  await field.fill(key);
  await closeSettings(page);
}

/** Choose a tab of the workspace: preview, code, docs, plan or versions. */
export async function showTab(page, id) {
  await page.getByTestId(`tab-${id}`).click();
}

/** Open (or, with `open` false, close) the session switcher of the top bar. */
export async function showSessions(page, open = true) {
  const button = page.getByTestId('switcher');
  if (((await button.getAttribute('aria-expanded')) === 'true') !== open) await button.click();
}

/** Show the first card again (the switcher's "New session") when a run fills the page. */
export async function newSession(page) {
  if ((await page.getByTestId('first-card').count()) > 0) return;
  await showSessions(page);
  await page.getByTestId('new-session').click();
  await page.getByTestId('first-card').waitFor();
}

/** True when two boxes ({x, y, width, height}) share any area. */
export function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Where the drawn pixels of `clip` (page coordinates) are, as a box in page
 * coordinates (null: nothing drawn): a screenshot of the clip, decoded in a
 * blank page of the same context, pixels that differ from the clip's most
 * common colour. For what the DOM cannot measure, such as a `::before` glyph.
 */
export async function inkBox(page, clip) {
  const png = await page.screenshot({ clip });
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(async ({ b64, clip }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const cx = canvas.getContext('2d');
      cx.drawImage(img, 0, 0);
      const { data } = cx.getImageData(0, 0, img.width, img.height);
      const counts = new Map();
      for (let i = 0; i < data.length; i += 4) {
        const c = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
      const bg = [...counts].sort((a, b) => b[1] - a[1])[0][0];
      const [br, bgG, bb] = [bg >> 16, (bg >> 8) & 255, bg & 255];
      let box = null;
      const sx = clip.width / img.width;
      const sy = clip.height / img.height;
      for (let y = 0; y < img.height; y++) {
        for (let x = 0; x < img.width; x++) {
          const i = (y * img.width + x) * 4;
          if (Math.abs(data[i] - br) + Math.abs(data[i + 1] - bgG) + Math.abs(data[i + 2] - bb) < 90) continue;
          box ??= { left: x, right: x, top: y, bottom: y };
          box.left = Math.min(box.left, x); box.right = Math.max(box.right, x);
          box.top = Math.min(box.top, y); box.bottom = Math.max(box.bottom, y);
        }
      }
      return box && { x: clip.x + box.left * sx, y: clip.y + box.top * sy, width: (box.right - box.left + 1) * sx, height: (box.bottom - box.top + 1) * sy };
    }, { b64: png.toString('base64'), clip });
  } finally {
    await blank.close();
  }
}

/**
 * The disclosure arrow of `summary` (its `::before` glyph) and its label's
 * text, as boxes in page coordinates.
 */
export async function disclosureArrow(page, summary) {
  const box = await summary.boundingBox();
  const label = await summary.evaluate((s) => {
    const text = [...s.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    const range = document.createRange();
    range.selectNodeContents(text);
    const r = range.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const arrow = await inkBox(page, { x: box.x, y: box.y, width: Math.max(1, label.x - box.x - 1), height: box.height });
  return { arrow, label };
}

/** Version `n` exists; opens it; returns the files it changed (all, for the first), as its diff lists them. */
export async function versionFiles(page, n) {
  await showTab(page, 'versions');
  const version = page.locator(`[data-testid="version"][data-number="${n}"]`);
  await version.waitFor({ timeout: 30_000 });
  await version.getByTestId('version-open').click();
  const diff = page.locator(`[data-testid="diff"][data-number="${n}"]`);
  await diff.waitFor({ timeout: 10_000 });
  return diff.evaluate((el) => [...el.querySelectorAll('[data-testid="diff-file"]')].map((f) => f.dataset.path));
}
