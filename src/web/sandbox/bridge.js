(() => {
  // The console bridge, first in the preview's <head>: forwards console
  // output and uncaught errors to the app as text, and says when the page
  // has loaded. Runs inside the sandbox frame (opaque origin).
  const post = (level, args) => {
    const text = args.map((a) => {
      if (typeof a === 'string') return a;
      if (a instanceof Error) return a.stack || String(a);
      try { return JSON.stringify(a); } catch (e) { return String(a); }
    }).join(' ').slice(0, 4000);
    parent.postMessage({ tabteam: 'console', level, text }, '*');
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[level].bind(console);
    console[level] = (...args) => { post(level, args); original(...args); };
  }
  addEventListener('error', (e) => {
    const el = e.target;
    if (el && el !== window && (el.src || el.href)) post('error', ['could not load', el.tagName.toLowerCase(), String(el.src || el.href).slice(0, 200)]);
    else post('uncaught', [e.error || e.message]);
  }, true);
  document.addEventListener('securitypolicyviolation', (e) => post('error', ['blocked by the sandbox:', e.effectiveDirective, String(e.blockedURI).slice(0, 200)]));
  addEventListener('unhandledrejection', (e) => post('uncaught', ['Unhandled promise rejection:', e.reason]));
  addEventListener('load', () => parent.postMessage({ tabteam: 'loaded' }, '*'));
})();
