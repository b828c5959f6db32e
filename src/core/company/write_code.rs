//! `WriteCode` (Alex, the engineer): every file of the task list, in order,
//! one model call each (design + tasks + the code written so far), the
//! answer's code block written to the project at the file's path.
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
use crate::core::role::RoleError;

use super::code_block::{extract_code, fence_language, fenced};
use super::document::{failure, latest, require_upstream, write_file};
use super::prompts::{render, WRITE_CODE};
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
            let paths = planned_files(tasks.instruct_content.as_ref())?;
            let design = require_upstream(&cx, KIND, DESIGN_PATH, WRITE_DESIGN, "system design")?;
            // The task list as the project manager published it (the file
            // may be edited later; the list of paths above comes from it too).
            let task_text = tasks.content.trim();
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
            let mut content = format!("Wrote {} file{}:", paths.len(), if paths.len() == 1 { "" } else { "s" });
            for path in &paths {
                content.push_str("\n- ");
                content.push_str(path);
            }
            Ok(ActionOutput { content, instruct_content: Some(json!({ FILES: paths })), failed: false })
        })
    }
}

/// The normalized, distinct paths of the task list, in order. Any path the
/// project would refuse fails the whole action, naming every such path.
pub(super) fn planned_files(fields: Option<&Value>) -> Result<Vec<String>, RoleError> {
    let list = fields
        .and_then(|f| f.get(TASK_LIST))
        .and_then(Value::as_array)
        .ok_or_else(|| failure(KIND, format!("the task list has no \"{TASK_LIST}\" to code from")))?;
    let mut paths: Vec<String> = Vec::with_capacity(list.len());
    let mut problems = Vec::new();
    for item in list {
        let Some(raw) = item.as_str() else {
            problems.push(format!("{item} is not a path"));
            continue;
        };
        // Models sometimes quote the paths they list.
        let raw = raw.trim().trim_matches(|c| c == '`' || c == '"' || c == '\'');
        match normalize_path(raw) {
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
    if paths.is_empty() {
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
