//! The prompt an `ActionNode` sends: context, format example, the nodes with
//! their types and instructions, constraints and the action. The shape follows
//! MetaGPT's `SIMPLE_TEMPLATE`; the wording is ours.
//!
//! Nothing here parses answers or talks to a model.

use serde_json::Value;

use super::{ActionNode, NodeParseError};

/// The tag pair the answer must be wrapped in.
pub(super) const OPEN_TAG: &str = "[CONTENT]";
pub(super) const CLOSE_TAG: &str = "[/CONTENT]";

/// Four spaces, as in MetaGPT's `json.dumps(indent=4)`.
const INDENT: &str = "    ";

impl ActionNode {
    /// The full prompt asking the model to fill this node's fields from
    /// `context`. An empty `language` asks for the language of the context.
    pub fn compile(&self, context: &str, language: &str) -> String {
        let language_rule = if language.trim().is_empty() {
            "Language: write the values in the same language as the user's requirement.".to_string()
        } else {
            format!("Language: write the values in {}.", language.trim())
        };
        format!(
            "## context\n{context}\n\n-----\n\n\
             ## format example\n{example}\n\n\
             ## nodes: \"<node>: <type>  # <instruction>\"\n{nodes}\n\n\
             ## constraint\n{language_rule}\n\
             Format: wrap the output in {OPEN_TAG}{CLOSE_TAG} exactly like the format example, \
             keep every key as written, and write nothing else.\n\n\
             ## action\n\
             Fill in every node from the context, following each node's instruction, \
             and answer strictly in the shape of the format example.\n",
            context = context.trim_end(),
            example = self.format_example(),
            nodes = self.node_lines(),
        )
    }

    /// The example answer: a JSON object of every field's example, in field
    /// order, wrapped in the content tags.
    pub fn format_example(&self) -> String {
        let mut json = String::new();
        write_fields(&mut json, self.fields(), 0);
        format!("{OPEN_TAG}\n{json}\n{CLOSE_TAG}")
    }

    /// One `- key: type  # instruction` line per field; a group's fields
    /// follow it, indented.
    fn node_lines(&self) -> String {
        let mut lines = Vec::new();
        push_node_lines(&mut lines, self.fields(), 0);
        lines.join("\n")
    }
}

/// The user turn sent after an answer that did not parse. It quotes the
/// error verbatim so the model knows exactly what to fix.
pub(super) fn correction(error: &NodeParseError) -> String {
    format!(
        "Your answer could not be used: {}\n\n\
         Write the whole answer again with that corrected, wrapped in {OPEN_TAG}{CLOSE_TAG} \
         like the format example, and nothing else.",
        error.for_model()
    )
}

fn push_node_lines(lines: &mut Vec<String>, fields: &[ActionNode], depth: usize) {
    for field in fields {
        let pad = "  ".repeat(depth);
        let mut line = format!("{pad}- {}: {}", field.key, field.type_name());
        if !field.instruction.trim().is_empty() {
            line.push_str("  # ");
            line.push_str(field.instruction.trim());
        }
        lines.push(line);
        push_node_lines(lines, &field.children, depth + 1);
    }
}

/// Writes `{ "key": example, ... }` in field order. `serde_json::Map` would
/// sort the keys, and the model should see them in the order the document
/// reads.
fn write_fields(out: &mut String, fields: &[ActionNode], depth: usize) {
    if fields.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (i, field) in fields.iter().enumerate() {
        out.push_str(&INDENT.repeat(depth + 1));
        out.push_str(&Value::String(field.key.clone()).to_string());
        out.push_str(": ");
        if field.children.is_empty() {
            write_value(out, &field.example, depth + 1);
        } else {
            write_fields(out, &field.children, depth + 1);
        }
        if i + 1 < fields.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(&INDENT.repeat(depth));
    out.push('}');
}

/// Pretty JSON with four-space indents, starting at `depth`.
pub(super) fn write_value(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&INDENT.repeat(depth + 1));
                write_value(out, item, depth + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&INDENT.repeat(depth));
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(&INDENT.repeat(depth + 1));
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_value(out, item, depth + 1);
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&INDENT.repeat(depth));
            out.push('}');
        }
        // Scalars and empty containers; `Display` for `Value` is compact JSON.
        other => out.push_str(&other.to_string()),
    }
}
