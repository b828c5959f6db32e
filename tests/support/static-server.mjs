// Minimal static file server for tests (serves e.g. dist/ with the wasm bundle).
//
// Library use:
//   import { startStaticServer } from './static-server.mjs';
//   const srv = await startStaticServer({ root: 'dist', headers: { 'content-security-policy': "..." } });
//   ... srv.url ...
//   await srv.close();
//
// CLI use:
//   node tests/support/static-server.mjs --root dist [--port N] [--host H]
//        [--header "Name: value"]... [--exit-with-parent] [--exit-on-stdin-close] [--max-lifetime SECONDS]
//   prints exactly one line `STATIC_SERVER_URL=http://127.0.0.1:<port>` on stdout.

import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseServerArgs, runServerCli, closeOnce } from './cli.mjs';

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

function isInside(root, p) {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * @param {{root: string, port?: number, host?: string, headers?: Record<string,string>}} opts
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>}>}
 */
export async function startStaticServer({ root, port = 0, host = '127.0.0.1', headers = {} } = {}) {
  if (!root) throw new Error('startStaticServer: `root` is required');
  const rootAbs = await fsp.realpath(path.resolve(root));
  const rootStat = await fsp.stat(rootAbs);
  if (!rootStat.isDirectory()) throw new Error(`startStaticServer: root is not a directory: ${rootAbs}`);

  const extra = {};
  for (const [k, v] of Object.entries(headers)) extra[k.toLowerCase()] = String(v);

  function plain(res, status, text, more = {}) {
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
      ...extra,
      ...more,
    });
    res.end(res.req.method === 'HEAD' ? undefined : text);
  }

  async function handle(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      plain(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    const rawPath = (req.url || '/').split('?')[0].split('#')[0];
    let decoded;
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      plain(res, 400, 'bad request: invalid percent-encoding\n');
      return;
    }
    if (decoded.includes('\0') || decoded.includes('\\') || !decoded.startsWith('/')) {
      plain(res, 400, 'bad request\n');
      return;
    }
    // Refuse any `..` segment outright (even ones that would stay inside root).
    if (decoded.split('/').includes('..')) {
      plain(res, 403, 'forbidden: path traversal\n');
      return;
    }
    let filePath = path.resolve(rootAbs, '.' + decoded);
    if (!isInside(rootAbs, filePath)) {
      plain(res, 403, 'forbidden: path traversal\n');
      return;
    }

    let st;
    try {
      st = await fsp.stat(filePath);
    } catch {
      plain(res, 404, 'not found\n');
      return;
    }
    if (st.isDirectory()) {
      if (!rawPath.endsWith('/')) {
        const q = (req.url || '').slice(rawPath.length);
        plain(res, 301, 'moved\n', { location: rawPath + '/' + q });
        return;
      }
      filePath = path.join(filePath, 'index.html');
      try {
        st = await fsp.stat(filePath);
      } catch {
        plain(res, 404, 'not found\n');
        return;
      }
    }
    if (!st.isFile()) {
      plain(res, 404, 'not found\n');
      return;
    }
    // Symlinks must not lead outside root either.
    let real;
    try {
      real = await fsp.realpath(filePath);
    } catch {
      plain(res, 404, 'not found\n');
      return;
    }
    if (!isInside(rootAbs, real)) {
      plain(res, 403, 'forbidden: outside root\n');
      return;
    }

    const type = MIME_TYPES[path.extname(real).toLowerCase()] ?? 'application/octet-stream';
    res.writeHead(200, {
      'content-type': type,
      'content-length': st.size,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...extra,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = fs.createReadStream(real);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'internal error\n');
      else res.destroy();
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = server.address().port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${actualPort}`,
    port: actualPort,
    root: rootAbs,
    close: closeOnce(server),
  };
}

function parseArgs(argv) {
  const opts = parseServerArgs(argv, {
    name: 'static-server',
    usage: '--root DIR [--header "Name: value"]...',
    defaults: { root: null, headers: {} },
    extra: {
      '--root': (o, v) => { o.root = v; },
      '--header': (o, h) => {
        const c = h.indexOf(':');
        if (c <= 0) throw new Error(`invalid --header (expected "Name: value"): ${h}`);
        o.headers[h.slice(0, c).trim()] = h.slice(c + 1).trim();
      },
    },
  });
  if (!opts.root) throw new Error('--root DIR is required');
  return opts;
}

runServerCli(import.meta.url, { name: 'static-server', urlLine: 'STATIC_SERVER_URL', parse: parseArgs, start: startStaticServer });
