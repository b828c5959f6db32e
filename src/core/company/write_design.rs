//! `WriteDesign` (Bob, the architect): the PRD becomes a system design
//! (approach, file list, class diagram, call flow), filled as an
//! `ActionNode` and written to `docs/system_design.md`.
//!
//! It does not check that the mermaid diagrams render, nor that the file
//! list matches the diagrams: the project manager and the engineer read the
//! design as the model wrote it.

use futures::future::LocalBoxFuture;
use serde_json::json;

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FieldType};
use crate::core::message::ActionKind;
use crate::core::role::RoleError;

use super::document::{document_output, fill, require_upstream};
use super::prompts::{render, WRITE_DESIGN};
use super::{DESIGN_PATH, PRD_PATH, WRITE_DESIGN as KIND, WRITE_PRD};

/// Designs the system the PRD asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteDesign;

impl WriteDesign {
    /// The design's fields, in the order the document reads.
    pub fn node() -> ActionNode {
        ActionNode::group(
            "Design",
            vec![
                ActionNode::new(
                    "Implementation approach",
                    FieldType::Str,
                    "The hard parts of the requirement and how to solve them: the framework and libraries chosen, and why.",
                    "A single page with no build step: plain JavaScript modules, the tasks kept in localStorage.",
                ),
                ActionNode::new(
                    "File list",
                    FieldType::str_list(),
                    "Every file of the program, as a path relative to the project root; the entry point first.",
                    json!(["index.html", "app.js"]),
                ),
                ActionNode::new(
                    "Data structures and interfaces",
                    FieldType::Str,
                    "A mermaid classDiagram: every class with its fields, its methods with their types, and their relations.",
                    "classDiagram\n    class TaskList {\n        -tasks: Task[]\n        +add(title: string) Task\n        +toggle(id: number) void\n    }\n    class Task {\n        +id: number\n        +title: string\n        +done: boolean\n    }\n    TaskList \"1\" o-- \"*\" Task",
                ),
                ActionNode::new(
                    "Program call flow",
                    FieldType::Str,
                    "A mermaid sequenceDiagram of the main flows, using exactly the classes and methods above.",
                    "sequenceDiagram\n    participant U as User\n    participant L as TaskList\n    U->>L: add(title)\n    L-->>U: Task",
                ),
                ActionNode::new("Anything UNCLEAR", FieldType::Str, "Open questions about the design; empty when there are none.", ""),
            ],
        )
    }
}

impl Action for WriteDesign {
    fn kind(&self) -> ActionKind {
        ActionKind::new(KIND)
    }

    fn describe(&self) -> String {
        "WriteDesign: design the system the PRD asks for".into()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let prd = require_upstream(&cx, KIND, PRD_PATH, WRITE_PRD, "PRD")?;
            let node = Self::node();
            let context = render(WRITE_DESIGN, &[("prd", prd.trim())]);
            let filled = fill(&cx, KIND, "system design", &node, &context).await?;
            document_output(&cx, KIND, &node, filled, "System Design", DESIGN_PATH)
        })
    }
}
