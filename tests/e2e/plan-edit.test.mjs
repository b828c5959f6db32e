// The person edits the plan on the plan board with the team leader's own
// Plan.* commands: refused edits say why, accepted ones change the board,
// and the leader is told when the team resumes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { showTab, useSiteAndLlm, openPage, screenshot, script, configure, requests, roleZeroAnswer } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const env = useSiteAndLlm();

const answer = roleZeroAnswer;

test('append a task and finish it on the plan board; the leader hears of it', async () => {
  const model = 'e2e-plan-edit';
  const turns = companyTurns();
  await script(env.llm, model, [{ ...turns[0], delay_ms: 1500 }, ...turns.slice(1)]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  await page.getByTestId('start').click();
  await showTab(page, 'plan');

  // While the team works, the plan cannot be edited.
  const editor = page.getByTestId('plan-edit');
  await editor.filter({ hasText: 'Stop the team to edit the plan' }).waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId('task-save').count(), 0);

  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
  assert.equal(await page.getByTestId('resume').count(), 0, 'a finished run has nothing to resume');
  assert.equal(await page.locator('[data-testid=plan] li').count(), 3);
  assert.equal(await page.getByTestId('task-id').inputValue(), '4', 'the next free id is offered');

  // An unknown dependency is refused with the command's own words; nothing changes.
  await page.getByTestId('task-deps').fill('9');
  await page.getByTestId('task-assignee').fill('Alex');
  await page.getByTestId('task-instruction').fill('Add a score display');
  await page.getByTestId('task-save').click();
  const error = page.getByTestId('plan-error');
  await error.waitFor({ timeout: 5000 });
  assert.match(await error.textContent(), /9/);
  assert.equal(await page.locator('[data-testid=plan] li').count(), 3);
  await screenshot(page, 'plan-1-refused');

  // Fixed, it is appended as task 4, after task 3.
  await page.getByTestId('task-deps').fill('3');
  await page.getByTestId('task-save').click();
  await page.getByTestId('plan-result').filter({ hasText: 'Task 4 appended' }).waitFor({ timeout: 5000 });
  const items = page.locator('[data-testid=plan] li');
  assert.equal(await items.count(), 4);
  assert.match(await items.nth(3).textContent(), /Add a score display — Alex after 3/);
  await page.getByTestId('resume').waitFor({ timeout: 5000 }).catch(() => assert.fail('an edited plan is work to resume'));
  assert.equal(await page.locator('[data-testid=plan] li.current').count(), 1);
  await screenshot(page, 'plan-2-appended');

  // Finish it: every task is done.
  await page.getByTestId('finish-current').click();
  await page.getByTestId('plan-result').filter({ hasText: 'Every task in the plan is finished' }).waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-testid=plan] li.done').count(), 4);
  await screenshot(page, 'plan-3-finished');

  // On resume the leader reads the edits (as a message from the user).
  await script(env.llm, model, [{ text: 'TASK' }, { text: answer('Noted.', [{ command_name: 'RoleZero.reply_to_human', args: { content: 'I see the score display is done.' } }, { command_name: 'end' }]) }]);
  const before = (await requests(env.llm, model)).length;
  await page.getByTestId('resume').click();
  // The status said "Done" before Resume too (the request was answered): wait for the reply itself.
  await page.getByTestId('conversation').filter({ hasText: 'I see the score display is done.' }).waitFor({ timeout: 20000 });
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 20000 });
  // The person's bubble says what they did, not the note written for the leader.
  const conversation = await page.getByTestId('conversation').textContent();
  assert.ok(conversation.includes('You added task 4 (Add a score display) for Alex.') && !conversation.includes('[Plan edited by the user]'), conversation.slice(0, 600));
  const log = (await requests(env.llm, model)).slice(before);
  assert.equal(log.length, 2);
  const told = JSON.stringify(log[1].messages);
  assert.ok(told.includes('[Plan edited by the user] I appended task 4 (Add a score display) for Alex.'), told.slice(0, 400));
  assert.ok(told.includes('[Plan edited by the user] I marked the current task as finished.'));
  await screenshot(page, 'plan-4-leader-told');
  assert.deepEqual(problems, []);
  await context.close();
});
