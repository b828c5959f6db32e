// Forwards the page the opener sends to the sandbox frame (see tab.html).
'use strict';
(() => {
  const frame = document.querySelector('iframe');
  let html = null;
  let frameReady = false;
  const send = () => {
    if (html !== null && frameReady) frame.contentWindow.postMessage({ kind: 'preview', html }, '*');
  };
  addEventListener('message', (ev) => {
    const m = ev.data;
    if (!m || typeof m !== 'object') return;
    if (ev.source === window.opener && ev.origin === location.origin && m.kind === 'preview' && typeof m.html === 'string') {
      html = m.html;
      send();
    } else if (ev.source === frame.contentWindow && m.tabteam === 'ready' && !frameReady) {
      frameReady = true;
      send();
    }
  });
  if (window.opener) window.opener.postMessage({ tabteam: 'tab-ready' }, location.origin);
})();
