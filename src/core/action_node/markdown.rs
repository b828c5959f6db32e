//! Filled fields as a markdown document: one `##` section per field, lists as
//! bullets, mermaid diagrams fenced. This is how PRDs, designs and task lists
//! become files.
//!
//! It renders whatever values it is given and checks nothing: validation is
//! `ActionNode::parse`'s job.

use serde_json::{Map, Value};

use super::compile::write_value;
use super::ActionNode;

/// First words that make a string a mermaid diagram.
const MERMAID_KEYWORDS: &[&str] = &[
    "graph",
    "flowchart",
    "sequenceDiagram",
    "classDiagram",
    "stateDiagram",
    "stateDiagram-v2",
    "erDiagram",
    "journey",
    "gantt",
    "pie",
    "quadrantChart",
    "requirementDiagram",
    "gitGraph",
    "mindmap",
    "timeline",
    "C4Context",
    "sankey-beta",
    "xychart-beta",
    "block-beta",
];

impl ActionNode {
    /// The values of this node's fields as markdown, in field order. Fields
    /// absent from `values` (or null) get no section. A group's fields become
    /// subsections one heading level down.
    ///
    /// Strings are written as they are, except that a string whose first word
    /// is a mermaid diagram type goes inside a ```mermaid fence. List items
    /// are bullets; an item that is itself a list (a requirement-pool row)
    /// is written `first: second; third`; empty items are left out. Objects
    /// are fenced JSON.
    pub fn to_markdown(&self, values: &Map<String, Value>) -> String {
        let mut sections = Vec::new();
        push_sections(&mut sections, self.fields(), values, 2);
        let mut text = sections.join("\n\n");
        text.push('\n');
        text
    }
}

fn push_sections(sections: &mut Vec<String>, fields: &[ActionNode], values: &Map<String, Value>, level: usize) {
    for field in fields {
        let Some(value) = values.get(&field.key).filter(|value| !value.is_null()) else {
            continue;
        };
        let heading = format!("{} {}", "#".repeat(level), field.key);
        match value {
            Value::Object(inner) if !field.children.is_empty() => {
                sections.push(heading);
                push_sections(sections, &field.children, inner, level + 1);
            }
            _ => {
                let body = body(value);
                sections.push(if body.is_empty() { heading } else { format!("{heading}\n\n{body}") });
            }
        }
    }
}

fn body(value: &Value) -> String {
    match value {
        Value::String(text) if is_mermaid(text) => format!("```mermaid\n{}\n```", text.trim()),
        Value::String(text) => text.trim().to_string(),
        // Empty items (an empty row) would be bare dashes: leave them out.
        Value::Array(items) => items
            .iter()
            .map(|item| inline(item).trim().to_string())
            .filter(|item| !item.is_empty())
            .map(|item| format!("- {}", item.replace('\n', "\n  ")))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(_) => {
            let mut json = String::new();
            write_value(&mut json, value, 0);
            format!("```json\n{json}\n```")
        }
        other => other.to_string(),
    }
}

/// A list item on one bullet.
fn inline(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => {
            let mut parts = items.iter().map(inline);
            match parts.next() {
                None => String::new(),
                Some(first) => {
                    let rest: Vec<String> = parts.collect();
                    if rest.is_empty() {
                        first
                    } else {
                        format!("{first}: {}", rest.join("; "))
                    }
                }
            }
        }
        other => other.to_string(),
    }
}

/// Whether the text's first word (after `%%` directive lines) names a mermaid
/// diagram type.
fn is_mermaid(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("%%"))
        .and_then(|line| line.split_whitespace().next())
        .is_some_and(|word| MERMAID_KEYWORDS.contains(&word))
}
