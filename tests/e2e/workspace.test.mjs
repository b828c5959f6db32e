// The workspace (issue #21): from the first card to Done with the status
// line in view without scrolling, at desktop (1280x900) and phone
// (390x844) sizes; on a phone the conversation and the project are two
// views with a switch. The Settings dialog opens, closes with Escape (focus
// back on its button) and its changes apply; the project's tabs follow the
// keyboard; the session switcher renames a session and opens another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, openSettings, showSessions, newSession } from './harness.mjs';

const env = useSiteAndLlm();

const cmds = (list) => `Here.\n\`\`\`json\n${JSON.stringify(list)}\n\`\`\``;
/** The assistant team's two calls: the idea's kind, then a reply and the end (the first slowed). */
const turns = (reply, delay_ms = 0) => [
  { text: 'TASK', delay_ms },
  { text: cmds([{ command_name: 'RoleZero.reply_to_human', args: { content: reply } }, { command_name: 'end' }]) },
];

/** `locator` lies wholly inside the viewport and the page itself has not scrolled. */
async function inView(page, locator, what) {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  assert.ok(box, `${what} is shown`);
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height,
    `${what} is within the ${width}x${height} viewport: ${JSON.stringify(box)}`);
  assert.deepEqual(await page.evaluate(() => [window.scrollX, window.scrollY]), [0, 0], 'the page is not scrolled');
}

async function noSideways(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scroll (${overflow}px over)`);
}

test('desktop: first card to Done, the Settings dialog, tabs by keyboard, the session switcher', async () => {
  const model = 'e2e-workspace-desktop';
  await script(env.llm, model, [...turns('First session done.', 1500), ...turns('Second session done.')]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  const card = page.getByTestId('first-card');
  await card.waitFor({ timeout: 15000 });
  await screenshot(page, 'workspace-1-first-card');

  // The card's model and key (a new model forgets a price typed for the old one).
  await card.getByTestId('preset').selectOption('custom');
  await card.getByTestId('model').fill(model);
  await card.getByTestId('key').fill('sk-e2e-test-key');

  // The dialog: opened from the top bar, closed with Escape, focus back on its button.
  await openSettings(page);
  const dialog = page.getByTestId('settings');
  assert.equal(await dialog.evaluate((d) => d.open && d.matches(':modal')), true, 'a modal dialog');
  await page.getByTestId('base-url').fill(`${env.llm.url}/v1`);
  for (const [id, value] of [['price-in', 1], ['price-out', 2], ['budget', 3]]) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  await page.getByTestId('team').selectOption('assistant');
  await screenshot(page, 'workspace-2-settings');
  await page.keyboard.press('Escape');
  await page.getByTestId('close-settings').waitFor({ state: 'detached' });
  assert.equal(await dialog.evaluate((d) => d.open), false, 'Escape closed it');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'open-settings', 'focus is back on the Settings button');
  // Its changes apply: the card's provider shows the choice; the dialog keeps the URL.
  assert.equal(await card.getByTestId('preset').inputValue(), 'custom');
  await openSettings(page);
  assert.equal(await page.getByTestId('base-url').inputValue(), `${env.llm.url}/v1`);
  await page.keyboard.press('Escape');
  await page.getByTestId('close-settings').waitFor({ state: 'detached' });

  // The idea; Enter starts (with the dialog's URL and prices: the run reaches the local server).
  assert.equal(await card.getByTestId('model').inputValue(), model);
  await page.getByLabel('Your idea').fill('Say hello');
  await page.getByLabel('Your idea').press('Enter');
  const status = page.getByTestId('status');
  await status.filter({ hasText: / is |The team is working/ }).waitFor({ timeout: 15000 });
  assert.equal(await status.getAttribute('role'), 'status');
  assert.equal(await status.getAttribute('aria-live'), 'polite');
  await inView(page, status, 'the status line during the run');
  assert.equal(await page.getByTestId('stop').isVisible(), true, 'the bar offers Stop while the team works');
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  await page.getByTestId('send').waitFor();
  await inView(page, status, 'the status line when done');
  await inView(page, page.getByTestId('follow-up'), 'the composer');
  assert.match(await page.getByTestId('conversation').textContent(), /First session done\./);
  await screenshot(page, 'workspace-3-desktop-done');

  // Tabs: arrows, Home and End move the selection and the focus.
  const selected = () => page.locator('[role=tab][aria-selected=true]').getAttribute('data-testid');
  await page.getByTestId('tab-preview').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await selected(), 'tab-code');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'tab-code', 'focus follows');
  assert.equal(await page.locator('#panel-code').isVisible(), true);
  assert.equal(await page.locator('#panel-preview').isVisible(), false);
  await page.keyboard.press('End');
  assert.equal(await selected(), 'tab-versions');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selected(), 'tab-preview', 'wraps around');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await selected(), 'tab-versions');
  await page.keyboard.press('Home');
  assert.equal(await selected(), 'tab-preview');
  assert.equal(await page.locator('[role=tablist] [role=tab]').count(), 5);

  // The switcher: a new session, then rename the first and open it again.
  await newSession(page);
  await page.getByLabel('Your idea').fill('Say hello again');
  await page.getByTestId('start').click();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').textContent(), /Second session done\./);
  assert.equal(await page.getByTestId('current-title').textContent(), 'Say hello again');
  await showSessions(page);
  await screenshot(page, 'workspace-4-switcher');
  const first = page.locator('[data-testid=session]').filter({ hasText: /^Say hello(?! again)/ });
  // Renamed in place (rename.test.mjs checks the field itself).
  await first.getByTestId('session-rename').click();
  await page.getByTestId('session-name').fill('The first one');
  await page.keyboard.press('Enter');
  const renamed = page.locator('[data-testid=session]').filter({ hasText: 'The first one' });
  await renamed.waitFor();
  await renamed.getByTestId('session-open').click();
  await page.getByTestId('current-title').filter({ hasText: 'The first one' }).waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId('switcher').getAttribute('aria-expanded'), 'false', 'opening closes the list');
  await page.getByTestId('conversation').filter({ hasText: 'First session done.' }).waitFor({ timeout: 10000 });
  assert.doesNotMatch(await page.getByTestId('conversation').textContent(), /Second session done\./);
  await noSideways(page);
  assert.deepEqual(problems, []);
  await context.close();
});

test('phone: the status line stays in view and the two views switch', async () => {
  const model = 'e2e-workspace-phone';
  await script(env.llm, model, turns('Hello from the phone.', 2500));
  const { page, context, problems } = await openPage(env.browser, env.site.url, { viewport: { width: 390, height: 844 } });
  await page.getByTestId('first-card').waitFor({ timeout: 15000 });
  await noSideways(page);
  await screenshot(page, 'workspace-5-phone-first-card');
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('Say hello');
  await page.getByTestId('start').click();

  const status = page.getByTestId('status');
  await status.filter({ hasText: / is |The team is working/ }).waitFor({ timeout: 15000 });
  await inView(page, status, 'the status line during the run (conversation view)');
  const talk = page.getByTestId('talk-side');
  const project = page.getByTestId('project-side');
  assert.equal(await page.getByTestId('show-talk').getAttribute('aria-pressed'), 'true');
  assert.equal(await talk.isVisible(), true);
  assert.equal(await project.isVisible(), false, 'one view at a time');
  await page.getByTestId('show-project').click();
  assert.equal(await talk.isVisible(), false);
  assert.equal(await project.isVisible(), true);
  await inView(page, status, 'the status line during the run (project view)');
  await inView(page, page.getByTestId('tab-preview'), 'the tabs');
  await screenshot(page, 'workspace-6-phone-project');
  await page.getByTestId('show-talk').click();
  await status.filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  await inView(page, status, 'the status line when done');
  await inView(page, page.getByTestId('follow-up'), 'the composer');
  assert.match(await page.getByTestId('conversation').textContent(), /Hello from the phone\./);
  await noSideways(page);
  await screenshot(page, 'workspace-7-phone-done');
  assert.deepEqual(problems, []);
  await context.close();
});
