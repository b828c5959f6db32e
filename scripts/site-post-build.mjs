// Trunk's post_build hook (Trunk.toml): finishes the site in the staging dir.
//
// 1. Copies the lazily loaded helpers into `lazy/`: mermaid's classic build
//    (one file, no source map; loaded only by the diagram frame) and
//    highlight.js (its core, wrapped as an ES module, and a handful of
//    languages). They load only when a diagram or a code file is shown; they
//    are not part of the bundle whose size scripts/bundle-size.sh measures.
//    Also sucrase (the TypeScript/JSX transformer of the preview and the
//    tests, CommonJS across many files), bundled by esbuild into one ES
//    module, lazy/sucrase/sucrase.mjs: loaded by src/web/sandbox/packages.js
//    the first time a project has a .ts/.tsx/.jsx file.
//    And Pyodide (the `pyodide` npm package: pyodide.mjs, pyodide.asm.mjs,
//    pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json, its licence)
//    into lazy/pyodide/VERSION/, read by src/web/sandbox/python.js the first
//    time a project has Python to run; the build fails when that file names
//    another version than the package installed.
//    And the in-tab model runtime, lazy/intab/ (src/web/in_tab/engine.mjs
//    and wllama's module and wasm), loaded by src/web/in_tab/bridge.js when
//    the "In this tab" provider is first used.
// 2. Fills in the Content-Security-Policy: index.html carries the policy with
//    the placeholder 'sha256-TRUNK-INLINE' and one inline module script (the
//    wasm loader), and this replaces the placeholder with the hash of every
//    inline script, so that script runs and no other does.
//    Fails the build when the placeholder or the loader is missing.
//
// 3. Minifies what loads at start-up and Trunk leaves as is: the
//    wasm-bindgen glue in app/ (scripts/build-split.sh), the split loader
//    and the snippets (esbuild, ~3.5 KB gzip). Nothing names them with an
//    integrity attribute (Trunk adds those only to its own assets, the
//    CSS), so no hash needs updating. (Trunk's own `minify` does the HTML
//    and CSS.)
// 4. Names the app's folder after its content: `app/` becomes
//    `app-<hash>/` (scripts/content-version.mjs) and index.html points
//    there, so the folder can be cached for ever; before the policy's
//    hash is taken, since the loader script names the folder.
// 5. Under `trunk serve` with live reload (scripts/serve.sh --dev), fills in
//    the two placeholders of Trunk's reload script here, before the
//    policy's hash is taken; left to the server, which fills them per
//    request, they would change the script after hashing and the policy
//    would block it (a console error on every load).
// 6. When TABTEAM_WIDGET_DEMO names a folder (scripts/serve.sh sets it to
//    the package and demo page scripts/build-widget.sh assembles in
//    target/widget-demo/), copies it to widget/, so the served site has
//    the widget demo at /widget/ after every rebuild.
// 7. Writes the service worker (scripts/service-worker.mjs): www/sw.js with
//    the list of the build's files and a hash of them, last, once they are
//    final.
//
// Deliberately nothing else: no bundling of the app's own code.
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder, versionFolder } from './content-version.mjs';
import { writeServiceWorker } from './service-worker.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = process.env.TRUNK_STAGING_DIR || process.argv[2];
if (!staging) {
  console.error('site-post-build: no TRUNK_STAGING_DIR (run it as a Trunk hook, or pass the dir)');
  process.exit(1);
}
const modules = join(root, 'node_modules');

/** The highlight.js languages shipped, by file name (es/languages/NAME.js). */
const HLJS_LANGUAGES = [
  'bash', 'cpp', 'css', 'go', 'java', 'javascript', 'json', 'markdown', 'python', 'rust', 'sql', 'typescript', 'xml', 'yaml',
];

function withoutSourceMap(text) {
  return text.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

function copyText(from, to, transform = (t) => t) {
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, transform(readFileSync(from, 'utf8')));
}

function copyMermaid() {
  // The classic (IIFE) build, one file: src/ui/artifacts.js inlines it
  // into the diagram frame's document (an opaque-origin srcdoc, which
  // loads nothing), and the service worker keeps it for offline use.
  const dist = join(modules, 'mermaid', 'dist');
  const out = join(staging, 'lazy', 'mermaid');
  copyText(join(dist, 'mermaid.min.js'), join(out, 'mermaid.min.js'), withoutSourceMap);
  copyFileSync(join(modules, 'mermaid', 'LICENSE'), join(out, 'LICENSE'));
}

function copyHighlight() {
  const pkg = join(modules, 'highlight.js');
  const out = join(staging, 'lazy', 'hljs');
  // lib/core.js is CommonJS with no imports: give it a module scope.
  copyText(join(pkg, 'lib', 'core.js'), join(out, 'core.mjs'), (text) =>
    `const module = { exports: {} };\n${text}\nexport default module.exports;\n`);
  for (const lang of HLJS_LANGUAGES) {
    copyText(join(pkg, 'es', 'languages', `${lang}.js`), join(out, 'languages', `${lang}.mjs`));
  }
  copyFileSync(join(pkg, 'LICENSE'), join(out, 'LICENSE'));
}

function copyPyodide() {
  const pkg = join(modules, 'pyodide');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const wanted = /PYODIDE_VERSION = '([^']+)'/.exec(readFileSync(join(root, 'src', 'web', 'sandbox', 'python.js'), 'utf8'));
  if (!wanted || wanted[1] !== version) {
    throw new Error(`src/web/sandbox/python.js names Pyodide ${wanted && wanted[1]} but node_modules has ${version} (npm ci, or update PYODIDE_VERSION)`);
  }
  const out = join(staging, 'lazy', 'pyodide', version);
  mkdirSync(out, { recursive: true });
  for (const name of ['pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json']) {
    copyFileSync(join(pkg, name), join(out, name));
  }
  copyText(join(pkg, 'pyodide.mjs'), join(out, 'pyodide.mjs'), withoutSourceMap);
  writeFileSync(join(out, 'LICENSE'), 'Pyodide is distributed under the Mozilla Public License 2.0 (https://github.com/pyodide/pyodide/blob/main/LICENSE); CPython and its standard library under the Python Software Foundation License.\n');
}

const PLACEHOLDER = "'sha256-TRUNK-INLINE'";

function fillPolicy() {
  const file = join(staging, 'index.html');
  const html = readFileSync(file, 'utf8');
  if (!html.includes(PLACEHOLDER)) throw new Error(`index.html has no ${PLACEHOLDER} in its Content-Security-Policy`);
  const hashes = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    hashes.push(`'sha256-${createHash('sha256').update(match[1], 'utf8').digest('base64')}'`);
  }
  if (hashes.length === 0) throw new Error('index.html has no inline loader script (did Trunk change?)');
  writeFileSync(file, html.replace(PLACEHOLDER, hashes.join(' ')));
}


async function bundleSucrase() {
  const { build } = await import('esbuild');
  const out = join(staging, 'lazy', 'sucrase');
  await build({
    entryPoints: [join(modules, 'sucrase', 'dist', 'esm', 'index.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    outfile: join(out, 'sucrase.mjs'),
    logLevel: 'warning',
    legalComments: 'none',
  });
  copyFileSync(join(modules, 'sucrase', 'LICENSE'), join(out, 'LICENSE'));
}

function copyInTab() {
  // The "In this tab" model runtime: our engine (src/web/in_tab/engine.mjs)
  // and wllama beside it (its one ES module, with its Worker's code inside,
  // and its one wasm), loaded the first time the in-tab provider is used.
  // The service worker keeps them on first use, not at install (9 MB that
  // most visitors never need).
  const pkg = join(modules, '@wllama', 'wllama');
  const out = join(staging, 'lazy', 'intab');
  copyText(join(root, 'src', 'web', 'in_tab', 'engine.mjs'), join(out, 'engine.mjs'));
  copyText(join(pkg, 'esm', 'index.js'), join(out, 'wllama.mjs'), withoutSourceMap);
  copyFileSync(join(pkg, 'esm', 'wasm', 'wllama.wasm'), join(out, 'wllama.wasm'));
  copyFileSync(join(pkg, 'LICENCE'), join(out, 'LICENCE'));
}

async function minifyStartup() {
  const { transformSync } = await import('esbuild');
  const app = join(staging, 'app');
  const glue = readdirSync(app).filter((n) => n.endsWith('.js')).map((n) => join(app, n));
  const snippets = filesUnder(join(app, 'snippets')).filter((p) => p.endsWith('.js'));
  if (!glue.some((p) => p.endsWith('tabteam-site.js'))) throw new Error('no wasm-bindgen glue in app/ (did scripts/build-split.sh run?)');
  for (const path of [...glue, ...snippets]) {
    const { code } = transformSync(readFileSync(path, 'utf8'), { loader: 'js', format: 'esm', minify: true, target: 'es2022' });
    writeFileSync(path, code);
  }
}

// Trunk's reload script (its autoreload.js) as the serve step would fill it:
// the page's own host (what it puts there when the request names none) and
// the serve base, "/" for public_url "./" (Trunk.toml). Quotes may have
// become backticks if Trunk minified the page.
function fillReloadScript() {
  const file = join(staging, 'index.html');
  const html = readFileSync(file, 'utf8');
  if (!html.includes('{{__TRUNK_ADDRESS__}}')) return;
  writeFileSync(file, html
    .replace(/(['`])\{\{__TRUNK_ADDRESS__\}\}\1/g, 'window.location.host')
    .replaceAll('{{__TRUNK_WS_BASE__}}', '/'));
}

function copyWidgetDemo() {
  const from = process.env.TABTEAM_WIDGET_DEMO;
  if (!from) return;
  const folder = resolve(root, from);
  if (!existsSync(join(folder, 'pkg', 'tabteam_bg.wasm'))) {
    throw new Error(`TABTEAM_WIDGET_DEMO=${from} holds no built widget (run scripts/build-widget.sh)`);
  }
  cpSync(folder, join(staging, 'widget'), { recursive: true });
}

function versionApp() {
  const file = join(staging, 'index.html');
  writeFileSync(file, versionFolder(staging, 'app', readFileSync(file, 'utf8')));
}

copyMermaid();
copyHighlight();
copyPyodide();
await bundleSucrase();
copyInTab();
await minifyStartup();
versionApp();
fillReloadScript();
fillPolicy();
copyWidgetDemo();
writeServiceWorker(staging, join(root, 'www', 'sw.js'));
