//! `WriteCode` (Alex, the engineer): every file of the task list, in order,
//! one model call each (design + tasks + the code written so far), the
//! answer's code block written to the project at the file's path.
//!
//! A refined task list (a follow-up) names the files to change in its
//! "Incremental Change": only those are rewritten, each with its current
//! code, the new code of the files rewritten before it in the change, and
//! the project's other files by reference (path, lines, digest), and
//! written together once all are answered; every other file stays byte for
//! byte as it was.
//!
//! Every path is checked before the first call, so a task list that names a
//! path outside the project fails the action before anything is spent or
//! written. It does not review, run or fix the code (MetaGPT's optional
//! review loop is absent), and it never reads files it did not write in
//! this run as "code so far".

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::files::normalize_path;
use crate::core::message::ActionKind;
use crate::core::role_error::RoleError;

use super::code_block::{extract_code, fence_language, fenced};
use super::document::{failure, latest, require_upstream, write_file};
use super::incremental::INCREMENTAL_CHANGE;
use super::prompts::{render, REFINE_CODE, WRITE_CODE};
use super::write_test::is_test_file;
use super::write_tasks::TASK_LIST;
use super::{DESIGN_PATH, WRITE_CODE as KIND, WRITE_DESIGN, WRITE_TASKS};

/// The key of the written files' paths in the message's structured content.
pub(crate) const FILES: &str = "files";

/// Writes the files of the latest task list the role received.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteCode;

impl Action for WriteCode {
    fn kind(&self) -> ActionKind {
        ActionKind::new(KIND)
    }

    fn describe(&self) -> String {
        "WriteCode: write every file of the task list".into()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let tasks = latest(cx.history, WRITE_TASKS).ok_or_else(|| {
                failure(KIND, format!("there is no task list to code from: no {WRITE_TASKS} message was received"))
            })?;
            let change = tasks.instruct_content.as_ref().and_then(|f| f.get(INCREMENTAL_CHANGE));
            let design = require_upstream(&cx, KIND, DESIGN_PATH, WRITE_DESIGN, "system design")?;
            // The task list as the project manager published it (the file
            // may be edited later; the list of paths above comes from it too).
            let task_text = tasks.content.trim();
            if let Some(change) = change {
                return rewrite_changed(&cx, change, &design, task_text).await;
            }
            let paths = planned_files(tasks.instruct_content.as_ref())?;
            let mut written: Vec<(String, String)> = Vec::with_capacity(paths.len());
            for path in &paths {
                let prompt = render(
                    WRITE_CODE,
                    &[
                        ("design", design.trim()),
                        ("tasks", task_text),
                        ("code_so_far", &code_so_far(&written)),
                        ("path", path),
                        ("language", fence_language(path)),
                    ],
                );
                let answer = cx.llm.aask(cx.prefix, &prompt).await?;
                let code = extract_code(&answer);
                write_file(&cx, KIND, path, &code)?;
                written.push((path.clone(), code));
            }
            Ok(files_output("Wrote", paths))
        })
    }
}

/// The files of the incremental change, rewritten one by one: each with
/// what changes in it, its current code and the project's other code.
async fn rewrite_changed(cx: &ActionContext<'_>, change: &Value, design: &str, tasks: &str) -> Result<ActionOutput, RoleError> {
    let rows = change.as_array().ok_or_else(|| failure(KIND, format!("the task list's \"{INCREMENTAL_CHANGE}\" is not a list of files")))?;
    // A row is [file, what changes]; a bare path is accepted too.
    let mut raw = Vec::with_capacity(rows.len());
    let mut what = Vec::with_capacity(rows.len());
    for row in rows {
        let (path, how) = match row {
            Value::Array(cells) => (cells.first().cloned().unwrap_or(Value::Null), cells.get(1).and_then(Value::as_str).unwrap_or("")),
            other => (other.clone(), ""),
        };
        raw.push(path);
        what.push(how.trim().to_string());
    }
    checked_paths(&raw, true)?;
    // Every path is valid now: pair each distinct one with its change.
    let mut changes: Vec<(String, String)> = Vec::with_capacity(raw.len());
    for (item, how) in raw.iter().zip(what) {
        let Some(path) = item.as_str().and_then(|r| normalize_path(unquote(r)).ok()) else { continue };
        if !changes.iter().any(|(p, _)| *p == path) {
            changes.push((path, how));
        }
    }
    // The new code stays in memory until every file is written, so a run
    // resumed half-way asks exactly what it asked before (the project still
    // holds the old code) and its journal answers the finished files; the
    // change lands whole or not at all.
    let mut written: Vec<(String, String)> = Vec::with_capacity(changes.len());
    for (path, how) in &changes {
        let current = cx.files.borrow().read(path).ok().map(str::to_string);
        let current = match current {
            Some(code) => format!("The current code of `{path}`, to be rewritten:\n{}", fenced(path, &code)),
            None => format!("`{path}` does not exist yet: write it whole."),
        };
        let prompt = render(
            REFINE_CODE,
            &[
                ("design", design.trim()),
                ("tasks", tasks),
                ("legacy_code", &legacy_code(&cx.files.borrow(), path, &written)),
                ("path", path),
                ("change", if how.is_empty() { "(see the task list)" } else { how.as_str() }),
                ("current", &current),
                ("language", fence_language(path)),
            ],
        );
        let answer = cx.llm.aask(cx.prefix, &prompt).await?;
        written.push((path.clone(), extract_code(&answer)));
    }
    for (path, code) in &written {
        write_file(cx, KIND, path, code)?;
    }
    Ok(files_output("Changed", changes.into_iter().map(|(path, _)| path).collect()))
}

/// The message of the code written: "Wrote 3 files:" and the paths.
fn files_output(verb: &str, paths: Vec<String>) -> ActionOutput {
    let mut content = format!("{verb} {} file{}:", paths.len(), if paths.len() == 1 { "" } else { "s" });
    if paths.is_empty() {
        content = format!("{verb} no file: the change needs none.");
    }
    for path in &paths {
        content.push_str("\n- ");
        content.push_str(path);
    }
    ActionOutput { content, instruct_content: Some(json!({ FILES: paths })), failed: false }
}

/// The project's code other than `path`: the files `written` so far in
/// this change with their new code, fenced under their paths; every other
/// file by reference only (its path, lines and digest: the design and the
/// task list give its names and interfaces, and the model reads a file it
/// does not change at most once a change, not once a call). No documents
/// (the prompt has them) and no tests (the code is the truth).
fn legacy_code(files: &crate::core::files::ProjectFiles, path: &str, written: &[(String, String)]) -> String {
    let shown: Vec<String> = written
        .iter()
        .filter(|(p, _)| p != path && !p.starts_with("docs/") && !is_test_file(p))
        .map(|(p, code)| format!("### {p}\n{}", fenced(p, code)))
        .collect();
    let listed: Vec<String> = files
        .paths()
        .filter(|p| *p != path && !p.starts_with("docs/") && !is_test_file(p) && !written.iter().any(|(w, _)| w == p))
        .filter_map(|p| {
            let code = files.read(p).ok()?;
            Some(format!("- {p}: {} lines, digest {:016x}", code.lines().count(), crate::core::digest::digest(code)))
        })
        .collect();
    let mut text = shown.join("\n\n");
    if !listed.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("The other files, unchanged by this change so far (not shown):\n");
        text.push_str(&listed.join("\n"));
    }
    if text.is_empty() {
        "(no other file)".to_string()
    } else {
        text
    }
}

/// The normalized, distinct paths of the task list, in order. Any path the
/// project would refuse fails the whole action, naming every such path.
pub(super) fn planned_files(fields: Option<&Value>) -> Result<Vec<String>, RoleError> {
    let list = fields
        .and_then(|f| f.get(TASK_LIST))
        .and_then(Value::as_array)
        .ok_or_else(|| failure(KIND, format!("the task list has no \"{TASK_LIST}\" to code from")))?;
    checked_paths(list, false)
}

/// The normalized, distinct paths of `list`; `may_be_empty` for a change
/// that needs no file.
/// A listed path without the quotes models sometimes put around it.
fn unquote(raw: &str) -> &str {
    raw.trim().trim_matches(|c| c == '`' || c == '"' || c == '\'')
}

fn checked_paths(list: &[Value], may_be_empty: bool) -> Result<Vec<String>, RoleError> {
    let mut paths: Vec<String> = Vec::with_capacity(list.len());
    let mut problems = Vec::new();
    for item in list {
        let Some(raw) = item.as_str() else {
            problems.push(format!("{item} is not a path"));
            continue;
        };
        match normalize_path(unquote(raw)) {
            Ok(path) if !paths.contains(&path) => paths.push(path),
            Ok(_) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    if !problems.is_empty() {
        return Err(failure(
            KIND,
            format!(
                "the task list names a path that cannot be written, so no file was written: {}",
                problems.join("; ")
            ),
        ));
    }
    if paths.is_empty() && !may_be_empty {
        return Err(failure(KIND, "the task list names no file to write"));
    }
    Ok(paths)
}

/// The files written so far in this run, each fenced under its path.
fn code_so_far(written: &[(String, String)]) -> String {
    if written.is_empty() {
        return "(none yet: this is the first file)".to_string();
    }
    written.iter().map(|(path, code)| format!("### {path}\n{}", fenced(path, code))).collect::<Vec<_>>().join("\n\n")
}
