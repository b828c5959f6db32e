// What a reload shows (issue #32, items 4 and 7): the session this tab had
// open comes back, finished or not; "New session" and an address ending in
// `#new` show the first card, which lists the recent sessions; an answer
// whose stream the provider cut off keeps what arrived, marked as cut off,
// under it the error saying what to do, the same after a reload, and Resume
// asks again. Screenshots at 1280x900 and 390x844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, enterKey, newSession, roleZeroAnswer } from './harness.mjs';

const env = useSiteAndLlm();

const cmd = (name, args = {}) => ({ command_name: name, args });
/** The assistant team's two calls: the idea's kind, then a reply and the end. */
const turns = (reply) => [{ text: 'TASK' }, { text: roleZeroAnswer('Here.', [cmd('RoleZero.reply_to_human', { content: reply }), cmd('end')]) }];

/** The page at both sizes, as `name`-1280x900.png and `name`-390x844.png. */
async function bothSizes(page, name) {
  const size = page.viewportSize();
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(screenshotDir, `${name}-${width}x${height}.png`) });
  }
  await page.setViewportSize(size);
}

test('a reload reopens the session this tab had open; New session and #new show the first card with recent sessions', async () => {
  const model = 'e2e-reopen-last';
  await script(env.llm, model, turns('Your packing list is ready.'));
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('A packing list for a weekend');
  await page.getByTestId('start').click();
  const status = page.getByTestId('status');
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  const before = await status.textContent();

  // Reloaded: the finished session, as it was; not an empty first card.
  await page.reload();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.equal(await status.textContent(), before, 'the same status as before the reload');
  assert.match(await page.getByTestId('conversation').innerText(), /Your packing list is ready\./);
  assert.equal(await page.getByTestId('first-card').count(), 0, 'no first card over finished work');
  await bothSizes(page, 'reopen-1-reloaded');

  // "New session" is the way to the first card; a reload keeps it, and the card lists the session.
  await newSession(page);
  await page.reload();
  const recent = page.getByTestId('recent-session');
  await recent.first().waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('status').count(), 0, 'no session reopened after New session');
  assert.deepEqual(await recent.allTextContents(), ['A packing list for a weekend']);
  await bothSizes(page, 'reopen-2-new-session');
  await recent.first().click();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').innerText(), /Your packing list is ready\./);

  // An address ending in #new shows the first card once, then leaves the address bar.
  await page.evaluate(() => { location.hash = 'new'; });
  await page.reload();
  await page.getByTestId('first-card').waitFor({ timeout: 15000 });
  await page.getByTestId('recent-session').first().waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('status').count(), 0, '#new opens no session');
  assert.ok(!page.url().includes('#new'), `the fragment is gone: ${page.url()}`);
  await page.reload();
  await page.getByTestId('recent-session').first().waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('status').count(), 0, 'still the first card: nothing was opened since');

  // Another tab does not reopen this tab's session (its lease is this tab's).
  const other = await context.newPage();
  await other.goto(env.site.url);
  await other.getByTestId('recent-session').first().waitFor({ timeout: 15000 });
  assert.equal(await other.getByTestId('status').count(), 0, 'a new tab starts at the first card');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an answer the provider cut off keeps what arrived, marked, after the error and after a reload', async () => {
  const model = 'e2e-reopen-cut-off';
  const [quick] = turns('Blue and white it is.');
  const thought = 'Let me think about the colours of the tiles before I answer you.';
  const answer = roleZeroAnswer(thought, [cmd('RoleZero.reply_to_human', { content: 'Blue and white it is.' }), cmd('end')]);
  // The answer breaks off after eight pieces of four characters; Resume gets it whole.
  await script(env.llm, model, [quick, { text: answer, chunk_chars: 4, chunk_delay_ms: 50, cut_after_chunks: 8 }, { text: answer }]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('Colours for the tiles');
  await page.getByTestId('start').click();
  const status = page.getByTestId('status');
  await status.filter({ hasText: 'Paused after an error' }).waitFor({ timeout: 15000 });

  const articles = page.locator('[data-testid=conversation] article');
  const cut = articles.filter({ hasText: 'cut off before the end' });
  await cut.waitFor({ timeout: 5000 });
  const arrived = await cut.innerText();
  assert.match(arrived, /Let me think about the/, 'what arrived stays');
  assert.ok(!arrived.includes('before I answer you'), 'only what arrived');
  const error = articles.filter({ hasText: 'The answer broke off' });
  assert.match(await error.innerText(), /The answer broke off after \d+ characters, before the provider said it was done\. Resume to ask again\./);
  const order = await articles.evaluateAll((all) => all.map((a) => a.innerText));
  assert.ok(order.findIndex((t) => t.includes('cut off before the end')) === order.findIndex((t) => t.includes('The answer broke off')) - 1, 'the error right under what arrived');
  await bothSizes(page, 'cut-off-1-paused');

  // Reloaded: the same, what arrived included.
  await page.reload();
  await status.filter({ hasText: 'Paused after an error' }).waitFor({ timeout: 15000 });
  assert.deepEqual(await articles.evaluateAll((all) => all.map((a) => a.innerText)), order, 'the same conversation after the reload');
  await bothSizes(page, 'cut-off-2-reloaded');

  // Resume asks again; the cut-off answer stays where it was.
  await enterKey(page, 'sk-e2e-test-key');
  await page.getByTestId('resume').click();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  await page.locator('[data-testid=conversation] article.reply').filter({ hasText: 'Blue and white it is.' }).waitFor({ timeout: 5000 });
  const after = await articles.evaluateAll((all) => all.map((a) => a.innerText));
  assert.deepEqual(after.slice(0, order.length), order, 'what was there stays');
  await screenshot(page, 'cut-off-3-resumed');
  await context.close();
});
