// Issue #37 (and #32 item 6): a session whose key was not remembered,
// reopened after a reload, takes a follow-up that waits for the key: the
// page says so beside Resume, nothing is sent or saved as running
// meanwhile, Stop is offered (it drops the request), and typing the key in
// Settings lets the request go with it. The preset here is "custom", whose
// key is optional: the key the person gave is asked for all the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, openSettings, closeSettings, showSessions, roleZeroAnswer } from './harness.mjs';
import { waitFor } from './company-run.mjs';

const env = useSiteAndLlm();
const answer = (thought, commands) => roleZeroAnswer(thought, commands);
const cmd = (name, args = {}) => ({ command_name: name, args });

test('a follow-up after a reload waits for the key, says so, and goes once the key is typed', async () => {
  const model = 'e2e-missing-key';
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('Saying hello.', [cmd('RoleZero.reply_to_human', { content: 'Hello from the team.' }), cmd('end')]) },
    { text: 'TASK' },
    { text: answer('Making it blue.', [cmd('RoleZero.reply_to_human', { content: 'It is blue now.' }), cmd('end')]) },
  ]);
  const { page, context } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant', key: 'sk-given-once' });
  await page.getByLabel('Your idea').fill('say hello');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 20000 });
  assert.equal((await requests(env.llm, model)).length, 2);

  // Reload: "remember the key" was off, so the key is gone.
  // The reload reopens the session this tab had open (issue #32, item 4).
  await page.reload();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });

  await page.getByTestId('follow-up').fill('make it blue');
  await page.getByTestId('send').click();
  const note = page.getByTestId('resume-note');
  await note.waitFor({ timeout: 5000 });
  assert.equal(await note.textContent(), 'Enter your API key to carry on: nothing is sent without it.');
  // The bar offers Stop (it drops the waiting request), the one Stop on the page.
  await page.getByTestId('stop').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 1);
  await page.waitForTimeout(300);
  assert.equal((await requests(env.llm, model)).length, 2, 'no request without the key');
  await showSessions(page);
  assert.notEqual(await page.getByTestId('session').first().getAttribute('data-status'), 'running', 'not saved as running');
  await showSessions(page, false);
  await screenshot(page, 'missing-key-1-waiting');

  // The key, typed in Settings: the request goes with it.
  await page.getByTestId('resume-settings').click();
  assert.match(await page.getByTestId('key').getAttribute('class'), /needs-attention/);
  await page.getByTestId('key').fill('sk-typed-again');
  await closeSettings(page);
  await waitFor(async () => (await requests(env.llm, model)).length === 4, 'the follow-up sent with the key');
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('conversation').innerText(), /make it blue/);
  assert.equal(await note.count(), 0);
  const log = await requests(env.llm, model);
  assert.equal(log.length, 4);
  assert.ok(log.slice(2).every((e) => e.headers.authorization === `<redacted:${'Bearer sk-typed-again'.length} chars>`), 'the key typed after the reload');
  await screenshot(page, 'missing-key-2-sent');
  await context.close();
});
