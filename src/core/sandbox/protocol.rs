//! The sandbox protocol's names on the Rust side: the two fields and the
//! message kinds the app sends to its frames and hears from them.
//!
//! The one definition is `www/sandbox/protocol.js` (shared by the frame's
//! scripts); these constants name the same strings for `web::sandbox`, and
//! the test below reads that file and checks every name here is there with
//! the same value. This module only names strings; it sends nothing.

/// The field that names a message to a frame (`{kind: PREVIEW, ...}`).
pub const COMMAND: &str = "kind";
/// The field that names a message from a frame (`{tabteam: READY, ...}`).
pub const EVENT: &str = "tabteam";

/// To the host frame: show this document in its sandboxed child.
pub const OPEN: &str = "open";
/// To the sandbox frame (or the preview tab): show this page.
pub const PREVIEW: &str = "preview";
/// To the sandbox frame: run these test files, one worker each.
pub const TESTS: &str = "tests";

/// To the sandbox frame: run Python (its tests, or its program) in a worker.
pub const PYTHON: &str = "python";
/// To the sandbox frame: a line the person typed for the program's `input()`.
pub const STDIN: &str = "stdin";
/// To the preview's bridge: start (`on: true`) or leave "Select" mode.
pub const SELECT: &str = "select";

/// From the host frame: loaded, send it the document to open.
pub const HOST_READY: &str = "host-ready";
/// From the sandbox frame: loaded, ready for a command.
pub const READY: &str = "ready";
/// From the preview's console bridge: a console line.
pub const CONSOLE: &str = "console";
/// From the preview's console bridge: the page fired `load`.
pub const LOADED: &str = "loaded";
/// From the sandbox frame: the test results.
pub const REPORT: &str = "report";
/// From the sandbox frame: what the running Python program did (output,
/// a wait for input, an error, its end).
pub const TERMINAL: &str = "terminal";
/// From the preview tab: loaded, send it the page.
pub const TAB_READY: &str = "tab-ready";

/// From the preview's bridge: the element clicked in "Select" mode
/// (`tag`, `text`, `selector`, `html`).
pub const PICKED: &str = "picked";
/// From the preview's bridge: "Select" mode ended (a pick, or Escape).
pub const SELECT_END: &str = "select-end";

/// Every name above, with the key `protocol.js` gives it.
pub const NAMES: &[(&str, &str)] = &[
    ("command", COMMAND),
    ("event", EVENT),
    ("open", OPEN),
    ("preview", PREVIEW),
    ("tests", TESTS),
    ("python", PYTHON),
    ("stdin", STDIN),
    ("hostReady", HOST_READY),
    ("ready", READY),
    ("console", CONSOLE),
    ("loaded", LOADED),
    ("report", REPORT),
    ("terminal", TERMINAL),
    ("tabReady", TAB_READY),
    ("select", SELECT),
    ("picked", PICKED),
    ("selectEnd", SELECT_END),
];

#[cfg(test)]
mod tests {
    use super::NAMES;

    /// The JSON object of `www/sandbox/protocol.js` (from the `{` after
    /// `Object.freeze(` to the last `}`), as `src/ui/artifacts.js` reads it.
    fn shared() -> serde_json::Map<String, serde_json::Value> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/www/sandbox/protocol.js");
        let text = std::fs::read_to_string(path).expect("www/sandbox/protocol.js is readable");
        let start = text.find("Object.freeze({").expect("an object") + "Object.freeze(".len();
        let object = &text[start..=text.rfind('}').expect("its end")];
        serde_json::from_str(object).expect("protocol.js's object is strict JSON")
    }

    #[test]
    fn every_name_the_rust_side_uses_is_in_protocol_js_with_the_same_string() {
        let shared = shared();
        for (key, value) in NAMES {
            assert_eq!(shared.get(*key).and_then(|v| v.as_str()), Some(*value), "protocol.js's {key}");
        }
    }

    #[test]
    fn protocol_js_names_each_kind_once_per_direction() {
        let shared = shared();
        let mut values: Vec<&str> = shared.values().filter_map(|v| v.as_str()).collect();
        assert_eq!(values.len(), shared.len(), "every value is a string");
        // "diagram" is the only string both a command and an event could
        // have been; the reply is "drawn", so all strings differ.
        values.sort_unstable();
        values.dedup();
        assert_eq!(values.len(), shared.len(), "no two names share a string: {shared:?}");
    }
}
