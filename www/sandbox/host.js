// The host frame's script (host.html, the app's origin, our code only).
// It shows the document its parent sends in the sandboxed child frame and
// passes messages between the two, unchanged, and nothing else:
//   from the parent (its own origin only): {kind: open, doc, title} sets
//     the child's srcdoc (a new document; the old one and its workers
//     end); any other message goes on to the child;
//   from the child: every message goes on to the parent, to this origin
//     only.
// Sent once at start: {tabteam: host-ready}.
'use strict';
(() => {
  const P = TABTEAM_SANDBOX;
  const child = document.querySelector('iframe');
  addEventListener('message', (ev) => {
    const m = ev.data;
    if (ev.source === parent && ev.origin === location.origin) {
      if (m && typeof m === 'object' && m[P.command] === P.open && typeof m.doc === 'string') {
        if (typeof m.title === 'string') child.title = m.title.slice(0, 200);
        child.srcdoc = m.doc;
      } else {
        child.contentWindow.postMessage(m, '*');
      }
    } else if (ev.source === child.contentWindow) {
      parent.postMessage(m, location.origin);
    }
  });
  parent.postMessage({ [P.event]: P.hostReady }, location.origin);
})();
