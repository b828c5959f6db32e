// The app's way to the in-tab model runtime (lazy/intab/engine.mjs, with
// wllama beside it): imported the first time Settings or a run needs it,
// never at start-up. Only the forwarding lives here, so that this snippet,
// which loads with the app, stays a few lines.
let engine = null;

function load() {
  if (!engine) {
    engine = import(new URL('lazy/intab/engine.mjs', document.baseURI).href).catch((e) => {
      engine = null;
      throw new Error(`the in-tab model runtime could not be loaded (${(e && e.message) || e}); check the connection and try again`);
    });
  }
  return engine;
}

export async function chat(body, signal) {
  return (await load()).chat(body, signal);
}

export async function download(url, onProgress, signal) {
  return (await load()).download(url, onProgress, signal);
}

export async function keepFile(file) {
  return (await load()).keepFile(file);
}

export async function isKept(key) {
  return (await load()).isKept(key);
}

export function isolated() {
  return globalThis.crossOriginIsolated === true;
}
