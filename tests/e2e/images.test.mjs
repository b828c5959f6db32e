// Images in a request (issue #34, item 1): an image pasted with the idea,
// or given with the file button, reaches the scripted server as an image
// part in the provider's own format (OpenAI-compatible `image_url` with a
// data: URL; Anthropic an `image` block with a base64 source); a large one
// is resized in the tab; the conversation shows it, after a reload and
// after an export and import too; a model not known to take images gets
// the message, and the server no request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, configure, script, requests, showSessions, openSettings, closeSettings, roleZeroAnswer as answer } from './harness.mjs';

const env = useSiteAndLlm();

// The assistant's two calls: its quick think, then its answer.
const TURNS = [
  { text: 'TASK' },
  { text: answer('Looking at the sketch.', [{ command_name: 'RoleZero.reply_to_human', args: { content: 'A blue button, as drawn.' } }, { command_name: 'end' }]) },
];

/** A PNG drawn in the page (`width` × `height`, a blue square on white), as a File, pasted into the text box `box`. */
async function pasteImage(box, width, height) {
  await box.evaluate(async (box, [w, h]) => {
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = h;
    const g = canvas.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    g.fillStyle = '#2563eb';
    g.fillRect(w / 4, h / 4, w / 2, h / 2);
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
    const data = new DataTransfer();
    data.items.add(new File([blob], 'sketch.png', { type: 'image/png' }));
    box.focus();
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, [width, height]);
}

/** A small PNG's bytes, made in the page, for the file button. */
async function pngBytes(page) {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 40;
    canvas.height = 30;
    canvas.getContext('2d').fillRect(0, 0, 20, 15);
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
    const bytes = new Uint8Array(await blob.arrayBuffer());
    return btoa(String.fromCharCode(...bytes));
  });
  return Buffer.from(base64, 'base64');
}

const ideaBox = (page) => page.getByLabel('Your idea');

async function waitDone(page) {
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 30000 });
}

test('an image pasted with the idea reaches an OpenAI-compatible model as image_url, and stays through a reload and an export/import', async () => {
  const model = 'gpt-4o-e2e-images';
  await script(env.llm, model, TURNS);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await ideaBox(page).fill('A page with one button like this sketch');
  // A large image: resized in the tab to at most 1568 px a side.
  await pasteImage(ideaBox(page), 3000, 2000);
  const thumb = page.getByTestId('attached-image');
  await thumb.waitFor({ timeout: 10000 });
  const size = await thumb.evaluate((img) => [img.naturalWidth, img.naturalHeight]);
  assert.deepEqual(size, [1568, 1045], 'resized to 1568 px on its longer side');
  assert.deepEqual(await page.getByTestId('problems').locator('li').allTextContents(), []);
  await screenshot(page, 'images-1-first-card');

  await page.getByTestId('start').click();
  await waitDone(page);
  assert.equal(await page.getByTestId('attached-image').count(), 0, 'sent, so no longer attached');
  const seen = await requests(env.llm, model);
  const parts = seen.flatMap((e) => e.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])));
  const images = parts.filter((p) => p.type === 'image_url');
  assert.ok(images.length >= 1, `an image part reached the server: ${JSON.stringify(seen.map((e) => e.messages.map((m) => typeof m.content)))}`);
  assert.match(images[0].image_url.url, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  const withImage = seen.flatMap((e) => e.messages).find((m) => Array.isArray(m.content));
  assert.equal(withImage.role, 'user');
  assert.match(withImage.content.find((p) => p.type === 'text').text, /one button like this sketch/);

  const shown = page.getByTestId('conversation').getByTestId('request-image');
  await shown.waitFor();
  assert.equal(await shown.getAttribute('src'), images[0].image_url.url, 'the conversation shows the image sent');
  await screenshot(page, 'images-2-conversation');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'images-2-conversation-phone');
  await page.setViewportSize({ width: 1280, height: 900 });

  // A reload: the session it reopens shows it.
  const row = page.locator('[data-testid=session]').filter({ hasText: 'one button like this sketch' }).first();
  await page.reload();
  await waitDone(page);
  await shown.waitFor({ timeout: 10000 });
  assert.equal(await shown.getAttribute('src'), images[0].image_url.url, 'shown after a reload');

  // Export, delete, import: still there.
  await showSessions(page);
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByTestId('session-export').click()]);
  const path = await download.path();
  page.once('dialog', (d) => d.accept());
  await row.getByTestId('session-delete').click();
  await row.waitFor({ state: 'detached' });
  await page.getByTestId('import').setInputFiles(path);
  await row.getByTestId('session-open').click();
  await waitDone(page);
  await shown.waitFor({ timeout: 10000 });
  assert.equal(await shown.getAttribute('src'), images[0].image_url.url, 'shown after an export and import');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an image given with the file button reaches Anthropic as an image block with a base64 source', async () => {
  const model = 'claude-sonnet-4-5-e2e-images';
  await script(env.llm, model, TURNS);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await openSettings(page);
  await page.getByTestId('preset').selectOption('anthropic');
  await page.getByTestId('base-url').fill(env.llm.url);
  await page.getByTestId('model').fill(model);
  for (const [id, value] of [['price-in', 3], ['price-out', 15], ['budget', 3]]) {
    await page.getByTestId(id).fill(String(value));
    await page.getByTestId(id).dispatchEvent('change');
  }
  await page.getByTestId('team').selectOption('assistant');
  await page.getByTestId('key').fill('sk-ant-e2e-test-key');
  await closeSettings(page);
  await ideaBox(page).fill('A button like this one');
  await page.getByTestId('attach-input').setInputFiles({ name: 'button.png', mimeType: 'image/png', buffer: await pngBytes(page) });
  await page.getByTestId('attached-image').waitFor({ timeout: 10000 });
  await page.getByTestId('start').click();
  await waitDone(page);
  const seen = await requests(env.llm, model);
  assert.equal(seen[0].api, 'anthropic');
  const blocks = seen.flatMap((e) => e.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])));
  const image = blocks.find((b) => b.type === 'image');
  assert.ok(image, `an image block reached the server: ${JSON.stringify(blocks.map((b) => b.type))}`);
  assert.equal(image.source.type, 'base64');
  assert.equal(image.source.media_type, 'image/png');
  assert.match(image.source.data, /^iVBORw0KGgo[A-Za-z0-9+/]+=*$/, 'the PNG itself, base64');
  assert.ok(!('url' in image.source));
  await page.getByTestId('conversation').getByTestId('request-image').waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a model not known to take images gets the message, in the first card and in the composer, and the server no request', async () => {
  const model = 'text-only-e2e-images';
  await script(env.llm, model, TURNS);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await configure(page, env.llm, model, { team: 'assistant' });
  await ideaBox(page).fill('A page with one button like this sketch');
  await pasteImage(ideaBox(page), 200, 120);
  await page.getByTestId('attached-image').waitFor({ timeout: 10000 });
  const refusal = `${model} does not take images: choose a model that does in Settings (for example gpt-4o or a Claude model), or remove the images.`;
  await page.getByTestId('problems').getByText(refusal).waitFor();
  assert.ok(await page.getByTestId('start').isDisabled(), 'Start waits');
  // Removing the image lets it go, as text.
  await page.getByTestId('remove-image').click();
  await page.getByTestId('problems').getByText(refusal).waitFor({ state: 'detached' });
  await page.getByTestId('start').click();
  await waitDone(page);
  const before = (await requests(env.llm, model)).length;

  // The composer: an image with a follow-up is refused in words, nothing sent.
  await page.getByTestId('follow-up').fill('Make the button look like this');
  await pasteImage(page.getByTestId('follow-up'), 200, 120);
  await page.getByTestId('composer').getByTestId('attached-image').waitFor({ timeout: 10000 });
  await page.getByTestId('composer').screenshot({ path: join(screenshotDir, 'images-3-composer.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('composer').screenshot({ path: join(screenshotDir, 'images-3-composer-phone.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('send').click();
  assert.equal(await page.getByTestId('send-error').textContent(), refusal);
  assert.equal((await requests(env.llm, model)).length, before, 'no request reached the server');
  assert.equal(await page.getByTestId('follow-up').inputValue(), 'Make the button look like this', 'the request is kept to change');
  assert.equal(await page.getByTestId('composer').getByTestId('attached-image').count(), 1);
  await screenshot(page, 'images-4-refused');
  assert.deepEqual(problems, []);
  await context.close();
});
