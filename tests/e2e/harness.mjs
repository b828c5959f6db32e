// Shared set-up for end-to-end tests: the built site served from dist/ on a
// free 127.0.0.1 port, and Debian's Chromium driven by playwright-core (never
// a downloaded browser). Screenshots go to tests/e2e/screenshots/ (gitignored).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../support/static-server.mjs';

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
    args: CHROMIUM_ARGS,
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
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(url);
  return { page, context, problems };
}

export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
