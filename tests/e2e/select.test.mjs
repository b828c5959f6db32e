// Pick an element (issue #34, item 2): in the Preview's "Select" mode the
// sandboxed page outlines what the pointer is over, a click picks it, and
// the composer gets a chip naming it; the follow-up the team receives is
// about that element, with its HTML and the file and line it comes from.
// Escape leaves Select mode; axe stays clean. The project is the replay's
// 2048 game, copied through a share link into a session of its own (a
// replay has no answers for new requests), then sent to the scripted model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, showTab, configure, script, requests, roleZeroAnswer as answer, root } from './harness.mjs';

const env = useSiteAndLlm();
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => ['critical', 'serious', 'moderate'].includes(v.impact)).map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

test('Select picks the score of the 2048 preview and the follow-up names it and its file', async () => {
  const { page: first, context, problems } = await openPage(env.browser, env.site.url);
  await first.getByTestId('replay').click();
  await first.getByTestId('status').filter({ hasText: 'version 1 is ready' }).waitFor({ timeout: 120000 });
  await showTab(first, 'code');
  await first.getByTestId('share').click();
  const link = await first.getByTestId('share-link').inputValue();
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(link);
  await page.getByTestId('shared-copy').click();
  await page.getByTestId('shared-page').waitFor({ state: 'detached', timeout: 15000 });
  await first.close();
  const model = 'select-model';
  await configure(page, env.llm, model);
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('Noted.', [{ command_name: 'RoleZero.reply_to_human', args: { content: 'I will make the score bigger.' } }, { command_name: 'end' }]) },
  ]);

  await showTab(page, 'preview');
  const frame = page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');
  await frame.locator('#score').waitFor({ timeout: 15000 });
  const select = page.getByTestId('select-mode');
  assert.equal(await select.getAttribute('aria-pressed'), 'false');

  // Escape leaves Select mode.
  await select.click();
  assert.equal(await select.getAttribute('aria-pressed'), 'true');
  await page.getByTestId('select-note').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('select-note').waitFor({ state: 'detached' });
  assert.equal(await select.getAttribute('aria-pressed'), 'false');

  // Hover outlines, a click picks (and does not reach the game).
  await select.click();
  await frame.locator('#score').hover();
  await frame.locator('#score[data-tabteam-hover]').waitFor({ timeout: 5000 });
  const outline = await frame.locator('#score').evaluate((el) => getComputedStyle(el).outlineStyle);
  assert.equal(outline, 'solid', 'the element under the pointer is outlined');
  await page.getByTestId('preview').screenshot({ path: join(screenshotDir, 'select-1-hover.png') });
  assert.deepEqual(await axeViolations(page), [], 'axe in Select mode');
  await frame.locator('#score').click();
  const chip = page.getByTestId('picked-chip');
  await chip.waitFor({ timeout: 5000 });
  assert.match(await chip.textContent(), /<p> #score "Score: 0" \(index\.html:\d+\)/);
  assert.equal(await select.getAttribute('aria-pressed'), 'false', 'a pick leaves Select mode');
  assert.equal(await frame.locator('#score[data-tabteam-hover]').count(), 0, 'no outline left in the page');
  assert.equal(await frame.locator('#score').textContent(), 'Score: 0');
  assert.deepEqual(await axeViolations(page), [], 'axe with the chip');
  await page.getByTestId('follow-up').fill('Make the score bigger');
  await page.getByTestId('composer').screenshot({ path: join(screenshotDir, 'select-2-chip.png') });

  // The follow-up the team receives is about that element and its file.
  await page.getByTestId('send').click();
  await chip.waitFor({ state: 'detached' });
  let sent = '';
  for (let i = 0; i < 100 && !sent.includes('#score'); i++) {
    sent = (await requests(env.llm, model)).map((r) => r.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n')).join('\n');
    await page.waitForTimeout(100);
  }
  assert.match(sent, /Make the score bigger/);
  assert.match(sent, /This request is about one element of the page, picked in the preview: <p> with the selector `#score` and the text "Score: 0"\. It comes from index\.html line \d+\./);
  assert.match(sent, /<p id=\\?"score\\?">Score: 0<\/p>/, 'with its HTML');
  await screenshot(page, 'select-3-sent');
  assert.deepEqual(problems, []);
  await context.close();
});
