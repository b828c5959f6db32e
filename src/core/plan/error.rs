//! `PlanError`: every way a plan operation can be refused.
//!
//! The Display text is written for a model to read and fix its command: it
//! names the offending ids, what exists, and what to do instead. It does not
//! carry positions or internal state; a refused operation leaves the plan as
//! it was, so there is nothing to recover.

use thiserror::Error;

/// At most this many ids are listed in a message, so an error about a plan
/// of a thousand tasks stays a readable paragraph.
const LISTED_IDS: usize = 20;

/// Why a plan operation was refused. The plan is unchanged whenever one of
/// these is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
    #[error("A task needs a non-empty id such as '1'; the task_id given was empty.")]
    EmptyId,

    #[error("Task id '{id}' already exists; use Plan.replace_task to change it or pick a new id.")]
    DuplicateId { id: String },

    #[error(
        "Task id '{id}' is used by more than one task in the list; give every task its own id."
    )]
    DuplicateInList { id: String },

    #[error(
        "Task '{task}' depends on '{dependency}', which is not in the plan. {}. \
         Append task '{dependency}' first or remove the dependency.",
        known_ids(.known)
    )]
    UnknownDependency {
        task: String,
        dependency: String,
        /// The ids that do exist, in plan order.
        known: Vec<String>,
    },

    #[error(
        "Task '{id}' is not in the plan. {}. Use one of these ids, or Plan.append_task to add it.",
        known_ids(.known)
    )]
    UnknownTask { id: String, known: Vec<String> },

    #[error(
        "Task '{}' would depend on itself through the cycle {} (read '->' as 'depends on'). \
         A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.",
        .path.first().map(String::as_str).unwrap_or_default(),
        .path.join(" -> ")
    )]
    Cycle {
        /// The ids along the cycle, first and last equal: `["2", "3", "2"]`
        /// means 2 depends on 3, which depends on 2.
        path: Vec<String>,
    },

    #[error(
        "There is no current task: {}. Append a task with Plan.append_task, or end if the goal is reached.",
        if *.plan_is_empty { "the plan has no tasks" } else { "every task in the plan is finished" }
    )]
    NoCurrentTask { plan_is_empty: bool },
}

/// "Existing task ids: 1, 2, 3", shortened for long plans.
fn known_ids(known: &[String]) -> String {
    if known.is_empty() {
        return "The plan has no tasks yet".to_owned();
    }
    let shown = known
        .iter()
        .take(LISTED_IDS)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if known.len() > LISTED_IDS {
        format!(
            "Existing task ids: {shown} and {} more",
            known.len() - LISTED_IDS
        )
    } else {
        format!("Existing task ids: {shown}")
    }
}
