// The sandbox protocol: every message that crosses a frame boundary, named
// once. Shared by the frame's scripts: the host (host.js) and the tab
// (tab.js) load this file; the sandbox frame's own script, the console
// bridge (src/web/sandbox/frame.js, bridge.js) and the diagram frame
// (diagram.js) get it inlined before them; the app's JavaScript
// (src/ui/artifacts.js) reads the object below as JSON. The app's Rust side
// names the same strings in src/core/sandbox/protocol.rs, and a native test
// there checks the two agree.
//
// A message to a frame is {kind: <a command>, ...}; a message from a frame
// is {tabteam: <an event>, ...}. Keep the object strict JSON (double
// quotes, no trailing comma, no comments inside): it is parsed as JSON.
var TABTEAM_SANDBOX = Object.freeze({
  "command": "kind",
  "event": "tabteam",
  "open": "open",
  "preview": "preview",
  "tests": "tests",
  "python": "python",
  "stdin": "stdin",
  "diagram": "diagram",
  "hostReady": "host-ready",
  "ready": "ready",
  "failed": "failed",
  "console": "console",
  "loaded": "loaded",
  "report": "report",
  "terminal": "terminal",
  "drawn": "drawn",
  "tabReady": "tab-ready",
  "select": "select",
  "picked": "picked",
  "selectEnd": "select-end"
});
