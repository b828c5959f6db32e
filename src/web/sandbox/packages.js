// The browser's side of `core::sandbox::prepare` (its PackageHost port),
// run by the app page, never by the sandboxed frame (which has no network):
// - fetchPackage(url): a package module from the package cache (Cache
//   Storage `package-cache-v1`, keyed by URL: a module fetched once works
//   offline and after a reload), else from the package CDN, then kept.
//   Any URL the core asks for is cached the same way, so a later runtime
//   (Pyodide's files) can reuse it.
// - transform(path, source, jsxImportSource): TypeScript/JSX/TSX to
//   JavaScript on the same lines, with sucrase, loaded from the site's
//   `lazy/sucrase/` the first time a project needs it (the service worker
//   keeps it for offline). Throws {line, message} for a file it cannot read.
// Nothing here decides what to fetch or what a result means.
const CACHE = 'package-cache-v1';

async function openCache() {
  try {
    return await caches.open(CACHE);
  } catch (e) {
    return null; // No Cache Storage (an insecure origin, private mode): fetch every time.
  }
}

export async function fetchPackage(url) {
  const cache = await openCache();
  if (cache) {
    const hit = await cache.match(url);
    if (hit) return await hit.text();
  }
  let response;
  try {
    response = await fetch(url, { credentials: 'omit', redirect: 'follow' });
  } catch (e) {
    throw new Error('the package CDN could not be reached (offline, or blocked), and this package is not in the browser\'s package cache yet');
  }
  if (!response.ok) {
    const first = (await response.text().catch(() => '')).split('\n')[0].slice(0, 200);
    throw new Error(`the package CDN answered ${response.status}${first ? `: ${first}` : ''}`);
  }
  const text = await response.text();
  if (cache) {
    try {
      await cache.put(url, new Response(text, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }));
    } catch (e) {
      // A full quota only costs the offline copy.
    }
  }
  return text;
}

let sucrase = null;

export async function transform(path, source, jsxImportSource) {
  if (!sucrase) {
    sucrase = import(new URL('lazy/sucrase/sucrase.mjs', document.baseURI).href).catch((e) => {
      sucrase = null;
      throw { line: 1, message: `the TypeScript/JSX transformer could not be loaded (${e && e.message || e})` };
    });
  }
  const { transform: run } = await sucrase;
  const transforms = path.endsWith('.jsx') ? ['jsx'] : path.endsWith('.tsx') ? ['typescript', 'jsx'] : ['typescript'];
  try {
    return run(source, { transforms, jsxRuntime: 'automatic', jsxImportSource, production: true, filePath: path }).code;
  } catch (e) {
    const at = e && e.loc ? e.loc.line : Number((/\((\d+):\d+\)/.exec(String(e && e.message)) || [])[1] || 1);
    throw { line: at, message: String((e && e.message) || e).replace(/^Error transforming [^:]*: /, '') };
  }
}
