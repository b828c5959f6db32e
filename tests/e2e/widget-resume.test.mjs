// Sessions that resume, on the demo todo app (dist/widget/index.html) under
// the strict CSP of pkg/README.md, against the local scripted LLM server:
// with storage-key the widget keeps its team in IndexedDB through the
// site's store and run controller, so a reload while a call is under way
// brings the conversation back as it was and the run carries on to its end,
// making again only the call the reload cut off (the server's request log),
// also when the page goes away part-way through an answer's stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useWidgetSite, screenshot, script, requests, roleZeroAnswer, openWidgetPage } from './harness.mjs';

const answer = (thought, commands) => roleZeroAnswer(thought, commands, 0);
const cmd = (name, args = {}) => ({ command_name: name, args });

const env = useWidgetSite('tabteam_keep_bg.wasm');

const widget = (page) => page.locator('#assistant');
const conversation = (page) => widget(page).locator('[data-testid=conversation]');

async function waitFor(check, what, timeout = 20000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('a reload mid-run: the conversation comes back and the run resumes, no finished call made again', async () => {
  const model = 'wr-resume';
  const third = { text: answer('Now the second one.', [cmd('Host.add_todo', { text: 'call mum' })]) };
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('Adding the first.', [cmd('Host.add_todo', { text: 'buy milk' })]) },
    // Cut off by the reload (the page is gone before it answers)...
    { ...third, delay_ms: 20000 },
    // ...and made again after it.
    third,
    { text: answer('Both added.', [cmd('RoleZero.reply_to_human', { content: 'I added "buy milk" and "call mum".' }), cmd('end')]) },
  ]);
  const url = `${env.site.url}/widget/index.html?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}&storage=acme-tasks`;
  const { page, context, problems } = await openWidgetPage(env.browser, url);
  await widget(page).locator('[data-testid=input]').fill('add buy milk and call mum');
  await widget(page).locator('[data-testid=send]').click();
  // The slow third call has reached the server.
  await waitFor(async () => (await requests(env.llm, model)).length === 3, 'the third call');
  const before = await conversation(page).locator('li:not(.live)').allTextContents();
  assert.ok(before.some((t) => t.includes('add buy milk and call mum')));
  assert.ok(before.some((t) => t.includes('Adding the first.')), JSON.stringify(before));
  await screenshot(page, 'widget-resume-1-before-reload');

  await page.reload();
  await page.waitForFunction(() => window.tabteamDemo?.ready === true, null, { timeout: 20000 });
  // The conversation as it was, then the run carries on to its end.
  await conversation(page).getByText('add buy milk and call mum').waitFor({ timeout: 10000 });
  // Everything that was said is back (the answer streaming when the page went is asked again).
  const said = await conversation(page).locator('li:not(.live)').allTextContents();
  for (const shown of before) if (!said.includes(shown)) assert.ok(false, `kept: ${shown}`);
  await conversation(page).getByText('I added "buy milk" and "call mum".').waitFor({ timeout: 20000 });
  await page.waitForFunction(() => window.tabteamDemo.events.some((e) => e.name === 'finished'), null, { timeout: 20000 });
  assert.match(await widget(page).locator('[data-testid=status]').textContent(), /Done/);
  await screenshot(page, 'widget-resume-2-resumed');

  // Every finished call once: only the call cut off was made again.
  const log = await requests(env.llm, model);
  assert.equal(log.length, 5, 'four calls, plus the one the reload cut off');
  // Compared without the last turn: it holds the page's context, and the
  // page's own list is not kept (after the reload "buy milk" is gone from it).
  const bodies = log.map((e) => JSON.stringify(e.messages.slice(0, -1)));
  assert.ok(bodies[3] === bodies[2], 'the call made again is the one cut off');
  assert.equal(new Set(bodies).size, 4, 'no other call repeated');
  assert.match(log[3].messages.at(-1).content, /## todo list\n1\. Water the plants/, 'the context as the page shows it now');
  // The page's tool ran after the reload (its list is the page's own, not kept).
  const calls = (await page.evaluate(() => window.tabteamDemo.events.filter((e) => e.name === 'tool-call'))).map((e) => e.detail.args.text);
  assert.deepEqual(calls, ['call mum']);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page going away mid-stream: the cut-off run is not saved as ended, so a reload resumes it', async () => {
  // A reload first fires `pagehide`, then the browser cuts the calls in
  // flight. Here the page hears `pagehide` and the server cuts the stream
  // part-way: the run ends with that failure, which the widget must not save
  // (its session stays running); the reload then resumes it.
  const model = 'wr-stream';
  const second = { text: answer('Adding the first one to the list now.', [cmd('Host.add_todo', { text: 'buy milk' })]) };
  await script(env.llm, model, [
    { text: 'TASK' },
    { ...second, chunk_chars: 4, chunk_delay_ms: 250, cut_after_chunks: 12 },
    // The call made again after the reload.
    second,
    { text: answer('Added.', [cmd('RoleZero.reply_to_human', { content: 'I added "buy milk".' }), cmd('end')]) },
  ]);
  const url = `${env.site.url}/widget/index.html?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}&storage=acme-stream`;
  const { page, context, problems } = await openWidgetPage(env.browser, url);
  await widget(page).locator('[data-testid=input]').fill('add buy milk');
  await widget(page).locator('[data-testid=send]').click();
  // Part of the second answer is on screen, the rest still coming.
  await conversation(page).locator('li.live').filter({ hasText: 'Adding the' }).waitFor({ timeout: 20000 });
  await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide')));
  // The cut ends the run (the widget says so; its end is not saved).
  await page.waitForFunction(() => window.tabteamDemo.events.some((e) => e.name === 'error'), null, { timeout: 20000 });
  await page.waitForTimeout(500);
  assert.equal((await requests(env.llm, model)).length, 2);

  await page.reload();
  await page.waitForFunction(() => window.tabteamDemo?.ready === true, null, { timeout: 20000 });
  await conversation(page).getByText('I added "buy milk".').waitFor({ timeout: 20000 });
  await page.waitForFunction(() => window.tabteamDemo.events.some((e) => e.name === 'finished'), null, { timeout: 20000 });
  assert.match(await widget(page).locator('[data-testid=status]').textContent(), /Done/);
  const log = await requests(env.llm, model);
  assert.equal(log.length, 4, 'three calls, plus the one cut off');
  // The call made again is the one cut off, with the page's tools and context.
  assert.equal(JSON.stringify(log[2].messages), JSON.stringify(log[1].messages));
  const calls = (await page.evaluate(() => window.tabteamDemo.events.filter((e) => e.name === 'tool-call'))).map((e) => e.detail.args.text);
  assert.deepEqual(calls, ['buy milk']);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  // The browser's own report of the stream the server cut is expected.
  assert.deepEqual(problems.filter((p) => !p.includes('ERR_INCOMPLETE_CHUNKED_ENCODING')), []);
  await context.close();
});

test('with a key the person types, a reload mid-run waits for the key; an empty Send with it carries on', async () => {
  const model = 'wr-typed';
  const second = { text: answer('Checking.', [cmd('RoleZero.reply_to_human', { content: 'Order 7 ships today.' }), cmd('end')]) };
  await script(env.llm, model, [{ text: 'TASK' }, { ...second, delay_ms: 20000 }, second]);
  // The hostile test page: its support widget takes a typed key and has storage-key="acme-support".
  const url = `${env.site.url}/widget/hostile.html?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}`;
  const { page, context, problems } = await openWidgetPage(env.browser, url);
  const support = page.locator('#support');
  await support.locator('[data-testid=key]').fill('sk-typed-1');
  await support.locator('[data-testid=input]').fill('Where is order 7?');
  await support.locator('[data-testid=send]').click();
  await waitFor(async () => (await requests(env.llm, model)).length === 2, 'the second call');

  await page.reload();
  await page.waitForFunction(() => window.tabteamDemo?.ready === true, null, { timeout: 20000 });
  await support.locator('[data-testid=conversation]').getByText('Where is order 7?').waitFor({ timeout: 10000 });
  await page.waitForFunction(() => /Enter your API key to carry on/.test(document.querySelector('#support tabteam-view').shadowRoot.querySelector('[data-testid=status]').textContent), null, { timeout: 10000 });
  assert.equal((await requests(env.llm, model)).length, 2, 'nothing is sent without the key');
  await screenshot(page, 'widget-resume-3-waiting-for-key');
  await support.locator('[data-testid=key]').fill('sk-typed-2');
  await support.locator('[data-testid=send]').click();
  await support.locator('[data-testid=conversation]').getByText('Order 7 ships today.').waitFor({ timeout: 20000 });
  const log = await requests(env.llm, model);
  assert.equal(log.length, 3);
  assert.equal(log[2].headers.authorization, `<redacted:${'Bearer sk-typed-2'.length} chars>`, 'the key typed after the reload');
  assert.ok(JSON.stringify(log[2].messages) === JSON.stringify(log[1].messages), 'the call cut off, made again');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a follow-up after a reload waits for the key the person typed before; Send with the key lets it go', async () => {
  const model = 'wr-follow-up-key';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Hello! How can I help?' }, { text: 'QUICK' }, { text: 'Order 7 ships today.' }]);
  const url = `${env.site.url}/widget/hostile.html?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}`;
  const { page, context, problems } = await openWidgetPage(env.browser, url);
  const support = page.locator('#support');
  const status = () => page.evaluate(() => document.querySelector('#support tabteam-view').shadowRoot.querySelector('[data-testid=status]').textContent);
  await support.locator('[data-testid=key]').fill('sk-typed-1');
  await support.locator('[data-testid=input]').fill('Hello');
  await support.locator('[data-testid=send]').click();
  await support.locator('[data-testid=conversation]').getByText('Hello! How can I help?').waitFor({ timeout: 20000 });
  await waitFor(async () => /Done/.test(await status()), 'the first answer done');

  // A reload: the key typed was not kept.
  await page.reload();
  await page.waitForFunction(() => window.tabteamDemo?.ready === true, null, { timeout: 20000 });
  await support.locator('[data-testid=conversation]').getByText('Hello! How can I help?').waitFor({ timeout: 10000 });
  await support.locator('[data-testid=input]').fill('Where is order 7?');
  await support.locator('[data-testid=send]').click();
  await waitFor(async () => /Enter your API key to carry on/.test(await status()), 'the request waiting for the key');
  await page.waitForTimeout(300);
  assert.equal((await requests(env.llm, model)).length, 2, 'nothing is sent without the key');
  assert.equal(await support.locator('[data-testid=stop]').isDisabled(), false, 'Stop drops the waiting message');
  await screenshot(page, 'widget-resume-4-follow-up-waits-for-key');

  await support.locator('[data-testid=key]').fill('sk-typed-2');
  await support.locator('[data-testid=send]').click();
  await support.locator('[data-testid=conversation]').getByText('Order 7 ships today.').waitFor({ timeout: 20000 });
  const log = await requests(env.llm, model);
  assert.equal(log.length, 4);
  assert.ok(log.slice(2).every((e) => e.headers.authorization === `<redacted:${'Bearer sk-typed-2'.length} chars>`), 'the key typed after the reload');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});
