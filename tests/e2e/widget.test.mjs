// The embeddable widget on the demo page (dist/widget/, built by
// scripts/build-widget.sh): hostile host CSS and a strict CSP, a scripted
// conversation against the local LLM server with the host events and their
// payloads, a host callback supplying the key, two widgets that stay
// independent (and keep their own saved conversations), send() right after
// mount() with storageKey, and unmount() leaving nothing behind. Prints the
// mount-to-render times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useWidgetSite, screenshot, script, requests, roleZeroAnswer, openWidgetPage } from './harness.mjs';

const answer = (thought, commands) => roleZeroAnswer(thought, commands, 0);
const cmd = (name, args = {}) => ({ command_name: name, args });

const env = useWidgetSite('tabteam_bg.wasm');

/** The demo page, recording CSP violations and console errors from the start. */
async function openDemo(model, context) {
  const query = model ? `?base=${encodeURIComponent(`${env.llm.url}/v1`)}&model=${model}` : '';
  const opened = await openWidgetPage(env.browser, `${env.site.url}/widget/hostile.html${query}`, { context, viewport: { width: 1400, height: 1000 } });
  await opened.page.locator('#support [data-testid=input]').waitFor({ timeout: 20000 });
  return opened;
}

const events = (page, widget, name) => page.evaluate(([w, n]) => window.tabteamDemo.events.filter((e) => e.widget === w && (!n || e.name === n)), [widget, name]);
const finished = (page, widget, count = 1) =>
  page.waitForFunction(([w, c]) => window.tabteamDemo.events.filter((e) => e.widget === w && e.name === 'finished').length >= c, [widget, count], { timeout: 20000 });

test('renders inside hostile CSS under a strict CSP, isolated both ways', async () => {
  const { page, context, problems } = await openDemo();
  await page.locator('#docs-host [data-testid=input]').waitFor();
  await screenshot(page, 'widget-1-hostile-page');
  const inside = await page.evaluate(() => {
    const view = document.querySelector('#support tabteam-view');
    const root = view.shadowRoot.querySelector('.tt');
    const s = getComputedStyle(root);
    const title = getComputedStyle(view.shadowRoot.querySelector('h2'));
    const textarea = getComputedStyle(view.shadowRoot.querySelector('textarea'));
    return {
      font: s.fontFamily, transform: s.textTransform, display: s.display, color: title.color,
      opacity: getComputedStyle(view).opacity, textareaDisplay: textarea.display, textareaWidth: parseFloat(textarea.width),
      heading: view.shadowRoot.querySelector('h2').textContent,
    };
  });
  assert.ok(!/comic/i.test(inside.font), `the page's font stays out: ${inside.font}`);
  assert.equal(inside.transform, 'none');
  assert.equal(inside.display, 'flex');
  assert.equal(inside.color, 'rgb(29, 29, 31)', 'the page\'s !important colour stays out');
  assert.equal(inside.opacity, '1', 'a rule aimed at <tabteam-view> does not fade it');
  assert.equal(inside.textareaDisplay, 'block');
  assert.ok(inside.textareaWidth > 100, `the message box keeps its width: ${inside.textareaWidth}`);
  assert.equal(inside.heading, 'Support assistant');
  // The widget's CSS does not leak: the page's own header is not the widget's flex header.
  const outside = await page.evaluate(() => ({ header: getComputedStyle(document.querySelector('body > header')).display, font: getComputedStyle(document.querySelector('h1')).fontFamily }));
  assert.equal(outside.header, 'block');
  assert.match(outside.font, /comic/i);
  assert.equal((await page.locator('#support [data-testid=key]').isVisible()), true, 'user-typed key: the field is shown');
  assert.equal((await page.locator('#docs-host [data-testid=key]').isVisible()), false, 'host-supplied key: no field');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a scripted conversation: events with their documented payloads; the typed key goes only to the provider', async () => {
  const model = 'w-support';
  await script(env.llm, model, [
    { text: 'TASK' },
    {
      text: answer('I need the order number first.', [
        cmd('Plan.append_task', { task_id: '1', dependent_task_ids: [], instruction: 'Find the order', assignee: 'Tabby' }),
        cmd('RoleZero.ask_human', { question: 'What is your order number?' }),
      ]),
    },
    { text: answer('Found it.', [cmd('Plan.finish_current_task'), cmd('RoleZero.reply_to_human', { content: 'Order 42 ships tomorrow.' }), cmd('end')]) },
    { text: 'QUICK' },
    { text: 'You are welcome!' },
  ]);
  const { page, context, problems } = await openDemo(model);
  const support = page.locator('#support');
  await support.locator('[data-testid=key]').fill('sk-user-typed-key');
  await support.locator('[data-testid=input]').fill('Where is my order?');
  await support.locator('[data-testid=send]').click();

  await page.waitForFunction(() => window.tabteamDemo.events.some((e) => e.name === 'ask-human'), null, { timeout: 20000 });
  const [ask] = await events(page, 'support', 'ask-human');
  assert.deepEqual(Object.keys(ask.detail).sort(), ['question', 'questionId', 'role']);
  assert.equal(ask.detail.question, 'What is your order number?');
  assert.equal(ask.detail.role, 'Tabby');
  assert.equal(await support.locator('[data-testid=send]').textContent(), 'Answer');
  await screenshot(page, 'widget-2-question');
  // Answer in the widget, as a person would.
  await support.locator('[data-testid=input]').fill('42');
  await support.locator('[data-testid=input]').press('Enter');
  await finished(page, 'support');

  const [done] = await events(page, 'support', 'finished');
  assert.deepEqual(done.detail, { reason: 'idle', details: {}, text: 'Done: every role is idle.' });
  const replies = await events(page, 'support', 'reply-to-human');
  assert.deepEqual(replies.map((e) => e.detail), [{ role: 'Tabby', content: 'Order 42 ships tomorrow.' }]);
  const messages = await events(page, 'support', 'message');
  const first = messages[0].detail;
  assert.deepEqual(Object.keys(first).sort(), ['causeBy', 'content', 'from', 'id', 'to']);
  assert.equal(first.from, 'user');
  assert.equal(first.content, 'Where is my order?');
  const costs = await events(page, 'support', 'cost');
  assert.equal(costs.length, 3, 'one cost event per call');
  for (const c of costs) {
    assert.deepEqual(Object.keys(c.detail).sort(), ['budget', 'completionTokens', 'cost', 'estimated', 'model', 'promptTokens', 'role', 'total']);
    assert.equal(c.detail.model, model);
    assert.equal(c.detail.budget, 0.5, 'the budget="0.5" attribute');
  }
  assert.ok(costs[2].detail.total >= costs[1].detail.total && costs[2].detail.total > 0);
  const plans = await events(page, 'support', 'plan-updated');
  assert.deepEqual(plans[0].detail, { tasks: [{ id: '1', instruction: 'Find the order', assignee: 'Tabby', dependsOn: [], finished: false }], currentTaskId: '1' });
  assert.equal(plans.at(-1).detail.tasks[0].finished, true);
  assert.equal((await events(page, 'support', 'error')).length, 0);

  const conversation = await support.locator('[data-testid=conversation]').textContent();
  for (const seen of ['Where is my order?', 'What is your order number?', '42', 'Order 42 ships tomorrow.']) assert.ok(conversation.includes(seen), seen);
  assert.match(await support.locator('[data-testid=status]').textContent(), /Done/);

  // A follow-up through the element's API continues the same conversation.
  assert.equal(await page.evaluate(() => document.getElementById('support').send('Thanks!')), true);
  await finished(page, 'support', 2);
  assert.match(await support.locator('[data-testid=conversation]').textContent(), /You are welcome!/);
  await screenshot(page, 'widget-3-conversation');

  const log = await requests(env.llm, model);
  assert.equal(log.length, 5);
  assert.ok(log.every((e) => e.headers.authorization === `<redacted:${'Bearer sk-user-typed-key'.length} chars>`));
  const everything = JSON.stringify(await page.evaluate(() => window.tabteamDemo.events));
  assert.ok(!everything.includes('sk-user-typed-key'), 'the key is in no event');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a host callback supplies the key per call; two widgets stay independent and keep their own conversations', async () => {
  const model = 'w-docs';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'See the Install page.' }, { text: 'QUICK' }, { text: 'Support here: hello!' }]);
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, problems } = await openDemo(model, context);
  await page.fill('#proxy-token', 'host-token-123456789');
  // The page is `ready` once mount() resolved: the kept conversation is open.
  assert.equal(await page.evaluate(() => window.tabteamDemo.handles.docs.send('How do I install?')), true);
  await finished(page, 'docs');
  assert.equal(await page.evaluate(() => window.tabteamDemo.getKeyCalls), 2, 'asked once per call');
  let log = await requests(env.llm, model);
  assert.equal(log.length, 2);
  assert.ok(log.every((e) => e.headers.authorization === `<redacted:${'Bearer host-token-123456789'.length} chars>`), JSON.stringify(log.map((e) => e.headers.authorization)));
  const docs = page.locator('#docs-host');
  assert.match(await docs.locator('[data-testid=conversation]').textContent(), /See the Install page\./);

  // The other widget heard nothing and shows nothing of it.
  assert.equal((await events(page, 'support')).filter((e) => e.name !== 'ready').length, 0);
  assert.equal(await page.locator('#support [data-testid=conversation] li').count(), 0);
  // Its own run, with its own (typed) key, leaves the first one alone.
  await page.locator('#support [data-testid=key]').fill('sk-typed');
  await page.locator('#support [data-testid=input]').fill('Hi');
  await page.locator('#support [data-testid=send]').click();
  await finished(page, 'support');
  log = await requests(env.llm, model);
  assert.equal(log[2].headers.authorization, `<redacted:${'Bearer sk-typed'.length} chars>`);
  assert.equal(await page.evaluate(() => window.tabteamDemo.getKeyCalls), 2, 'the other widget never asks the host');
  assert.doesNotMatch(await docs.locator('[data-testid=conversation]').textContent(), /Support here/);
  assert.doesNotMatch(await page.locator('#support [data-testid=conversation]').textContent(), /Install page/);
  await screenshot(page, 'widget-4-two-widgets');

  // Each kept its team in its own database (the site's store), without any key.
  const saved = await page.evaluate(async () => {
    const dump = (name) => new Promise((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => {
        const db = open.result;
        const names = [...db.objectStoreNames];
        if (!names.length) { db.close(); return resolve(''); }
        const tx = db.transaction(names);
        const out = {};
        for (const n of names) tx.objectStore(n).getAll().onsuccess = (e) => { out[n] = e.target.result; };
        tx.oncomplete = () => { db.close(); resolve(JSON.stringify(out)); };
        tx.onerror = () => reject(tx.error);
      };
      open.onerror = () => reject(open.error);
    });
    // The save after `finished` is asynchronous: wait for it.
    for (let i = 0; i < 50; i += 1) {
      const both = { support: await dump('tabteam-widget.acme-support'), docs: await dump('tabteam-widget.acme-docs') };
      if (both.support.includes('Support here: hello!') && both.docs.includes('See the Install page.')) return both;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { support: await dump('tabteam-widget.acme-support'), docs: await dump('tabteam-widget.acme-docs') };
  });
  assert.match(saved.docs, /See the Install page\./);
  assert.doesNotMatch(saved.docs, /Support here/);
  assert.match(saved.support, /Support here: hello!/);
  assert.ok(!JSON.stringify(saved).includes('host-token') && !JSON.stringify(saved).includes('sk-typed'), 'no key is kept');

  // After a reload each shows its own conversation again, as it was.
  await page.close();
  const again = await openDemo(undefined, context);
  // The closed page's leases run out first (up to 20 s: the site's rule).
  await again.page.locator('#docs-host [data-testid=conversation] li').nth(1).waitFor({ timeout: 30000 });
  await again.page.locator('#support [data-testid=conversation] li').nth(1).waitFor({ timeout: 10000 });
  assert.match(await again.page.locator('#docs-host [data-testid=conversation]').textContent(), /How do I install\?[\s\S]*See the Install page\./);
  assert.doesNotMatch(await again.page.locator('#docs-host [data-testid=conversation]').textContent(), /Support here/);
  assert.match(await again.page.locator('#support [data-testid=conversation]').textContent(), /Hi[\s\S]*Support here: hello!/);
  assert.match(await again.page.locator('#support [data-testid=status]').textContent(), /Done/);
  assert.deepEqual(await again.page.evaluate(() => window.__violations), []);
  assert.deepEqual([...problems, ...again.problems], []);
  await context.close();
});

test('with storageKey, send() right after mount() goes out; the window listeners go with unmount()', async () => {
  const model = 'w-kept-send';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Sent at once.' }]);
  const { page, context, problems } = await openDemo(model);
  const cdp = await context.newCDPSession(page);
  const windowListeners = async () => {
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
    return (await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId })).listeners.map((l) => l.type).sort();
  };
  const before = await windowListeners();
  const sent = await page.evaluate(async (base) => {
    const probe = document.createElement('div');
    probe.id = 'kept-probe';
    document.body.append(probe);
    const handle = await window.tabteamDemo.mount(probe, { preset: 'custom', baseUrl: base, model: 'w-kept-send', priceIn: 1, priceOut: 2, keySource: 'none', storageKey: 'kept-probe' });
    window.__kept = handle;
    // No waiting: mount() resolved, so the kept conversation is open.
    return handle.send('Send this at once');
  }, `${env.llm.url}/v1`);
  assert.equal(sent, true, 'send() right after mount() is accepted');
  await page.locator('#kept-probe [data-testid=conversation]').filter({ hasText: 'Sent at once.' }).waitFor({ timeout: 20000 });
  const log = await requests(env.llm, model);
  assert.ok(log.length >= 1 && JSON.stringify(log[0].messages).includes('Send this at once'), 'the message reached the server');
  assert.deepEqual(await windowListeners(), [...before, 'pagehide', 'pageshow'].sort(), 'a kept widget listens for the page going away');
  await page.evaluate(() => window.__kept.unmount());
  assert.deepEqual(await windowListeners(), before, 'and stops with unmount()');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('unmount() leaves no DOM or listeners behind; mount-to-render times', async (t) => {
  const model = 'w-unmount';
  await script(env.llm, model, [{ text: 'QUICK' }, { text: 'Hello from a widget about to go.' }]);
  const { page, context, problems } = await openDemo(model);
  const cdp = await context.newCDPSession(page);
  await page.evaluate(() => {
    const probe = document.createElement('div');
    probe.id = 'probe';
    probe.textContent = 'host content';
    document.body.append(probe);
  });
  // depth -1 with pierce: the node and everything under it, shadow roots included.
  const listeners = async (expression, depth = -1) => {
    const { result } = await cdp.send('Runtime.evaluate', { expression });
    return (await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId, depth, pierce: true })).listeners.length;
  };
  const snapshot = async () => ({
    window: await listeners('window'),
    document: await listeners('document'),
    probe: await listeners('document.getElementById("probe")'),
    html: await page.evaluate(() => document.getElementById('probe').innerHTML),
    elements: await page.evaluate(() => document.querySelectorAll('*').length),
  });
  const before = await snapshot();

  const times = await page.evaluate(async (base) => {
    const t0 = performance.now();
    const handle = await window.tabteamDemo.mount(document.getElementById('probe'), { preset: 'custom', baseUrl: base, model: 'w-unmount', priceIn: 1, priceOut: 2, keySource: 'none', heading: 'Probe' });
    const mounted = performance.now() - t0;
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const firstFrame = performance.now() - t0;
    window.__probe = handle;
    const view = document.querySelector('#probe tabteam-view');
    window.__probeParts = [view.shadowRoot.querySelector('form'), view.shadowRoot.querySelector('textarea'), view.shadowRoot.querySelector('[data-testid=stop]')];
    return { mounted, firstFrame, first: window.tabteamDemo.handles.docs.mountMs };
  }, `${env.llm.url}/v1`);
  t.diagnostic(`mount → rendered: first widget on the page (includes fetching and compiling the wasm) ${times.first.toFixed(1)} ms; another widget ${times.mounted.toFixed(1)} ms, to its first frame ${times.firstFrame.toFixed(1)} ms`);
  console.log(`WIDGET_MOUNT_MS first=${times.first.toFixed(1)} next=${times.mounted.toFixed(1)} next_to_frame=${times.firstFrame.toFixed(1)}`);
  assert.equal(await page.locator('#probe h2').textContent(), 'Probe');
  for (const i of [0, 1, 2]) assert.equal(await listeners(`window.__probeParts[${i}]`, 0), 1, `part ${i} listens while mounted`);
  assert.ok((await listeners('document')) > before.document, 'and the document tree has them');
  // It works before it goes.
  await page.evaluate(() => window.__probe.send('hello'));
  await page.locator('#probe [data-testid=conversation]').filter({ hasText: 'Hello from a widget about to go.' }).waitFor({ timeout: 20000 });

  await page.evaluate(() => window.__probe.unmount());
  const after = await snapshot();
  assert.deepEqual(after, before);
  for (const i of [0, 1, 2]) assert.equal(await listeners(`window.__probeParts[${i}]`, 0), 0, `part ${i} has no listener left`);
  assert.equal(await page.evaluate(() => window.__probe.send('anyone?')), false, 'an unmounted handle does nothing');

  // The custom element unmounts itself when removed from the page.
  const leftInElement = await page.evaluate(() => {
    const element = document.getElementById('support');
    element.remove();
    return element.childElementCount;
  });
  assert.equal(leftInElement, 0);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(problems, []);
  await context.close();
});
