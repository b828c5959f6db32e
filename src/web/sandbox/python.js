// Pyodide's files for the sandbox, read by the app page (never by the
// sandboxed frame, which has no network) the first time a project has
// Python to run: pythonRuntime() gives {core, asm, wasm, stdlib, lock}
// (pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip as
// ArrayBuffers; pyodide-lock.json as text) from the site's
// lazy/pyodide/VERSION/, which scripts/site-post-build.mjs copies from the
// `pyodide` npm package. They are kept in Cache Storage (`pyodide-VERSION`,
// written here on first use, older versions' caches deleted), so Python
// runs offline once it ran online; the service worker leaves them out of
// the app's own cache, so a visit that never runs Python never downloads
// them. Each call hands out fresh copies (the frame transfers them on to
// its worker). Nothing here runs Python or decides what to run.
export const PYODIDE_VERSION = '314.0.7';
const CACHE = `pyodide-${PYODIDE_VERSION}`;
const FILES = { core: 'pyodide.mjs', asm: 'pyodide.asm.mjs', wasm: 'pyodide.asm.wasm', stdlib: 'python_stdlib.zip', lock: 'pyodide-lock.json' };

let loaded = null;

async function openCache() {
  try {
    for (const name of await caches.keys()) if (name.startsWith('pyodide-') && name !== CACHE) await caches.delete(name);
    return await caches.open(CACHE);
  } catch (e) {
    return null; // No Cache Storage (an insecure origin, private mode): fetch every time.
  }
}

async function read(cache, name) {
  const url = new URL(`lazy/pyodide/${PYODIDE_VERSION}/${name}`, document.baseURI).href;
  const hit = cache && await cache.match(url);
  if (hit) return await hit.arrayBuffer();
  let response;
  try {
    response = await fetch(url, { credentials: 'omit' });
  } catch (e) {
    throw new Error('Python could not be loaded: the site is offline and Python has not run in this browser before. Run it once online, then it works offline too.');
  }
  if (!response.ok) throw new Error(`Python could not be loaded: the site answered ${response.status} for ${name}.`);
  const bytes = await response.arrayBuffer();
  if (cache) {
    try {
      await cache.put(url, new Response(bytes.slice(0)));
    } catch (e) {
      // A full quota only costs the offline copy.
    }
  }
  return bytes;
}

export async function pythonRuntime() {
  if (!loaded) {
    loaded = (async () => {
      const cache = await openCache();
      const entries = await Promise.all(Object.entries(FILES).map(async ([key, name]) => [key, await read(cache, name)]));
      return Object.fromEntries(entries);
    })().catch((e) => {
      loaded = null;
      throw e;
    });
  }
  const bytes = await loaded;
  const copy = {};
  for (const [key, value] of Object.entries(bytes)) copy[key] = key === 'lock' ? new TextDecoder().decode(value) : value.slice(0);
  return copy;
}
