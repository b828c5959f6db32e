//! The site, driven as a person would: Settings filled in (provider,
//! model, prices, budget, rounds, team, key), the idea typed, Start, each
//! question of the team answered with the same reply, the run waited for,
//! and the session exported from the switcher. Selectors are the site's
//! test ids and labels (the end-to-end tests use the same).
//!
//! It does not read the figures (that is report.mjs) and keeps no key: the
//! key is typed into the page and nowhere else.

/** The status line's words once a run has come to rest (and its version's tests have run). */
const AT_REST = /^(Done|Stopped|Paused|Interrupted)\b(?!; running)/;

/** Fills in Settings. `provider`: {preset, baseUrl, model, key, priceIn, priceOut}; `run`: {team, budget, rounds, callLimit}. */
export async function configure(page, provider, run) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('close-settings').waitFor();
  await page.getByTestId('preset').selectOption(provider.preset);
  if (provider.baseUrl) await page.getByTestId('base-url').fill(provider.baseUrl);
  await page.getByTestId('model').fill(provider.model);
  const numbers = [['budget', run.budget], ['rounds', run.rounds]];
  if (run.callLimit) numbers.push(['call-limit', run.callLimit]);
  if (provider.priceIn !== undefined) numbers.push(['price-in', provider.priceIn]);
  if (provider.priceOut !== undefined) numbers.push(['price-out', provider.priceOut]);
  for (const [id, value] of numbers) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  if (run.team) await page.getByTestId('team').selectOption(run.team);
  await page.getByTestId('key').fill(provider.key);
  await page.getByTestId('close-settings').click();
  await page.getByTestId('close-settings').waitFor({ state: 'detached' });
}

/**
 * Starts the team on `idea` and waits until the run comes to rest,
 * answering every question with `answer`. Past `timeLimit` ms it presses
 * Stop. Returns {status, timedOut, questions}.
 */
export async function build(page, idea, { answer, timeLimit }) {
  await page.getByLabel('Your idea').fill(idea);
  await page.getByTestId('start').click();
  const status = page.getByTestId('status');
  const end = Date.now() + timeLimit;
  let questions = 0;
  let timedOut = false;
  for (;;) {
    const text = ((await status.textContent({ timeout: 5000 }).catch(() => '')) ?? '').trim();
    if (AT_REST.test(text)) break;
    const open = page.getByTestId('answer').filter({ visible: true });
    if ((await open.count()) > 0) {
      await open.first().fill(answer);
      await open.first().press('Enter');
      questions += 1;
      continue;
    }
    if (Date.now() > end && !timedOut) {
      timedOut = true;
      await page.getByTestId('stop').click().catch(() => {});
    }
    await page.waitForTimeout(250);
  }
  return { status: (await status.textContent()).trim(), timedOut, questions };
}

/** The session as its export JSON (the switcher's Export), parsed. */
export async function exportSession(page) {
  const button = page.getByTestId('switcher');
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  const row = page.locator('[data-testid=session]').first();
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('session-export').click()]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  await button.click();
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
