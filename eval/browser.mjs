//! Debian's Chromium, headless, driven by playwright-core, with the flags
//! the end-to-end tests use (tests/e2e/harness.mjs): no sandbox (root in a
//! container), no background connections. It never downloads a browser.
import { chromium } from 'playwright-core';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Launches headless Chromium ($CHROMIUM, else /usr/bin/chromium). */
export function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ARGS, headless: true });
}
