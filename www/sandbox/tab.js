// Shows the page the opener sends in the sandbox frame (see tab.html):
// the opener sends {kind: preview, html, doc}, `doc` being the sandbox
// frame's document; the host frame gets {kind: open, doc}, and once the
// sandbox frame says ready, {kind: preview, html}.
'use strict';
(() => {
  const P = TABTEAM_SANDBOX;
  const host = document.querySelector('iframe');
  let page = null;
  let hostReady = false;
  let opened = false;
  let frameReady = false;
  const send = () => {
    if (page === null || !hostReady) return;
    const target = host.contentWindow;
    if (!opened) {
      opened = true;
      target.postMessage({ [P.command]: P.open, doc: page.doc, title: "The project's page (sandboxed)" }, location.origin);
    } else if (frameReady) {
      target.postMessage({ [P.command]: P.preview, html: page.html }, location.origin);
    }
  };
  addEventListener('message', (ev) => {
    const m = ev.data;
    if (!m || typeof m !== 'object') return;
    if (ev.source === window.opener && ev.origin === location.origin && m[P.command] === P.preview
        && typeof m.html === 'string' && typeof m.doc === 'string') {
      page = { html: m.html, doc: m.doc };
      send();
    } else if (ev.source === host.contentWindow && ev.origin === location.origin) {
      if (m[P.event] === P.hostReady) {
        hostReady = true;
        send();
      } else if (m[P.event] === P.ready && !frameReady) {
        frameReady = true;
        send();
      }
    }
  });
  // Loaded only now that its first message will be heard.
  host.src = 'host.html';
  if (window.opener) window.opener.postMessage({ [P.event]: P.tabReady }, location.origin);
})();
