// The service worker of a finished build (Trunk's post_build hook,
// scripts/site-post-build.mjs, runs it last, once every file is final):
// www/sw.js with its two placeholders filled in, written as `sw.js` at the
// root of the build.
//
// - FILES: every file of the build, by path relative to the root, except
//   sw.js itself, widget/ (the demo, a page of its own) and lazy/pyodide/
//   (~6 MB over the wire that only a Python project needs:
//   src/web/sandbox/python.js keeps it in a cache of its own on first use).
//   lazy/mermaid/ is kept: the app reads it to build the diagram frame's
//   document.
// - ON_USE: the files kept the first time the page fetches them (the
//   in-tab model runtime, lazy/intab/), in the same cache.
// - VERSION: 12 hex digits of SHA-256 over those files' paths and bytes, so
//   any change to the build is a new worker with a new cache.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesUnder } from './content-version.mjs';

const LEFT_OUT = [/^sw\.js$/, /^widget\//, /^lazy\/pyodide\//];
/** Kept the first time they are fetched, not at install: the in-tab model
 *  runtime (9 MB most visitors never use). */
const ON_USE = [/^lazy\/intab\//];

/** The build's files the worker keeps, sorted, relative to `root` with `/`. */
export function workerFiles(root) {
  return filesUnder(root)
    .map((path) => relative(root, path).split('\\').join('/'))
    .filter((path) => !LEFT_OUT.some((re) => re.test(path)))
    .sort();
}

/** The worker for the build in `root`, from `template` (www/sw.js): {version, files, text}. */
export function serviceWorker(root, template) {
  const all = workerFiles(root);
  const onUse = all.filter((path) => ON_USE.some((re) => re.test(path)));
  const files = all.filter((path) => !onUse.includes(path));
  if (!files.includes('index.html')) throw new Error(`service-worker: no index.html in ${root}`);
  const hash = createHash('sha256');
  for (const path of all) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  const version = hash.digest('hex').slice(0, 12);
  const text = readFileSync(template, 'utf8');
  for (const placeholder of ["'TABTEAM-VERSION'", "['TABTEAM-FILES']", "['TABTEAM-ON-USE']"]) {
    if (!text.includes(placeholder)) throw new Error(`service-worker: ${template} has no ${placeholder}`);
  }
  const filled = text
    .replace("'TABTEAM-VERSION'", JSON.stringify(version))
    .replace("['TABTEAM-FILES']", JSON.stringify(files))
    .replace("['TABTEAM-ON-USE']", JSON.stringify(onUse));
  return { version, files, onUse, text: filled };
}

/** Writes `root/sw.js` (see `serviceWorker`); returns {version, files}. */
export function writeServiceWorker(root, template) {
  const { version, files, text } = serviceWorker(root, template);
  writeFileSync(join(root, 'sw.js'), text);
  return { version, files };
}
