// Renaming a session in place (issue #21): the switcher's Rename turns the
// session's title into a labelled text field; Escape leaves the name as it
// was, Enter saves the new one (kept across a reload), and focus goes back
// to the Rename button either way. No browser prompt is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, script, configure, showSessions, root } from './harness.mjs';

const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

const env = useSiteAndLlm();

test('a session is renamed in the switcher: Escape cancels, Enter saves', async () => {
  const model = 'e2e-rename';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'A short answer.' }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  // A browser dialog would be a failure here.
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.type()); d.dismiss(); });
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('name me');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });

  await showSessions(page);
  const row = page.locator('[data-testid=session]').filter({ hasText: 'name me' }).first();
  await row.waitFor();
  const rename = row.getByTestId('session-rename');

  // Escape: the field goes, the name stays, the switcher stays open.
  await rename.click();
  const field = page.getByRole('textbox', { name: /New name for .name me./ });
  await field.waitFor();
  assert.ok(await field.evaluate((el) => el === document.activeElement), 'the field has the focus');
  assert.equal(await field.inputValue(), 'name me');
  await field.fill('Not this');
  await page.keyboard.press('Escape');
  await field.waitFor({ state: 'detached' });
  assert.equal(await row.getByTestId('session-title').textContent(), 'name me');
  assert.equal(await page.getByTestId('switcher').getAttribute('aria-expanded'), 'true', 'Escape cancelled the rename, not the menu');
  assert.ok(await rename.evaluate((el) => el === document.activeElement), 'focus is back on Rename');

  // Enter: saved, shown in the list and the top bar.
  await rename.click();
  await field.fill('  My sketch  ');
  await screenshot(page, 'rename-field');
  // The status badge stays where it is in a row not being renamed: on the
  // name's line, right after it (the field), with Save below the field.
  const editing = page.locator('[data-testid=session]').filter({ has: field });
  const badge = await editing.locator('.badge').boundingBox();
  const box = await field.boundingBox();
  const save = await editing.getByTestId('session-name-save').boundingBox();
  const middle = (b) => b.y + b.height / 2;
  assert.ok(Math.abs(middle(badge) - middle(box)) < 4, `the badge is centred on the field's line: ${JSON.stringify({ badge, box })}`);
  assert.ok(badge.x >= box.x + box.width && badge.x - (box.x + box.width) < 24, `the badge follows the field: ${JSON.stringify({ badge, box })}`);
  assert.ok(save.y >= box.y + box.height, `Save is below the field: ${JSON.stringify({ save, box })}`);
  // The open field passes axe (critical, serious and moderate rules).
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => (await window.axe.run(document.querySelector('[data-testid=sessions]'), { resultTypes: ['violations'] }))
    .violations.filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  assert.deepEqual(found, []);
  await page.keyboard.press('Enter');
  const renamed = page.locator('[data-testid=session]').filter({ hasText: 'My sketch' });
  await renamed.waitFor();
  assert.equal(await renamed.getByTestId('session-title').textContent(), 'My sketch');
  await page.getByTestId('current-title').filter({ hasText: 'My sketch' }).waitFor();
  await screenshot(page, 'rename-saved');

  // Kept: after a reload the session has its new name.
  await page.reload();
  await page.getByTestId('switcher').waitFor({ timeout: 15000 });
  await showSessions(page);
  await page.locator('[data-testid=session]').filter({ hasText: 'My sketch' }).waitFor();
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []);
  await context.close();
});
