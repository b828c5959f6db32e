// The compression of share links (src/web/share.rs): deflate-raw with the
// browser's own CompressionStream / DecompressionStream, no library.
// inflate stops reading past `max` bytes (a decompression bomb is cut off
// there, never held whole) and answers null. It neither reads nor writes
// the link's format: that is core::share.

export async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function inflate(bytes, max) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// The link to the clipboard; false when the browser refuses (the page then
// shows it to be copied by hand).
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (e) {
    return false;
  }
}

// The share link out of the address bar, once the page no longer shows it.
export function forgetLink() {
  history.replaceState(null, '', location.pathname + location.search);
}
