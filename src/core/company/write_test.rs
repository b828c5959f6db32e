//! `WriteTest` (Edward, the QA engineer): a test file for every file of
//! program logic the engineer wrote, one model call each, written to
//! `tests/test_<name>`.
//!
//! Markup, styles, data and documents get no tests (there is no logic in
//! them to test); neither do files that are tests already. It writes the
//! tests and does not run them: the tab has no interpreter for the code it
//! writes, and MetaGPT's run-and-debug loop is absent.

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::message::ActionKind;
use crate::core::role_error::RoleError;

use super::code_block::{extract_code, fence_language, fenced};
use super::document::{failure, latest, upstream, write_file};
use super::prompts::{render, WRITE_TEST};
use super::write_code::FILES;
use super::{DESIGN_PATH, WRITE_CODE, WRITE_DESIGN, WRITE_TEST as KIND};

/// Extensions of the files that get tests: languages with program logic.
const TESTED: &[&str] = &[
    "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "py", "rb", "go", "rs", "java", "kt", "php", "cs", "swift",
    "dart", "lua",
];

/// Writes tests for the code of the latest `WriteCode` message received.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTest;

/// Where the tests of `source` go: `tests/test_<file name>`.
pub fn test_path(source: &str) -> String {
    let name = source.rsplit('/').next().unwrap_or(source);
    format!("tests/test_{name}")
}

impl Action for WriteTest {
    fn kind(&self) -> ActionKind {
        ActionKind::new(KIND)
    }

    fn describe(&self) -> String {
        "WriteTest: write tests for the code".into()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let code = latest(cx.history, WRITE_CODE).ok_or_else(|| {
                failure(KIND, format!("there is no code to test: no {WRITE_CODE} message was received"))
            })?;
            let files: Vec<String> = code
                .instruct_content
                .as_ref()
                .and_then(|f| f.get(FILES))
                .and_then(Value::as_array)
                .map(|list| list.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .ok_or_else(|| failure(KIND, format!("the {WRITE_CODE} message does not list the files it wrote")))?;
            let design =
                upstream(&cx, DESIGN_PATH, WRITE_DESIGN).unwrap_or_else(|| "(no design was received)".to_string());
            let file_list = files.iter().map(|f| format!("- {f}")).collect::<Vec<_>>().join("\n");
            let mut written: Vec<(String, String)> = Vec::new();
            for source in files.iter().filter(|f| is_tested(f)) {
                let source_code = cx
                    .files
                    .borrow()
                    .read(source)
                    .map(str::to_string)
                    .map_err(|e| failure(KIND, format!("cannot read the code to test: {e}")))?;
                let mut target = test_path(source);
                if written.iter().any(|(_, t)| *t == target) {
                    // Two sources share a file name: keep both tests.
                    target = format!("tests/test_{}", source.replace('/', "_"));
                }
                let prompt = render(
                    WRITE_TEST,
                    &[
                        ("design", design.trim()),
                        ("files", &file_list),
                        ("path", source),
                        ("code", &fenced(source, &source_code)),
                        ("test_path", &target),
                        ("language", fence_language(source)),
                        ("framework", framework(source)),
                    ],
                );
                let answer = cx.llm.aask(cx.prefix, &prompt).await?;
                write_file(&cx, KIND, &target, &extract_code(&answer))?;
                written.push((source.clone(), target));
            }
            let content = if written.is_empty() {
                format!("No test written: none of the files ({}) holds program logic to test.", files.join(", "))
            } else {
                let mut content =
                    format!("Wrote {} test file{}:", written.len(), if written.len() == 1 { "" } else { "s" });
                for (source, target) in &written {
                    content.push_str(&format!("\n- {target} (tests {source})"));
                }
                content
            };
            let tests: Vec<Value> =
                written.iter().map(|(source, target)| json!({ "file": source, "test": target })).collect();
            Ok(ActionOutput { content, instruct_content: Some(json!({ "tests": tests })), failed: false })
        })
    }
}

/// Whether `path` is program logic that gets a test file.
pub(super) fn is_tested(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let is_test = is_test_file(path);
    let ext = name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase());
    !is_test && ext.is_some_and(|ext| TESTED.contains(&ext.as_str()))
}

/// Whether `path` is a test already (under `tests/`, `test_*`, `*.test.*`, `*.spec.*`).
pub(super) fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.starts_with("tests/") || name.starts_with("test_") || name.contains(".test.") || name.contains(".spec.")
}

/// Which test tools to use for `path`'s language.
fn framework(path: &str) -> &'static str {
    match fence_language(path) {
        "javascript" | "typescript" | "jsx" | "tsx" => {
            "Use `test(name, fn)` with `assert` / `expect` (imports from `node:test`, `node:assert/strict` or `vitest` work too). \
The tests run in a browser worker with no page: test the logic, and stub only what the code needs from the page to load."
        }
        "python" => "Use `unittest` from the standard library (or plain `test_` functions with `assert`); no other package, no pytest fixtures. \
The tests run in the browser tab with no terminal: import the module from the project folder and test the logic, not `input()`.",
        _ => "Use the standard test tools of the language; no other package.",
    }
}
