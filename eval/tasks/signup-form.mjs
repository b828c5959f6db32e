//! Sign-up form with validation: each wrong field is refused with a
//! reason, a valid form is welcomed. Our own idea and checks; an error is
//! visible text or the browser's own validation message on the field.
import { field, button, pageText, until, expect } from '../checks.mjs';

const SUCCESS = /welcome|success|thank|signed up|account (was |is )?created|registered|you('| a)re in/i;
const ERROR = /required|invalid|enter|must|empty|missing|at least|too short|valid|match|differ|same/i;

const fields = (page) => ({
  name: field(page, /^\s*(full\s*)?name\b|your name/i),
  email: field(page, /e-?mail/i),
  password: field(page, /^(?!.*(confirm|repeat|again|re-?enter|verify)).*password/i),
  confirm: field(page, /confirm|repeat|again|re-?enter|verify/i),
});

async function submit(page, values) {
  const f = fields(page);
  for (const [k, v] of Object.entries(values)) await f[k].fill(v);
  const before = await pageText(page);
  await button(page, /sign\s*up|submit|register|create|join|send|continue/i).click();
  await page.waitForTimeout(200);
  return before;
}

/**
 * The form refused: no welcome, and an error shows: a line that was not
 * there before the submit, or the browser's own message on `which`.
 */
async function refused(page, which, about, before) {
  const f = fields(page);
  const native = await f[which].evaluate((e) => (e.willValidate && !e.checkValidity() ? e.validationMessage : ''));
  const text = await pageText(page);
  const seen = new Set(before.split('\n'));
  const fresh = text.split('\n').filter((line) => !seen.has(line)).join('\n');
  expect(!SUCCESS.test(text), `the form says it succeeded with ${about}`);
  expect(native || ERROR.test(fresh) || (await errorsShown(page)).trim(), `no error shows for ${about}`);
}

/** Text the page marks as an error (an alert, an invalid field's description). */
function errorsShown(page) {
  return page.evaluate(() => [...document.querySelectorAll('[role=alert], [aria-live], [aria-invalid=true]')]
    .map((e) => (e.getAttribute('aria-invalid') ? document.getElementById(e.getAttribute('aria-describedby') || e.getAttribute('aria-errormessage') || '')?.innerText ?? '' : e.innerText))
    .join('\n'));
}

const GOOD = { name: 'Ada Lovelace', email: 'ada@example.com', password: 'analytical1', confirm: 'analytical1' };

export default {
  id: 'signup-form',
  title: 'Form with validation',
  idea: 'A sign-up form with name, email, password and confirm password: when I submit, show an error for each invalid field (empty name, bad email, password shorter than 8 characters, passwords that do not match), and a welcome message when everything is valid.',
  checks: [
    { name: 'an empty name is refused', run: async ({ page }) => { const before = await submit(page, { ...GOOD, name: '' }); await refused(page, 'name', 'an empty name', before); } },
    { name: "the email 'not-an-email' is refused", run: async ({ page }) => { const before = await submit(page, { ...GOOD, email: 'not-an-email' }); await refused(page, 'email', 'a bad email', before); } },
    { name: 'a 5-character password is refused', run: async ({ page }) => { const before = await submit(page, { ...GOOD, password: 'abc12', confirm: 'abc12' }); await refused(page, 'password', 'a short password', before); } },
    { name: 'passwords that differ are refused', run: async ({ page }) => { const before = await submit(page, { ...GOOD, confirm: 'analytical2' }); await refused(page, 'confirm', 'passwords that differ', before); } },
    { name: 'a valid form is welcomed', run: async ({ page }) => { await submit(page, GOOD); await until(async () => SUCCESS.test(await pageText(page)), 'no welcome or success message'); } },
  ],
};
