//! Tidy checks over the source tree, run by `cargo test`: every `.rs` file
//! under `src/`, `tests/` and `benches/` opens with `//!` doc lines, and no
//! file under `src/core/` names a browser crate (`web_sys`, `js_sys`,
//! `wasm_bindgen`, `leptos`, `gloo`) in code.
//!
//! Deliberately plain: std file walking and a small comment stripper, no
//! parser. Comments are left out of the crate check (the core's docs say what
//! it does not use); string literals count as code.

use std::collections::{BTreeMap, BTreeSet};
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

#[test]
fn the_import_graph_reads_paths_as_rust_does() {
    let module = |path: &str| path.split('/').map(String::from).collect::<Vec<_>>();
    let cases: &[(&str, &str, &[&str])] = &[
        ("use super::role::Role;", "team", &["role"]),
        ("use super::{gate::LlmGate, message::{Message, ALL}, self};", "action", &["gate", "message"]),
        ("use crate::core::llm::Llm; let x = super::plan::Task::new();", "store/writer", &["llm", "store"]),
        ("use super::Batch; use super::super::files::ProjectFiles;", "store/writer", &["store", "files"]),
        ("pub(super) fn f() {} // use super::role::Role;", "team", &[]),
        ("let s = \"super::role\"; use super::events::TeamEvent;", "team", &["events"]),
        ("mod inner { use super::super::post::PostOffice; use super::*; }", "team", &["post", "team"]),
        ("#[cfg(test)]\nmod tests { use super::*; use crate::core::team::Team; }", "memory", &[]),
    ];
    for (source, at, want) in cases {
        let got = imported_modules(&code_only(source), &module(at));
        assert_eq!(got, *want, "source: {source} (in {at})");
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
    lex(source, true)
}

/// `source` as [`without_comments`] gives it, with the contents of string
/// and char literals blanked too (a `{` in a string is no brace).
fn code_only(source: &str) -> String {
    lex(source, false)
}

/// Comments blanked; literals kept when `keep_literals`, else blanked
/// (their quotes and newlines stay).
fn lex(source: &str, keep_literals: bool) -> String {
    let literal = |out: &mut String, text: &[char]| {
        if keep_literals {
            out.extend(text);
        } else {
            out.extend(text.iter().map(|c| if *c == '\n' { '\n' } else { ' ' }));
        }
    };
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
            literal(&mut out, &chars[start..i]);
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
            literal(&mut out, &chars[start..i]);
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
            literal(&mut out, &chars[start..i]);
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

/// The one import cycle among the core's modules that is there by design:
/// write-through (see ARCHITECTURE.md, "Import cycles"): a role captures
/// itself into the `checkpoint`s its `world` carries, and the checkpoint
/// reads the role's state into a `snapshot`. Sorted.
const ALLOWED_CYCLE: &[&str] = &["checkpoint", "role", "snapshot", "world"];

/// The core's modules (its files and folders, `src/core/x.rs` or
/// `src/core/x/`) and which of them each names through `use super::…`,
/// `crate::core::…` or `super::…::` paths; no cycle but write-through's.
#[test]
fn the_core_has_no_import_cycle_but_write_through() {
    let graph = core_import_graph(&Path::new(ROOT).join("src/core"));
    let cycles: Vec<Vec<String>> = strongly_connected(&graph).into_iter().filter(|c| c.len() > 1).collect();
    let unexpected: Vec<&Vec<String>> = cycles.iter().filter(|c| *c != ALLOWED_CYCLE).collect();
    assert!(
        unexpected.is_empty(),
        "import cycles among src/core's modules (each group imports itself round about; \
         move the shared type to a module of its own):\n  {}",
        unexpected.iter().map(|c| c.join(", ")).collect::<Vec<_>>().join("\n  ")
    );
}

/// Module name -> the core modules it names (itself left out).
fn core_import_graph(core: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let files = rust_files(core);
    let tests: Vec<PathBuf> = files.iter().flat_map(|path| test_only_children(path, &without_comments(&read(path)))).collect();
    for path in files {
        if tests.iter().any(|test| path.starts_with(test)) {
            continue;
        }
        let rel = path.strip_prefix(core).expect("under src/core");
        let mut module: Vec<String> = rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let Some(top) = module.first().cloned() else { continue }; // src/core/mod.rs: the root
        let names = graph.entry(top.clone()).or_default();
        for target in imported_modules(&code_only(&read(&path)), &module) {
            if target != top {
                names.insert(target);
            }
        }
    }
    graph
}

/// The files of the modules that the file at `path` (its `text`) declares
/// test-only (`#[cfg(test)] mod x;`, with or without a `#[path]`): a
/// module's tests import what the module is built on and may sit above it.
fn test_only_children(path: &Path, text: &str) -> Vec<PathBuf> {
    let is_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
    let dir = path.parent().expect("a file has a folder");
    let child_dir = if is_mod_rs { dir.to_path_buf() } else { dir.join(path.file_stem().expect("a file stem")) };
    let mut found = Vec::new();
    for (at, _) in text.match_indices("#[cfg(test)]") {
        let mut rest = text[at + "#[cfg(test)]".len()..].trim_start();
        let mut mounted = None;
        while rest.starts_with("#[") {
            let end = rest.find(']').map_or(rest.len(), |e| e + 1);
            if let Some(value) = rest[..end].strip_prefix("#[path").and_then(|a| a.split('"').nth(1)) {
                mounted = Some(dir.join(value));
            }
            rest = rest[end..].trim_start();
        }
        let rest = rest.strip_prefix("pub(crate) ").or_else(|| rest.strip_prefix("pub ")).unwrap_or(rest).trim_start();
        let Some(declared) = rest.strip_prefix("mod ") else { continue };
        let name: String = declared.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !declared.trim_start()[name.len()..].trim_start().starts_with(';') {
            continue; // inline: skipped by `imported_modules`
        }
        found.push(mounted.unwrap_or_else(|| {
            let file = child_dir.join(format!("{name}.rs"));
            if file.exists() { file } else { child_dir.join(name) }
        }));
    }
    found
}

/// The core modules `code` (of the module at `module`, a path under
/// `src/core`) names by `super::` or `crate::core::` paths. Inline `mod x {`
/// blocks are followed, so a test module's `use super::*` is its own file.
fn imported_modules(code: &str, module: &[String]) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let at = |i: usize, word: &str| word.chars().enumerate().all(|(k, w)| chars.get(i + k) == Some(&w));
    let ident_at = |i: usize| chars[i..].iter().take_while(|c| is_ident(**c)).collect::<String>();
    let skip_space = |mut i: usize| {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        i
    };
    let mut found = Vec::new();
    // Inline modules open here: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    // Inside a `#[cfg(test)] mod x { … }` from this depth: its paths are the tests'.
    let mut in_test: Option<usize> = None;
    let mut test_attribute = false;
    let mut depth = 0;
    let mut i = 0;
    while i < chars.len() {
        let boundary = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':');
        if at(i, "#[cfg(test)]") {
            test_attribute = true;
            i += "#[cfg(test)]".len();
            continue;
        }
        if chars[i] == ';' {
            test_attribute = false;
        }
        if chars[i] == '{' {
            depth += 1;
        } else if chars[i] == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            if in_test == Some(depth) {
                in_test = None;
            }
            depth -= 1;
        } else if boundary && at(i, "mod ") {
            let name_at = skip_space(i + 4);
            let name = ident_at(name_at);
            let after = skip_space(name_at + name.len());
            if !name.is_empty() && chars.get(after) == Some(&'{') {
                inline.push((name, depth + 1));
                if test_attribute && in_test.is_none() {
                    in_test = Some(depth + 1);
                }
            }
            test_attribute = false;
        } else if boundary && (at(i, "super::") || at(i, "crate::core::")) {
            let mut base: Vec<String> = module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
            let mut j = i;
            if at(j, "crate::core::") {
                base.clear();
                j += "crate::core::".len();
            }
            while at(j, "super::") {
                base.pop();
                j += "super::".len();
            }
            let j = skip_space(j);
            if in_test.is_some() {
                // A test's import: not part of the layering.
            } else if let Some(top) = base.first() {
                found.push(top.clone());
            } else if chars.get(j) == Some(&'{') {
                // `use super::{a::X, b}`: the first name of each item.
                let (mut k, mut level, mut item_start) = (j + 1, 1, true);
                while k < chars.len() && level > 0 {
                    match chars[k] {
                        '{' => level += 1,
                        '}' => level -= 1,
                        ',' if level == 1 => item_start = true,
                        c if is_ident(c) && item_start && level == 1 => {
                            let name = ident_at(k);
                            k += name.len() - 1;
                            if name != "self" {
                                found.push(name);
                            }
                            item_start = false;
                        }
                        _ => {}
                    }
                    k += 1;
                }
            } else {
                let name = ident_at(j);
                if !name.is_empty() && name != "self" {
                    found.push(name);
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

/// The strongly connected groups of `graph` (each sorted), in name order:
/// nodes that reach each other. Plain reachability: the core has tens of
/// modules.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut pending = vec![from.clone()];
        while let Some(node) = pending.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    pending.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|n| (n, reach(n))).collect();
    let mut placed = BTreeSet::new();
    let mut groups = Vec::new();
    for node in graph.keys() {
        if placed.contains(node) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|other| *other == node || (reaches[node].contains(*other) && reaches[*other].contains(node)))
            .cloned()
            .collect();
        placed.extend(group.iter().cloned());
        groups.push(group);
    }
    groups
}
