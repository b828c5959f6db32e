//! Tests for reading RoleZero answers: each repair path of `parse_commands`,
//! the exclusive cut, and quick-think labels in odd formats.
//!
//! `check` parses one answer and compares a one-line rendering: `ok` with
//! each command as `name{args}` (and the notes after `|`), `repair:` with
//! the JSON error and the text to send, or `invalid:` with the text for the
//! model.

use expect_test::{expect, Expect};
use serde_json::json;

use super::{cut_after_exclusive, parse_commands, parse_quick_think, repair_prompt, ParseOutcome, QuickThink};
use crate::core::commands::Command;

fn render(outcome: &ParseOutcome) -> String {
    match outcome {
        ParseOutcome::Parsed { commands, notes } => {
            let commands: Vec<String> = commands.iter().map(|c| format!("{}{}", c.name, c.args)).collect();
            let mut text = format!("ok {}", commands.join(" "));
            if !notes.is_empty() {
                text.push_str(&format!(" | {}", notes.join(" ")));
            }
            text
        }
        ParseOutcome::NeedsLlmRepair { text, error } => format!("repair: {error} | text: {text}"),
        ParseOutcome::Invalid(why) => format!("invalid: {why}"),
    }
}

fn check(answer: &str, expect: &str) {
    assert_eq!(render(&parse_commands(answer)), expect, "answer: {answer}");
}

fn check_snapshot(answer: &str, expect: Expect) {
    expect.assert_eq(&render(&parse_commands(answer)));
}

#[test]
fn well_formed_answers() {
    check("```json\n[{\"command_name\": \"end\", \"args\": {}}]\n```", "ok end{}");
    check(
        "I will plan.\n```json\n[\n  {\"command_name\": \"Plan.append_task\", \"args\": {\"task_id\": \"1\"}},\n  {\"command_name\": \"end\"}\n]\n```\nDone.",
        r#"ok Plan.append_task{"task_id":"1"} end{}"#,
    );
    check("```JSON\n[{\"command_name\": \"end\", \"args\": null}]\n```", "ok end{}");
    check("``` json\n[]\n```", "ok ");
    check("```json [{\"command_name\": \"end\"}]```", "ok end{}");
    // An unlabeled fence holding JSON counts; other languages do not.
    check("```python\nprint([1])\n```\n```\n[{\"command_name\": \"end\"}]\n```", "ok end{}");
    // Extra keys in a command object are ignored.
    check(
        r#"```json
[{"command_name": "end", "args": {}, "thought": "done"}]
```"#,
        "ok end{}",
    );
}

#[test]
fn prose_around_json_without_a_fence() {
    check(r#"Thoughts: the [TASK] is done. [{"command_name": "end", "args": {}}] That is all [1]."#, "ok end{}");
    check(r#"Here: {"command_name": "end", "args": {}} bye"#, "ok end{}");
    check(
        r#"Here: {"command_name": "a"}, {"command_name": "b"}] bye"#,
        "ok a{} b{} | Added the missing '[' at the start of the command list.",
    );
    check("Nothing to do.", "invalid: Found no JSON command list in the answer. Answer with your thoughts, then one ```json block holding a list of commands: [{\"command_name\": \"...\", \"args\": {...}}].");
}

#[test]
fn missing_bracket_and_bare_objects() {
    check(
        "```json\n{\"command_name\": \"a\", \"args\": {}},\n{\"command_name\": \"b\", \"args\": {}}\n]\n```",
        "ok a{} b{} | Added the missing '[' at the start of the command list.",
    );
    check(
        "```json\n{\"command_name\": \"a\"},\n{\"command_name\": \"b\"}\n```",
        "ok a{} b{} | Wrapped the command objects in a list.",
    );
    check("```json\n{\"command_name\": \"end\"}\n```", "ok end{}");
    check(
        "```json\n{\"commands\": [{\"command_name\": \"end\"}]}\n```",
        "ok end{} | Took the list under \"commands\"; write the list itself next time.",
    );
}

#[test]
fn local_repairs() {
    check(
        "```json\n[{\"command_name\": \"end\", \"args\": {},},]\n```",
        "ok end{} | Repaired the JSON: removed trailing commas.",
    );
    check(
        r#"```json
[{"command_name": "Editor.write", "args": {"path": "C:\Users\me\a.py", "content": "re.match(r'\d+\s', x)"}}]
```"#,
        r#"ok Editor.write{"content":"re.match(r'\\d+\\s', x)","path":"C:\\Users\\me\\a.py"} | Repaired the JSON: doubled backslashes that started no JSON escape."#,
    );
    check(
        "```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"content\": \"def f():\n\treturn 1\n\"}}]\n```",
        r#"ok Editor.write{"content":"def f():\n\treturn 1\n"} | Repaired the JSON: escaped raw line breaks or tabs inside strings."#,
    );
    check(
        "```json\n[{'command_name': 'Plan.append_task', 'args': {'task_id': '1', 'done': False, 'note': 'say \"hi\"'}},]\n```",
        r#"ok Plan.append_task{"done":false,"note":"say \"hi\"","task_id":"1"} | Repaired the JSON: converted Python quoting and literals to JSON; removed trailing commas."#,
    );
}

#[test]
fn a_fence_inside_a_string_does_not_end_the_block() {
    check(
        "```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"path\": \"README.md\", \"content\": \"# App\n```sh\nrun\n```\n\"}}]\n```\nok",
        r##"ok Editor.write{"content":"# App\n```sh\nrun\n```\n","path":"README.md"} | Repaired the JSON: escaped raw line breaks or tabs inside strings."##,
    );
}

#[test]
fn only_the_first_of_several_lists_is_used() {
    check(
        "```json\n[{\"command_name\": \"a\"}]\n```\nand then\n```json\n[{\"command_name\": \"b\"}]\n```",
        "ok a{} | The answer held 2 separate JSON command lists; only the first was used. Put every command in one list.",
    );
    check(
        r#"First [{"command_name": "a"}] then [{"command_name": "b"}]"#,
        "ok a{} | The answer held 2 separate JSON command lists; only the first was used. Put every command in one list.",
    );
}

#[test]
fn hopeless_json_goes_to_the_model_for_repair() {
    check_snapshot(
        "```json\n[{\"command_name\": \"end\" \"args\": {}}]\n```",
        expect![[r#"repair: expected `,` or `}` at line 1 column 25 | text: [{"command_name": "end" "args": {}}]"#]],
    );
    // Truncated: the fence never closes.
    check_snapshot(
        "```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"content\": \"abc",
        expect![[
            r#"repair: EOF while parsing a string at line 1 column 58 | text: [{"command_name": "Editor.write", "args": {"content": "abc"#
        ]],
    );
    // The repaired answer is parsed once more, without another repair round.
    let outcome = parse_commands("```json\n[{\"command_name\" \"end\"}]\n```").without_llm_repair();
    assert_eq!(
        render(&outcome),
        "invalid: The command list is not valid JSON: expected `:` at line 1 column 18. Answer with your thoughts, \
         then one ```json block holding a list of commands: [{\"command_name\": \"...\", \"args\": {...}}]."
    );
    let good = parse_commands("```json\n[{\"command_name\": \"end\"}]\n```").without_llm_repair();
    assert_eq!(render(&good), "ok end{}");
}

#[test]
fn the_repair_prompt_carries_text_and_error() {
    expect![[r#"
        ## JSON data
        [{"command_name": "end" "args": {}}]

        ## JSON decode error
        expected `,` or `}` at line 1 column 25

        ## Output format
        ```json

        ```
        Check the JSON data above for formatting problems and fix them, so that it parses as strict JSON: double quotes, escaped line breaks and backslashes inside strings, no trailing commas, every bracket closed. Do not use escape characters that JSON does not know, particularly within file paths. If no issues are detected, return the data unchanged. Do not omit any information. Output only the repaired JSON, in one ```json block."#]]
    .assert_eq(&repair_prompt(r#"[{"command_name": "end" "args": {}}]"#, "expected `,` or `}` at line 1 column 25"));
}

#[test]
fn ill_formed_command_objects() {
    let format = "Answer with your thoughts, then one ```json block holding a list of commands: \
                  [{\"command_name\": \"...\", \"args\": {...}}].";
    check(
        r#"```json
[{"name": "end", "arguments": {}}, "end", {"command_name": 3}, {"command_name": " "}, {"command_name": "a", "args": ["x"]}, {}]
```"#,
        &format!(
            "invalid: The command list cannot be used: item 1 has no \"command_name\" (it has arguments, name); \
             item 2 should be an object {{\"command_name\": ..., \"args\": {{...}}}} but is a string; \
             item 3 has a \"command_name\" that is a number, not a string; item 4 has an empty \"command_name\"; \
             item 5 (a) has \"args\" that are a list; they should be an object of named arguments; \
             item 6 has no \"command_name\". {format}"
        ),
    );
    check(
        "```json\n\"end\"\n```",
        &format!("invalid: The JSON should be a list of commands but is a string. {format}"),
    );
    check("```json\n\n```", &format!("invalid: The ```json block is empty. {format}"));
}

#[test]
fn argument_types_are_left_to_the_registry() {
    // The parser does not know signatures: a number for a str id, unknown
    // argument names, even unknown commands pass through unchanged.
    check(
        r#"```json
[{"command_name": "Plan.append_task", "args": {"task_id": 1, "bogus": [true]}}, {"command_name": "No.such"}]
```"#,
        r#"ok Plan.append_task{"bogus":[true],"task_id":1} No.such{}"#,
    );
}

#[test]
fn exclusive_commands_end_the_list() {
    let list = |names: &[&str]| names.iter().map(|n| Command::new(*n, json!({}))).collect::<Vec<_>>();
    let exclusive = |name: &str| matches!(name, "end" | "RoleZero.ask_human");
    let check_cut = |names: &[&str], kept: &[&str], note: Option<&str>| {
        let cut = cut_after_exclusive(list(names), exclusive);
        let got: Vec<&str> = cut.kept.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(got, kept, "list: {names:?}");
        assert_eq!(cut.kept.len() + cut.dropped.len(), names.len());
        assert_eq!(cut.note().as_deref(), note, "list: {names:?}");
    };
    check_cut(&["a", "b"], &["a", "b"], None);
    check_cut(&["a", "end"], &["a", "end"], None);
    check_cut(
        &["a", "RoleZero.ask_human", "b", "end"],
        &["a", "RoleZero.ask_human"],
        Some("RoleZero.ask_human must be the last command of a list, so the commands after it were not run: b, end."),
    );
    check_cut(
        &["end", "end"],
        &["end"],
        Some("end must be the last command of a list, so the commands after it were not run: end."),
    );
    check_cut(&[], &[], None);
}

#[test]
fn quick_think_labels_in_odd_formats() {
    let check = |answer: &str, expect: QuickThink| assert_eq!(parse_quick_think(answer), expect, "answer: {answer}");
    use QuickThink::{Ambiguous, Quick, Search, Task};
    check("QUICK", Quick);
    check("[TASK]", Task);
    check("Intent: AMBIGUOUS.", Ambiguous);
    check("**search**", Search);
    check("quick", Quick);
    check("search, because it needs today's weather", Search);
    check("Thought: this is a simple task about math.\nResponse: QUICK", Quick);
    check("This task is easy, I can answer it directly: `quick`", Quick);
    check("The request is a task, not quick.", Task);
    check("SEARCH then QUICK", Search);
    check("Category:quick", Quick);
    check("QUICK_ANSWER", Quick);
    check("quickly answered", Task);
    check("I cannot tell.", Task);
    check("", Task);
    assert!(Quick.answers_directly() && Ambiguous.answers_directly());
    assert!(!Search.answers_directly() && !Task.answers_directly());
}
