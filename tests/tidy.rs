//! Tidy checks over the source tree, run by `cargo test`: every `.rs` file
//! under `src/`, `tests/` and `benches/` opens with `//!` doc lines, and no
//! file under `src/core/` names a browser crate (`web_sys`, `js_sys`,
//! `wasm_bindgen`, `leptos`, `gloo`) in code.
//!
//! Deliberately plain: std file walking and a small comment stripper, no
//! parser. Comments are left out of the crate check (the core's docs say what
//! it does not use); string literals count as code.

use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Crates that exist only in the browser; `src/core` must build without them.
const BROWSER_CRATES: &[&str] = &["web_sys", "js_sys", "wasm_bindgen", "leptos", "gloo"];

#[test]
fn every_rust_file_opens_with_module_docs() {
    let mut missing = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for path in rust_files(&Path::new(ROOT).join(dir)) {
            let text = read(&path);
            if !text.starts_with("//!") {
                missing.push(relative(&path));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these files do not open with `//!` lines (say what the file is and what it deliberately does not do):\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_core_names_no_browser_crate() {
    let mut found = Vec::new();
    for path in rust_files(&Path::new(ROOT).join("src/core")) {
        let code = without_comments(&read(&path));
        for (number, line) in code.lines().enumerate() {
            if let Some(name) = browser_crate_in(line) {
                found.push(format!("{}:{}: names `{name}`", relative(&path), number + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/core must not name a browser crate (move the code to src/web, src/ui or src/widget, behind a port):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_checks_see_code_and_skip_comments() {
    let cases: &[(&str, Option<&str>)] = &[
        ("use leptos::prelude::*;", Some("leptos")),
        ("let w = web_sys::window();", Some("web_sys")),
        ("use gloo_net::http::Request;", Some("gloo")),
        ("#[wasm_bindgen::prelude::wasm_bindgen]", Some("wasm_bindgen")),
        ("let s = \"http://x\"; js_sys::Date::now();", Some("js_sys")),
        ("// use leptos::prelude::*;", None),
        ("//! names `web_sys` in its docs", None),
        ("/// see js_sys", None),
        ("/* wasm_bindgen /* nested */ gloo */ let x = 1;", None),
        ("let c = '\"'; // leptos", None),
        ("fn f<'a>(x: &'a str) {} // gloo", None),
        ("let not_leptos = 1; let sleptos = 2;", None),
    ];
    for (source, expected) in cases {
        let code = without_comments(source);
        let got = code.lines().find_map(browser_crate_in);
        assert_eq!(got, *expected, "source: {source}\ncode seen: {code}");
    }
}

/// Every `.rs` file under `dir`, sorted, so failures read the same each run.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display())).path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(ROOT).unwrap_or(path).display().to_string()
}

/// The first browser crate named on `line`: an identifier equal to a crate
/// name or starting with it and `_` (`gloo_net`, `wasm_bindgen_futures`).
fn browser_crate_in(line: &str) -> Option<&'static str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_')).find_map(|word| {
        BROWSER_CRATES
            .iter()
            .find(|name| word == **name || word.strip_prefix(**name).is_some_and(|rest| rest.starts_with('_')))
            .copied()
    })
}

/// `source` with its comments replaced by spaces (newlines kept, so line
/// numbers stay right). Knows enough of Rust's lexing not to take `//`
/// inside a string, or a quote in a char literal, for something else.
fn without_comments(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&chars, i) {
            // A raw string r"…" or r#"…"#: copied as is up to its closing quote.
            let start = i;
            i += 1;
            let mut hashes = 0;
            while chars.get(i) == Some(&'#') {
                hashes += 1;
                i += 1;
            }
            if chars.get(i) == Some(&'"') {
                i += 1;
                while i < chars.len() && !(chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#'))) {
                    i += 1;
                }
                i = (i + 1 + hashes).min(chars.len());
            }
            out.extend(&chars[start..i]);
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            out.extend(&chars[start..i]);
        } else if c == '\'' {
            // A char literal ('x', '\n', '"') is skipped whole; a lifetime ('a) is not a literal.
            let start = i;
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
            i = i.min(chars.len());
            out.extend(&chars[start..i]);
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}
