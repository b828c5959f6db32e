// Content-versioned folder names for the site's build (Trunk's post_build
// hook, scripts/site-post-build.mjs): a folder `app/` becomes
// `app-<hash>/`, where the hash is of every file in it (relative path and
// bytes), so a host may cache it for ever and a visitor never gets an old
// file beside a new one after an update; only index.html, which names the
// folder, needs revalidating.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` (recursively), as full paths. */
export function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The versioned name of folder `dir` whose plain name is `base`: `base-` and 12 hex digits of SHA-256. */
export function versionedName(dir, base) {
  const hash = createHash('sha256');
  const paths = filesUnder(dir).map((path) => relative(dir, path).split('\\').join('/')).sort();
  for (const path of paths) {
    const bytes = readFileSync(join(dir, path));
    hash.update(`${path}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return `${base}-${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Renames `root/base` to its versioned name and points `html` (a page's
 * text) at it: every `./base/` becomes `./<versioned>/`. Returns the new
 * text; fails when the page never names the folder.
 */
export function versionFolder(root, base, html) {
  const name = versionedName(join(root, base), base);
  const plain = `./${base}/`;
  if (!html.includes(plain)) throw new Error(`index.html does not name ${plain}`);
  renameSync(join(root, base), join(root, name));
  return html.split(plain).join(`./${name}/`);
}
