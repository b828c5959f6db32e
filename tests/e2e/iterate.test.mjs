// The iteration loop end to end (issue #19): a follow-up makes version 2,
// whose diff shows only the stylesheet's change and whose preview shows
// it; restoring version 1 brings the page back; a reload and an
// export/import keep versions, files and conversation. Then a page that
// throws: its error goes to the engineer with one click, the scripted fix
// makes a new version, and the preview's console has no error left; a
// hand edit of a file reaches the preview.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { showTab, showSessions, useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, requests, roleZeroAnswer as answer } from './harness.mjs';
import { cmd, end, oneTask } from './scripts/one-task.mjs';

const env = useSiteAndLlm();

const write = (path, content) => cmd('Editor.write', { path, content });

const PAGE = '<!doctype html>\n<html>\n<head>\n<link rel="stylesheet" href="style.css">\n</head>\n<body>\n<h1>Hello</h1>\n<p>A page.</p>\n</body>\n</html>\n';
const STYLE = 'body { font-family: sans-serif; }\nh1 { color: black; }\np { margin: 0; }\n';

const titleTurns = () => [
  ...oneTask('1', 'Write the page with its title', [write('index.html', PAGE), write('style.css', STYLE)], 'The page is ready.'),
  ...oneTask('2', 'Make the title red in style.css', [cmd('Editor.replace', { path: 'style.css', old: 'h1 { color: black; }', new: 'h1 { color: red; }' })], 'The title is red.'),
];

const COUNTER_PAGE = '<!doctype html>\n<html>\n<body>\n<p id="counter">0</p>\n<script type="module" src="main.js"></script>\n</body>\n</html>\n';
const COUNTER_JS = "document.getElementById('count').textContent = 'ready';\nconsole.log('counter ready');\n";

const throwingTurns = () => [
  ...oneTask('1', 'Write the counter page', [write('index.html', COUNTER_PAGE), write('main.js', COUNTER_JS)], 'The counter is ready.'),
  // The preview's error, sent to Alex: he fixes the id; Mike hears his report.
  { text: answer('The id is wrong.', [cmd('Editor.replace', { path: 'main.js', old: "getElementById('count')", new: "getElementById('counter')" }), end()]) },
  { text: answer('Fixed.', [cmd('RoleZero.reply_to_human', { content: 'Alex fixed the error.' }), end()]) },
];

const ADD_JS = 'export const add = (a, b) => a + b;\n';
const ADD_TEST = "import { add } from '../add.js';\n\ntest('adds', () => {\n  expect(add(2, 3)).toEqual(5);\n});\n";

const breakingTurns = () => [
  ...oneTask('1', 'Write add.js with its test', [write('index.html', COUNTER_PAGE), write('add.js', ADD_JS), write('tests/add.test.js', ADD_TEST)], 'add.js is ready.'),
  ...oneTask('2', 'Make add subtract', [cmd('Editor.replace', { path: 'add.js', old: 'a + b', new: 'a - b' })], 'add now subtracts.'),
];

const frame = (page) => page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');
const shootPane = (page, id, name) => page.getByTestId(id).screenshot({ path: join(screenshotDir, `${name}.png`) });
const version = (page, n) => page.locator(`[data-testid=version][data-number="${n}"]`);

/** Who was asked, in order, and what they answered (for a failure's message). */
async function asked(model) {
  const log = await requests(env.llm, model);
  return log.map((e) => `${/named (\w+)/.exec(e.messages[0].content)?.[1] ?? '?'}: ${JSON.stringify(e.messages.at(-1).content).slice(0, 160)}`).join('\n');
}

async function waitDone(page, shot, timeout = 60000) {
  try {
    await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout });
  } catch (e) {
    await screenshot(page, `${shot}-failed`);
    const model = await page.getByTestId('model').inputValue().catch(() => '');
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; requests:\n${await asked(model)}`);
  }
}

/** The title's colour in the preview, once it is `want`. */
async function titleColour(page, want) {
  const h1 = frame(page).locator('h1');
  await h1.waitFor({ timeout: 15000 });
  const end = Date.now() + 15000;
  let got;
  while (Date.now() < end) {
    got = await h1.evaluate((el) => getComputedStyle(el).color).catch(() => undefined);
    if (got === want) return got;
    await page.waitForTimeout(100);
  }
  return got;
}

/** Text written for the model that must never reach the person (issue #32). */
const PROMPT_PHRASES = ['Follow-up request from the user', 'The project as it stands', 'Since the last request', 'Plan.append_task', 'TeamLeader.', 'RoleZero.', '[Plan edited by the user]', 'The user restored the project', 'by hand; read it before', 'then use end', 'The page shows an error when it runs in the preview'];

/** What the conversation says, without the folded raw commands ("Show commands": the model's own output, one click away). */
const said = (page) => page.getByTestId('conversation').evaluate((el) => {
  const copy = el.cloneNode(true);
  copy.querySelectorAll('details.commands').forEach((d) => d.remove());
  return copy.textContent;
});

function noPromptPhrases(text, when) {
  const found = PROMPT_PHRASES.filter((p) => text.includes(p));
  assert.deepEqual(found, [], `${when}: the page shows text written for the model: ${text.slice(0, 600)}`);
}

/** Screenshots at a desktop's and a phone's size; the page is left at the desktop's. */
async function sizes(page, name) {
  for (const [w, h] of [[1280, 900], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(screenshotDir, `${name}-${w}x${h}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function start(page, model, idea) {
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill(idea);
  await page.getByTestId('start').click();
}

test('a follow-up makes version 2 (its diff is the stylesheet), restore brings version 1 back; reload and export keep it all', async () => {
  const model = 'e2e-iterate-title';
  await script(env.llm, model, titleTurns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await start(page, model, 'A page with a title');
  await waitDone(page, 'iterate-first');
  await version(page, 1).waitFor({ state: 'attached', timeout: 15000 });
  assert.equal(await titleColour(page, 'rgb(0, 0, 0)'), 'rgb(0, 0, 0)', 'the preview shows the page');
  assert.match(await version(page, 1).textContent(), /A page with a title.*idea/);

  // The follow-up, sent with Enter.
  await page.getByTestId('follow-up').fill('make the title red');
  await page.getByTestId('follow-up').press('Enter');
  await page.getByTestId('composer-note').waitFor({ timeout: 5000 });
  await version(page, 2).waitFor({ state: 'attached', timeout: 60000 }).catch(async (e) => {
    await screenshot(page, 'iterate-follow-up-failed');
    throw e;
  });
  await waitDone(page, 'iterate-follow-up');
  assert.match(await version(page, 2).textContent(), /make the title red.*follow-up.*\$0\.\d{4}/);
  assert.equal(await titleColour(page, 'rgb(255, 0, 0)'), 'rgb(255, 0, 0)', 'the preview is rebuilt with the red title');
  assert.equal((await requests(env.llm, model)).length, titleTurns().length, 'every scripted turn used, no more');
  const conversation = await page.getByTestId('conversation').textContent();
  assert.ok(conversation.includes('make the title red') && conversation.includes('The title is red.'), conversation);
  // The person's bubble says what the person wrote, and the version it is about (issue #32, item 1).
  const mine = page.locator('[data-testid=conversation] article.user');
  assert.equal(await mine.count(), 2);
  assert.equal((await mine.nth(1).locator('.bubble').innerText()).replace(/\s+/g, ' ').trim(), 'You make the title red (About version 1.)');
  noPromptPhrases(await said(page), 'after the follow-up');
  await mine.nth(1).scrollIntoViewIfNeeded();
  await sizes(page, 'iterate-follow-up-bubble');

  // Version 2's diff: only the stylesheet, one line changed.
  await showTab(page, 'versions');
  await version(page, 2).getByTestId('version-open').click();
  const diff = page.locator('[data-testid=diff][data-number="2"]');
  await diff.waitFor();
  assert.equal(await diff.getByTestId('restore-version').count(), 0, 'no restore offered on the current version (issue #32, item 12)');
  assert.deepEqual(await diff.getByTestId('diff-file').evaluateAll((els) => els.map((e) => `${e.dataset.path} ${e.dataset.change}`)), ['style.css changed']);
  assert.deepEqual(await diff.locator('.line.removed').allTextContents(), ['- h1 { color: black; }\n']);
  assert.deepEqual(await diff.locator('.line.added').allTextContents(), ['+ h1 { color: red; }\n']);
  await shootPane(page, 'versions', 'iterate-1-version-2-diff');

  // Version 1's diff: every file added.
  await version(page, 1).getByTestId('version-open').click();
  await page.locator('[data-testid=diff][data-number="1"]').waitFor();
  assert.deepEqual(await page.locator('[data-testid=diff-file]').evaluateAll((els) => els.map((e) => `${e.dataset.path} ${e.dataset.change}`)), ['index.html added', 'style.css added']);

  // Restore version 1: a version 3 records it; the preview is as before.
  const row = page.locator('[data-testid=session]').filter({ hasText: 'A page with a title' }).first();
  const savedAt = await row.getAttribute('data-updated');
  await page.getByTestId('restore-version').click();
  await version(page, 3).waitFor({ state: 'attached', timeout: 5000 });
  assert.match(await version(page, 3).textContent(), /restore of version 1/);
  await showTab(page, 'preview');
  assert.equal(await titleColour(page, 'rgb(0, 0, 0)'), 'rgb(0, 0, 0)', 'the preview shows version 1 again');
  // The status names the restore, not version 2 (issue #32, item 2).
  const restoredStatus = 'Done: version 3 (version 1 restored) is ready.';
  await page.getByTestId('status').filter({ hasText: 'version 3' }).waitFor({ timeout: 5000 });
  assert.equal(await page.getByTestId('status').textContent(), restoredStatus);
  await screenshot(page, 'iterate-2-restored');

  // Reload: the session (saved after the restore) opens with it all.
  const before = {
    versions: await page.getByTestId('version-request').allTextContents(),
    files: (await page.getByTestId('files').innerText()).replace(/\s+/g, ' '),
  };
  // The restore is saved (the row's time moves) before the reload.
  await page.locator(`[data-testid=session]:not([data-updated="${savedAt}"])`).filter({ hasText: 'A page with a title' }).waitFor({ state: 'attached', timeout: 5000 });
  // The reload reopens it by itself: this tab had it open (issue #32, item 4).
  await page.reload();
  await waitDone(page, 'iterate-reload', 15000);
  await version(page, 3).waitFor({ state: 'attached', timeout: 5000 });
  assert.deepEqual(await page.getByTestId('version-request').allTextContents(), before.versions);
  assert.equal((await page.getByTestId('files').innerText()).replace(/\s+/g, ' '), before.files);
  const reopened = await page.getByTestId('conversation').textContent();
  assert.ok(reopened.includes('make the title red') && reopened.includes('The title is red.'), reopened);
  assert.equal(await titleColour(page, 'rgb(0, 0, 0)'), 'rgb(0, 0, 0)', 'the preview shows the restored files');
  // The same status as before the reload (issue #32, item 3), the same bubbles.
  assert.equal(await page.getByTestId('status').textContent(), restoredStatus);
  assert.equal((await mine.nth(1).locator('.bubble').innerText()).replace(/\s+/g, ' ').trim(), 'You make the title red (About version 1.)');
  noPromptPhrases(await said(page), 'reopened');
  await screenshot(page, 'iterate-3-reloaded');
  await sizes(page, 'iterate-restored-reloaded');

  // Export, delete, import: the versions come back.
  await showSessions(page);
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('session-export').click()]);
  const path = await download.path();
  page.once('dialog', (d) => d.accept());
  await row.getByTestId('session-delete').click();
  await page.locator('[data-testid=session]').filter({ hasText: 'A page with a title' }).waitFor({ state: 'detached' });
  await page.getByTestId('import').setInputFiles(path);
  const imported = page.locator('[data-testid=session]').filter({ hasText: 'A page with a title' }).first();
  await imported.getByTestId('session-open').click();
  await waitDone(page, 'iterate-import', 15000);
  await version(page, 3).waitFor({ state: 'attached', timeout: 5000 });
  assert.deepEqual(await page.getByTestId('version-request').allTextContents(), before.versions);
  await showTab(page, 'versions');
  await version(page, 2).getByTestId('version-open').click();
  assert.deepEqual(await page.locator('[data-testid=diff][data-number="2"] [data-testid=diff-file]').evaluateAll((els) => els.map((e) => e.dataset.path)), ['style.css']);
  await screenshot(page, 'iterate-4-imported');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an error of the preview goes to the team with one click and the fix leaves the console clean', async () => {
  const model = 'e2e-iterate-fix';
  await script(env.llm, model, throwingTurns());
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model, 'A click counter');
  await waitDone(page, 'iterate-fix-first');
  await version(page, 1).waitFor({ state: 'attached', timeout: 15000 });

  const error = page.locator('[data-testid=console] li.console-uncaught');
  await error.first().waitFor({ timeout: 15000 }).catch(async (e) => {
    await screenshot(page, 'iterate-fix-no-error');
    throw new Error(`no uncaught error shown; console: ${await page.getByTestId('console').textContent()}`);
  });
  assert.match(await error.first().textContent(), /TypeError/);
  // The frame told where: main.js, line 1 (the data: URL mapped back to the file).
  assert.equal(await error.first().getByTestId('console-source').textContent(), '(main.js:1)');
  assert.doesNotMatch(await error.first().textContent(), /base64/, 'the stack names files, not data: URLs');
  await shootPane(page, 'preview', 'iterate-5-error');
  await error.first().getByTestId('ask-fix').click();

  await version(page, 2).waitFor({ state: 'attached', timeout: 60000 }).catch(async (e) => {
    await screenshot(page, 'iterate-fix-failed');
    throw e;
  });
  await waitDone(page, 'iterate-fix');
  assert.match(await version(page, 2).textContent(), /Fix: .*TypeError.*fix/);
  assert.equal((await requests(env.llm, model)).length, throwingTurns().length, 'the error went to Alex, Mike heard his report; nobody else was asked');
  const log = await requests(env.llm, model);
  const toAlex = log.at(-2).messages.map((m) => m.content).join('\n');
  assert.match(toAlex, /TypeError/, 'Alex was told the error');
  assert.match(toAlex, /At: main\.js:1/, 'and where it happened');
  assert.match(toAlex, />001\|document\.getElementById\('count'\)/, 'with the lines around it');
  // The person's bubble names the error; the request written for Alex stays in his prompt.
  const asks = await page.locator('[data-testid=conversation] article.user .bubble').allInnerTexts();
  assert.match(asks.at(-1).replace(/\s+/g, ' '), /^You Please fix this error from the preview: .*TypeError.* \(main\.js:1\)$/);
  noPromptPhrases(await said(page), 'after the fix request');

  await page.getByTestId('console').filter({ hasText: 'counter ready' }).waitFor({ timeout: 15000 });
  assert.equal(await page.locator('[data-testid=console] li.console-uncaught, [data-testid=console] li.console-error').count(), 0, 'no error left in the preview console');
  assert.equal(await frame(page).locator('#counter').textContent(), 'ready');
  await shootPane(page, 'preview', 'iterate-6-fixed');

  // A hand edit: main.js becomes version 3 and the preview shows it.
  await showTab(page, 'code');
  await page.getByTestId('files').getByRole('button', { name: 'main.js' }).click();
  await page.getByTestId('edit-file').click();
  const box = page.getByTestId('edit-text');
  assert.equal(await box.inputValue(), COUNTER_JS.replace("'count'", "'counter'"), 'the box holds the fixed file');
  await box.fill("document.getElementById('counter').textContent = 'edited by hand';\nconsole.log('counter ready');\n");
  await page.getByTestId('edit-save').click();
  await page.getByTestId('hand-edit').waitFor({ state: 'detached' });
  await page.getByTestId('files').filter({ hasText: 'main.js v3' }).waitFor({ timeout: 5000 });
  await showTab(page, 'preview');
  await frame(page).locator('#counter').filter({ hasText: 'edited by hand' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('viewer').textContent(), /edited by hand/, 'the file view shows the edit');
  await screenshot(page, 'iterate-7-hand-edit');
  noPromptPhrases(await said(page), 'after the hand edit');
  await context.close();
});

test('with "Fix preview errors automatically" on, a throwing page is fixed without a click', async () => {
  const model = 'e2e-iterate-auto-fix';
  await script(env.llm, model, throwingTurns());
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model, 'A click counter');
  await showTab(page, 'versions');
  const box = page.getByTestId('auto-fix');
  assert.equal(await box.isChecked(), false, 'off by default');
  await box.check();
  await version(page, 2).waitFor({ timeout: 90000 }).catch(async (e) => {
    await screenshot(page, 'iterate-auto-fix-failed');
    throw new Error(`no fix version; requests:\n${await asked(model)}`);
  });
  await waitDone(page, 'iterate-auto-fix');
  assert.match(await version(page, 2).textContent(), /Fix: .*TypeError.*\(main\.js:1\)/);
  const log = await requests(env.llm, model);
  assert.equal(log.length, throwingTurns().length, 'one automatic fix, nothing more');
  assert.match(log.at(-2).messages.map((m) => m.content).join('\n'), /At: main\.js:1/);
  await showTab(page, 'preview');
  await page.getByTestId('console').filter({ hasText: 'counter ready' }).waitFor({ timeout: 15000 });
  assert.equal(await frame(page).locator('#counter').textContent(), 'ready');
  assert.equal(await page.locator('[data-testid=console] li.console-uncaught').count(), 0);
  await showTab(page, 'versions');
  assert.equal(await page.getByTestId('auto-fix').isChecked(), true);
  await shootPane(page, 'versions', 'iterate-auto-fix');
  await context.close();
});

test('a follow-up that breaks the tests is marked and rolled back with one click', async () => {
  const model = 'e2e-iterate-breaks';
  await script(env.llm, model, breakingTurns());
  const { page, context } = await openPage(env.browser, env.site.url);
  await start(page, model, 'An add function');
  await waitDone(page, 'iterate-breaks-first');
  await version(page, 1).waitFor({ state: 'attached', timeout: 15000 });
  assert.match(await version(page, 1).textContent(), /tests: 1 passed/);
  assert.equal(await version(page, 1).getByTestId('breaks-tests').count(), 0);
  await showTab(page, 'versions');

  await page.getByTestId('follow-up').fill('make add subtract');
  await page.getByTestId('send').click();
  await version(page, 2).waitFor({ state: 'attached', timeout: 60000 });
  await waitDone(page, 'iterate-breaks');
  assert.match(await version(page, 2).textContent(), /tests: 0 passed, 1 failed/);
  await version(page, 2).getByTestId('breaks-tests').waitFor();
  const rollBack = version(page, 2).getByTestId('roll-back');
  assert.equal(await rollBack.textContent(), 'Roll back to version 1');
  await shootPane(page, 'versions', 'iterate-8-breaks-tests');

  await rollBack.click();
  await version(page, 3).waitFor({ state: 'attached', timeout: 5000 });
  assert.match(await version(page, 3).textContent(), /restore of version 1.*tests: 1 passed/);
  await showTab(page, 'code');
  await page.getByTestId('files').getByRole('button', { name: 'add.js' }).click();
  assert.match(await page.getByTestId('viewer').textContent(), /a \+ b/, 'add.js is as version 1 had it');
  await context.close();
});
