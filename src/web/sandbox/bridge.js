(() => {
  // The console bridge, first in the preview's <head>: forwards console
  // output and uncaught errors to the app as text, with the file and line
  // they came from when the browser tells (the script's URL, or "document"
  // for the page itself: the app maps it back to a project file), and says
  // when the page has loaded. Runs inside the sandbox frame (opaque origin),
  // after www/sandbox/protocol.js (TABTEAM_SANDBOX, the message names).
  const P = TABTEAM_SANDBOX;
  const place = (file, line) => {
    if (!file || !(line > 0)) return {};
    return { file: file === document.URL ? 'document' : String(file), line: Number(line) };
  };
  // The first frame of a stack ("at f (URL:12:5)" or "f@URL:12:5") after
  // `skip` frames; data: URLs have no colon after their comma.
  const fromStack = (stack, skip = 0) => {
    const frames = String(stack || '').split('\n').map((l) => /((?:data|blob|https?|about):[^\s()]*?|[^\s()@]+):(\d+):\d+\)?\s*$/.exec(l)).filter(Boolean);
    const frame = frames[skip];
    return frame ? place(frame[1], Number(frame[2])) : {};
  };
  const post = (level, args, where = {}) => {
    const text = args.map((a) => {
      if (typeof a === 'string') return a;
      if (a instanceof Error) return a.stack || String(a);
      try { return JSON.stringify(a); } catch (e) { return String(a); }
    // Long enough for a stack that names scripts by their data: URLs (the
    // app puts the files' paths in their place, then cuts it to 4,000).
    }).join(' ').slice(0, 200000);
    parent.postMessage({ [P.event]: P.console, level, text, ...where }, '*');
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[level].bind(console);
    console[level] = (...args) => {
      // An error logged: where it was made; else where console.error was called.
      let where = {};
      if (level === 'error') {
        const error = args.find((a) => a instanceof Error);
        where = error ? fromStack(error.stack) : fromStack(new Error().stack, 1);
      }
      post(level, args, where);
      original(...args);
    };
  }
  addEventListener('error', (e) => {
    const el = e.target;
    if (el && el !== window && (el.src || el.href)) post('error', ['could not load', el.tagName.toLowerCase(), String(el.src || el.href).slice(0, 200)]);
    else post('uncaught', [e.error || e.message], e.lineno ? place(e.filename, e.lineno) : fromStack(e.error && e.error.stack));
  }, true);
  document.addEventListener('securitypolicyviolation', (e) => post('error', ['blocked by the sandbox:', e.effectiveDirective, String(e.blockedURI).slice(0, 200)]));
  addEventListener('unhandledrejection', (e) => post('uncaught', ['Unhandled promise rejection:', e.reason], fromStack(e.reason && e.reason.stack)));
  addEventListener('load', () => parent.postMessage({ [P.event]: P.loaded }, '*'));
})();
