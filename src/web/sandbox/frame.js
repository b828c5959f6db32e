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

  addEventListener('message', async (ev) => {
    if (ev.source !== parent || !ev.data || typeof ev.data !== 'object') return;
    const m = ev.data;
    if (m[P.command] === P.preview && typeof m.html === 'string') {
      document.open();
      document.write(m.html);
      document.close();
    } else if (m[P.command] === P.tests && Array.isArray(m.jobs)) {
      const results = [];
      for (const job of m.jobs) results.push(...await runJob(job, String(m.harness), Number(m.limitMs) || 5000));
      post({ [P.event]: P.report, results });
    }
  });
  post({ [P.event]: P.ready });
})();
