//! The bundling rules, the `Sandbox.*` commands over a fake sandbox, and
//! how failures reach the engineer.

use std::rc::Rc;

use serde_json::json;

use super::bundle::{entry_html, module_url, preview_document, test_files};
use super::fake::FakeSandbox;
use super::{base64, register_sandbox_commands, FileMap, HasSandbox, NoSandbox, Outcome, Sandbox, SandboxRules, TestReport, TestResult};
use crate::core::commands::{Command, Registry};
use crate::core::files::{HasFiles, ProjectFiles};
use crate::core::sandbox::ConsoleLine;

fn files(list: &[(&str, &str)]) -> FileMap {
    list.iter().map(|(p, c)| (p.to_string(), c.to_string())).collect()
}

fn js(source: &str) -> String {
    format!("data:text/javascript;charset=utf-8;base64,{}", base64::encode(source.as_bytes()))
}

fn css(source: &str) -> String {
    format!("data:text/css;charset=utf-8;base64,{}", base64::encode(source.as_bytes()))
}

const GAME: &str = "export function slide(row) { return row; }\n";
const PRELUDE: &str = "<script>/*bridge*/</script>";

#[test]
fn the_preview_inlines_scripts_styles_and_module_graphs() {
    let main = "import { slide } from './lib/game.js';\n// import './nope.js' in a comment stays\nconsole.log(slide([2]));\n";
    let project = files(&[
        ("index.html", "<!doctype html>\n<html><head><title>2048</title><link rel=\"stylesheet\" href=\"style.css\"></head>\n<body><script type=module src='main.js'></script><script src=\"https://example.com/x.js\"></script><script src=old.js></script></body></html>"),
        ("style.css", "body { color: red }"),
        ("main.js", main),
        ("lib/game.js", GAME),
        ("old.js", "var x = '</script>';"),
    ]);
    let mut project = project;
    let page = project["index.html"].replace("</body>", "<script>if (a <b && c > 'd') document.write('<script src=old.js>')</script><style>a<b{}</style></body>");
    project.insert("index.html".into(), page);
    let doc = preview_document(&project, PRELUDE).unwrap();
    assert_eq!(doc.entry, "index.html");
    let main_url = js(&main.replace("./lib/game.js", &js(GAME)));
    let expected = format!(
        "<!doctype html>\n<html><head>{PRELUDE}<title>2048</title><link rel=\"stylesheet\" href=\"{}\"></head>\n<body><script type=module src=\"{main_url}\"></script><script src=\"https://example.com/x.js\"></script><script src=\"{}\"></script><script>if (a <b && c > 'd') document.write('<script src=old.js>')</script><style>a<b{{}}</style></body></html>",
        css("body { color: red }"),
        js("var x = '</script>';"),
    );
    assert_eq!(doc.html, expected);
    assert_eq!(doc.included, ["style.css", "main.js", "lib/game.js", "old.js"]);
    assert!(doc.missing.is_empty(), "{:?}", doc.missing);
}

#[test]
fn an_error_place_in_the_frame_maps_back_to_the_project_file_and_line() {
    use super::bundle::DOCUMENT;
    use super::SourceRef;
    let main = "import { slide } from './lib/game.js';\nslide(null.x);\n";
    let project = files(&[
        ("index.html", "<!doctype html>\n<html><head>\n<title>t</title></head>\n<body><script type=module src=main.js></script><script src=old.js></script>\n<script>\nboom();\n</script></body></html>"),
        ("main.js", main),
        ("lib/game.js", GAME),
        ("old.js", "var x = 1;\nthrow new Error('old');\n"),
    ]);
    // A prelude of three lines, placed after <head> on line 2.
    let doc = preview_document(&project, "<script>\n/*bridge*/\n\n</script>").unwrap();
    let at = |path: &str, line: u32| Some(SourceRef { path: path.into(), line });
    // Scripts by their data: URLs, classic and module alike, nested imports too.
    assert_eq!(doc.source_of(&js("var x = 1;\nthrow new Error('old');\n"), 2), at("old.js", 2));
    assert_eq!(doc.source_of(&js(&main.replace("./lib/game.js", &js(GAME))), 2), at("main.js", 2));
    assert_eq!(doc.source_of(&js(GAME), 1), at("lib/game.js", 1));
    // The page itself: its own lines, the prelude's taken out.
    let boom = doc.html.lines().position(|l| l == "boom();").unwrap() as u32 + 1;
    assert_eq!(boom, 9, "line 6 of index.html, 3 lines down");
    assert_eq!(doc.source_of(DOCUMENT, boom), at("index.html", 6));
    assert_eq!(doc.source_of(DOCUMENT, 1), at("index.html", 1), "before the prelude");
    assert_eq!(doc.source_of(DOCUMENT, 3), None, "the prelude's own lines are no project file");
    assert_eq!(doc.source_of(DOCUMENT, 5), at("index.html", 2), "the rest of the line the prelude went into");
    // Anything else is no file of the project.
    // Stacks read with paths, not base64.
    let stack = format!("Error: old\n    at {}:2:7\n    at x ({}:1:1)\n    at y ({}:4:2)", js("var x = 1;\nthrow new Error('old');\n"), js(GAME), js("unknown"));
    assert_eq!(doc.readable(&stack), "Error: old\n    at old.js:2:7\n    at x (lib/game.js:1:1)\n    at y (data:…:4:2)");
    let other = js("other");
    for (url, line) in [("https://example.com/x.js", 3u32), ("blob:null/1234", 1), (other.as_str(), 1), (DOCUMENT, 0)] {
        assert_eq!(doc.source_of(url, line), None, "{url}:{line}");
    }
}

#[test]
fn inline_modules_import_project_files_too() {
    let project = files(&[
        ("index.html", "<p>x</p><script type=\"module\">\nimport { slide } from './lib/game.js';\nslide([]);\n</script><script>import('./lib/game.js')</script>"),
        ("lib/game.js", GAME),
    ]);
    let doc = preview_document(&project, "").unwrap();
    assert_eq!(
        doc.html,
        format!("<p>x</p><script type=\"module\">\nimport {{ slide }} from '{}';\nslide([]);\n</script><script>import('./lib/game.js')</script>", js(GAME))
    );
    assert_eq!(doc.included, ["lib/game.js"]);
}

#[test]
fn missing_files_and_cycles_are_reported_not_hidden() {
    let project = files(&[
        ("index.html", "<script src=gone.js></script><script type=module src=a.js></script>"),
        ("a.js", "import './b.js'; import '../up.js'; import \"./none.js\";"),
        ("b.js", "import { a } from './a.js';"),
    ]);
    let doc = preview_document(&project, PRELUDE).unwrap();
    assert!(doc.html.starts_with(PRELUDE), "no head: the prelude goes first");
    assert!(doc.missing.iter().any(|m| m == "gone.js"), "{:?}", doc.missing);
    assert!(doc.missing.iter().any(|m| m.contains("cycle") && m.contains("a.js → b.js → a.js")), "{:?}", doc.missing);
    let error = module_url(&project, "b.js").unwrap_err().to_string();
    assert!(error.contains("b.js → a.js → b.js"), "{error}");
    let ok = files(&[("a.js", "import x from './none.js'; export default 1;")]);
    assert_eq!(module_url(&ok, "a.js").unwrap(), js("import x from './none.js'; export default 1;"), "unknown imports stay as written");
}

#[test]
fn the_entry_is_the_shallowest_index_html() {
    assert_eq!(entry_html(&files(&[("web/index.html", ""), ("about.html", ""), ("index.html", "")])), Some("index.html"));
    assert_eq!(entry_html(&files(&[("web/index.html", ""), ("about.html", "")])), Some("about.html"));
    assert_eq!(entry_html(&files(&[("web/index.html", ""), ("web/a.html", "")])), Some("web/index.html"));
    let error = preview_document(&files(&[("game.js", "")]), "").unwrap_err().to_string();
    assert_eq!(error, "the project has no HTML file to preview; existing files: game.js");
}

#[test]
fn which_files_are_tests() {
    let project = files(&[
        ("game.js", ""),
        ("game.test.js", ""),
        ("tests/board.js", ""),
        ("tests/readme.md", ""),
        ("src/ui.spec.mjs", ""),
        ("board.py", ""),
        ("test_board.py", ""),
        ("tests/__init__.py", ""),
    ]);
    assert_eq!(test_files(&project, None).unwrap(), ["game.test.js", "src/ui.spec.mjs", "test_board.py", "tests/board.js"]);
    assert_eq!(test_files(&project, Some("board.py")).unwrap(), ["board.py"], "a named Python file runs too");
    assert_eq!(test_files(&project, Some("tests/")).unwrap(), ["tests/board.js"]);
    assert_eq!(test_files(&project, Some("game.js")).unwrap(), ["game.js"], "a named file runs even without the suffix");
    let error = test_files(&project, Some("docs")).unwrap_err().to_string();
    assert!(error.starts_with("no test files under docs"), "{error}");
    assert!(test_files(&project, Some("tests/readme.md")).unwrap_err().to_string().contains("not a JavaScript or Python file"));
    let python_only = files(&[("game.py", ""), ("main.py", "")]);
    assert_eq!(
        test_files(&python_only, None).unwrap_err().to_string(),
        "no test files (a test file ends in .test.js or .test.ts, or lives under tests/; a Python test file is test_*.py or *_test.py); JavaScript files: none; Python files: game.py, main.py"
    );
}

#[test]
fn report_texts() {
    let report = TestReport {
        results: vec![
            TestResult::new("tests/a.test.js", "slides", Outcome::Passed, ""),
            TestResult::new("tests/a.test.js", "merges", Outcome::Failed, "expected 4,0,0,0\n   got 2,2,0,0"),
            TestResult::new("tests/b.test.js", "(loading the file)", Outcome::Error, "SyntaxError: Unexpected token"),
            TestResult::new("tests/c.test.js", "(time limit)", Outcome::TimedOut, "stopped after 5 s"),
        ],
    };
    assert_eq!(
        report.text(),
        "tests: 1 passed, 1 failed, 1 errors, 1 timed out\n\
         FAILED tests/a.test.js › merges: expected 4,0,0,0 got 2,2,0,0\n\
         ERROR tests/b.test.js › (loading the file): SyntaxError: Unexpected token\n\
         TIMED OUT tests/c.test.js › (time limit): stopped after 5 s"
    );
    assert!(!report.all_passed());
    assert!(!TestReport::default().all_passed(), "no tests is not a pass");
    assert_eq!(TestReport::default().text(), "no tests ran");
}

/// A context for the commands alone.
struct Cx {
    files: ProjectFiles,
    sandbox: Rc<dyn Sandbox>,
    sent: Vec<(String, String)>,
    earlier_reports: usize,
}

impl HasFiles for Cx {
    fn files(&mut self) -> impl std::ops::DerefMut<Target = ProjectFiles> + '_ {
        &mut self.files
    }
}

impl HasSandbox for Cx {
    fn sandbox(&self) -> Rc<dyn Sandbox> {
        self.sandbox.clone()
    }
    fn reports_sent(&self) -> usize {
        self.earlier_reports + self.sent.len()
    }
    fn send(&mut self, to: &str, content: String) {
        self.sent.push((to.to_owned(), content));
    }
}

fn cx(sandbox: Rc<dyn Sandbox>) -> Cx {
    let mut files = ProjectFiles::default();
    files.write("game.js", GAME).unwrap();
    files.write("index.html", "<script type=module src=game.js></script>").unwrap();
    files.write("tests/game.test.js", "import { slide } from '../game.js';").unwrap();
    Cx { files, sandbox, sent: Vec::new(), earlier_reports: 0 }
}

fn failing() -> TestReport {
    TestReport { results: vec![TestResult::new("tests/game.test.js", "merges", Outcome::Failed, "expected 4 got 2")] }
}

fn passing() -> TestReport {
    TestReport { results: vec![TestResult::new("tests/game.test.js", "merges", Outcome::Passed, "")] }
}

fn registry(engineer: Option<&str>) -> Registry<Cx> {
    let mut registry = Registry::default();
    register_sandbox_commands(&mut registry, SandboxRules { engineer: engineer.map(str::to_owned), max_rounds: 2 });
    registry
}

fn run(registry: &Registry<Cx>, cx: &mut Cx, name: &str, args: serde_json::Value) -> Result<String, String> {
    futures::executor::block_on(registry.run_command(cx, &Command::new(name, args))).map_err(|e| e.to_string())
}

#[test]
fn failing_tests_go_to_the_engineer_for_a_few_rounds() {
    let fake = FakeSandbox::with_reports([failing(), failing(), failing(), passing()]);
    let registry = registry(Some("Alex"));
    let mut cx = cx(Rc::new(fake.clone()));
    let first = run(&registry, &mut cx, "Sandbox.run_tests", json!({})).unwrap();
    assert_eq!(
        first,
        "tests: 0 passed, 1 failed\nFAILED tests/game.test.js › merges: expected 4 got 2\n\
         Sent the failures to Alex to fix (round 1 of 2). Run the tests again once they answer."
    );
    assert_eq!(cx.sent.len(), 1);
    assert_eq!(cx.sent[0].0, "Alex");
    assert!(cx.sent[0].1.starts_with("The tests fail (round 1 of 2)."), "{}", cx.sent[0].1);
    assert!(cx.sent[0].1.contains("FAILED tests/game.test.js › merges: expected 4 got 2"));
    // The sandbox got the current files and the path.
    assert_eq!(fake.runs.borrow()[0].0["game.js"], GAME);
    assert_eq!(fake.runs.borrow()[0].1, None);

    run(&registry, &mut cx, "Sandbox.run_tests", json!({"path": "tests/game.test.js"})).unwrap();
    assert_eq!(fake.runs.borrow()[1].1.as_deref(), Some("tests/game.test.js"));
    let third = run(&registry, &mut cx, "Sandbox.run_tests", json!({})).unwrap();
    assert_eq!(cx.sent.len(), 2, "no third round");
    assert!(third.contains("went to Alex 2 times already") && third.contains("report what still fails to your team leader"), "{third}");
    let passed = run(&registry, &mut cx, "Sandbox.run_tests", json!({})).unwrap();
    assert_eq!(passed, "tests: 1 passed");
    assert_eq!(cx.sent.len(), 2);
}

#[test]
fn without_an_engineer_failures_are_only_reported() {
    let mut cx = cx(Rc::new(FakeSandbox::with_reports([failing()])));
    let text = run(&registry(None), &mut cx, "Sandbox.run_tests", json!({})).unwrap();
    assert_eq!(text, "tests: 0 passed, 1 failed\nFAILED tests/game.test.js › merges: expected 4 got 2");
    assert!(cx.sent.is_empty());
}

#[test]
fn nothing_to_run_and_no_sandbox_are_clear_failures() {
    let mut cx = cx(Rc::new(FakeSandbox::default()));
    let error = run(&registry(Some("Alex")), &mut cx, "Sandbox.run_tests", json!({"path": "docs"})).unwrap_err();
    assert!(error.contains("no test files under docs"), "{error}");
    let mut cx = self::cx(Rc::new(NoSandbox));
    let error = run(&registry(Some("Alex")), &mut cx, "Sandbox.run_tests", json!({})).unwrap_err();
    assert!(error.contains("there is no sandbox in this session"), "{error}");
    let error = run(&registry(None), &mut cx, "Sandbox.preview", json!({})).unwrap_err();
    assert!(error.contains("there is no sandbox in this session"), "{error}");
}

#[test]
fn preview_and_console() {
    let fake = FakeSandbox::default();
    fake.console.borrow_mut().extend([ConsoleLine::new("log", "ready"), ConsoleLine::new("uncaught", "ReferenceError: x is not defined\n  at game.js:1")]);
    let registry = registry(None);
    let mut cx = cx(Rc::new(fake));
    let text = run(&registry, &mut cx, "Sandbox.preview", json!({})).unwrap();
    assert_eq!(text, "the preview shows index.html with game.js\nconsole:\n[log] ready\n[uncaught] ReferenceError: x is not defined at game.js:1");
    let text = run(&registry, &mut cx, "Sandbox.read_console", json!({})).unwrap();
    assert_eq!(text, "[log] ready\n[uncaught] ReferenceError: x is not defined at game.js:1");
    let mut empty = self::cx(Rc::new(FakeSandbox::default()));
    assert_eq!(run(&registry, &mut empty, "Sandbox.read_console", json!({})).unwrap(), "the console is empty");
}

/// The tab's side of `prepare`, scripted: modules by URL (shaped as the
/// package CDN answers: a stub re-exporting its build by absolute path,
/// shared packages left bare) and transformed sources by path. Records
/// what was asked, so a module fetched twice or a file transformed with
/// the wrong runtime shows.
struct ScriptedHost {
    modules: std::collections::BTreeMap<String, String>,
    transformed: std::collections::BTreeMap<String, String>,
    fetched: std::cell::RefCell<Vec<String>>,
    transforms: std::cell::RefCell<Vec<(String, String)>>,
}

impl super::PackageHost for ScriptedHost {
    fn fetch(&self, url: String) -> futures::future::LocalBoxFuture<'_, Result<String, String>> {
        self.fetched.borrow_mut().push(url.clone());
        let got = self.modules.get(&url).cloned().ok_or_else(|| "the package CDN answered 404".to_owned());
        Box::pin(std::future::ready(got))
    }

    fn transform(&self, path: String, _: String, jsx: String) -> futures::future::LocalBoxFuture<'_, Result<String, super::TransformError>> {
        self.transforms.borrow_mut().push((path.clone(), jsx));
        let out = self.transformed.get(&path).cloned().ok_or(super::TransformError { line: 3, message: "Unexpected token (3:7)".into() });
        Box::pin(std::future::ready(out))
    }
}

fn decode(url: &str) -> String {
    let b64 = url.split_once("base64,").map(|(_, b)| b).unwrap_or_default();
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in b64.bytes().filter(|c| *c != b'=') {
        bits = (bits << 6) | alphabet.iter().position(|a| *a == c).unwrap() as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn a_vite_react_typescript_tailwind_project_is_prepared_and_linked_with_one_react() {
    use super::bundle::{project_document, project_module_url};
    const CDN: &str = "https://cdn.test";
    let project = files(&[
        ("index.html", "<!doctype html><html><head><title>Counter</title></head><body><div id=\"root\"></div><script type=\"module\" src=\"/src/main.tsx\"></script></body></html>"),
        ("package.json", r#"{"name":"counter","type":"module","dependencies":{"react":"^18.3.1","react-dom":"^18.3.1","chart.js":"^4.6.1"},"devDependencies":{"tailwindcss":"^3.4.0","typescript":"^5.4.0"}}"#),
        ("src/main.tsx", "/* tsx */"),
        ("src/App.tsx", "/* tsx */"),
        ("src/count.ts", "export const next = (n: number): number => n + 1;"),
        ("src/index.css", "@tailwind base;\n@tailwind utilities;\n"),
        ("src/data.json", "{\"labels\": [\"a\", \"b\"]}"),
        ("src/logo.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
        ("src/server.ts", "/* ts */"),
        ("src/broken.tsx", "const x = <div"),
        ("tests/count.test.ts", "/* ts */"),
        ("vite.config.ts", "import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\nexport default defineConfig({ plugins: [react()] });\n"),
        ("tailwind.config.js", "export default { content: ['./src/**/*.tsx'] };\n"),
    ]);
    let ext = |me: &str| {
        let others: Vec<&str> = ["chart.js", "react", "react-dom", "tailwindcss", "typescript"].into_iter().filter(|n| *n != me).collect();
        format!("?external={}", others.join(","))
    };
    let react = format!("{CDN}/react@18.3.1{}", ext("react"));
    let host = ScriptedHost {
        modules: [
            (react.clone(), "export * from \"/react@18.3.1/es2022/react.mjs\";\nexport { default } from \"/react@18.3.1/es2022/react.mjs\";\n".to_owned()),
            (format!("{CDN}/react@18.3.1/es2022/react.mjs"), "export function useState(v) { return [v, () => {}]; }\nexport default { useState };\n".to_owned()),
            (format!("{CDN}/react@18.3.1/jsx-runtime{}", ext("react")), "import \"react\";\nexport const jsx = (t, p) => ({ t, p });\n".to_owned()),
            (format!("{CDN}/react-dom@18.3.1/client{}", ext("react-dom")), "import React from \"react\";\nimport \"./es2022/client.mjs\";\nexport const createRoot = () => ({ render() {} });\n".to_owned()),
            (format!("{CDN}/react-dom@18.3.1/es2022/client.mjs"), "export {};\n".to_owned()),
            (format!("{CDN}/chart.js@4.6.1/auto{}", ext("chart.js")), "export default class Chart {}\n".to_owned()),
            (format!("{CDN}/@tailwindcss/browser@4/dist/index.global.js?raw"), "/* tailwind's browser build */".to_owned()),
        ]
        .into_iter()
        .collect(),
        transformed: [
            ("src/main.tsx", "import { createRoot } from \"react-dom/client\";\nimport App from \"./App\";\nimport \"./index.css\";\ncreateRoot(document.getElementById(\"root\")).render(App());\n"),
            ("src/App.tsx", "import { jsx as _jsx } from \"react/jsx-runtime\";\nimport { useState } from \"react\";\nimport Chart from \"chart.js/auto\";\nimport data from \"./data.json\";\nimport logo from \"./logo.svg\";\nimport { next } from \"./count.js\";\nexport default function App() { const [n] = useState(0); console.log(import.meta.env.MODE, Chart, data, logo); return _jsx(\"button\", { className: \"bg-blue-500\", children: next(n) }); }\n"),
            ("src/count.ts", "export const next = (n) => n + 1;"),
            ("src/server.ts", "import fs from \"node:fs\";\nimport express from \"express\";\n"),
            ("tests/count.test.ts", "import { next } from \"../src/count\";\nimport Chart from \"chart.js/auto\";\ntest(\"next\", () => expect(next(1)).toBe(2));\n"),
        ]
        .into_iter()
        .map(|(p, s)| (p.to_owned(), s.to_owned()))
        .collect(),
        fetched: Default::default(),
        transforms: Default::default(),
    };
    let ready = futures::executor::block_on(super::prepare(project, "https://cdn.test/", &host));
    // Every TypeScript/JSX file once, with React's runtime (from package.json).
    let mut transforms = host.transforms.borrow().clone();
    transforms.sort();
    let expected: Vec<(String, String)> =
        ["src/App.tsx", "src/broken.tsx", "src/count.ts", "src/main.tsx", "src/server.ts", "tests/count.test.ts"].iter().map(|p| (p.to_string(), "react".to_string())).collect();
    assert_eq!(transforms, expected);
    // Each module fetched once, the stub's build and react-dom's own relative import too.
    let mut fetched = host.fetched.borrow().clone();
    fetched.sort();
    let mut wanted: Vec<String> = host.modules.keys().cloned().collect();
    wanted.sort();
    assert_eq!(fetched, wanted);
    let texts: Vec<&str> = ready.problems.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:#?}");
    assert!(texts.iter().any(|t| t.starts_with("src/broken.tsx could not be read as TypeScript/JSX: Unexpected token (3:7)")));
    assert!(texts.iter().any(|t| t.starts_with("src/server.ts imports \"node:fs\", a Node.js built-in module")));
    assert!(texts.iter().any(|t| t.starts_with("src/server.ts imports \"express\", a package that runs only in Node.js")));
    let broken = ready.problems.iter().find(|p| p.text.starts_with("src/broken.tsx")).unwrap();
    assert_eq!(broken.source, Some(super::SourceRef { path: "src/broken.tsx".into(), line: 3 }));
    let express = ready.problems.iter().find(|p| p.text.contains("express")).unwrap();
    assert_eq!(express.source, Some(super::SourceRef { path: "src/server.ts".into(), line: 2 }));

    let doc = project_document(&ready, PRELUDE).unwrap();
    assert_eq!(doc.included, ["src/main.tsx", "src/App.tsx", "src/data.json", "src/logo.svg", "src/count.ts", "src/index.css"]);
    assert!(doc.missing.is_empty(), "{:?}", doc.missing);
    // Tailwind's build runs right after the bridge.
    let tailwind = js("/* tailwind's browser build */");
    assert!(doc.html.contains(&format!("{PRELUDE}<script src=\"{tailwind}\"></script><title>")), "{}", &doc.html[..300]);
    // One React: the app's, jsx-runtime's and react-dom's imports are one URL.
    let react_url = doc.sources.iter().find(|(_, name)| name == "react@18.3.1").map(|(u, _)| u.clone()).unwrap();
    assert_eq!(doc.sources.iter().filter(|(_, name)| name == "react@18.3.1").count(), 1);
    // The last URL of a file is its module (the first, for a script, its classic form).
    let source = |name: &str| decode(&doc.sources.iter().rfind(|(_, n)| n == name).unwrap().0);
    assert!(source("react-dom@18.3.1/client").starts_with(&format!("import React from \"{react_url}\";")));
    assert!(source("react@18.3.1/jsx-runtime").starts_with(&format!("import \"{react_url}\";")));
    let app = source("src/App.tsx");
    assert!(app.contains(&format!("import {{ useState }} from \"{react_url}\";")), "{app}");
    assert!(app.contains(r#"console.log(({"MODE":"development","DEV":true,"PROD":false,"SSR":false,"BASE_URL":"/"}).MODE"#), "{app}");
    let count = source("src/count.ts");
    assert_eq!(count, "export const next = (n) => n + 1;");
    // JSON and an SVG as values; the stylesheet as a <style>.
    let data_line = app.lines().find(|l| l.starts_with("import data from")).unwrap();
    assert_eq!(decode(data_line.split('"').nth(1).unwrap()), "export default {\"labels\":[\"a\",\"b\"]};\n");
    let main = source("src/main.tsx");
    let css_line = main.lines().find(|l| l.starts_with("import \"data:")).unwrap();
    let css = decode(css_line.split('"').nth(1).unwrap());
    assert!(css.starts_with("const css = \"@tailwind base;\\n@tailwind utilities;\\n\";\nif (typeof document !== 'undefined')"), "{css}");
    assert_eq!(doc.source_of(&react_url, 1).map(|s| s.path), Some("react@18.3.1".into()), "an error in a package names the package");
    // The test imports the .ts module (extensionless) and the package, the same modules as the preview.
    let test = decode(&project_module_url(&ready, "tests/count.test.ts").unwrap());
    assert!(test.contains(&js("export const next = (n) => n + 1;")), "{test}");
    assert!(test_files(&ready.files, None).unwrap().contains(&"tests/count.test.ts".to_owned()));
}

#[test]
fn a_package_the_cdn_lacks_and_a_cycle_between_packages_are_said_in_words() {
    use super::bundle::project_document;
    let project = files(&[
        ("index.html", "<script type=module src=main.js></script>"),
        ("main.js", "import \"left-pad-nope\";\nimport \"a\";\n"),
    ]);
    let host = ScriptedHost {
        modules: [
            ("http://cdn/a?external=a,left-pad-nope".replace("external=a,", "external="), "import \"./b.mjs\";\n".to_owned()),
            ("http://cdn/b.mjs".to_owned(), "import \"/a?external=left-pad-nope\";\n".to_owned()),
        ]
        .into_iter()
        .collect(),
        transformed: Default::default(),
        fetched: Default::default(),
        transforms: Default::default(),
    };
    let ready = futures::executor::block_on(super::prepare(project, "http://cdn", &host));
    assert_eq!(ready.problems.len(), 1, "{:?}", ready.problems);
    assert_eq!(ready.problems[0].text, "the package left-pad-nope could not be loaded: the package CDN answered 404");
    assert!(host.transforms.borrow().is_empty(), "plain JavaScript needs no transformer");
    let doc = project_document(&ready, "").unwrap();
    assert!(doc.missing.iter().any(|m| m.contains("the packages import each other in a cycle (main.js → a → b.mjs → a)")), "{:?}", doc.missing);
}

#[test]
fn a_page_s_inline_module_gets_its_packages_and_preact_s_runtime_comes_from_package_json() {
    use super::bundle::project_document;
    let project = files(&[
        ("index.html", "<div id=app></div>\n<script type=\"module\">\n  import { h, render } from 'preact';\n  render(h('p', null, 'hi'), document.getElementById('app'));\n</script>"),
        ("package.json", r#"{"dependencies":{"preact":"10.27.2"}}"#),
    ]);
    assert_eq!(super::prepare::jsx_import_source(&project, &super::packages::Manifest::of(&project)), "preact");
    let host = ScriptedHost {
        modules: [("http://cdn/preact@10.27.2".to_owned(), "export const h = 1, render = 2;\n".to_owned())].into_iter().collect(),
        transformed: Default::default(),
        fetched: Default::default(),
        transforms: Default::default(),
    };
    let ready = futures::executor::block_on(super::prepare(project, "http://cdn", &host));
    assert!(ready.problems.is_empty(), "{:?}", ready.problems);
    let doc = project_document(&ready, "").unwrap();
    assert!(doc.html.contains(&format!("import {{ h, render }} from '{}';", js("export const h = 1, render = 2;\n"))), "{}", doc.html);
}

/// Every `src=`/`href=` value of `html` (quoted), to check nothing is
/// left that a file opened from disk would have to fetch.
fn references(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["src=\"", "href=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(key) {
            rest = &rest[at + key.len()..];
            out.push(rest[..rest.find('"').unwrap_or(rest.len())].to_owned());
        }
    }
    out
}

#[test]
fn the_one_file_app_inlines_project_files_and_packages_without_the_sandbox_s_bridge() {
    use super::bundle::single_file;
    let project = files(&[
        ("index.html", "<!doctype html><html><head><title>2048</title><link rel=\"stylesheet\" href=\"style.css\"></head><body><p>é</p><script type=\"module\" src=\"src/main.js\"></script></body></html>"),
        ("style.css", "body { color: red }"),
        ("src/main.js", "import confetti from 'canvas-confetti';\nimport { slide } from './game.js';\nconfetti(slide([2]));\n"),
        ("src/game.js", GAME),
        ("package.json", r#"{"dependencies":{"canvas-confetti":"1.9.3"}}"#),
    ]);
    let package = "export default function confetti() {}\n";
    let host = ScriptedHost {
        modules: [("http://cdn/canvas-confetti@1.9.3".to_owned(), package.to_owned())].into_iter().collect(),
        transformed: Default::default(),
        fetched: Default::default(),
        transforms: Default::default(),
    };
    let ready = futures::executor::block_on(super::prepare(project, "http://cdn", &host));
    assert!(ready.problems.is_empty(), "{:?}", ready.problems);
    let doc = single_file(&ready).unwrap();
    assert_eq!(doc.included, ["style.css", "src/main.js", "src/game.js"]);
    assert!(doc.missing.is_empty(), "{:?}", doc.missing);
    // A file from disk has no header to name its encoding: the page does.
    assert!(doc.html.starts_with("<!doctype html><html><head><meta charset=\"utf-8\"><title>2048</title>"), "{}", &doc.html[..120]);
    assert!(!doc.html.contains("TABTEAM_SANDBOX"), "the sandbox's bridge is not in the download");
    // Nothing left to fetch: the stylesheet and the module graph are data: URLs,
    // the package inside the module that imports it.
    let refs = references(&doc.html);
    assert_eq!(refs.len(), 2, "{refs:?}");
    assert!(refs.iter().all(|r| r.starts_with("data:")), "{refs:?}");
    assert_eq!(decode(&refs[1]), "body { color: red }");
    let main = decode(&refs[0]);
    assert_eq!(main, format!("import confetti from '{}';\nimport {{ slide }} from '{}';\nconfetti(slide([2]));\n", js(package), js(GAME)));
    // A page that names its charset is left as it is.
    let mut declared = ready.clone();
    declared.files.insert("index.html".into(), "<html><head><meta charset=\"utf-8\"></head><body></body></html>".into());
    assert_eq!(single_file(&declared).unwrap().html, "<html><head><meta charset=\"utf-8\"></head><body></body></html>");
}

#[test]
fn the_one_file_app_inlines_images_and_css_urls_of_project_files() {
    use super::bundle::single_file;
    const LOGO: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><rect width=\"8\" height=\"8\" fill=\"red\"/></svg>";
    const FONT: &str = "wOF2-not-really";
    let project = files(&[
        (
            "index.html",
            "<html><head><link rel=\"stylesheet\" href=\"css/style.css\"><style>h1 { background: url('img/logo.svg') }</style></head>\
             <body><img alt=\"logo\" src=\"img/logo.svg\"><img src=\"https://example.com/x.png\"><img src=\"img/gone.png\">\
             <script type=\"module\" src=\"main.js\"></script></body></html>",
        ),
        ("css/style.css", "@font-face { font-family: F; src: url(../fonts/f.woff2) } body { background: url(\"../img/logo.svg\") } a { background: url(data:image/png;base64,AA==) } b { mask: url(#m) }"),
        ("main.js", "import './css/more.css';\n"),
        ("css/more.css", "p { background: url(../img/logo.svg) }"),
        ("img/logo.svg", LOGO),
        ("fonts/f.woff2", FONT),
    ]);
    let doc = single_file(&super::bundle::Project::plain(project)).unwrap();
    let logo = format!("data:image/svg+xml;charset=utf-8;base64,{}", super::base64::encode(LOGO.as_bytes()));
    // <img src> of a project file: its data: URL; others as written.
    assert!(doc.html.contains(&format!("<img alt=\"logo\" src=\"{logo}\">")), "{}", doc.html);
    assert!(doc.html.contains("<img src=\"https://example.com/x.png\">"));
    assert_eq!(doc.missing, ["img/gone.png"], "a missing picture is said");
    // A <style>'s url(), relative to the page.
    assert!(doc.html.contains(&format!("h1 {{ background: url(\"{logo}\") }}")), "{}", doc.html);
    // The stylesheet's, relative to its own folder: the font and the picture;
    // a data: URL and a fragment as written.
    let refs = references(&doc.html);
    let css = decode(refs.iter().find(|r| r.starts_with("data:text/css")).unwrap());
    let font = format!("data:font/woff2;charset=utf-8;base64,{}", super::base64::encode(FONT.as_bytes()));
    assert_eq!(
        css,
        format!("@font-face {{ font-family: F; src: url(\"{font}\") }} body {{ background: url(\"{logo}\") }} a {{ background: url(data:image/png;base64,AA==) }} b {{ mask: url(#m) }}")
    );
    // CSS a module imports, too.
    let main = decode(refs.iter().find(|r| r.starts_with("data:text/javascript")).unwrap());
    assert!(decode(&main[main.find("data:").unwrap()..main.rfind('\'').unwrap()]).contains(&format!("url(\\\"{logo}\\\")")), "{main}");
}
