// Draws what the wasm app marks in rendered model output: mermaid diagrams
// (`<pre><code class="language-mermaid">`) as SVG pictures, and code
// (`<code class="language-NAME">`) with syntax highlighting. Imported by
// src/ui/artifacts.rs through wasm-bindgen. Mermaid and highlight.js are
// loaded from the site's own `lazy/` folder (scripts/site-post-build.mjs)
// the first time something needs them, never at page load.
//
// Model output is untrusted. Diagrams are drawn from the code's text only,
// with mermaid's `securityLevel: 'strict'` (no click callbacks, labels
// sanitized), and the SVG is parsed as XML and stripped of anything that
// could run (script, event handlers, non-fragment links) before it is
// inserted; the page's Content-Security-Policy is a further wall.
// Highlighted code is accepted only if it is spans with classes around
// escaped text; otherwise the plain text stays.

const lazy = (path) => new URL(`lazy/${path}`, document.baseURI).href;

let mermaidModule = null;
let mermaidTheme = null;
let diagramCount = 0;

function darkTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'dark' || chosen === 'light') return chosen === 'dark';
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

async function mermaid() {
  if (!mermaidModule) mermaidModule = import(lazy('mermaid/mermaid.esm.min.mjs')).then((m) => m.default);
  const m = await mermaidModule;
  const theme = darkTheme() ? 'dark' : 'default';
  if (theme !== mermaidTheme) {
    m.initialize({
      startOnLoad: false, securityLevel: 'strict', theme, logLevel: 'fatal', suppressErrorRendering: true,
      htmlLabels: false, flowchart: { htmlLabels: false }, class: { htmlLabels: false },
      // Keys a diagram's own %%{init}%% directive may not change: mermaid's
      // defaults, plus HTML labels and page CSS.
      secure: ['secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'suppressErrorRendering', 'maxEdges', 'htmlLabels', 'themeCSS'],
    });
    mermaidTheme = theme;
  }
  return m;
}

// Elements that run script, embed documents, fetch images (a diagram from
// the model has no business loading anything), or (animate, set) could
// rewrite an attribute into a link after this check.
const SVG_DROP = new Set(['script', 'iframe', 'object', 'embed', 'img', 'image', 'handler', 'animate', 'set', 'animatemotion', 'animatetransform']);

const LINK_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'srcset', 'data', 'background', 'poster']);

/** Remove from a parsed SVG whatever could run or navigate. */
function inertSvg(svg) {
  for (const el of [svg, ...svg.querySelectorAll('*')]) {
    const name = el.localName.toLowerCase();
    if (SVG_DROP.has(name)) {
      el.remove();
      continue;
    }
    for (const attr of [...el.attributes]) {
      const attrName = attr.name.toLowerCase();
      const value = attr.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
      if (attrName.startsWith('on')) el.removeAttribute(attr.name);
      else if (LINK_ATTRIBUTES.has(attrName) || attrName.endsWith(':href')) {
        if (!value.startsWith('#')) el.removeAttribute(attr.name);
      } else if (attrName === 'style' && /url\(|expression|javascript:/.test(value)) el.removeAttribute(attr.name);
    }
  }
  return svg;
}

async function drawDiagram(pre, code) {
  const source = code.textContent;
  const id = `tabteam-diagram-${++diagramCount}`;
  let svgText;
  try {
    const m = await mermaid();
    await m.parse(source);
    svgText = (await m.render(id, source)).svg;
  } catch (err) {
    document.getElementById(id)?.remove();
    document.getElementById(`d${id}`)?.remove();
    const note = document.createElement('p');
    note.className = 'note diagram-error';
    note.dataset.testid = 'diagram-error';
    const reason = String(err?.message ?? err).split('\n')[0].slice(0, 160);
    note.textContent = `This diagram could not be drawn (${reason}); its source is below.`;
    pre.before(note);
    return;
  }
  // An inert template (nothing in it runs or loads), parsed as HTML: the
  // labels inside foreignObject are HTML, not always well-formed XML.
  const template = document.createElement('template');
  template.innerHTML = svgText;
  const svg = template.content.firstElementChild;
  if (!svg || svg.localName !== 'svg' || template.content.childElementCount !== 1) {
    const note = document.createElement('p');
    note.className = 'note diagram-error';
    note.textContent = 'This diagram could not be drawn; its source is below.';
    pre.before(note);
    return;
  }
  const figure = document.createElement('figure');
  figure.className = 'diagram';
  figure.dataset.testid = 'diagram';
  figure.append(document.importNode(inertSvg(svg), true));
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
