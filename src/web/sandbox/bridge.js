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
(() => {
  // "Select" mode (the app's {kind: select, on}): hovering outlines the
  // element under the pointer, a click picks it (the page does not see the
  // click) and sends {tabteam: picked, tag, text, selector, html}; Escape
  // or a pick leaves the mode ({tabteam: select-end}). Text only crosses
  // to the app; the app cuts it to size and never renders it as HTML.
  const P = TABTEAM_SANDBOX;
  const MARK = 'data-tabteam-hover';
  let on = false;
  let hovered = null;
  const style = document.createElement('style');
  style.textContent = `[${MARK}]{outline:2px solid #2563eb !important;outline-offset:1px !important;cursor:crosshair !important}`;
  const mark = (el) => {
    if (hovered) hovered.removeAttribute(MARK);
    hovered = el && el !== document.documentElement ? el : null;
    if (hovered) hovered.setAttribute(MARK, '');
  };
  // An id when it has one; else a path of tag.class:nth-of-type(n) from
  // the nearest ancestor with an id (or from body).
  const selectorOf = (el) => {
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
      if (node.id) {
        parts.unshift(`#${CSS.escape(node.id)}`);
        break;
      }
      let part = node.tagName.toLowerCase();
      if (node === document.body) {
        parts.unshift(part);
        break;
      }
      const cls = [...node.classList][0];
      if (cls) part += `.${CSS.escape(cls)}`;
      const same = node.parentElement ? [...node.parentElement.children].filter((c) => c.tagName === node.tagName) : [];
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`;
      parts.unshift(part);
    }
    return parts.join(' > ');
  };
  const leave = (tell) => {
    on = false;
    mark(null);
    style.remove();
    if (tell) parent.postMessage({ [P.event]: P.selectEnd }, '*');
  };
  const swallow = (e) => {
    if (!on) return false;
    e.preventDefault();
    e.stopImmediatePropagation();
    return true;
  };
  addEventListener('mouseover', (e) => { if (on) mark(e.target); }, true);
  addEventListener('mousedown', swallow, true);
  addEventListener('mouseup', swallow, true);
  addEventListener('click', (e) => {
    if (!swallow(e)) return;
    const el = e.target;
    mark(null);
    parent.postMessage({
      [P.event]: P.picked,
      tag: String(el.tagName || ''),
      text: String(el.innerText || el.textContent || '').slice(0, 1000),
      selector: selectorOf(el),
      html: String(el.outerHTML || '').slice(0, 10000),
    }, '*');
    leave(true);
  }, true);
  addEventListener('keydown', (e) => {
    if (on && e.key === 'Escape' && swallow(e)) leave(true);
  }, true);
  addEventListener('message', (ev) => {
    if (ev.source !== parent || !ev.data || ev.data[P.command] !== P.select) return;
    if (ev.data.on) {
      on = true;
      (document.head || document.documentElement).appendChild(style);
    } else {
      leave(false);
    }
  });
})();
