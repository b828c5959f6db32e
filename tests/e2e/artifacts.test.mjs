// Diagrams, highlighting, the theme and the Content-Security-Policy, as a
// person meets them: hostile mermaid diagrams stay inert, a broken diagram
// shows its source with a note, the theme choice sticks and is keyboard
// usable, and the page loads with no policy violation. Diagrams are laid
// out in the sandboxed diagram frame: no element made from model text, and
// no inline handler, ever reaches the app's own document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { useSiteAndLlm, openPage, screenshot, screenshotDir, script, configure, cspViolations, openSettings, newSession } from './harness.mjs';

const env = useSiteAndLlm();

/**
 * A page like openPage's, watched from its start: in the app's own
 * document (not in frames), every element added and every attribute set
 * is checked for an `on*` attribute (window.__onAttributes), and the
 * console's policy messages are kept apart (`policy`).
 */
async function openWatchedPage(theme, { serviceWorkers = 'allow' } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers });
  if (theme) await context.addInitScript((t) => { if (window === window.top) localStorage.setItem('tabteam.theme.v1', t); }, theme);
  await context.addInitScript(() => {
    if (window !== window.top) return;
    window.__onAttributes = [];
    const check = (el) => {
      for (const attr of el.attributes) if (/^on/i.test(attr.name)) window.__onAttributes.push(`<${el.localName} ${attr.name}>`);
    };
    const visit = (node) => {
      if (node.nodeType !== Node.ELEMENT_NODE) return;
      check(node);
      for (const el of node.querySelectorAll('*')) check(el);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') {
          if (/^on/i.test(r.attributeName)) window.__onAttributes.push(`<${r.target.localName} ${r.attributeName}> (set)`);
        } else {
          r.addedNodes.forEach(visit);
        }
      }
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
  const page = await context.newPage();
  const problems = [];
  const policy = [];
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) policy.push(`${msg.text().slice(0, 90)} at ${msg.location().url}`);
    else if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  await page.goto(env.site.url);
  return { page, context, problems, policy };
}

/** A screenshot of each drawn diagram (the conversation scrolls: a page shot cuts them). */
async function diagramShots(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  const figures = await page.getByTestId('conversation').locator('figure.diagram').all();
  for (const [i, figure] of figures.entries()) await figure.screenshot({ path: join(screenshotDir, `${name}-${i + 1}.png`) });
}

/**
 * The policy reports of the diagram frame's own document (its CSP doing
 * its job inside the opaque origin: mermaid's label sanitizer parses the
 * hostile label there), read through the same listener the harness puts in
 * every frame.
 */
async function diagramFrameViolations(page) {
  return (await diagramFrame(page)).evaluate(() => window.__cspViolations ?? null);
}

/** The diagram frame: the sandboxed child of the host frame (sandbox/host.html) the app made for diagrams. */
async function diagramFrame(page) {
  const host = await (await page.getByTestId('diagram-frame').elementHandle()).contentFrame();
  assert.ok(host.url().endsWith('/sandbox/host.html'), host.url());
  const children = host.childFrames();
  assert.equal(children.length, 1, `one diagram frame: ${children.map((f) => f.url())}`);
  return children[0];
}

/** Contrast ratios of the page's text colours against their backgrounds. */
function contrasts(page) {
  return page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const [r, g, b] = rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
    const style = (sel) => getComputedStyle(document.querySelector(sel));
    const v = (name) => {
      const probe = document.createElement('span');
      probe.style.color = `var(${name})`;
      document.body.append(probe);
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    };
    return {
      'text on page': ratio(style('body').color, style('body').backgroundColor),
      'muted text on card': ratio(v('--muted'), style('.card').backgroundColor),
      'muted text on page': ratio(v('--muted'), style('body').backgroundColor),
      'link on card': ratio(v('--accent'), style('.card').backgroundColor),
      'button text': ratio(v('--accent-fg'), v('--accent')),
      'error text on card': ratio(v('--error'), style('.card').backgroundColor),
    };
  });
}

async function ask(page, model) {
  await newSession(page);
  await configure(page, env.llm, model, { team: 'assistant' });
  await page.getByLabel('Your idea').fill('draw me something');
  await page.getByTestId('start').click();
  await page.getByTestId('status').filter({ hasText: 'Done' }).waitFor({ timeout: 15000 });
}

test('the page carries a Content-Security-Policy and loads without violating it', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "'wasm-unsafe-eval'"]) {
    assert.ok(policy.includes(directive), `policy has ${directive}: ${policy}`);
  }
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.ok(!/unsafe-inline'[^;]*;/.test(policy.split('script-src')[1].split(';')[0]), 'no unsafe-inline script');
  // The policy is live: an inline script added now does not run.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
  });
  await page.waitForTimeout(100);
  assert.equal(await page.evaluate(() => window.__inlineRan), undefined);
  const violations = await cspViolations(page);
  assert.equal(violations.length, 1, `only the probe was blocked: ${violations}`);
  assert.match(violations[0], /script-src/);
  assert.deepEqual(problems.filter((p) => !p.includes('Content Security Policy')), []);
  await context.close();
});

test('hostile mermaid diagrams are drawn inert; a broken one shows its source', async () => {
  const model = 'e2e-mermaid-hostile';
  const answer = [
    'Diagrams:',
    '```mermaid',
    '%%{init: {"securityLevel": "loose", "startOnLoad": true}}%%',
    'flowchart TD',
    '    A["<img src=x onerror=window.__pwned=\'img\'>"] --> B["<script>window.__pwned=\'script\'</script>"]',
    '    B --> C["<a href=\'javascript:window.__pwned=1\'>link</a>"]',
    '    C --> D[plain]',
    '    click A callback "window.__pwned=\'callback\'"',
    '    click B href "javascript:window.__pwned=\'click\'"',
    '    click D call alert(1)',
    '```',
    '',
    '```mermaid',
    'flowchart TD',
    '    A -->',
    '    this is not mermaid ][',
    '```',
  ].join('\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: answer }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await ask(page, model);
  const conversation = page.getByTestId('conversation');
  const figure = conversation.locator('figure.diagram');
  await figure.locator('svg').waitFor({ timeout: 15000 });
  // The broken diagram: a note and its source, no crash.
  const note = conversation.getByTestId('diagram-error');
  await note.waitFor({ timeout: 15000 });
  assert.match(await note.textContent(), /could not be drawn/);
  assert.match(await note.locator('xpath=following-sibling::pre[1]').textContent(), /this is not mermaid/);
  // Nothing runnable made it into the page.
  for (const selector of ['script', 'img', 'iframe', '[onerror]', '[onclick]', 'a[href^="javascript"]', '[*|href^="javascript"]']) {
    assert.equal(await conversation.locator(selector).count(), 0, `no ${selector}`);
  }
  // Clicking every node does nothing.
  for (const node of await figure.locator('svg g.node').all()) await node.click({ force: true });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await screenshot(page, 'artifacts-hostile-diagram');
  // mermaid runs in the diagram frame: the app's document reports nothing.
  assert.deepEqual(await cspViolations(page), []);
  // Chromium reports an inline handler when any document with a policy
  // parses one, even mermaid's sanitizer (DOMPurify) parsing the label into
  // an inert document to remove it: that now happens in the frame only.
  for (const v of await diagramFrameViolations(page)) assert.match(v, /^script-src-attr blocked inline at about(:srcdoc)?:\d+$/, v);
  assert.deepEqual(problems.filter((p) => !p.includes('Content Security Policy directive')), []);
  await context.close();
});

// Every diagram kind the team writes (the PRD's quadrantChart, the
// design's classDiagram and sequenceDiagram, flowcharts), each with hostile
// labels: HTML with handlers, script, javascript: links, foreignObject, and
// directives that try to loosen mermaid's settings.
const HOSTILE_KINDS = [
  {
    kind: 'flowchart',
    labels: ['Start here', 'Finish line'],
    source: [
      '%%{init: {"securityLevel": "loose", "htmlLabels": true, "flowchart": {"htmlLabels": true}, "dompurifyConfig": {"ADD_ATTR": ["onerror", "onload"], "ADD_TAGS": ["script", "foreignObject"]}}}%%',
      'flowchart TD',
      '    S[Start here] --> A["<img src=x onerror=window.__pwned=\'flow-img\'>"]',
      '    A --> B["<svg onload=window.__pwned=\'flow-svg\'></svg>"]',
      '    B --> C["<script>window.__pwned=\'flow-script\'</script>"]',
      '    C --> D["<a href=\'javascript:window.__pwned=1\'>link</a>"]',
      '    D --> E["<foreignObject><body onload=window.__pwned=\'flow-fo\'>x</body></foreignObject>"]',
      '    E --> F[Finish line]',
      '    click F href "javascript:window.__pwned=\'flow-click\'"',
    ],
  },
  {
    kind: 'sequenceDiagram',
    labels: ['Game', 'move(dir)', 'board'],
    source: [
      'sequenceDiagram',
      '    participant P as Player <img src=x onerror=window.__pwned=\'seq-img\'>',
      '    participant G as Game',
      '    P->>G: move(dir) <svg onload=window.__pwned=\'seq-svg\'>',
      '    G-->>P: <script>window.__pwned=\'seq-script\'</script>board',
      '    Note over P,G: <a href="javascript:window.__pwned=1">note link</a>',
      '    G->>P: <foreignObject><img src=x onerror=window.__pwned=\'seq-fo\'></foreignObject>',
      '    link G: Home @ javascript:window.__pwned=\'seq-link\'',
    ],
  },
  {
    kind: 'classDiagram',
    labels: ['Game', '+int score', 'Tile'],
    source: [
      'classDiagram',
      '    class Game {',
      '        +int score',
      '        +move(dir) bool',
      '        +<img src=x onerror=window.__pwned=\'class-img\'> field',
      '    }',
      '    class Tile',
      '    Game "1" *-- "many" Tile : has <script>window.__pwned=\'class-script\'</script>',
      '    note for Game "<a href=\'javascript:window.__pwned=1\'>note</a> <svg onload=window.__pwned=\'class-svg\'>"',
      '    click Game href "javascript:window.__pwned=\'class-click\'"',
    ],
  },
  {
    kind: 'quadrantChart',
    labels: ['Expand', 'Promote', 'Our product'],
    source: [
      'quadrantChart',
      '    title "Reach <img src=x onerror=window.__pwned=\'quad-img\'>"',
      '    x-axis "Low <svg onload=window.__pwned=\'quad-svg\'>" --> High Reach',
      '    y-axis Low Engagement --> High Engagement',
      '    quadrant-1 "Expand <script>window.__pwned=\'quad-script\'</script>"',
      '    quadrant-2 Promote',
      '    quadrant-3 Re-evaluate',
      '    quadrant-4 Improve',
      '    "<foreignObject>fo</foreignObject> <a href=\'javascript:window.__pwned=1\'>l</a>": [0.3, 0.6]',
      '    Our product: [0.5, 0.7]',
    ],
  },
];

test('every diagram kind is laid out in the sandboxed frame; hostile labels never reach the page as elements', async () => {
  const model = 'e2e-mermaid-kinds';
  const answer = ['Four diagrams:', ...HOSTILE_KINDS.flatMap(({ source }) => ['', '```mermaid', ...source, '```'])].join('\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: answer }]);
  const { page, context, problems, policy } = await openWatchedPage();
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 15000 });
  // Lazy: no frame until a diagram needs one.
  assert.equal(await page.getByTestId('diagram-frame').count(), 0);
  await ask(page, model);
  const figures = page.getByTestId('conversation').locator('figure.diagram');
  await page.waitForFunction((n) => document.querySelectorAll('figure.diagram svg').length === n, HOSTILE_KINDS.length, { timeout: 30000 });
  assert.equal(await page.getByTestId('diagram-error').count(), 0, 'every diagram was drawn');

  // (c) Drawn: each kind's SVG, in order, with its plain labels as text.
  for (const [i, { kind, labels }] of HOSTILE_KINDS.entries()) {
    const svg = figures.nth(i).locator('svg').first();
    const text = await svg.evaluate((el) => [...el.querySelectorAll('text, tspan, foreignObject')].map((t) => t.textContent).join(' '));
    for (const label of labels) assert.ok(text.includes(label), `${kind} shows "${label}": ${text.slice(0, 300)}`);
    const box = await svg.boundingBox();
    assert.ok(box.width > 100 && box.height > 50, `${kind} has a size: ${JSON.stringify(box)}`);
  }
  // The hostile labels are text in the picture, not elements.
  const shown = await figures.evaluateAll((els) => els.map((f) => f.querySelector('svg').textContent).join(' '));
  assert.match(shown, /<img src=/);

  // Nothing runnable in the page, and nothing ran: click every node.
  const conversation = page.getByTestId('conversation');
  for (const selector of ['script', 'img', 'image', 'iframe', 'foreignObject', '[onerror]', '[onload]', '[onclick]', 'a[href]', '[*|href]:not([*|href^="#"])']) {
    assert.equal(await conversation.locator(selector).count(), 0, `no ${selector} in the conversation`);
  }
  for (const node of await figures.locator('svg g.node, svg .actor, svg .quadrant-point').all()) await node.click({ force: true });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  // (b) No element with an on* attribute ever appeared in the app's document.
  assert.deepEqual(await page.evaluate(() => window.__onAttributes), []);
  // (a) No policy violation in the app's document; every policy message on
  // the console is one the diagram frame's own document reported.
  assert.deepEqual(await cspViolations(page), []);
  // The frame: an opaque-origin sandbox, off screen, made once.
  const frame = page.getByTestId('diagram-frame');
  assert.equal(await frame.count(), 1);
  assert.equal(await page.frameLocator('[data-testid=diagram-frame]').locator('iframe').getAttribute('sandbox'), 'allow-scripts');
  assert.equal(await (await diagramFrame(page)).evaluate(() => origin), 'null');
  // mermaid never ran in the app's own document: the app only read its
  // text (one fetch, to build the frame's document), and no script of the
  // page names it.
  assert.deepEqual(await page.evaluate(() => [typeof window.mermaid, document.querySelectorAll('script[src*=mermaid]').length,
    performance.getEntriesByType('resource').filter((e) => e.name.includes('mermaid')).map((e) => e.initiatorType)]), ['undefined', 0, ['fetch']]);

  const inFrame = await diagramFrameViolations(page);
  assert.ok(Array.isArray(inFrame), 'the frame is watched too');
  for (const v of inFrame) assert.match(v, /^script-src-attr blocked inline at about(:srcdoc)?:\d+$/, v);
  assert.equal(policy.length, inFrame.length, `console policy messages are the frame's: ${policy.join('\n')}`);
  for (const line of policy) assert.match(line, /inline event handler .* at about:srcdoc$/, line);
  assert.deepEqual(problems, []);
  await diagramShots(page, 'artifacts-diagram-kinds-hostile');

  // The watch is live: an on* attribute added now is seen.
  await page.evaluate(() => document.body.append(Object.assign(document.createElement('b'), { id: 'probe' })));
  await page.evaluate(() => document.getElementById('probe').setAttribute('onclick', 'void 0'));
  await page.waitForTimeout(50);
  assert.deepEqual(await page.evaluate(() => window.__onAttributes), ['<b onclick> (set)']);
  await context.close();
});

// What a subverted diagram frame could send: the app's allowlist is the
// wall that matters, not mermaid's sanitizer.
const SUBVERTED_SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 120" onload="window.__pwned=\'svg-onload\'">',
  '<script>window.__pwned=\'script\'</script>',
  '<style>@import url("http://127.0.0.1:9/x.css"); text { fill: red }</style>',
  '<g onclick="window.__pwned=\'click\'"><rect width="320" height="120" fill="url(http://127.0.0.1:9/p#x)" style="fill:#eee"></rect></g>',
  '<text x="10" y="40">label from a subverted frame</text>',
  '<image href="http://127.0.0.1:9/i.png" width="10" height="10"></image>',
  '<a href="javascript:window.__pwned=\'a\'"><text x="10" y="70">a link</text></a>',
  '<use href="http://127.0.0.1:9/s.svg#x"></use>',
  '<animate attributeName="href" to="javascript:window.__pwned=\'animate\'"></animate>',
  '<set attributeName="onclick" to="window.__pwned=\'set\'"></set>',
  '<foreignObject x="10" y="80" width="300" height="40"><iframe src="javascript:parent.__pwned=1"></iframe>',
  '<div>words in a label<img src="http://127.0.0.1:9/j.png" onerror="window.__pwned=\'fo\'"></div></foreignObject>',
  '</svg>',
].join('');

// (It runs where diagram.js would, after protocol.js: TABTEAM_SANDBOX names the messages.)
const SUBVERTED_FRAME = `
const P = TABTEAM_SANDBOX;
addEventListener('message', (ev) => {
  const m = ev.data;
  if (!m || m[P.command] !== P.diagram) return;
  const svg = m.source.includes('second') ? '<p>not a picture</p><svg></svg>' : ${JSON.stringify(SUBVERTED_SVG)};
  parent.postMessage({ [P.event]: P.drawn, id: m.id, svg }, '*');
});
parent.postMessage({ [P.event]: P.ready }, '*');
`;

test('a subverted diagram frame: its SVG is cut to the allowlist before it enters the page', async () => {
  const model = 'e2e-mermaid-subverted';
  const answer = ['Two:', '```mermaid', 'flowchart TD', '    A --> B', '```', '', '```mermaid', 'flowchart TD', '    second --> C', '```'].join('\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: answer }]);
  // No service worker: it would fetch diagram.js past the route below.
  const { page, context, problems, policy } = await openWatchedPage(undefined, { serviceWorkers: 'block' });
  await page.route('**/sandbox/diagram.js', (route) => route.fulfill({ contentType: 'text/javascript', body: SUBVERTED_FRAME }));
  const outside = [];
  page.on('request', (r) => { if (r.url().includes('127.0.0.1:9/')) outside.push(r.url()); });
  await ask(page, model);
  const figure = page.getByTestId('conversation').locator('figure.diagram');
  await figure.locator('svg').waitFor({ timeout: 30000 });
  // The second answer is not one picture: a note and the source.
  const note = page.getByTestId('diagram-error');
  await note.waitFor({ timeout: 15000 });
  assert.equal(await note.textContent(), 'This diagram could not be drawn; its source is below.');

  const svg = figure.locator('svg').first();
  assert.match(await svg.textContent(), /label from a subverted frame/);
  assert.match(await svg.textContent(), /words in a label/);
  const kept = await svg.evaluate((el) => [el, ...el.querySelectorAll('*')].map((e) => `${e.localName}[${[...e.attributes].map((a) => a.name).join(',')}]`));
  assert.deepEqual(kept, [
    'svg[xmlns,viewBox]', 'g[]', 'rect[width,height,style]', 'text[x,y]', 'a[]', 'text[x,y]',
    'use[]', 'foreignObject[x,y,width,height]', 'div[]',
  ]);
  await svg.locator('g').first().click({ force: true });
  await svg.locator('a').click({ force: true });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(outside, [], 'nothing was fetched from the SVG');
  // No element with an on* attribute ever entered the app's document.
  assert.deepEqual(await page.evaluate(() => window.__onAttributes), []);
  // Chromium reports each inline handler the inert parse meets (nothing
  // runs there): these reports, from artifacts.js's DOMParser, are the
  // only ones; a frame that follows mermaid never sends a handler.
  const violations = await cspViolations(page);
  assert.ok(violations.length > 0 && violations.every((v) => /^script-src-attr blocked inline at .*\/snippets\/.*\.js/.test(v)), violations.join('\n'));
  assert.equal(policy.length, violations.length, policy.join('\n'));
  assert.deepEqual(problems, []);
  await diagramShots(page, 'artifacts-diagram-subverted');
  await context.close();
});

test('diagrams follow the dark theme and look as they did in the page', async () => {
  const model = 'e2e-mermaid-dark';
  const answer = [
    'Design:',
    '```mermaid',
    'classDiagram',
    '    class Game {',
    '        +int score',
    '        +List~Tile~ tiles',
    '        +move(dir) bool',
    '    }',
    '    class Tile {',
    '        +int value',
    '    }',
    '    Game "1" *-- "many" Tile : has',
    '```',
    '',
    '```mermaid',
    'sequenceDiagram',
    '    participant P as Player',
    '    participant G as Game',
    '    P->>G: move(dir)',
    '    G-->>P: board',
    '```',
    '',
    '```mermaid',
    'quadrantChart',
    '    title Reach and engagement',
    '    x-axis Low Reach --> High Reach',
    '    y-axis Low Engagement --> High Engagement',
    '    quadrant-1 Expand',
    '    quadrant-2 Promote',
    '    quadrant-3 Re-evaluate',
    '    quadrant-4 Improve',
    '    Campaign A: [0.3, 0.6]',
    '    Our product: [0.5, 0.7]',
    '```',
    '',
    '```mermaid',
    'flowchart LR',
    '    A[Idea] --> B{Good?}',
    '    B -->|yes| C[Build it]',
    '    B -->|no| D[Think again]',
    '```',
  ].join('\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: answer }]);
  const { page, context, problems, policy } = await openWatchedPage('dark');
  await ask(page, model);
  await page.waitForFunction(() => document.querySelectorAll('figure.diagram svg').length === 4, null, { timeout: 30000 });
  // mermaid's dark theme: light text on dark shapes.
  const fill = await page.locator('figure.diagram svg').first().evaluate((svg) => getComputedStyle(svg.querySelector('g.node rect, g.node path')).fill);
  const [r, g, b] = fill.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 3 * 128, `a dark node fill: ${fill}`);
  await diagramShots(page, 'artifacts-diagram-kinds-dark');
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(policy, []);
  assert.deepEqual(problems, []);
  assert.deepEqual(await page.evaluate(() => window.__onAttributes), []);
  await context.close();
});

test('fenced code in an answer is highlighted as spans of escaped text', async () => {
  const model = 'e2e-highlight';
  const answer = ['Here:', '```python', 'def f(x):', '    return "<b>" + x  # </code><script>window.__pwned=1</script>', '```'].join('\n');
  await script(env.llm, model, [{ text: 'QUICK' }, { text: answer }]);
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await ask(page, model);
  const code = page.getByTestId('conversation').locator('code.hljs');
  await code.waitFor({ timeout: 15000 });
  assert.ok(await code.locator('span.hljs-keyword').count() >= 2);
  assert.equal(await code.locator(':not(span)').count(), 0);
  assert.match(await code.textContent(), /<\/code><script>window.__pwned=1<\/script>/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the theme toggle: system, light, dark; remembered; keyboard usable', async () => {
  const { page, context, problems } = await openPage(env.browser, env.site.url);
  await openSettings(page);
  await page.getByTestId('theme').waitFor({ timeout: 15000 });
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? 'system');
  assert.equal(await theme(), 'system');
  assert.equal(await page.getByTestId('theme-system').isChecked(), true);

  await page.getByLabel('Dark').check();
  assert.equal(await theme(), 'dark');
  assert.equal(await background(), 'rgb(20, 20, 24)');
  await screenshot(page, 'theme-dark');

  // Remembered across visits.
  await page.reload();
  await openSettings(page);
  await page.getByTestId('theme').waitFor({ timeout: 15000 });
  assert.equal(await theme(), 'dark');
  assert.equal(await page.getByTestId('theme-dark').isChecked(), true);

  // Keyboard: arrow keys move the choice; the focus is visible.
  await page.getByTestId('theme-dark').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await theme(), 'light');
  assert.equal(await background(), 'rgb(247, 247, 245)');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement.nextElementSibling).outlineStyle);
  assert.equal(outline, 'solid', 'the focused choice shows an outline');
  await screenshot(page, 'theme-light');

  // Readable contrast in both themes (WCAG AA: 4.5:1 for text).
  for (const choice of ['light', 'dark']) {
    await page.getByTestId(`theme-${choice}`).check();
    for (const [what, pair] of Object.entries(await contrasts(page))) {
      assert.ok(pair >= 4.5, `${choice}: ${what} has contrast ${pair.toFixed(2)}`);
    }
  }
  await page.getByTestId('theme-light').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await theme(), 'system');
  assert.equal(await page.evaluate(() => localStorage.getItem('tabteam.theme.v1')), null);
  assert.deepEqual(problems, []);
  await context.close();
});
