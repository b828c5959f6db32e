//! The plumbing the company's actions share: finding an upstream document,
//! filling an `ActionNode` through the role's metered gate, writing a file,
//! and turning a filled node into a markdown document and its message.
//!
//! Nothing here decides what a document contains (each action's node and
//! prompt do) or where a message goes (the role publishes it).

use serde_json::{Map, Value};

use crate::core::action::{ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FillError, Filled};
use crate::core::llm::{ChatMessage, ResponseSchema};
use crate::core::message::MessageRef;
use crate::core::role_error::RoleError;

use super::FILL_ATTEMPTS;

/// The latest message of `kind` in the history.
pub(crate) fn latest<'a>(history: &'a [MessageRef], kind: &str) -> Option<&'a MessageRef> {
    history.iter().rev().find(|m| m.cause_by.as_str() == kind)
}

/// An upstream document: the file at `path` when the project has it (it is
/// the artifact, and the user may have edited it), else the content of the
/// latest `kind` message this role received. `None` when there is neither.
pub(crate) fn upstream(cx: &ActionContext<'_>, path: &str, kind: &str) -> Option<String> {
    if let Ok(text) = cx.files.borrow().read(path) {
        if !text.trim().is_empty() {
            return Some(text.to_string());
        }
    }
    latest(cx.history, kind).map(|m| m.content.clone())
}

/// Like `upstream`, but its absence fails the action with a message saying
/// what was missing.
pub(crate) fn require_upstream(
    cx: &ActionContext<'_>,
    action: &str,
    path: &str,
    kind: &str,
    what: &str,
) -> Result<String, RoleError> {
    upstream(cx, path, kind).ok_or_else(|| {
        failure(
            action,
            format!("there is no {what} to work from: {path} does not exist and no {kind} message was received"),
        )
    })
}

/// Fills `node` from `context`: the role's prefix is the system prompt, and
/// an answer that does not fit is sent back with its error, up to
/// `FILL_ATTEMPTS` answers. A failed call (transport, budget) is returned as
/// it is, so the team stops for the right reason; answers that never fit
/// fail the action.
pub(crate) async fn fill(
    cx: &ActionContext<'_>,
    action: &str,
    what: &str,
    node: &ActionNode,
    context: &str,
) -> Result<Filled, RoleError> {
    let schema = ResponseSchema { name: node.schema_name(), schema: node.json_schema() };
    let gate = cx.llm.clone().with_schema(std::sync::Arc::new(schema));
    let llm = &gate;
    let prefix = cx.prefix;
    let filled = node
        .fill(context, "", FILL_ATTEMPTS, |messages| {
            let mut chat = Vec::with_capacity(messages.len() + 1);
            if !prefix.is_empty() {
                chat.push(ChatMessage::system(&**prefix));
            }
            chat.extend(messages);
            async move { llm.ask(chat).await }
        })
        .await;
    filled.map_err(|e| match e {
        FillError::Ask(e) => e,
        FillError::Invalid { attempts, last_error, .. } => {
            // Resume tries this action again from its first attempt (with
            // the settings of then, another model say), not by replaying
            // the answers it just refused.
            llm.forget_last(attempts as usize);
            failure(
                action,
                format!("the model gave no usable {what} in {attempts} attempts; the last answer was refused: {last_error}"),
            )
        }
    })
}

/// Writes a file of the project; a refused path fails the action with the
/// files module's explanation. Content equal to the file's current content
/// adds no version: a resumed reaction writes again what it had written.
pub(crate) fn write_file(cx: &ActionContext<'_>, action: &str, path: &str, content: &str) -> Result<(), RoleError> {
    if cx.files.borrow().read(path).is_ok_and(|current| current == content) {
        return Ok(());
    }
    cx.files
        .borrow_mut()
        .write(path, content)
        .map(|_| ())
        .map_err(|e| failure(action, format!("could not write {path}: {e}")))
}

/// A filled node as a document: `# title` and one section per field,
/// written at `path`; the message carries the markdown as its content and
/// the fields, as the model gave them, as its structured content.
pub(crate) fn document_output(
    cx: &ActionContext<'_>,
    action: &str,
    node: &ActionNode,
    filled: Filled,
    title: &str,
    path: &str,
) -> Result<ActionOutput, RoleError> {
    // An empty field would leave a bare heading, read as a broken document:
    // show a dash, which needs no translation.
    let mut shown = Map::new();
    shown.extend(filled.instruct_content.iter().map(|(key, value)| {
        (key.clone(), if is_blank(value) { Value::String(EMPTY_FIELD.into()) } else { value.clone() })
    }));
    let markdown = format!("# {title}\n\n{}", node.to_markdown(&shown));
    write_file(cx, action, path, &markdown)?;
    Ok(ActionOutput {
        content: markdown,
        instruct_content: Some(Value::Object(filled.instruct_content)),
        failed: false,
    })
}

/// What a document shows for a field the model left empty.
const EMPTY_FIELD: &str = "—";

fn is_blank(value: &Value) -> bool {
    match value {
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The action failed; `message` says why, in words a user can act on.
pub(crate) fn failure(action: &str, message: impl Into<String>) -> RoleError {
    RoleError::Action { action: action.to_string(), message: message.into() }
}
