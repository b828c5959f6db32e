//! `WriteTasks` (Eve, the project manager): the system design becomes a
//! task list (packages, logic per file, the files in the order to write
//! them), filled as an `ActionNode` and written to `docs/tasks.md`.
//!
//! It does not check the task list against the design's file list, nor the
//! paths in it: the engineer validates every path before writing anything.

use futures::future::LocalBoxFuture;
use serde_json::json;

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FieldType};
use crate::core::message::ActionKind;
use crate::core::role::RoleError;

use super::document::{document_output, fill, require_upstream};
use super::prompts::{render, WRITE_TASKS};
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
            let node = Self::node();
            let context = render(WRITE_TASKS, &[("design", design.trim())]);
            let filled = fill(&cx, KIND, "task list", &node, &context).await?;
            document_output(&cx, KIND, &node, filled, "Project Tasks", TASKS_PATH)
        })
    }
}
