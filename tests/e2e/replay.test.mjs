// The sample replay: a visitor with no key presses "Replay a sample run" and
// watches the real team play back recordings/company-2048.json, labelled as a
// replay, with no request leaving for any provider.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSite, openPage, screenshot, root } from './harness.mjs';

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
    if (!r.url().startsWith(env.site.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  await page.getByTestId('replay').waitFor({ timeout: 15000 });
  assert.equal(await page.getByTestId('key').inputValue(), '', 'no key entered');
  await page.getByTestId('replay').click();

  // Marked as a replay from the start, while it streams.
  const banner = page.getByTestId('replay-banner');
  await banner.waitFor({ timeout: 5000 });
  assert.match(await banner.textContent(), /Replay of a recorded run.*no provider is called, no key is used, nothing is spent/);
  await page.locator('[data-live=true]').first().waitFor({ timeout: 10000 });
  assert.match(await page.getByTestId('status').textContent(), /^Replay · Round \d/);
  await screenshot(page, 'replay-1-streaming');

  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 90000 });
  assert.match(await page.getByTestId('status').textContent(), /^Replay · Done/);
  const conversation = await page.getByTestId('conversation').textContent();
  assert.ok(conversation.includes(recording.idea), 'the recorded idea is shown as the user\'s');
  for (const seen of ['Alice is writing the PRD.', 'Mike → Alice', 'Your 2048 game is ready']) {
    assert.ok(conversation.includes(seen), `conversation shows ${seen}`);
  }
  assert.equal(await page.locator('[data-testid=plan] li.done').count(), 5);
  const files = await page.getByTestId('files').textContent();
  for (const f of ['docs/prd.md', 'docs/system_design.md', 'docs/tasks.md', 'game.js', 'index.html', 'style.css', 'tests/game.test.js']) {
    assert.ok(files.includes(f), f);
  }
  assert.match(await page.getByTestId('cost').textContent(), /replay: \$0, no model is called/);
  await screenshot(page, 'replay-2-done');

  assert.deepEqual(elsewhere, [], 'no request left the site');
  assert.deepEqual(problems, []);
  await context.close();
});
