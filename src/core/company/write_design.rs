//! `WriteDesign` (Bob, the architect): the PRD becomes a system design
//! (approach, file list, class diagram, call flow), filled as an
//! `ActionNode` and written to `docs/system_design.md`.
//!
//! When the PRD it reads is a refined one (a follow-up), it refines the
//! project's design for it instead (MetaGPT's incremental mode).
//!
//! It does not check that the mermaid diagrams render, nor that the file
//! list matches the diagrams: the project manager and the engineer read the
//! design as the model wrote it.

use futures::future::LocalBoxFuture;
use serde_json::json;

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FieldType};
use crate::core::message::ActionKind;
use crate::core::role_error::RoleError;

use super::document::{document_output, fill, require_upstream};
use super::incremental::{legacy_to_refine, refine, REFINED_FILE_LIST, REFINED_REQUIREMENTS};
use super::prompts::{render, REFINE_DESIGN, WRITE_DESIGN};
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

    /// The refined design's fields (a follow-up): every part of the design
    /// extends the legacy one.
    pub fn refined_node() -> ActionNode {
        refine(
            Self::node(),
            "Refined Design",
            vec![
                (
                    "Implementation approach",
                    ActionNode::new(
                        "Refined Implementation Approach",
                        FieldType::Str,
                        "The implementation approach, updated and extended for the new requirements: the steps of the change and how each is done; what the change does not touch stays as it was.",
                        "As before; the due date is one more field of Task, and TaskList sorts by it on every render.",
                    ),
                ),
                (
                    "File list",
                    ActionNode::new(
                        REFINED_FILE_LIST,
                        FieldType::str_list(),
                        "The file list, updated: every file of the program after the change, as relative paths, the entry point first; add a file only when the change needs one.",
                        json!(["index.html", "app.js"]),
                    ),
                ),
                (
                    "Data structures and interfaces",
                    ActionNode::new(
                        "Refined Data structures and interfaces",
                        FieldType::Str,
                        "The mermaid classDiagram, updated: the legacy classes, fields and methods, with what the change adds or modifies.",
                        "classDiagram\n    class Task {\n        +id: number\n        +title: string\n        +done: boolean\n        +due: string\n    }",
                    ),
                ),
                (
                    "Program call flow",
                    ActionNode::new(
                        "Refined Program call flow",
                        FieldType::Str,
                        "The mermaid sequenceDiagram, updated with the flows the change adds or modifies, using exactly the classes and methods above.",
                        "sequenceDiagram\n    participant U as User\n    participant L as TaskList\n    U->>L: add(title, due)\n    L-->>U: Task",
                    ),
                ),
            ],
            vec![],
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
            // A refined PRD refines the design the project has.
            let legacy = legacy_to_refine(&cx, WRITE_PRD, REFINED_REQUIREMENTS, DESIGN_PATH);
            let (node, context) = match &legacy {
                Some(legacy) => {
                    (Self::refined_node(), render(REFINE_DESIGN, &[("legacy", legacy.trim()), ("prd", prd.trim())]))
                }
                None => (Self::node(), render(WRITE_DESIGN, &[("prd", prd.trim())])),
            };
            let filled = fill(&cx, KIND, "system design", &node, &context).await?;
            document_output(&cx, KIND, &node, filled, "System Design", DESIGN_PATH)
        })
    }
}
