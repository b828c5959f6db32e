// The whole journey a person takes: first visit, settings, an idea, and the
// software company at work against the local scripted LLM server, with a
// screenshot of each stage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { showTab, useSiteAndLlm, openPage, screenshot, script, configure, requests, cspViolations } from './harness.mjs';
import { companyTurns } from './scripts/company-2048.mjs';

const env = useSiteAndLlm();

test('first visit, settings, idea, and the company builds a 2048 game', async () => {
  const model = 'e2e-company-2048';
  await script(env.llm, model, companyTurns());
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { name: 'What should the team build?' }).waitFor({ timeout: 15000 });
  // The first card says, in one sentence, where the key goes.
  assert.match(await page.getByTestId('first-card').textContent(), /Your key goes only from this browser to OpenAI; it stays in this tab's memory/);
  await screenshot(page, 'journey-1-first-visit');

  // The start button says why it cannot start yet.
  assert.equal(await page.getByTestId('start').isDisabled(), true);
  assert.match(await page.getByTestId('problems').textContent(), /Type your idea/);

  await configure(page, env.llm, model, { rounds: 20 });
  await page.getByLabel('Your idea').fill('A 2048 game in HTML and JavaScript');
  await screenshot(page, 'journey-2-settings');
  assert.equal(await page.getByTestId('problems').textContent(), '');
  await page.getByTestId('start').click();

  // The team works: the run ends idle, with the plan done and the files made.
  try {
    await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
  } catch (e) {
    await screenshot(page, 'journey-failed');
    throw new Error(`the run did not finish: status "${await page.getByTestId('status').textContent()}"; page errors: ${problems.join(' | ')}`);
  }
  const conversation = await page.getByTestId('conversation').textContent();
  for (const seen of ['A 2048 game in HTML and JavaScript', 'Alice is writing the PRD.', 'Mike → Alice', 'Your 2048 game is ready']) {
    assert.ok(conversation.includes(seen), `conversation shows ${seen}`);
  }
  const plan = await page.getByTestId('plan').textContent();
  assert.match(plan, /Write the PRD/);
  assert.equal((await page.locator('[data-testid=plan] li.done').count()), 3);
  const files = await page.getByTestId('files').textContent();
  for (const f of ['docs/prd.md', 'docs/system_design.md', 'game.js', 'index.html']) assert.ok(files.includes(f), f);
  assert.match(await page.getByTestId('cost').textContent(), /of \$3\.00/);
  await screenshot(page, 'journey-3-done');

  // The PRD renders as markdown (the Code tab shows the files).
  await showTab(page, 'code');
  await page.getByRole('button', { name: 'docs/prd.md' }).click();
  await page.getByTestId('viewer').locator('h1').waitFor();
  assert.equal(await page.getByTestId('viewer').locator('h1').textContent(), '2048');
  await screenshot(page, 'journey-4-prd');

  // The design's mermaid diagrams are drawn as SVG pictures (mermaid loaded
  // lazily from the site's own files), their source kept folded below.
  await page.getByRole('button', { name: 'docs/system_design.md' }).click();
  const diagrams = page.getByTestId('viewer').locator('figure.diagram');
  await diagrams.nth(1).locator('svg').waitFor({ timeout: 15000 });
  assert.equal(await diagrams.count(), 2);
  assert.match(await diagrams.nth(0).locator('svg').textContent(), /Game/);
  assert.match(await diagrams.nth(1).locator('svg').textContent(), /key press/);
  const box = await diagrams.nth(0).locator('svg').boundingBox();
  assert.ok(box.width > 50 && box.height > 50, `the class diagram has a size: ${JSON.stringify(box)}`);
  await screenshot(page, 'journey-5-design');

  // Code is highlighted: escaped text in spans.
  await page.getByRole('button', { name: 'game.js' }).click();
  const code = page.getByTestId('viewer').locator('code.hljs');
  await code.waitFor({ timeout: 15000 });
  assert.ok((await code.locator('span[class^="hljs-"]').count()) > 3, 'code has highlighted tokens');
  assert.equal(await code.locator(':not(span)').count(), 0, 'only spans inside the code');
  await screenshot(page, 'journey-6-code');

  // The Docs tab: the documents rendered, the PRD first; the design with its diagrams.
  await showTab(page, 'docs');
  const doc = page.getByTestId('doc');
  await doc.locator('h1').waitFor();
  assert.equal(await doc.locator('h1').textContent(), '2048');
  await page.getByTestId('docs').getByRole('button', { name: 'Design' }).click();
  await doc.locator('figure.diagram svg').first().waitFor({ timeout: 15000 });
  await screenshot(page, 'journey-7-docs');
  await showTab(page, 'plan');
  await screenshot(page, 'journey-8-plan');
  assert.deepEqual(await cspViolations(page), [], 'no Content-Security-Policy violation during the journey');

  // The key went to the provider, and only as the Authorization header.
  const mine = await requests(env.llm, model);
  assert.equal(mine.length, companyTurns().length);
  assert.ok(mine.every((e) => e.headers.authorization === `<redacted:${'Bearer sk-e2e-test-key'.length} chars>`));
  assert.deepEqual(problems, []);
  await context.close();
});
