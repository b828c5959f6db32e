// The command line shared by the test servers (llm-server.mjs,
// static-server.mjs, package-server.mjs): their common flags, and a lifecycle that never leaves
// a server behind (signals, parent exit, stdin close, a maximum lifetime).
import fs from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const COMMON_USAGE = '[--port N] [--host H] [--exit-with-parent] [--exit-on-stdin-close] [--max-lifetime SECONDS]';

/**
 * Parses `--flag value` and `--flag=value`. The common flags are known here;
 * `extra` maps a server's own flags to `(opts, value) => void`, and
 * `defaults` gives its own options' starting values.
 */
export function parseServerArgs(argv, { name, usage = '', defaults = {}, extra = {} }) {
  const opts = { port: 0, host: '127.0.0.1', exitWithParent: false, exitOnStdinClose: false, maxLifetime: 0, ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`missing value for ${flag}`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const v = Number(value());
        if (!Number.isInteger(v) || v < 0 || v > 65535) throw new Error('invalid --port');
        opts.port = v;
        break;
      }
      case '--host': opts.host = value(); break;
      case '--exit-with-parent': opts.exitWithParent = true; break;
      case '--exit-on-stdin-close': opts.exitOnStdinClose = true; break;
      case '--max-lifetime': {
        const v = Number(value());
        if (!(v > 0)) throw new Error('invalid --max-lifetime (seconds > 0)');
        opts.maxLifetime = v;
        break;
      }
      case '-h':
      case '--help':
        process.stderr.write(`usage: node tests/support/${name}.mjs ${usage}${usage ? ' ' : ''}${COMMON_USAGE}\n`);
        process.exit(0);
        break;
      default:
        if (!Object.hasOwn(extra, flag)) throw new Error(`unknown argument: ${a}`);
        extra[flag](opts, value());
    }
  }
  return opts;
}

/** Signals, parent watch, stdin close and max lifetime all stop `srv`. */
export function installLifecycle(name, srv, { exitWithParent, exitOnStdinClose, maxLifetime }) {
  let stopping = false;
  const stop = (why) => {
    if (stopping) return;
    stopping = true;
    if (why) process.stderr.write(`${name}: stopping (${why})\n`);
    const force = setTimeout(() => process.exit(0), 2000);
    force.unref();
    srv.close().then(() => process.exit(0), () => process.exit(0));
  };
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
  process.on('SIGHUP', () => stop('SIGHUP'));
  if (exitWithParent) {
    const parent = process.ppid;
    const t = setInterval(() => {
      let alive = process.ppid === parent;
      if (alive) {
        try {
          process.kill(parent, 0);
        } catch (e) {
          alive = e.code === 'EPERM';
        }
      }
      if (!alive) stop('parent exited');
    }, 500);
    t.unref();
  }
  if (exitOnStdinClose) {
    process.stdin.on('end', () => stop('stdin closed'));
    process.stdin.on('close', () => stop('stdin closed'));
    process.stdin.on('error', () => stop('stdin error'));
    process.stdin.resume();
  }
  if (maxLifetime > 0) {
    const t = setTimeout(() => stop(`max lifetime ${maxLifetime}s reached`), maxLifetime * 1000);
    t.unref();
  }
}

/**
 * When the module at `moduleUrl` is the program itself: parse the flags,
 * start the server, print `<URL_LINE>=<url>` once, and stop it as told.
 */
export function runServerCli(moduleUrl, { name, urlLine, parse, start }) {
  if (!isMain(moduleUrl)) return;
  let opts;
  try {
    opts = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${name}: ${e.message}\n`);
    process.exit(2);
  }
  start(opts).then(
    (srv) => {
      installLifecycle(name, srv, opts);
      process.stdout.write(`${urlLine}=${srv.url}\n`);
    },
    (err) => {
      process.stderr.write(`${name}: failed to start: ${err.message}\n`);
      process.exit(1);
    },
  );
}

function isMain(moduleUrl) {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/** A server's `close()`: stops it and drops its open connections; a second
 * call resolves at once. */
export function closeOnce(server) {
  let closed = false;
  return () => {
    if (closed) return Promise.resolve();
    closed = true;
    return new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  };
}
