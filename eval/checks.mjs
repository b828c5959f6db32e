//! The acceptance checks' runner and the few helpers the tasks share: find a
//! field by its label or placeholder, read what the page shows (text,
//! field values; button labels apart), tell whether a canvas is drawn or a
//! picture changed. A check is a person's step ("typing 'milk' and Enter
//! shows 'milk'"), written against roles and text, so an app of any shape
//! that does the job passes and a blank or broken one fails.
//!
//! It does not build, fetch or judge the app's code: it opens a URL in a
//! fresh browser context whose only reachable origin is the app's own (no
//! network, as in the site's preview), runs the task's checks in order on
//! that one page, and reports each one.

/** How long a step waits for something to show before it fails (ms). */
export const WAIT = 5000;
/** The most one check may take, whatever it waits for (ms). */
export const CHECK_LIMIT = 25000;

/**
 * Runs `task.checks` on the app at `url` in a new context of `browser`.
 * Returns {checks: [{name, passed, error?, ms}], passed, total, pageErrors}.
 * With `screenshot`, saves the page as it stands after the checks there.
 */
export async function runChecks(browser, task, url, { screenshot, wait = WAIT, limit = CHECK_LIMIT } = {}) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  context.setDefaultTimeout(wait);
  const origin = new URL(url).origin;
  // The app reaches its own files and nothing else.
  await context.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const checks = [];
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 20000 });
    const app = {
      page,
      wait,
      /** Reloads the page, as a person pressing F5 would. */
      async reload() {
        await page.reload({ waitUntil: 'load', timeout: 20000 });
      },
    };
    for (const check of task.checks) {
      const start = Date.now();
      try {
        await withLimit(check.run(app), limit, `the check took longer than ${limit / 1000} s`);
        checks.push({ name: check.name, passed: true, ms: Date.now() - start });
      } catch (e) {
        checks.push({ name: check.name, passed: false, error: oneLine(e), ms: Date.now() - start });
      }
    }
    if (screenshot) await page.screenshot({ path: screenshot }).catch(() => {});
  } catch (e) {
    for (const check of task.checks.slice(checks.length)) checks.push({ name: check.name, passed: false, error: `the page did not load: ${oneLine(e)}`, ms: 0 });
  } finally {
    await context.close();
  }
  return { checks, passed: checks.filter((c) => c.passed).length, total: checks.length, pageErrors };
}

function withLimit(promise, ms, message) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** An error's first line, without Playwright's call log. */
export function oneLine(e) {
  return String(e?.message ?? e).split('\n')[0].slice(0, 300);
}

/** Fails with `message` unless `condition` holds. */
export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** Polls `probe` until it returns a truthy value (returned), or fails with `message` after `timeout` ms. */
export async function until(probe, message, timeout = WAIT) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(message);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const visible = (locator) => locator.filter({ visible: true });

const FIELDS = 'input:not([type=button], [type=submit], [type=reset], [type=radio], [type=checkbox]), textarea, select, [contenteditable=true], [contenteditable=""], [role=textbox], [role=combobox], [role=spinbutton], [role=searchbox]';

/** The first visible form field whose label, placeholder or name matches `name` (never a group or a button). */
export function field(page, name) {
  return visible(
    page.getByLabel(name)
      .or(page.getByPlaceholder(name))
      .or(page.getByRole('textbox', { name }))
      .or(page.getByRole('spinbutton', { name }))
      .or(page.getByRole('combobox', { name }))
      .or(page.getByRole('searchbox', { name })),
  ).and(page.locator(FIELDS)).first();
}

/** The first visible place to type text (a text field, a search box, an editable area). */
export function textbox(page) {
  return visible(page.getByRole('textbox').or(page.getByRole('searchbox'))).first();
}

/** The first visible number or text field. */
export function numberField(page) {
  return visible(page.getByRole('spinbutton').or(page.getByRole('textbox'))).first();
}

/** The first visible button whose name matches `name`. */
export function button(page, name) {
  return visible(page.getByRole('button', { name })).first();
}

/** Whether a visible, enabled button named `name` exists now (no waiting). */
export async function hasButton(page, name) {
  return (await visible(page.getByRole('button', { name, disabled: false })).count()) > 0;
}

/**
 * Waits until a visible element's text matches `text` (a string is matched
 * whole, ignoring case). What is typed in editable fields does not count
 * (a todo list must show the task, not keep it in its input) unless
 * `fields` is true.
 */
export async function shows(page, text, { timeout = WAIT, fields = false } = {}) {
  const re = typeof text === 'string' ? new RegExp(`^\\s*${escape(text)}\\s*$`, 'i') : text;
  await until(async () => (await readouts(page, { fields })).some((s) => re.test(s)), `nothing on the page shows ${re}`, timeout);
}

/** Waits until no visible element's text matches `re` (what is typed in fields apart). */
export async function hides(page, re, { timeout = WAIT } = {}) {
  await until(async () => !(await readouts(page, { fields: false })).some((s) => re.test(s)), `the page still shows ${re}`, timeout);
}

/** The page's visible text as a person reads it, in one string (buttons included). */
export async function pageText(page) {
  return page.evaluate(() => {
    const values = [...document.querySelectorAll('input, textarea, output, select')]
      .filter((el) => el.checkVisibility?.() !== false && !['button', 'submit', 'reset', 'checkbox', 'radio'].includes(el.type))
      .map((el) => el.value);
    return [document.body?.innerText ?? '', ...values].join('\n');
  });
}

/**
 * What the page shows apart from its buttons: each visible element's own
 * text (its text nodes, its inline children's too), and the values of its
 * fields and outputs. A calculator's "15" is here; its key "1" is not.
 */
export async function readouts(page, { fields = true } = {}) {
  return page.evaluate((fields) => {
    const buttonish = 'button, [role=button], input[type=button], input[type=submit], input[type=reset], select, option, script, style, template';
    const out = [];
    for (const el of document.querySelectorAll('input, textarea, output')) {
      if (el.closest(buttonish) || ['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color'].includes(el.type)) continue;
      if (el.checkVisibility?.() === false) continue;
      if (!fields && el.tagName !== 'OUTPUT' && !el.readOnly && !el.disabled) continue;
      out.push(String(el.value));
    }
    const inline = new Set(['SPAN', 'B', 'STRONG', 'I', 'EM', 'SMALL', 'SUB', 'SUP', 'MARK', 'CODE', 'A', 'ABBR', 'TIME', 'DATA', 'U', 'S', 'BDI', 'BDO', 'Q', 'KBD', 'SAMP', 'VAR', 'DFN', 'LABEL']);
    const textOf = (el) => [...el.childNodes].map((n) => (n.nodeType === 3 ? n.data : n.nodeType === 1 && inline.has(n.tagName) ? textOf(n) : ' ')).join('');
    for (const el of document.body ? document.body.querySelectorAll('*') : []) {
      if (el.closest(buttonish) || el.checkVisibility?.() === false) continue;
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim())) continue;
      const text = textOf(el).replace(/\s+/g, ' ').trim();
      if (text) out.push(text);
    }
    return out;
  }, fields);
}

/** Waits until some readout's last number equals `value` (within 1e-9, or within the fraction `within` of it). */
export async function showsNumber(page, value, { within = 0, timeout = WAIT } = {}) {
  const near = (n) => Math.abs(n - value) <= Math.max(1e-9, Math.abs(value) * within);
  await until(async () => (await readouts(page)).some((s) => {
    const m = s.replace(/,/g, '').match(/(-?\d+(?:\.\d+)?)(?!.*\d)/);
    return m && near(Number(m[1]));
  }), `no number on the page reads ${value}`, timeout);
}

/** The first number after `label` in the page's text (e.g. "Score: 12" → 12), or null. */
export async function numberAfter(page, label) {
  const text = await pageText(page);
  const m = text.match(new RegExp(`${label.source}[^\\d-]{0,30}(-?\\d+(?:\\.\\d+)?)`, label.flags.replace('g', '')));
  return m ? Number(m[1]) : null;
}

/** A picture of `locator` (PNG bytes), to compare with another. */
export async function picture(locator) {
  return locator.screenshot({ animations: 'allow', caret: 'hide', timeout: 10000 });
}

/**
 * The largest visible canvas as {width, height, colours, hash}: how many
 * distinct colours it has (1 means blank), and a hash of its pixels.
 * Null when the page has no visible canvas.
 */
export async function canvasState(page) {
  return page.evaluate(() => {
    const canvases = [...document.querySelectorAll('canvas')].filter((c) => c.checkVisibility?.() !== false && c.width > 0 && c.height > 0);
    if (canvases.length === 0) return null;
    const c = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
    let data;
    try {
      const copy = document.createElement('canvas');
      copy.width = c.width;
      copy.height = c.height;
      copy.getContext('2d').drawImage(c, 0, 0);
      data = copy.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    } catch {
      return { width: c.width, height: c.height, colours: 0, hash: 0 };
    }
    const colours = new Set();
    let hash = 2166136261;
    for (let i = 0; i < data.length; i += 4) {
      const px = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      if (colours.size < 64) colours.add(px);
      hash = Math.imul(hash ^ px, 16777619) >>> 0;
    }
    const box = c.getBoundingClientRect();
    return { width: Math.round(box.width), height: Math.round(box.height), colours: colours.size, hash };
  });
}

/** The element of `page` that holds `text` and a control named `control`: a list row, a card. */
export function rowOf(page, text, control) {
  return page
    .locator('*')
    .filter({ has: page.getByText(text) })
    .filter({ has: page.getByRole('button', { name: control }).or(page.getByRole('checkbox')) })
    .filter({ visible: true })
    .last();
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Sleeps `ms` milliseconds (for timers under test). */
export const pause = (ms) => new Promise((r) => setTimeout(r, ms));
