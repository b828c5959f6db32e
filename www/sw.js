// The site's service worker: after one visit the app starts with no network.
//
// It keeps the app's own files, and nothing else, in one cache per build:
// scripts/service-worker.mjs (the post-build hook) fills in FILES, every
// file of the build (the page, the styles, the content-named app-<hash>/
// folder, sandbox/, the highlight.js and mermaid helpers), and VERSION, a hash of them
// all. A new build is a new VERSION, so the browser installs the new worker,
// which fills a new cache; once no tab runs the old build any more it takes
// over and deletes the old caches. (No skipWaiting: a tab still running the
// old build may fetch its lazily loaded module from the old cache.)
//
// Deliberately not:
// - any request but a GET of one of FILES or ON_USE (or the page's own address):
//   provider API calls, the local model server and anything cross-origin go
//   to the network untouched and are never stored.
// The sandboxed frames (opaque origins) are not served from here, and need
// not be: their documents are srcdoc children of sandbox/host.html, which
// is, built from files the app reads through this worker.
const VERSION = 'TABTEAM-VERSION';
const FILES = ['TABTEAM-FILES'];
// Kept the first time the page fetches them, not at install: the in-tab
// model runtime (lazy/intab/, 9 MB most visitors never use).
const ON_USE = ['TABTEAM-ON-USE'];
const PREFIX = 'tabteam-';
const CACHE = `${PREFIX}${VERSION}`;

const base = new URL('./', self.location.href);
const own = new Set(FILES.map((f) => new URL(f, base).href));
const onUse = new Set(ON_USE.map((f) => new URL(f, base).href));
const page = new URL('index.html', base).href;

self.addEventListener('install', (event) => {
  // `reload`: fill the cache from the server, never from the HTTP cache.
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([...own].map((url) => new Request(url, { cache: 'reload' })))));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    // The first visit's page starts being served from here at once.
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  const key = request.mode === 'navigate' && url.href === base.href ? page : url.href;
  if (onUse.has(key)) {
    event.respondWith(keptOnUse(key, request));
    return;
  }
  if (!own.has(key)) return;
  // A content-named folder never changes: the cache first. Everything else
  // (the page, sandbox/, ...) keeps its name from build to build: the network
  // first, so an online visit always sees what the server has now.
  const immutable = key.startsWith(new URL('app-', base).href);
  event.respondWith(immutable ? cacheFirst(key, request) : networkFirst(key, request));
});

async function cacheFirst(key, request) {
  const cache = await caches.open(CACHE);
  return (await cache.match(key)) || fetch(request);
}

// The cache is not written here: it holds this build's files as installed,
// and a newer page from the server belongs to the next worker's cache (kept
// here, it would name an app folder this cache does not have).
async function networkFirst(key, request) {
  try {
    return await fetch(request);
  } catch (offline) {
    const kept = await (await caches.open(CACHE)).match(key);
    if (kept) return kept;
    throw offline;
  }
}

// This build's copy, once fetched, is served from this build's cache (its
// name changes with the build, and so does the cache).
async function keptOnUse(key, request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(key);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(key, response.clone()).catch(() => {});
  return response;
}
