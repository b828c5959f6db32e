// The sandbox frame's script. src/web/sandbox/mod.rs builds the frame's
// document around it (after www/sandbox/protocol.js, its policy in a
// <meta>) and the host frame (www/sandbox/host.js) shows that document in
// <iframe sandbox="allow-scripts" srcdoc>, so this runs in an opaque
// origin: no access to the app's storage, cookies, key or DOM, and the
// policy lets the project's code run (inline scripts, data:/blob: modules)
// but reach nothing: no network at all.
// Messages: from the parent (the host, which relays the app's) only.
//   {kind: preview, html}: replace this document with the project's page.
//   {kind: tests, jobs: [{file, url}], harness, limitMs}: run each test
//     file in its own worker; a worker past the limit is terminated.
//     Answers {tabteam: report, results: [...]}.
//   {kind: python, mode: tests|program, worker, runtime, ...}: run Python
//     in one worker (python_worker.js; Pyodide's bytes come with the
//     message). Tests answer {tabteam: report, results, loadMs}; a program
//     sends each worker message on as {tabteam: terminal, ...}. Pyodide's
//     start has loadMs; then tests have limitMs in all, and a program
//     limitMs of computing between two waits for input.
//   {kind: stdin, line}: a line for the running program's input().
// Sent once at start: {tabteam: ready}.
'use strict';
(() => {
  const P = TABTEAM_SANDBOX;
  const post = (data) => parent.postMessage(data, '*');
  const text = (e) => String((e && (e.stack || e.message)) || e).slice(0, 4000);

  function runJob(job, harness, limitMs) {
    return new Promise((resolve) => {
      const source = `${harness}\nrunFile(${JSON.stringify(job.file)}, ${JSON.stringify(job.url)});\n`;
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      let worker;
      let done = false;
      const finish = (results) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (worker) worker.terminate();
        URL.revokeObjectURL(url);
        resolve(results);
      };
      const timer = setTimeout(() => finish([{ file: job.file, name: '(time limit)', outcome: 'timed_out',
        message: `stopped after ${limitMs / 1000} s: the tests did not finish (an endless loop, or a promise that never settles)` }]), limitMs);
      try {
        worker = new Worker(url);
      } catch (e) {
        finish([{ file: job.file, name: '(starting the worker)', outcome: 'error', message: text(e) }]);
        return;
      }
      worker.onmessage = (ev) => finish(Array.isArray(ev.data) ? ev.data : []);
      worker.onerror = (ev) => {
        ev.preventDefault();
        finish([{ file: job.file, name: '(uncaught error)', outcome: 'error', message: String(ev.message || 'the test worker failed') }]);
      };
    });
  }

  let python = null;

  function runPython(m) {
    const url = URL.createObjectURL(new Blob([String(m.worker)], { type: 'text/javascript' }));
    // A classic worker: Chromium does not start a module worker from a
    // blob: URL of an opaque origin (python_worker.js works around
    // Pyodide's refusal of classic workers).
    const worker = new Worker(url);
    python = worker;
    const program = m.mode === 'program';
    const results = [];
    let timer = null;
    let loadMs = null;
    let done = false;
    const finish = (extra) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
      if (python === worker) python = null;
      if (program) post({ [P.event]: P.terminal, done: true, ...extra });
      else post({ [P.event]: P.report, results: extra && extra.result ? [...results, extra.result] : results, loadMs });
    };
    const limit = (ms, why) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const message = `stopped after ${ms / 1000} s: ${why}`;
        // The file that was running: the last one with a result, or the first.
        const file = results.length ? results[results.length - 1].file : (m.paths || ['(python)'])[0];
        finish(program ? { timedOut: message } : { result: { file, name: '(time limit)', outcome: 'timed_out', message } });
      }, ms);
    };
    limit(Number(m.loadMs) || 60000, 'Python did not start in time');
    worker.onmessage = (ev) => {
      const d = ev.data || {};
      if (d.loaded) {
        loadMs = d.ms;
        limit(Number(m.limitMs) || 5000, program ? 'the program computed without pausing for input (an endless loop?)' : 'the tests did not finish (an endless loop?)');
      }
      if (d.waiting === true) clearTimeout(timer);
      if (d.waiting === false) limit(Number(m.limitMs) || 5000, 'the program computed without pausing for input (an endless loop?)');
      if (!program && typeof d.file === 'string' && typeof d.outcome === 'string') results.push(d);
      if (d.failed) {
        finish(program ? { failed: d.failed } : { result: { file: (m.paths || [])[0] || '(python)', name: '(starting Python)', outcome: 'error', message: String(d.failed) } });
        return;
      }
      if (d.done) {
        finish();
        return;
      }
      if (program) post({ [P.event]: P.terminal, ...d });
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      finish(program ? { failed: String(ev.message || 'the Python worker failed') } : { result: { file: (m.paths || [])[0] || '(python)', name: '(uncaught error)', outcome: 'error', message: String(ev.message || 'the Python worker failed') } });
    };
    const r = m.runtime || {};
    const job = { mode: m.mode, runtime: r, files: m.files, runner: String(m.runner), paths: m.paths, entry: m.entry, stdin: m.stdin, display: m.display };
    worker.postMessage(job, [r.core, r.asm, r.wasm, r.stdlib].filter((b) => b instanceof ArrayBuffer));
  }

  addEventListener('message', async (ev) => {
    if (ev.source !== parent || !ev.data || typeof ev.data !== 'object') return;
    const m = ev.data;
    if (m[P.command] === P.preview && typeof m.html === 'string') {
      document.open();
      document.write(m.html);
      document.close();
    } else if (m[P.command] === P.python && typeof m.worker === 'string') {
      runPython(m);
    } else if (m[P.command] === P.stdin && python) {
      python.postMessage({ line: m.line === null ? null : String(m.line) });
    } else if (m[P.command] === P.tests && Array.isArray(m.jobs)) {
      const results = [];
      for (const job of m.jobs) results.push(...await runJob(job, String(m.harness), Number(m.limitMs) || 5000));
      post({ [P.event]: P.report, results });
    }
  });
  post({ [P.event]: P.ready });
})();
