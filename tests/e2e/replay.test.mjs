// The sample replay: a visitor with no key presses "Replay a sample run" and
// watches the real team play back recordings/company-2048.json, labelled as a
// replay, with no request leaving for any provider; the conversation says in
// words what each agent did, and the run ends with the 2048 game it built
// running in the Preview.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSite, openPage, screenshot, screenshotDir, root, overlap, disclosureArrow } from './harness.mjs';

const recording = JSON.parse(readFileSync(join(root, 'recordings', 'company-2048.json'), 'utf8'));

let env;
before(async () => {
  env = await startSite();
});
after(async () => {
  await env?.close();
});

test('the sample run replays to the end with no key and no provider request', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  const elsewhere = [];
  page.on('request', (r) => {
    // data: and blob: URLs are made in the page (the sandbox's scripts), not fetched from anywhere.
    if (!r.url().startsWith(env.site.url) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
  });
  await page.getByTestId('replay').waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('key').inputValue(), '', 'no key entered');
  await page.getByTestId('replay').click();

  // Marked as a replay from the start, while it streams.
  const banner = page.getByTestId('replay-banner');
  await banner.waitFor({ timeout: 5000 });
  assert.match(await banner.textContent(), /Replay of a recorded run.*no provider is called, no key is used, nothing is spent/);
  await page.locator('[data-live=true]').first().waitFor({ timeout: 10000 });
  // The status says who does what, in words (no round numbers).
  assert.match(await page.getByTestId('status').textContent(), /^Replay · Mike is thinking$/);
  await screenshot(page, 'replay-1-streaming');
  await page.getByTestId('status').filter({ hasText: 'Alex is writing game.js' }).waitFor({ timeout: 90000 });

  // Done, with the version the run made and its tests (run in the sandbox).
  await page.getByTestId('status').filter({ hasText: 'version 1 is ready' }).waitFor({ timeout: 90000 });
  assert.equal(await page.getByTestId('status').textContent(), 'Replay · Done: version 1 is ready; its 3 tests pass.');
  assert.equal(await page.getByTestId('resume').count(), 0, 'a replay played to its end has nothing to resume');
  const conversation = await page.getByTestId('conversation').textContent();
  assert.ok(conversation.includes(recording.idea), 'the recorded idea is shown as the user\'s');
  for (const seen of ['Alice is writing the PRD.', 'Mike → Alice', 'Your 2048 game is ready']) {
    assert.ok(conversation.includes(seen), `conversation shows ${seen}`);
  }
  // What the commands did, in words; the raw commands one click away.
  const deeds = await page.getByTestId('deeds').allTextContents();
  for (const said of ["Mike assigned 'Write the code' to Alex", 'Alex wrote game.js (version 1)', 'Mike messaged Alice', 'Mike marked the last task done']) {
    assert.ok(deeds.some((d) => d.includes(said)), `the words say: ${said}`);
  }
  // Outside the folded commands, nothing meant for the model.
  const shown = await page.getByTestId('conversation').evaluate((el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('details.commands').forEach((d) => d.remove());
    return copy.textContent;
  });
  for (const internal of ['executed', 'command_name', 'Next step.', 'I have finished the task']) {
    assert.ok(!shown.includes(internal), `the conversation does not show "${internal}"`);
  }
  const folded = page.locator('[data-testid=conversation] details.commands');
  assert.equal(await folded.count(), recording.turns.length - 1, 'each answer keeps its commands (all but the quiet first call)');
  assert.equal(await folded.first().getAttribute('open'), null, 'folded');
  assert.equal((await folded.first().locator('summary').textContent()), 'Show commands');
  assert.equal(await page.locator('[data-testid=plan] li.done').count(), 5);
  const files = await page.getByTestId('files').textContent();
  for (const f of ['docs/prd.md', 'docs/system_design.md', 'docs/tasks.md', 'game.js', 'index.html', 'style.css', 'tests/game.test.js']) {
    assert.ok(files.includes(f), f);
  }
  assert.match(await page.getByTestId('cost').textContent(), /replay: \$0, no model is called/);
  await screenshot(page, 'replay-2-done');
  // The banner covers no message (issue #32, item 12): no message's box
  // shares any area with it, wherever the conversation is scrolled.
  const conversationPane = page.getByTestId('conversation');
  for (const top of [false, true]) {
    if (top) await conversationPane.evaluate((el) => { el.scrollTop = el.scrollHeight / 3; });
    const bannerBox = await banner.boundingBox();
    const covered = [];
    for (const article of await conversationPane.locator('article').all()) {
      const box = await article.boundingBox();
      if (box && overlap(box, bannerBox)) covered.push((await article.innerText()).slice(0, 60));
    }
    assert.deepEqual(covered, [], `the replay banner covers no message (${top ? 'scrolled up' : 'at the end'})`);
  }

  // The game it built runs in the Preview (the sandboxed frame) and plays.
  const preview = page.getByTestId('preview');
  assert.ok(!(await preview.textContent()).includes('not available'), 'the replay has a sandbox');
  const frame = page.frameLocator('[data-testid=preview] iframe').frameLocator('iframe');
  await frame.locator('#board .tile').first().waitFor({ timeout: 15000 });
  assert.equal(await frame.locator('#board .tile').count(), 16, 'a 4×4 grid');
  assert.equal(await frame.locator('#score').textContent(), 'Score: 0');
  await page.getByTestId('console').filter({ hasText: '2048 ready' }).waitFor({ timeout: 5000 });
  // The Console's arrow stays beside its label, open or closed (issue #32, item 12).
  const consoleSummary = page.locator('details.console > summary');
  const opened = await disclosureArrow(page, consoleSummary);
  await consoleSummary.click();
  const closed = await disclosureArrow(page, consoleSummary);
  await consoleSummary.click();
  for (const [name, { arrow, label }] of [['open', opened], ['closed', closed]]) {
    assert.ok(arrow, `the ${name} Console shows an arrow`);
    const middle = (b) => b.y + b.height / 2;
    assert.ok(Math.abs(middle(arrow) - middle(label)) <= 3, `the ${name} arrow is on its label's line: ${JSON.stringify({ arrow, label })}`);
    assert.ok(label.x - (arrow.x + arrow.width) <= 0.4 * label.height, `the ${name} arrow stands next to its label: ${JSON.stringify({ arrow, label })}`);
  }
  assert.ok(Math.abs(opened.arrow.x - closed.arrow.x) <= 2, `opening does not move the arrow sideways: ${JSON.stringify([opened.arrow, closed.arrow])}`);
  await frame.locator('#board').click();
  await page.keyboard.press('ArrowLeft');
  await frame.locator('#score').filter({ hasText: 'Score: 4' }).waitFor({ timeout: 5000 });
  await preview.scrollIntoViewIfNeeded();
  await preview.screenshot({ path: join(screenshotDir, 'replay-3-preview.png') });
  // The whole workspace as a visitor sees it (README's picture: docs/screenshot.png).
  await page.screenshot({ path: join(screenshotDir, 'replay-4-workspace.png') });

  assert.deepEqual(elsewhere, [], 'no request left the site');
  assert.deepEqual(problems, []);
  await context.close();
});
