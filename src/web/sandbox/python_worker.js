// The Python worker: a classic script the sandbox frame (frame.js) starts
// from a blob: URL, inside its opaque origin and its no-network policy.
// Its first message brings everything: Pyodide's files as bytes (the page
// read them from the site, src/web/sandbox/python.js; nothing here fetches:
// `fetch` answers only those bytes), the project's files, the runner
// (python_runner.py) and what to do:
//   {mode: 'tests', paths}    posts {result: json} per test, then {done}
//   {mode: 'program', entry}  posts {out: text, stream} as the program
//     writes, {waiting} when input() waits for a line, {error, file, line}
//     for an uncaught error, then {done}
// Later messages: {line: text} (a line for input(); null is end of input).
// Before the project runs it posts {loaded, ms}. The frame terminates this
// worker at its time limit or on Stop; nothing outlives it.
// Deliberately not: any network, any package beyond the standard library.
'use strict';
// Pyodide refuses a classic worker (it tries importScripts); Chromium starts
// no module worker from an opaque origin's blob: URL. Without importScripts
// this worker is neither, and Pyodide loads as modules through import()
// of data: URLs (blob: module URLs fail the same way).
self.importScripts = undefined;
const BASE = 'https://pyodide.invalid/';
const lines = [];
let waiting = null;

function readLine() {
  if (lines.length) return Promise.resolve(lines.shift());
  postMessage({ waiting: true });
  return new Promise((resolve) => { waiting = resolve; });
}

async function start(m) {
  const started = performance.now();
  const runtime = m.runtime;
  const served = new Map([
    [`${BASE}pyodide.asm.wasm`, [runtime.wasm, 'application/wasm']],
    [`${BASE}python_stdlib.zip`, [runtime.stdlib, 'application/zip']],
  ]);
  self.fetch = async (url) => {
    const hit = served.get(String(url));
    if (!hit) throw new TypeError(`the sandbox has no network (${String(url).slice(0, 100)})`);
    return new Response(hit[0], { headers: { 'content-type': hit[1] } });
  };
  const moduleUrl = (bytes) => new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(new Blob([bytes], { type: 'text/javascript' }));
  });
  const { loadPyodide } = await import(await moduleUrl(runtime.core));
  const { default: createPyodideModule } = await import(await moduleUrl(runtime.asm));
  const imported = performance.now();
  const decoder = { out: new TextDecoder(), err: new TextDecoder() };
  const py = await loadPyodide({
    indexURL: BASE,
    createPyodideModule,
    lockFileContents: runtime.lock,
    stdLibURL: `${BASE}python_stdlib.zip`,
    checkAPIVersion: true,
  });
  const program = m.mode === 'program';
  for (const stream of ['out', 'err']) {
    const write = (bytes) => {
      if (program) postMessage({ out: decoder[stream].decode(bytes, { stream: true }), stream });
      return bytes.length;
    };
    (stream === 'out' ? py.setStdout : py.setStderr).call(py, { write, isatty: true });
  }
  py.FS.mkdirTree('/home/pyodide/project');
  py.FS.chdir('/home/pyodide/project');
  for (const [path, text] of Object.entries(m.files)) {
    const dir = path.split('/').slice(0, -1).join('/');
    if (dir) py.FS.mkdirTree(dir);
    py.FS.writeFile(path, text);
  }
  py.FS.writeFile('/home/pyodide/_tabteam_runner.py', m.runner);
  postMessage({ loaded: true, ms: Math.round(performance.now() - started), importMs: Math.round(imported - started) });
  const post = (json) => postMessage(JSON.parse(json));
  py.globals.set('_tabteam_post', post);
  py.globals.set('_tabteam_read_line', readLine);
  py.globals.set('_tabteam_stdin', m.stdin || []);
  py.globals.set('_tabteam_display', m.display || []);
  py.globals.set('_tabteam_job', m.mode === 'program' ? m.entry : m.paths);
  const prelude = `
import sys
sys.path.insert(0, '/home/pyodide')
import _tabteam_runner as runner
runner.DISPLAY_MODULES = tuple(_tabteam_display)
`;
  py.runPython(prelude);
  if (program) {
    // input() waits for the person's line: with JavaScript Promise
    // Integration (run_sync), Python pauses on the promise; without it
    // (a browser that lacks JSPI), the lines typed before Run are all there is.
    await py.runPythonAsync(`
import builtins, sys
from pyodide.ffi import can_run_sync, run_sync
_given = list(_tabteam_stdin)
def _input(prompt=""):
    sys.stdout.write(str(prompt))
    sys.stdout.flush()
    if can_run_sync():
        line = run_sync(_tabteam_read_line())
    elif _given:
        line = _given.pop(0)
    else:
        raise EOFError("this browser cannot pause Python for input(): type the input lines first, then Run")
    if line is None:
        raise EOFError("the input ended")
    return line
builtins.input = _input
runner.run_program(_tabteam_job, _tabteam_post)
sys.stdout.flush()
sys.stderr.flush()
`);
  } else {
    py.runPython('runner.run_tests(list(_tabteam_job), _tabteam_post)');
  }
  postMessage({ done: true });
}

self.onmessage = (ev) => {
  const m = ev.data;
  if (m && m.mode) {
    start(m).catch((e) => {
      postMessage({ failed: String((e && (e.message || e)) || 'Python did not start').slice(0, 2000) });
    });
  } else if (m && 'line' in m) {
    const line = m.line === null ? null : String(m.line);
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      postMessage({ waiting: false });
      resolve(line);
    } else {
      lines.push(line);
    }
  }
};
