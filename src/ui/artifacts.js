// Draws what the wasm app marks in rendered model output: mermaid diagrams
// (`<pre><code class="language-mermaid">`) as SVG pictures, and code
// (`<code class="language-NAME">`) with syntax highlighting. Imported by
// src/ui/artifacts.rs through wasm-bindgen. Nothing is loaded at page load.
//
// Model output is untrusted. Diagrams are parsed and laid out by mermaid in
// the diagram frame (a document built here, shown by the host frame
// www/sandbox/host.html in `sandbox="allow-scripts" srcdoc`: an opaque
// origin with its own no-network policy, created off screen when the first
// diagram needs drawing), with `securityLevel: 'strict'` and no HTML
// labels. The frame hands back SVG text; it is parsed here into an
// inert document (DOMParser: nothing in it runs or loads), cut down to an
// allowlist of SVG elements with nothing that could run, load or navigate,
// and only then imported into the page. No element made from model text
// enters the page before it is clean; the page's Content-Security-Policy is
// a further wall, not the only one.
// highlight.js is loaded from the site's own `lazy/` folder
// (scripts/site-post-build.mjs) the first time code needs it; highlighted
// code is accepted only if it is spans with classes around escaped text,
// otherwise the plain text stays.

const lazy = (path) => new URL(`lazy/${path}`, document.baseURI).href;

let diagramCount = 0;

function darkTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'dark' || chosen === 'light') return chosen === 'dark';
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

// How long the frame may take to load mermaid (~1 MB gzip), and to draw
// one diagram, before the diagram is given up with a note.
const FRAME_LOAD_MS = 60_000;
const DRAW_MS = 30_000;
// An answer longer than this is not a diagram anyone can read.
const MAX_SVG_CHARS = 5_000_000;

/** The diagram frame, made on first use: {iframe, ready, started, pending (id → settle), listener, P}. */
let frame = null;

/** Remove the frame; what it still owed gets `reason`. The next diagram makes a new one. */
function dropFrame(reason) {
  if (!frame) return;
  const { iframe, pending, listener } = frame;
  frame = null;
  if (listener) removeEventListener('message', listener);
  iframe?.remove();
  for (const settle of pending.values()) settle({ error: reason });
}

const sandboxFile = (path) => new URL(`sandbox/${path}`, document.baseURI).href;

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  // As the HTML parser will see it (the policy hashes what it parsed).
  return (await response.text()).replace(/\r\n?/g, '\n');
}

async function sha256(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

/**
 * The message names (www/sandbox/protocol.js, read as JSON: it runs only
 * in the frames) and the diagram frame's document: mermaid's classic
 * build and diagram.js inline, from this site (the service worker keeps
 * them, so diagrams draw offline), and a policy that runs exactly those two
 * scripts (by hash: no other inline script, no inline handler, no eval) and
 * reaches no network.
 */
async function frameParts() {
  const [protocol, drawer, mermaid] = await Promise.all([
    fetchText(sandboxFile('protocol.js')), fetchText(sandboxFile('diagram.js')), fetchText(lazy('mermaid/mermaid.min.js')),
  ]);
  const P = JSON.parse(protocol.slice(protocol.indexOf('Object.freeze({') + 'Object.freeze('.length, protocol.lastIndexOf('}') + 1));
  // `<\/script` means the same inside a string, a regular expression or a
  // comment, and cannot end the inline script early.
  const scripts = [mermaid, `${protocol}\n${drawer}`].map((code) => code.replace(/<\/(script)/gi, '<\\/$1'));
  const hashes = await Promise.all(scripts.map(async (code) => `'sha256-${await sha256(code)}'`));
  const policy = `default-src 'none'; script-src ${hashes.join(' ')}; style-src 'unsafe-inline'; connect-src 'none'; form-action 'none'; base-uri 'none'`;
  // The app's root font and line height (www/style.css): mermaid measures
  // its labels there, and they are shown here.
  const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<title>diagrams</title>
<style>:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }</style>
</head><body>
${scripts.map((code) => `<script>${code}</script>`).join('\n')}
</body></html>`;
  return { P, doc };
}

function diagramFrame() {
  if (frame) return frame;
  let start;
  const made = { iframe: null, ready: new Promise((resolve) => { start = resolve; }), started: false, pending: new Map(), listener: null, P: null };
  frame = made;
  setTimeout(() => {
    if (frame === made && !made.started) dropFrame('the diagram drawer did not start; reload the page to try again');
  }, FRAME_LOAD_MS);
  frameParts().then(({ P, doc }) => {
    if (frame !== made) return;
    made.P = P;
    // The host frame (our page, this origin) shows the document in its
    // sandboxed child and passes messages both ways.
    const iframe = document.createElement('iframe');
    iframe.setAttribute('title', 'Diagram drawing (sandboxed)');
    iframe.setAttribute('aria-hidden', 'true');
    iframe.setAttribute('tabindex', '-1');
    iframe.dataset.testid = 'diagram-frame';
    // Laid out (mermaid measures its text) but off screen: never display:none.
    iframe.style.cssText = 'position:fixed;left:-10000px;top:0;width:1200px;height:900px;border:0;visibility:hidden;pointer-events:none';
    made.iframe = iframe;
    // Only the host's own window in this origin is heard, and only typed fields are read.
    made.listener = (ev) => {
      const m = ev.data;
      if (frame !== made || ev.source !== iframe.contentWindow || ev.origin !== location.origin || !m || typeof m !== 'object') return;
      const kind = m[P.event];
      if (kind === P.hostReady) {
        iframe.contentWindow.postMessage({ [P.command]: P.open, doc, title: 'Diagram drawing (sandboxed)' }, location.origin);
      } else if (kind === P.ready) {
        made.started = true;
        start();
      } else if (kind === P.failed) {
        dropFrame('the diagram library did not load; reload the page to try again');
      } else if (kind === P.drawn && typeof m.id === 'string' && made.pending.has(m.id)) {
        const settle = made.pending.get(m.id);
        made.pending.delete(m.id);
        settle(typeof m.svg === 'string' ? { svg: m.svg } : { error: String(m.error ?? 'no picture came back').slice(0, 160) });
      }
    };
    addEventListener('message', made.listener);
    iframe.src = sandboxFile('host.html');
    document.body.append(iframe);
  }, () => dropFrame('the diagram library could not be loaded; reload the page to try again'));
  return made;
}

/** Ask the frame to draw `source`; resolves to {svg} or {error}, never rejects. */
function drawInFrame(id, source, theme) {
  const f = diagramFrame();
  return new Promise((resolve) => {
    f.pending.set(id, resolve);
    f.ready.then(() => {
      if (!f.pending.has(id)) return;
      f.iframe.contentWindow?.postMessage({ [f.P.command]: f.P.diagram, id, source, theme }, location.origin);
      // The frame draws one diagram at a time: a diagram's time grows with
      // the diagrams still waiting before it.
      setTimeout(() => {
        if (f.pending.delete(id)) resolve({ error: 'drawing it took too long' });
      }, DRAW_MS * f.pending.size);
    });
  });
}

// The SVG elements a diagram may keep (mermaid's output for every diagram
// kind, lower-cased); anything else goes, with all it holds. No script,
// no foreign documents, no images (a diagram has no business loading
// anything), no animation (animate / set could rewrite an attribute into
// a link after this check).
const SVG_KEEP = new Set([
  'svg', 'g', 'defs', 'symbol', 'use', 'switch', 'a', 'title', 'desc', 'style', 'marker',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'textpath',
  'lineargradient', 'radialgradient', 'stop', 'clippath', 'mask', 'pattern',
  'filter', 'fedropshadow', 'fegaussianblur', 'feoffset', 'feflood', 'fecomposite', 'femerge', 'femergenode',
  'feblend', 'fecolormatrix', 'femorphology',
  'foreignobject',
]);
// The HTML a label inside foreignObject may keep: text and its formatting.
const HTML_KEEP = new Set(['div', 'span', 'p', 'br', 'b', 'strong', 'i', 'em', 'code', 'sub', 'sup']);
const SVG_NS = 'http://www.w3.org/2000/svg';
const HTML_NS = 'http://www.w3.org/1999/xhtml';

// Attributes that take a URL: only a link inside the diagram (#id) stays.
const LINK_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'srcset', 'data', 'background', 'poster']);
// A value that would fetch or run something: url() of anything but #id,
// imports, old IE expressions, javascript: URLs.
const LOADS = /url\((?!['"]?#)|@import|expression\(|javascript:/;

/** True if `el` (in an inert document) may stay, attributes aside. */
function keepElement(el) {
  const name = el.localName.toLowerCase();
  if (el.namespaceURI === SVG_NS) return SVG_KEEP.has(name);
  return el.namespaceURI === HTML_NS && HTML_KEEP.has(name) && el.closest('foreignObject') !== null;
}

/**
 * Clean a parsed SVG in place, in its inert document: elements outside the
 * allowlist removed, and every attribute that could run, load or navigate.
 */
function cleanSvg(svg) {
  for (const el of [...svg.querySelectorAll('*')]) {
    // Inside an element already removed: gone with it.
    if (!svg.contains(el)) continue;
    if (!keepElement(el)) {
      el.remove();
      continue;
    }
    if (el.localName === 'style' && LOADS.test(el.textContent.replace(/\s/g, '').toLowerCase())) {
      el.remove();
      continue;
    }
    cleanAttributes(el);
  }
  cleanAttributes(svg);
  return svg;
}

function cleanAttributes(el) {
  for (const attr of [...el.attributes]) {
    const name = attr.name.toLowerCase();
    const value = attr.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
    const drop = !/^[a-z][a-z0-9:._-]*$/.test(name) || name.startsWith('on')
      || ((LINK_ATTRIBUTES.has(name) || name.endsWith(':href')) && !value.startsWith('#'))
      || LOADS.test(value);
    if (drop) el.removeAttribute(attr.name);
  }
}

/**
 * The SVG text from the frame as a clean <svg> element of an inert
 * document, or null when it is not one SVG picture. Parsed as HTML, as the
 * SVG was serialized (mermaid's innerHTML; `&nbsp;` is not XML).
 */
function cleanSvgFrom(text) {
  const doc = new DOMParser().parseFromString(text, 'text/html');
  const body = doc.body;
  const svg = body.firstElementChild;
  if (!svg || svg.localName !== 'svg' || svg.namespaceURI !== SVG_NS || body.childElementCount !== 1 || doc.head.childElementCount !== 0) return null;
  return cleanSvg(svg);
}

function diagramNote(pre, reason) {
  const note = document.createElement('p');
  note.className = 'note diagram-error';
  note.dataset.testid = 'diagram-error';
  note.textContent = reason
    ? `This diagram could not be drawn (${reason}); its source is below.`
    : 'This diagram could not be drawn; its source is below.';
  pre.before(note);
}

async function drawDiagram(pre, code) {
  const source = code.textContent;
  const id = `tabteam-diagram-${++diagramCount}`;
  const answer = await drawInFrame(id, source, darkTheme() ? 'dark' : 'default');
  if (answer.error !== undefined) {
    diagramNote(pre, answer.error);
    return;
  }
  const svg = answer.svg.length <= MAX_SVG_CHARS ? cleanSvgFrom(answer.svg) : null;
  if (!svg) {
    diagramNote(pre, null);
    return;
  }
  if (!pre.isConnected) return;
  const figure = document.createElement('figure');
  figure.className = 'diagram';
  figure.dataset.testid = 'diagram';
  // Imported only now, clean: the page never held it before.
  figure.append(document.importNode(svg, true));
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Diagram source';
  details.append(summary);
  pre.replaceWith(figure);
  details.append(pre);
  figure.append(details);
}

// Language names and file extensions → highlight.js language files shipped.
const LANGUAGES = {
  bash: 'bash', sh: 'bash', shell: 'bash', zsh: 'bash',
  c: 'cpp', h: 'cpp', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cxx: 'cpp', 'c++': 'cpp',
  css: 'css', go: 'go', java: 'java',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', javascript: 'javascript',
  json: 'json', md: 'markdown', markdown: 'markdown',
  py: 'python', python: 'python', rs: 'rust', rust: 'rust', sql: 'sql',
  ts: 'typescript', tsx: 'typescript', typescript: 'typescript',
  html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml',
  yaml: 'yaml', yml: 'yaml', toml: 'yaml',
};

let hljsModule = null;
const languageLoads = new Map();

async function highlighter(language) {
  if (!hljsModule) hljsModule = import(lazy('hljs/core.mjs')).then((m) => m.default);
  const hljs = await hljsModule;
  if (!languageLoads.has(language)) {
    languageLoads.set(language, import(lazy(`hljs/languages/${language}.mjs`)).then((m) => hljs.registerLanguage(language, m.default)));
  }
  await languageLoads.get(language);
  return hljs;
}

/** True when `html` is only escaped text inside `<span class>` elements. */
function onlySpans(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const el of template.content.querySelectorAll('*')) {
    if (el.localName !== 'span') return false;
    for (const attr of el.attributes) if (attr.name !== 'class') return false;
  }
  return true;
}

// Past this size a file stays plain text: highlighting it would hold the
// page for too long.
const MAX_HIGHLIGHT_CHARS = 100_000;

async function highlight(code, language) {
  const text = code.textContent;
  if (text.length > MAX_HIGHLIGHT_CHARS) return;
  const hljs = await highlighter(language);
  const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
  if (!code.isConnected || code.textContent !== text || !onlySpans(html)) return;
  code.innerHTML = html;
  code.classList.add('hljs');
}

/** Draw the diagrams and highlight the code inside `root` (once each). */
export function enhance(root) {
  for (const code of root.querySelectorAll('pre > code[class*="language-"]:not([data-enhanced])')) {
    code.dataset.enhanced = '1';
    const name = [...code.classList].find((c) => c.startsWith('language-'))?.slice('language-'.length).toLowerCase();
    if (name === 'mermaid') {
      drawDiagram(code.parentElement, code).catch(() => {});
    } else if (LANGUAGES[name]) {
      highlight(code, LANGUAGES[name]).catch(() => {});
    }
  }
}
