//! `WriteTasks` (Eve, the project manager): the system design becomes a
//! task list (packages, logic per file, the files in the order to write
//! them), filled as an `ActionNode` and written to `docs/tasks.md`.
//!
//! When the design it reads is a refined one (a follow-up), it refines the
//! project's task list and names the files to change, each with what
//! changes in it ("Incremental Change"): only those are rewritten.
//!
//! It does not check the task list against the design's file list, nor the
//! paths in it: the engineer validates every path before writing anything.

use futures::future::LocalBoxFuture;
use serde_json::json;

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FieldType};
use crate::core::message::ActionKind;
use crate::core::role_error::RoleError;

use super::document::{document_output, fill, require_upstream};
use super::incremental::{legacy_to_refine, refine, INCREMENTAL_CHANGE, REFINED_FILE_LIST};
use super::prompts::{render, REFINE_TASKS, WRITE_TASKS};
use super::{DESIGN_PATH, TASKS_PATH, WRITE_DESIGN, WRITE_TASKS as KIND};

/// The key of the files to write, in order, in the task list's fields.
pub(crate) const TASK_LIST: &str = "Task list";

/// Breaks the design down into files to write, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTasks;

impl WriteTasks {
    /// The task list's fields, in the order the document reads.
    pub fn node() -> ActionNode {
        ActionNode::group(
            "Tasks",
            vec![
                ActionNode::new(
                    "Required packages",
                    FieldType::str_list(),
                    "Third-party packages the code needs, with versions; an empty list when it needs none.",
                    json!(["idb-keyval@6.2.1"]),
                )
                .optional(),
                ActionNode::new(
                    "Logic Analysis",
                    FieldType::list(FieldType::str_list()),
                    "Rows of [file, what it holds and which files it uses], one per file of the design.",
                    json!([["app.js", "TaskList and Task; renders the list into #tasks; uses nothing"], ["index.html", "The page; loads app.js"]]),
                ),
                ActionNode::new(
                    TASK_LIST,
                    FieldType::str_list(),
                    "The paths of the files to write, each once, in the order to write them: a file after those it depends on.",
                    json!(["app.js", "index.html"]),
                ),
                ActionNode::new(
                    "Shared Knowledge",
                    FieldType::Str,
                    "What several files must agree on: element ids, constants, data formats, conventions.",
                    "The list element's id is \"tasks\"; tasks are stored under the localStorage key \"todo.v1\".",
                ),
                ActionNode::new("Anything UNCLEAR", FieldType::Str, "Open questions about the tasks; empty when there are none.", ""),
            ],
        )
    }

    /// The refined task list's fields (a follow-up): the merged analysis,
    /// list and knowledge, and the incremental change: the files to write.
    pub fn refined_node() -> ActionNode {
        refine(
            Self::node(),
            "Refined Tasks",
            vec![
                (
                    "Logic Analysis",
                    ActionNode::new(
                        "Refined Logic Analysis",
                        FieldType::list(FieldType::str_list()),
                        "Rows of [file, what it holds and which files it uses], the legacy analysis merged with the change: every file of the refined design, saying what the change adds or modifies in it.",
                        json!([["app.js", "TaskList and Task, now with a due date; sorts by it; uses nothing"], ["index.html", "The page, with the due date input; loads app.js"]]),
                    ),
                ),
                (
                    TASK_LIST,
                    ActionNode::new(
                        "Refined Task list",
                        FieldType::str_list(),
                        "Every file of the project after the change, each once, in dependency order: a file after those it depends on.",
                        json!(["app.js", "index.html"]),
                    ),
                ),
                (
                    "Shared Knowledge",
                    ActionNode::new(
                        "Refined Shared Knowledge",
                        FieldType::Str,
                        "The shared knowledge, updated with what the change adds: element ids, constants, data formats, conventions.",
                        "The list element's id is \"tasks\"; the due date input's id is \"due\"; tasks are stored under \"todo.v1\".",
                    ),
                ),
            ],
            vec![(
                "Refined Task list",
                ActionNode::new(
                    INCREMENTAL_CHANGE,
                    FieldType::list(FieldType::str_list()),
                    "Rows of [file, what changes in it]: only the files this change must create or modify, each once, in the order to write them; a file left out is not touched.",
                    json!([["app.js", "Task gets a due field; TaskList.render sorts by it"], ["index.html", "Add the due date input next to the title input"]]),
                ),
            )],
        )
    }
}

impl Action for WriteTasks {
    fn kind(&self) -> ActionKind {
        ActionKind::new(KIND)
    }

    fn describe(&self) -> String {
        "WriteTasks: break the design down into files to write".into()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let design = require_upstream(&cx, KIND, DESIGN_PATH, WRITE_DESIGN, "system design")?;
            // A refined design refines the task list the project has.
            let legacy = legacy_to_refine(&cx, WRITE_DESIGN, REFINED_FILE_LIST, TASKS_PATH);
            let (node, context) = match &legacy {
                Some(legacy) => {
                    (Self::refined_node(), render(REFINE_TASKS, &[("legacy", legacy.trim()), ("design", design.trim())]))
                }
                None => (Self::node(), render(WRITE_TASKS, &[("design", design.trim())])),
            };
            let filled = fill(&cx, KIND, "task list", &node, &context).await?;
            document_output(&cx, KIND, &node, filled, "Project Tasks", TASKS_PATH)
        })
    }
}
