// The widget as an agent of its host page, on the demo todo app
// (dist/widget/index.html, built by scripts/build-widget.sh) under the strict
// CSP of pkg/README.md, against the local scripted LLM server: the agent
// calls the page's tools with arguments and the page's list changes; bad
// arguments, a tool that throws and one that times out come back to the
// model as the command's failure; a confirmed tool is declined, then
// approved, in the widget, and Stop declines one still waiting; the page's
// context (setContext) is in the next request the server sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useWidgetSite, screenshot, screenshotDir, script, requests, roleZeroAnswer, openWidgetPage } from './harness.mjs';

const answer = (thought, commands) => roleZeroAnswer(thought, commands, 0);
const cmd = (name, args = {}) => ({ command_name: name, args });

const env = useWidgetSite('tabteam_bg.wasm');

/** The todo app with the assistant on `model`, recording CSP violations and console errors. */
const openTodo = (model) => openWidgetPage(env.browser, `${env.site.url}/widget/index.html?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}`);

const widget = (page) => page.locator('#assistant');
const todoTexts = (page) => page.locator('[data-testid=todo-list] .text').allTextContents();
const events = (page, name) => page.evaluate((n) => window.tabteamDemo.events.filter((e) => e.name === n).map((e) => e.detail), name);
const finished = (page, count) =>
  page.waitForFunction((c) => window.tabteamDemo.events.filter((e) => e.name === 'finished').length >= c, count, { timeout: 20000 });
async function say(page, text) {
  await widget(page).locator('[data-testid=input]').fill(text);
  await widget(page).locator('[data-testid=send]').click();
}
/** The text of every message of request `i` for `model`. */
const requestText = (log, i) => log[i].messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
const lastTurn = (log, i) => log[i].messages.at(-1).content;

test('the agent calls a page tool with arguments and the page changes; the page context is in each next request', async () => {
  const model = 'wt-add';
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('I will add it.', [cmd('Host.add_todo', { text: 'buy milk', priority: 'high' })]) },
    { text: answer('Done.', [cmd('RoleZero.reply_to_human', { content: 'I added "buy milk" to your list.' }), cmd('end')]) },
    { text: 'QUICK' },
    { text: 'You are on the Pro plan, Ada.' },
  ]);
  const { page, context, problems } = await openTodo(model);
  assert.deepEqual(await todoTexts(page), ['Water the plants', 'Book the dentist']);
  await screenshot(page, 'widget-tools-1-todo-app');
  await say(page, "add 'buy milk'");
  await finished(page, 1);
  assert.deepEqual(await todoTexts(page), ['Water the plants', 'Book the dentist', 'buy milk'], 'the page\'s list grew');
  assert.equal(await page.locator('[data-testid=todo-list] li[data-id="3"] .priority').textContent(), 'high');
  assert.deepEqual(await events(page, 'tool-call'), [{ id: 1, name: 'add_todo', args: { text: 'buy milk', priority: 'high' }, confirm: false }]);
  const [result] = await events(page, 'tool-result');
  assert.equal(result.status, 'returned');
  assert.match(result.result, /^Added #3 "buy milk"/);
  assert.match(await widget(page).locator('[data-testid=conversation]').textContent(), /I added "buy milk" to your list\./);
  await screenshot(page, 'widget-tools-2-added');

  let log = await requests(env.llm, model);
  assert.equal(log.length, 3);
  // The tools are listed like every other command, after the role's own.
  assert.match(log[1].messages[0].content, /\d+\. Host\.add_todo\(text: str, priority: Literal\['low', 'normal', 'high'\] = None\):\nAdd an item to the visitor's todo list\.\n- text: What to do/);
  assert.match(log[1].messages[0].content, /Host\.delete_all\(\):\nDelete every item on the list\. It cannot be undone\. The user is asked to approve each call before it runs\./);
  assert.doesNotMatch(log[1].messages[0].content, /Page context/, 'the context is not in the system turn');
  // The context as the page showed it at each call, in the last turn.
  assert.match(lastTurn(log, 0), /# Page context[\s\S]*## todo list\n1\. Water the plants \(normal\)\n2\. Book the dentist \(high\)$/);
  // The last turn (what changes per call): the page context first, then the example and the plan.
  assert.match(lastTurn(log, 1), /^# Page context[\s\S]*2\. Book the dentist \(high\)\n\n# An example from past experience\n[\s\S]*\n# Current plan/);
  assert.match(lastTurn(log, 2), /3\. buy milk \(high\)/, 'the list after the tool ran');
  assert.match(requestText(log, 2), /Command Host\.add_todo executed: Added #3 "buy milk"\. The list now:/);

  // Context the page sets now is in the very next request.
  await page.evaluate(() => document.getElementById('assistant').setContext('signed-in user', 'Ada Lovelace, Pro plan'));
  await say(page, 'Which plan am I on?');
  await finished(page, 2);
  log = await requests(env.llm, model);
  assert.equal(log.length, 5);
  assert.match(lastTurn(log, 3), /## signed-in user\nAda Lovelace, Pro plan/);
  assert.match(await widget(page).locator('[data-testid=conversation]').textContent(), /You are on the Pro plan, Ada\./);
  // And removed, it is gone from the next one.
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Fine.' }]);
  await page.evaluate(() => document.getElementById('assistant').removeContext('signed-in user'));
  await say(page, 'Thanks');
  await finished(page, 3);
  log = await requests(env.llm, model);
  assert.doesNotMatch(lastTurn(log, 5), /Ada Lovelace/);
  assert.match(lastTurn(log, 5), /## todo list/);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad arguments, a tool that throws and one that times out come back to the model as the command\'s failure', async () => {
  const model = 'wt-throw';
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('Marking it.', [cmd('Host.complete_todo', { id: 'first' })]) },
    { text: answer('With a number then.', [cmd('Host.complete_todo', { id: 9 })]) },
    { text: answer('Item 1 it is.', [cmd('Host.complete_todo', { id: 1 })]) },
    { text: answer('And sync.', [cmd('Host.sync')]) },
    { text: answer('Done.', [cmd('RoleZero.reply_to_human', { content: 'Marked "Water the plants" as done.' }), cmd('end')]) },
  ]);
  const { page, context, problems } = await openTodo(model);
  // A tool whose Promise never settles, with a short time limit.
  await page.evaluate(() => {
    document.getElementById('assistant').registerTool({ name: 'sync', description: 'Sync the list.', timeoutMs: 300, run: () => new Promise(() => {}) });
  });
  await say(page, 'mark the first one as done');
  await finished(page, 1);
  const log = await requests(env.llm, model);
  assert.equal(log.length, 6);
  assert.match(
    requestText(log, 2),
    /Command Host\.complete_todo failed: Argument 'id' should be int but is a string \("first"\)\. Use Host\.complete_todo\(id: int\)\./,
    'the registry\'s validation text',
  );
  assert.match(requestText(log, 3), /Command Host\.complete_todo failed: the page's function threw an error: There is no item #9\. The items are: #1, #2\./);
  assert.match(requestText(log, 4), /Command Host\.complete_todo executed: \{"done":true,"id":1,"text":"Water the plants"\}/, 'a returned object as JSON');
  assert.match(requestText(log, 5), /Command Host\.sync failed: the page's function did not finish within 1 s\. It may still have had an effect: check before calling it again\./);
  // The bad call never reached the page; the others did.
  assert.deepEqual((await events(page, 'tool-call')).map((c) => c.args), [{ id: 9 }, { id: 1 }, {}]);
  assert.deepEqual(
    (await events(page, 'tool-result')).map(({ status, error }) => ({ status, error })),
    [{ status: 'threw', error: 'There is no item #9. The items are: #1, #2.' }, { status: 'returned', error: undefined }, { status: 'timeout', error: undefined }],
  );
  assert.equal(await page.locator('[data-testid=todo-list] li[data-id="1"]').getAttribute('class'), 'done');
  await screenshot(page, 'widget-tools-3-threw-then-done');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a confirmed tool asks the visitor: declined, it does not run and the model is told; approved, it runs', async () => {
  const model = 'wt-confirm';
  const hostile = '<img src=x onerror="window.__pwned=1">Groceries';
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('This deletes everything; the page asks first.', [cmd('Host.delete_all')]) },
    { text: answer('Kept.', [cmd('RoleZero.reply_to_human', { content: 'OK, I kept your list.' }), cmd('end')]) },
    { text: 'TASK' },
    { text: answer('Deleting, and renaming.', [cmd('Host.delete_all'), cmd('Host.rename_list', { title: hostile })]) },
    { text: answer('Done.', [cmd('RoleZero.reply_to_human', { content: 'Your list is empty now.' }), cmd('end')]) },
  ]);
  const { page, context, problems } = await openTodo(model);
  // A tool the page adds later, also confirmed, whose argument is markup.
  await page.evaluate(() => {
    document.getElementById('assistant').registerTool({
      name: 'rename_list',
      description: 'Rename the list.',
      parameters: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      confirm: true,
      run: ({ title }) => {
        document.getElementById('todos-title').textContent = title;
        return 'renamed';
      },
    });
  });
  await say(page, 'delete everything');
  const approval = widget(page).locator('li.approval');
  await approval.waitFor({ timeout: 20000 });
  assert.match(await approval.textContent(), /Allow the assistant to run delete_all with:\n\(no arguments\)/);
  // The status says what the team waits for, and Send waits with it (issue #32, item 10).
  assert.match(await widget(page).getByTestId('status').textContent(), /is waiting for your approval to run delete_all/);
  assert.equal(await widget(page).getByTestId('send').isDisabled(), true, 'Send waits while the team works');
  await screenshot(page, 'widget-tools-4-approval');
  const size = page.viewportSize();
  for (const [w, h] of [[1280, 900], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(200);
    // With the approval in view, the status line is wholly in view too (issue #32: it was under the fold on a phone).
    await approval.scrollIntoViewIfNeeded();
    const line = await widget(page).getByTestId('status').boundingBox();
    assert.ok(line && line.y >= 0 && line.y + line.height <= h, `the status line is within the ${w}x${h} viewport: ${JSON.stringify(line)}`);
    await page.screenshot({ path: join(screenshotDir, `widget-awaiting-approval-${w}x${h}.png`) });
  }
  await page.setViewportSize(size);
  await approval.locator('[data-testid=decline]').click();
  await finished(page, 1);
  assert.deepEqual(await todoTexts(page), ['Water the plants', 'Book the dentist'], 'declined: nothing deleted');
  assert.equal(await approval.locator('.who').textContent(), 'Declined');
  assert.equal(await approval.locator('button').count(), 0, 'no buttons left on an answered approval');
  let log = await requests(env.llm, model);
  assert.match(requestText(log, 2), /Command Host\.delete_all executed: the user declined, so it was not run\./);

  await say(page, 'yes, really delete everything and call the list Groceries');
  await widget(page).locator('li.approval [data-testid=approve]').waitFor({ timeout: 20000 });
  await widget(page).locator('li.approval [data-testid=approve]').click();
  const rename = widget(page).locator('li.approval').nth(2);
  await rename.locator('[data-testid=approve]').waitFor({ timeout: 20000 });
  // The arguments are shown as text: the markup is not an element.
  assert.ok((await rename.textContent()).includes(JSON.stringify(hostile)), await rename.textContent());
  assert.equal(await page.evaluate(() => document.querySelector('#assistant tabteam-view').shadowRoot.querySelectorAll('img').length), 0);
  await screenshot(page, 'widget-tools-5-approve-markup-as-text');
  await rename.locator('[data-testid=approve]').click();
  await finished(page, 2);
  assert.deepEqual(await todoTexts(page), [], 'approved: the list is empty');
  assert.equal(await page.locator('#todos-title').textContent(), hostile, 'the page\'s own function set it as text');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  log = await requests(env.llm, model);
  assert.match(requestText(log, 5), /Command Host\.delete_all executed: Deleted 2 items\.\n\nCommand Host\.rename_list executed: renamed/);
  assert.deepEqual(
    (await events(page, 'tool-result')).map((r) => `${r.name} ${r.status}`),
    ['delete_all declined', 'delete_all returned', 'rename_list returned'],
  );
  assert.deepEqual(
    (await events(page, 'tool-call')).map((c) => `${c.name} ${c.confirm}`),
    ['delete_all true', 'delete_all true', 'rename_list true'],
  );
  await screenshot(page, 'widget-tools-6-approved');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Stop while an approval waits declines it: the tool does not run', async () => {
  const model = 'wt-stop';
  await script(env.llm, model, [{ text: 'TASK' }, { text: answer('Deleting.', [cmd('Host.delete_all')]) }]);
  const { page, context, problems } = await openTodo(model);
  await say(page, 'delete everything');
  const approval = widget(page).locator('li.approval');
  await approval.locator('[data-testid=approve]').waitFor({ timeout: 20000 });
  await widget(page).locator('[data-testid=stop]').click();
  await finished(page, 1);
  assert.equal(await approval.locator('.who').textContent(), 'Declined');
  assert.equal(await approval.locator('button').count(), 0);
  assert.deepEqual(await todoTexts(page), ['Water the plants', 'Book the dentist']);
  assert.deepEqual((await events(page, 'tool-result')).map((r) => r.status), ['declined']);
  const [done] = await events(page, 'finished');
  assert.equal(done.reason, 'cancelled', JSON.stringify(done));
  assert.equal((await requests(env.llm, model)).length, 2, 'no model call after Stop');
  await screenshot(page, 'widget-tools-7-stopped');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});
