//! Incremental development (MetaGPT's `inc` mode): on a follow-up the
//! pipeline changes what it built instead of starting over. Alice refines
//! the PRD against the one in the project, Bob the design, Eve the task
//! list with the "Incremental Change" (the files to change and how), and
//! Alex rewrites only those files, with their current code in his prompt.
//!
//! Which mode a step is in is read from what it reacts to, never from the
//! clock or from files written later in the same run, so a resumed run asks
//! exactly what the first attempt asked: Alice refines when the project has
//! a PRD; each later step when the document it reads is a refined one.
//!
//! Deliberately absent: MetaGPT's extra calls that ask whether a request is
//! a bug fix or related to the old PRD (every follow-up refines the one
//! PRD), and its separate "code plan and change" step (the task list holds
//! the change).

use serde_json::Value;

use crate::core::action::ActionContext;
use crate::core::action_node::ActionNode;
use crate::core::message::MessageRef;

use super::document::latest;

/// The key of the files to change, in a refined task list's fields.
pub(crate) const INCREMENTAL_CHANGE: &str = "Incremental Change";
/// The key that marks a refined PRD.
pub(crate) const REFINED_REQUIREMENTS: &str = "Refined Requirements";
/// The key that marks a refined design.
pub(crate) const REFINED_FILE_LIST: &str = "Refined File list";

/// Whether `message` is a refined document: its fields hold `key`.
fn is_refined(message: Option<&MessageRef>, key: &str) -> bool {
    message.and_then(|m| m.instruct_content.as_ref()).and_then(Value::as_object).is_some_and(|f| f.contains_key(key))
}

/// The project's document at `path`, when it is there to refine: the step
/// reads its upstream document (the latest `upstream` message), and refines
/// only when that one is refined (its fields hold `marker`).
pub(crate) fn legacy_to_refine(cx: &ActionContext<'_>, upstream: &str, marker: &str, path: &str) -> Option<String> {
    if !is_refined(latest(cx.history, upstream), marker) {
        return None;
    }
    legacy_document(cx, path)
}

/// The project's document at `path`, unless it is missing or blank.
pub(crate) fn legacy_document(cx: &ActionContext<'_>, path: &str) -> Option<String> {
    cx.files.borrow().read(path).ok().filter(|t| !t.trim().is_empty()).map(str::to_string)
}

/// `base`'s fields with some replaced by their refined forms (in place,
/// so the document keeps its order) and `after` inserted after a field:
/// `(old key, refined field)` and `(key, extra field)`.
pub(crate) fn refine(base: ActionNode, key: &str, replace: Vec<(&str, ActionNode)>, after: Vec<(&str, ActionNode)>) -> ActionNode {
    let mut replace = replace;
    let mut fields = Vec::with_capacity(base.children.len() + after.len());
    for field in base.children {
        let anchor = match replace.iter().position(|(old, _)| *old == field.key) {
            Some(i) => replace.remove(i).1,
            None => field,
        };
        let extra: Vec<ActionNode> =
            after.iter().filter(|(k, _)| *k == anchor.key).map(|(_, extra)| extra.clone()).collect();
        fields.push(anchor);
        fields.extend(extra);
    }
    debug_assert!(replace.is_empty(), "every replaced field exists: {replace:?}");
    ActionNode::group(key, fields)
}
