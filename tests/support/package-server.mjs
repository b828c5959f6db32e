// A local package CDN for tests: REAL npm packages (pinned devDependencies
// in package.json, installed by `npm ci`) built into browser ES modules with
// esbuild when the server starts, served with esm.sh's URL scheme closely
// enough that the app's code is the same for both:
//   /react@18.3.1                   the package's main module
//   /react-dom@18.3.1/client        a subpath export
//   /react@18                       a major version (or no version: the installed one)
//   /@tailwindcss/browser@4/dist/index.global.js?raw   a file of the package, as it is
// The packages the server has are "shared": another served package's
// import of one stays a bare import (`import "react"`), as esm.sh leaves the
// names in `?external=` bare, so the app resolves them itself and keeps one
// copy (one React for react and react-dom). `?external=` and other queries
// are accepted and ignored. A version the server does not have, a package
// it does not serve or a file the package lacks is a 404 with a line of text.
// Counts every request (`requests`) so tests can tell the cache worked.
//
// It does not resolve semver ranges (the app pins versions) and never
// reaches the network.
//
// Library use:
//   import { startPackageServer } from './package-server.mjs';
//   const cdn = await startPackageServer();   // { url, port, requests, close() }
// CLI use:
//   node tests/support/package-server.mjs [--port N] ...
//   prints exactly one line `PACKAGE_SERVER_URL=http://127.0.0.1:<port>`.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseServerArgs, runServerCli } from './cli.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(ROOT, 'package.json'));

// What is served: each module entry, whether the package is CommonJS (its
// named exports are read by loading it in Node, as esm.sh's lexer does) and
// whether it has a default export.
export const ENTRIES = [
  { spec: 'react', cjs: true },
  { spec: 'react/jsx-runtime', cjs: true },
  { spec: 'react/jsx-dev-runtime', cjs: true },
  { spec: 'react-dom', cjs: true },
  { spec: 'react-dom/client', cjs: true },
  { spec: 'chart.js', cjs: false, hasDefault: false },
  { spec: 'chart.js/auto', cjs: false, hasDefault: true },
  { spec: 'preact', cjs: false, hasDefault: false },
  { spec: 'preact/hooks', cjs: false, hasDefault: false },
  { spec: 'preact/jsx-runtime', cjs: false, hasDefault: false },
  { spec: 'htm', cjs: false, hasDefault: true },
];

/** Packages whose files may be fetched raw (`?raw`). */
const RAW_PACKAGES = ['@tailwindcss/browser'];

/** `@a/b/c` → ['@a/b', '/c']. */
export function splitSpec(spec) {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, n).join('/');
  const sub = parts.length > n ? '/' + parts.slice(n).join('/') : '';
  return [name, sub];
}

function installedVersion(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Builds every entry; returns Map spec → module text. */
export async function buildModules() {
  const esbuild = await import('esbuild');
  const shared = new Set(ENTRIES.map((e) => splitSpec(e.spec)[0]));
  const out = new Map();
  for (const entry of ENTRIES) {
    const externals = new Set();
    const plugin = {
      name: 'shared-packages',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.kind === 'entry-point' || args.path === entry.spec) return undefined;
          const [name] = splitSpec(args.path);
          if (!shared.has(name)) return undefined;
          externals.add(args.path);
          return { path: args.path, external: true };
        });
      },
    };
    let contents;
    if (entry.cjs) {
      const names = Object.keys(require(entry.spec)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
      contents = `import m from ${JSON.stringify(entry.spec)};\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`;
    } else {
      contents = `export * from ${JSON.stringify(entry.spec)};\n${entry.hasDefault ? `export { default } from ${JSON.stringify(entry.spec)};\n` : ''}`;
    }
    const options = {
      stdin: { contents, resolveDir: ROOT, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      write: false,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
      plugins: [plugin],
    };
    let result = await esbuild.build(options);
    let text = result.outputFiles[0].text;
    if (entry.cjs && externals.size) {
      // CommonJS `require("react")` of a shared package: esbuild's
      // `__require` calls a `require` in scope, which the banner defines
      // over ES imports of those packages (what esm.sh does too).
      const list = [...externals].sort();
      const banner = list.map((spec, i) => `import * as __shared${i} from ${JSON.stringify(spec)};`).join('\n')
        + `\nconst require = (name) => { const m = {${list.map((spec, i) => `${JSON.stringify(spec)}: __shared${i}`).join(', ')}}[name]; if (!m) throw new Error('cannot require ' + name); return m.default ?? m; };\n`;
      text = banner + text;
    }
    out.set(entry.spec, text);
  }
  return out;
}

/**
 * @param {{port?: number, host?: string}} opts
 * @returns {Promise<{url: string, port: number, requests: string[], close: () => Promise<void>}>}
 */
export async function startPackageServer({ port = 0, host = '127.0.0.1' } = {}) {
  const modules = await buildModules();
  const versions = new Map();
  for (const spec of [...modules.keys(), ...RAW_PACKAGES]) {
    const [name] = splitSpec(spec);
    versions.set(name, installedVersion(name));
  }
  const requests = [];
  const headers = { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=31536000, immutable' };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(url.pathname + url.search);
    const send = (status, type, body) => {
      res.writeHead(status, { ...headers, 'content-type': type });
      res.end(body);
    };
    if (req.method === 'OPTIONS') return send(204, 'text/plain', '');
    const spec = decodeURIComponent(url.pathname.slice(1));
    const [nameWithVersion, sub] = splitSpec(spec);
    const at = nameWithVersion.lastIndexOf('@');
    const name = at > 0 ? nameWithVersion.slice(0, at) : nameWithVersion;
    const wanted = at > 0 ? nameWithVersion.slice(at + 1) : '';
    const have = versions.get(name);
    if (!have) return send(404, 'text/plain; charset=utf-8', `the package server has no package "${name}"`);
    // A full version must match; a major (or major.minor) must prefix it.
    if (wanted && !(wanted === have || have.startsWith(`${wanted}.`))) {
      return send(404, 'text/plain; charset=utf-8', `the package server has ${name}@${have}, not ${name}@${wanted}`);
    }
    if (url.searchParams.has('raw') && RAW_PACKAGES.includes(name)) {
      const dir = path.join(ROOT, 'node_modules', name);
      const file = path.resolve(dir, '.' + sub);
      if (!file.startsWith(dir + path.sep) || !fs.existsSync(file)) return send(404, 'text/plain; charset=utf-8', `${name} has no file ${sub}`);
      return send(200, 'text/javascript; charset=utf-8', fs.readFileSync(file));
    }
    const text = modules.get(name + sub);
    if (text === undefined) return send(404, 'text/plain; charset=utf-8', `the package server does not serve ${name}${sub}`);
    send(200, 'application/javascript; charset=utf-8', text);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  let closed = false;
  return {
    url: `http://${host}:${actual}`,
    port: actual,
    requests,
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

function parseArgs(argv) {
  return parseServerArgs(argv, { name: 'package-server' });
}

runServerCli(import.meta.url, { name: 'package-server', urlLine: 'PACKAGE_SERVER_URL', parse: parseArgs, start: startPackageServer });
