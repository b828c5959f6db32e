//! A constrained RoleZero answer read back into MetaGPT's format.
//!
//! A provider that follows the answer's JSON schema
//! (`commands::answer_schema`) writes one JSON object,
//! `{"thought": "...", "commands": [...]}`. The loop, the conversation and
//! the saved history all expect MetaGPT's form: the thought as prose, then
//! one ```` ```json ```` block with the command list. This turns the first
//! into the second, so a constrained answer means exactly what the same
//! answer written freely would. Anything else (a provider that ignored the
//! schema, prose) is left as it came, for `parse_commands` and its repairs.

use serde_json::Value;

use crate::core::commands::Command;

/// MetaGPT's form of a constrained answer; other texts unchanged.
pub fn answer_text(answer: String) -> String {
    let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(answer.trim()) else {
        return answer;
    };
    let only_known = object.keys().all(|k| k == "thought" || k == "commands");
    let (Some(Value::Array(_)), true) = (object.get("commands"), only_known) else {
        return answer;
    };
    let thought = match object.remove("thought") {
        Some(Value::String(thought)) => thought,
        None => String::new(),
        Some(_) => return answer,
    };
    let commands = object.remove("commands").unwrap_or_default();
    // Written as MetaGPT writes a list (`command_name` first) when every
    // item is a command; otherwise as it came, for the parser to explain.
    let block = match serde_json::from_value::<Vec<Command>>(commands.clone()) {
        Ok(commands) => Command::render_block(&commands),
        Err(_) => match serde_json::to_string_pretty(&commands) {
            Ok(list) => format!("```json\n{list}\n```"),
            Err(_) => return answer,
        },
    };
    let thought = thought.trim();
    if thought.is_empty() {
        block
    } else {
        format!("{thought}\n\n{block}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rolezero::{parse_commands, ParseOutcome};

    fn check(answer: &str, want: &str) {
        assert_eq!(answer_text(answer.to_owned()), want, "{answer}");
    }

    #[test]
    fn a_constrained_answer_becomes_thought_and_block() {
        check(
            r#"{"thought": "Plan first.", "commands": [{"command_name": "end", "args": {}}]}"#,
            "Plan first.\n\n```json\n[\n  {\n    \"command_name\": \"end\",\n    \"args\": {}\n  }\n]\n```",
        );
        check(r#" {"commands": []} "#, "```json\n[]\n```");
        check(r#"{"commands": [{"command_name": 1}]}"#, "```json\n[\n  {\n    \"command_name\": 1\n  }\n]\n```");
        check(r#"{"thought": "  ", "commands": []}"#, "```json\n[]\n```");
    }

    #[test]
    fn other_texts_are_left_as_they_came() {
        for answer in [
            "Just prose.",
            "Thought.\n```json\n[{\"command_name\": \"end\"}]\n```",
            r#"[{"command_name": "end", "args": {}}]"#,
            r#"{"thought": "x", "commands": {"command_name": "end"}}"#,
            r#"{"thought": "x", "commands": [], "extra": 1}"#,
            r#"{"thought": 3, "commands": []}"#,
            r#"{"thought": "x", "commands": [}"#,
        ] {
            check(answer, answer);
        }
    }

    /// The converted answer parses to the same commands, with no note
    /// (a note would tell the model it wrote something wrong).
    #[test]
    fn the_converted_answer_parses_without_notes() {
        let answer = r#"{"thought": "Write it.", "commands": [
            {"command_name": "Editor.write", "args": {"path": "a.js", "content": "let s = \"```\";"}},
            {"command_name": "end", "args": {}}]}"#;
        let ParseOutcome::Parsed { commands, notes } = parse_commands(&answer_text(answer.to_owned())) else {
            panic!("did not parse");
        };
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Editor.write", "end"]);
        assert_eq!(commands[0].args["content"], "let s = \"```\";");
        assert!(notes.is_empty(), "{notes:?}");
    }
}
