// The person's controls during a run: Stop in the middle of a streaming
// answer and Resume (the run finishes; no finished call is made twice), and
// a question from the team answered in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSiteAndLlm, openPage, screenshot, script, configure, requests, roleZeroAnswer } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const env = useSiteAndLlm();

const answer = roleZeroAnswer;

test('Stop mid-stream, then Resume: the run finishes and no finished call is repeated', async () => {
  const model = 'e2e-stop-resume';
  const turns = companyTurns();
  // Alice's PRD (the third call) streams slowly, so Stop lands in the middle.
  await script(env.llm, model, [turns[0], turns[1], { ...turns[2], chunk_chars: 4, chunk_delay_ms: 150 }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  await page.getByTestId('start').click();

  const live = page.locator('[data-live=true]').filter({ hasText: 'Writing the' });
  await live.waitFor({ timeout: 20000 });
  // One Stop on the page while the team works, none once it stopped (issue #32, item 12).
  const visibleStops = async () => {
    let n = 0;
    for (const b of await page.getByRole('button', { name: 'Stop', exact: true }).all()) n += (await b.isVisible()) ? 1 : 0;
    return n;
  };
  assert.equal(await visibleStops(), 1, 'exactly one Stop while the team works');
  await page.getByTestId('stop').click();
  await page.getByTestId('status').filter({ hasText: 'Stopped by you' }).waitFor({ timeout: 10000 });
  assert.equal(await visibleStops(), 0, 'no Stop once stopped: Resume is offered');
  assert.match(await page.getByTestId('conversation').textContent(), /Stopped by you\./);
  assert.equal(await page.locator('[data-live=true]').count(), 0, 'nothing is still streaming');
  await screenshot(page, 'stop-1-stopped');

  // The rest of the run, including Alice's answer again (her call was cut).
  await script(env.llm, model, turns.slice(2));
  await page.getByTestId('resume').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
  assert.match(await page.getByTestId('conversation').textContent(), /Your 2048 game is ready/);
  assert.equal(await page.locator('[data-testid=plan] li.done').count(), 3);
  await screenshot(page, 'stop-2-resumed-done');

  const log = await requests(env.llm, model);
  assert.equal(log.length, turns.length + 1, 'one call more than the script: the one cut by Stop');
  const cut = log.filter((e) => e.client_closed_early);
  assert.equal(cut.length, 1, 'exactly one call was cut');
  const asked = log.map((e) => JSON.stringify(e.messages));
  const repeated = asked.filter((m, i) => asked.indexOf(m) !== i);
  assert.deepEqual(repeated, [JSON.stringify(cut[0].messages)], 'only the cut call was asked again');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a question from the team is answered in the page and the answer reaches the model', async () => {
  const model = 'e2e-ask-human';
  await script(env.llm, model, [
    { text: 'TASK' },
    { text: answer('I need one detail first.', [{ command_name: 'RoleZero.ask_human', args: { question: 'Which colour should the tiles be?' } }]) },
    { text: answer('Thanks.', [{ command_name: 'RoleZero.reply_to_human', args: { content: 'Blue tiles it is.' } }, { command_name: 'end' }]) },
  ]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('A 2048 game');
  await page.getByTestId('start').click();

  const question = page.locator('article.question').filter({ hasText: 'Which colour should the tiles be?' });
  await question.waitFor({ timeout: 15000 });
  // The team waits for the person, and the status line says so.
  await page.getByTestId('status').filter({ hasText: 'Tabby asks you a question' }).waitFor({ timeout: 5000 });
  assert.doesNotMatch(await page.getByTestId('status').textContent(), /Round/);
  await screenshot(page, 'ask-1-question');
  await question.getByTestId('answer').fill('Blue, please');
  await question.getByRole('button', { name: 'Answer' }).click();

  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 20000 });
  const conversation = await page.getByTestId('conversation').textContent();
  assert.match(conversation, /Blue, please/);
  assert.match(conversation, /Blue tiles it is\./);
  // The question and its answer, said in words under Tabby's answer.
  assert.match(conversation, /Tabby asked you: “Which colour should the tiles be\?” You answered: “Blue, please”/);
  assert.equal(await page.getByTestId('answer').count(), 0, 'the answer box is gone once answered');
  await screenshot(page, 'ask-2-answered');

  const log = await requests(env.llm, model);
  assert.equal(log.length, 3);
  const after = JSON.stringify(log[2].messages);
  assert.ok(after.includes('Blue, please'), 'the next request carries the answer');
  assert.ok(!JSON.stringify(log[1].messages).includes('Blue, please'));
  assert.deepEqual(problems, []);
  await context.close();
});
