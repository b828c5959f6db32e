//! `WritePrd` (Alice, the product manager): the user's requirement becomes
//! a product requirement document, filled as an `ActionNode` and written to
//! `docs/prd.md`.
//!
//! On a follow-up (the project has a PRD) it refines that PRD for the new
//! requirement instead (MetaGPT's incremental mode: the legacy content and
//! the new requirements, filled into the refined fields). It does not
//! research competitors on the web: the analysis is the model's knowledge.

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::core::action::{Action, ActionContext, ActionOutput};
use crate::core::action_node::{ActionNode, FieldType};
use crate::core::message::{ActionKind, USER_REQUIREMENT};
use crate::core::role_error::RoleError;

use super::document::{document_output, failure, fill, latest};
use super::incremental::{legacy_document, refine, REFINED_REQUIREMENTS};
use super::prompts::{render, REFINE_PRD, WRITE_PRD};
use super::{PRD_PATH, WRITE_PRD as KIND};

/// Writes the PRD for the latest requirement the role received.
#[derive(Debug, Clone, Copy, Default)]
pub struct WritePrd;

impl WritePrd {
    /// The PRD's fields, in the order the document reads.
    pub fn node() -> ActionNode {
        ActionNode::group(
            "PRD",
            vec![
                ActionNode::new("Language", FieldType::Str, "The language of the user's requirement, such as en_us or zh_cn.", "en_us"),
                ActionNode::new(
                    "Programming Language",
                    FieldType::Str,
                    "The main programming language; when the requirement names none, the one that fits best (JavaScript for a web page).",
                    "JavaScript",
                ),
                ActionNode::new("Original Requirements", FieldType::Str, "The user's requirement, restated in full.", "Make a to-do list web app."),
                ActionNode::new("Project Name", FieldType::Str, "A short snake_case name for the project.", "todo_list"),
                ActionNode::new("Product Goals", FieldType::str_list(), "Up to three clear, distinct goals.", json!(["Adding and ticking off a task takes one step", "Tasks survive a page reload"])),
                ActionNode::new(
                    "User Stories",
                    FieldType::str_list(),
                    "Three to five stories: \"As a <user>, I want <goal> so that <reason>\".",
                    json!(["As a busy parent, I want to add a task in one step so that I do not forget it"]),
                ),
                ActionNode::new(
                    "Competitive Analysis",
                    FieldType::str_list(),
                    "Up to seven similar products, each with its strengths and weaknesses.",
                    json!(["Todoist: fast entry and sync, but the best features need a subscription"]),
                ),
                ActionNode::new(
                    "Competitive Quadrant Chart",
                    FieldType::Str,
                    "A mermaid quadrantChart placing the competitors and our product, every score between 0 and 1.",
                    "quadrantChart\n    title Reach and engagement of to-do apps\n    x-axis Low Reach --> High Reach\n    y-axis Low Engagement --> High Engagement\n    quadrant-1 Expand\n    quadrant-2 Promote\n    quadrant-3 Re-evaluate\n    quadrant-4 Improve\n    \"Todoist\": [0.8, 0.7]\n    \"Our Target Product\": [0.5, 0.6]",
                ),
                ActionNode::new("Requirement Analysis", FieldType::Str, "What the requirement really asks for, and what it leaves out.", ""),
                ActionNode::new(
                    "Requirement Pool",
                    FieldType::list(FieldType::str_list()),
                    "Rows of [priority, requirement]; priority P0 (must), P1 (should) or P2 (nice to have); P0 rows first.",
                    json!([["P0", "Add a task with a title"], ["P1", "Keep tasks in local storage"]]),
                ),
                ActionNode::new("UI Design draft", FieldType::Str, "The screen's elements, layout and style, in a few sentences.", ""),
                ActionNode::new("Anything UNCLEAR", FieldType::Str, "Open questions and the assumptions made; empty when there are none.", ""),
            ],
        )
    }

    /// The refined PRD's fields (a follow-up): the requirements, goals,
    /// stories, analysis and pool become their refined forms; the rest
    /// keeps its meaning.
    pub fn refined_node() -> ActionNode {
        refine(
            Self::node(),
            "Refined PRD",
            vec![
                (
                    "Original Requirements",
                    ActionNode::new(REFINED_REQUIREMENTS, FieldType::Str, "The user's new requirements, restated in full.", "Make the 2048 game with a new feature that ..."),
                ),
                (
                    "Product Goals",
                    ActionNode::new(
                        "Refined Product Goals",
                        FieldType::str_list(),
                        "The product goals, updated and extended for the new requirements; up to three, in line with where the product now goes.",
                        json!(["Adding and ticking off a task takes one step", "Tasks can be sorted by due date"]),
                    ),
                ),
                (
                    "User Stories",
                    ActionNode::new(
                        "Refined User Stories",
                        FieldType::str_list(),
                        "The user stories, updated and extended so that they cover what the new requirements add; three to five.",
                        json!(["As a busy parent, I want to sort my tasks by due date so that I see the urgent ones first"]),
                    ),
                ),
                (
                    "Requirement Analysis",
                    ActionNode::new(
                        "Refined Requirement Analysis",
                        FieldType::str_list(),
                        "The requirement analysis, refined for the new requirements: one point per addition or change, saying what is added or modified.",
                        json!(["Add: a due date on each task", "Modify: the list is sorted by due date"]),
                    ),
                ),
                (
                    "Requirement Pool",
                    ActionNode::new(
                        "Refined Requirement Pool",
                        FieldType::list(FieldType::str_list()),
                        "Rows of [priority, requirement] covering both the legacy and the new requirements; keep the rows the change does not touch; P0 rows first.",
                        json!([["P0", "Add a task with a title"], ["P0", "Sort the tasks by due date"]]),
                    ),
                ),
            ],
            vec![],
        )
    }
}

impl Action for WritePrd {
    fn kind(&self) -> ActionKind {
        ActionKind::new(KIND)
    }

    fn describe(&self) -> String {
        "WritePRD: write the product requirement document".into()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            // The latest requirement; a message addressed to the role by name
            // (a follow-up) when no requirement was received.
            let requirement = latest(cx.history, USER_REQUIREMENT)
                .or_else(|| cx.history.last())
                .map(|m| m.content.clone())
                .ok_or_else(|| failure(KIND, "there is no requirement to write a PRD for"))?;
            // A follow-up refines the PRD the project has (MetaGPT checks its
            // docs the same way), whoever wrote it last.
            let legacy = legacy_document(&cx, PRD_PATH);
            let (node, context) = match &legacy {
                Some(legacy) => (
                    Self::refined_node(),
                    render(REFINE_PRD, &[("legacy", legacy.trim()), ("requirement", requirement.trim())]),
                ),
                None => (Self::node(), render(WRITE_PRD, &[("requirement", requirement.trim())])),
            };
            let filled = fill(&cx, KIND, "PRD", &node, &context).await?;
            let title = match filled.instruct_content.get("Project Name") {
                Some(Value::String(name)) if !name.trim().is_empty() => {
                    format!("Product Requirement Document: {}", name.trim())
                }
                _ => "Product Requirement Document".to_string(),
            };
            document_output(&cx, KIND, &node, filled, &title, PRD_PATH)
        })
    }
}
