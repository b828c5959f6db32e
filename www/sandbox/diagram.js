// The diagram frame's script. src/ui/artifacts.js builds the frame's
// document (its policy, mermaid and this, after protocol.js, all inline)
// and the host frame (host.html) shows it in <iframe sandbox=
// "allow-scripts" srcdoc>: an opaque origin, and nothing from the network.
// mermaid parses and lays out the model's diagram text here, in this
// frame's own document, and the SVG goes back to the app as text; the app
// cleans it with its allowlist before anything of it enters its page.
// Nothing here is trusted by the app: it only makes mermaid's work happen
// away from the app's document.
//
// Messages (names in protocol.js), from the parent only (the host, which
// relays the app's):
//   {kind: diagram, id, source, theme: 'dark' | 'default'} draws one
//   diagram; answered {tabteam: drawn, id, svg} or
//   {tabteam: drawn, id, error} (mermaid's reason, one line).
// Sent once at start: {tabteam: ready}, or {tabteam: failed} when
// mermaid did not load.
'use strict';
(() => {
  const P = TABTEAM_SANDBOX;
  const post = (data) => parent.postMessage(data, '*');
  if (typeof mermaid === 'undefined') {
    post({ [P.event]: P.failed });
    return;
  }
  const OPTIONS = {
    startOnLoad: false, securityLevel: 'strict', logLevel: 'fatal', suppressErrorRendering: true,
    htmlLabels: false, flowchart: { htmlLabels: false }, class: { htmlLabels: false },
    // Keys a diagram's own %%{init}%% directive may not change: mermaid's
    // defaults, plus HTML labels, page CSS and the label sanitizer's rules.
    secure: ['secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'suppressErrorRendering', 'maxEdges', 'htmlLabels', 'themeCSS', 'dompurifyConfig'],
  };
  let theme = null;
  // One diagram at a time: the theme is global to mermaid.
  let queue = Promise.resolve();

  async function draw(id, source, wanted) {
    if (wanted !== theme) {
      mermaid.initialize({ ...OPTIONS, theme: wanted });
      theme = wanted;
    }
    try {
      await mermaid.parse(source);
      const { svg } = await mermaid.render(id, source);
      post({ [P.event]: P.drawn, id, svg });
    } catch (err) {
      // A failed render may leave its scratch elements behind.
      document.getElementById(id)?.remove();
      document.getElementById(`d${id}`)?.remove();
      post({ [P.event]: P.drawn, id, error: String(err?.message ?? err).split('\n')[0].slice(0, 160) });
    }
  }

  addEventListener('message', (ev) => {
    const m = ev.data;
    if (ev.source !== parent || !m || m[P.command] !== P.diagram) return;
    if (typeof m.id !== 'string' || !/^[a-z][a-z0-9-]{0,63}$/.test(m.id) || typeof m.source !== 'string') return;
    const wanted = m.theme === 'dark' ? 'dark' : 'default';
    queue = queue.then(() => draw(m.id, m.source, wanted));
  });
  post({ [P.event]: P.ready });
})();
