//! The conversation's words for what a role's commands did ("Alex wrote
//! game.js (version 2)", "Mike assigned 'Write the code' to Alex", "Edward
//! ran the tests: 3 passed"), and what a role is doing while its answer
//! streams in ("writing game.js"). `RunView` puts them under each answer; the
//! raw commands stay folded beside them.
//!
//! Plain text for a person, built from the command the model wrote and the
//! result its command gave (both untrusted: the UI shows them as text). It
//! does not decide what a command does, only how it is told; commands whose
//! effect shows as an entry of its own (a reply, `end`) get no words.

use serde_json::Value;

use crate::core::commands::Command;
use crate::core::rolezero::zero::{ASK_HUMAN, END, PUBLISH_TEAM_MESSAGE, REPLY_TO_HUMAN};

/// Longest quoted text (an instruction, a question) before it is cut.
const QUOTE_CHARS: usize = 80;

/// What `role`'s `command` did, in words; `outcome` is its result (`None`
/// when only the command is known, as in a conversation rebuilt after a
/// reload). `None` when the command is told elsewhere.
pub fn deed(role: &str, command: &Command, outcome: Option<&Result<String, String>>) -> Option<String> {
    let arg = |key: &str| command.args.get(key).and_then(Value::as_str).unwrap_or_default().trim().to_owned();
    let output = match outcome {
        Some(Err(error)) => return Some(format!("{role} tried to {}, but it failed: {}", intent(command, &arg), first_line(error))),
        Some(Ok(output)) => output.as_str(),
        None => "",
    };
    let version = version_in(output).map(|v| format!(" (version {v})")).unwrap_or_default();
    Some(match command.name.as_str() {
        END | REPLY_TO_HUMAN => return None,
        ASK_HUMAN => match outcome {
            Some(Ok(answer)) => format!("{role} asked you: {} You answered: {}", quote(&arg("question")), quote(answer)),
            _ => format!("{role} asked you: {}", quote(&arg("question"))),
        },
        PUBLISH_TEAM_MESSAGE => format!("{role} messaged {}", arg("send_to")),
        "Editor.write" => format!("{role} wrote {}{version}", arg("path")),
        "Editor.replace" => format!("{role} edited {}{version}", arg("path")),
        "Editor.append" => format!("{role} added to {}{version}", arg("path")),
        "Editor.read" => format!("{role} read {}", arg("path")),
        "Editor.list" => format!("{role} looked at the project's files"),
        "Editor.delete" => format!("{role} deleted {}", arg("path")),
        "Editor.rename" => format!("{role} renamed {} to {}", arg("path"), arg("new_path")),
        "Plan.append_task" => match arg("assignee") {
            who if who.is_empty() => format!("{role} added '{}' to the plan", cut(&arg("instruction"))),
            who => format!("{role} assigned '{}' to {who}", cut(&arg("instruction"))),
        },
        "Plan.replace_task" => format!("{role} changed task {} to '{}'", arg("task_id"), cut(&arg("new_instruction"))),
        "Plan.reset_task" => format!("{role} reopened task {}", arg("task_id")),
        "Plan.finish_current_task" => finished_task(role, output),
        "Sandbox.run_tests" => tests_run(role, output),
        "Sandbox.preview" => format!("{role} opened the preview"),
        "Sandbox.read_console" => format!("{role} read the preview's console"),
        name => match name.strip_prefix(crate::core::commands::host::HOST_PREFIX) {
            Some(tool) => format!("{role} used the page's tool {tool}"),
            None => format!("{role} ran {name}"),
        },
    })
}

/// What a role is doing while `answer` streams in: "writing game.js" once
/// the answer's commands name a file to write, else `None` (thinking).
pub fn doing_from_stream(answer: &str) -> Option<String> {
    let commands = &answer[answer.find("```json")?..];
    let last = commands.rfind("\"command_name\"")?;
    let name = string_after(&commands[last..], "\"command_name\"")?;
    if !matches!(name, "Editor.write" | "Editor.replace" | "Editor.append") {
        return None;
    }
    // The path of the command being written: after its name (the usual
    // order), or before it within the same object (arguments first).
    let path = string_after(&commands[last..], "\"path\"").or_else(|| {
        let object = &commands[..last];
        let open = object.rfind("\"command_name\"").map_or(0, |i| i + 1);
        object[open..].rfind("\"path\"").and_then(|p| string_after(&object[open + p..], "\"path\""))
    });
    Some(match path {
        Some(path) => format!("writing {path}"),
        None => "writing a file".to_owned(),
    })
}

/// A member's report to its leader, for the person: the model-facing
/// "I have finished the task… Outputs: Command … executed" is not for them.
pub fn report_text(content: &str) -> String {
    if content.contains(" failed: ") {
        "Stopped with a problem (the details are in the answer above) and handed back.".to_owned()
    } else {
        "Finished the task and handed it back.".to_owned()
    }
}

/// The infinitive of what a command meant to do, for a failure.
fn intent(command: &Command, arg: &dyn Fn(&str) -> String) -> String {
    let arg = |key: &str| match arg(key) {
        value if value.is_empty() && key == "path" => "a file".to_owned(),
        value => value,
    };
    match command.name.as_str() {
        "Editor.write" => format!("write {}", arg("path")),
        "Editor.replace" | "Editor.append" => format!("edit {}", arg("path")),
        "Editor.read" => format!("read {}", arg("path")),
        "Editor.delete" => format!("delete {}", arg("path")),
        "Editor.rename" => format!("rename {}", arg("path")),
        "Plan.append_task" => "add a task to the plan".to_owned(),
        "Plan.replace_task" | "Plan.reset_task" => format!("change task {}", arg("task_id")),
        "Plan.finish_current_task" => "finish the current task".to_owned(),
        "Sandbox.run_tests" => "run the tests".to_owned(),
        "Sandbox.preview" => "open the preview".to_owned(),
        PUBLISH_TEAM_MESSAGE => format!("message {}", arg("send_to")),
        ASK_HUMAN => "ask you a question".to_owned(),
        name => format!("run {name}"),
    }
}

/// `Plan.finish_current_task`'s result: which task comes next.
fn finished_task(role: &str, output: &str) -> String {
    if output.starts_with("There is no current task") {
        return format!("{role} found no task left to finish");
    }
    match output.split_once("The current task is now ").and_then(|(_, next)| next.split_once(": ")) {
        Some((_, next)) => format!("{role} marked the current task done; next: '{}'", cut(next.trim())),
        None if output.contains("Every task in the plan is finished") => format!("{role} marked the last task done"),
        None => format!("{role} marked the current task done"),
    }
}

/// `Sandbox.run_tests`'s result: the summary, and who got the failures.
fn tests_run(role: &str, output: &str) -> String {
    let first = first_line(output);
    let summary = match first.strip_prefix("tests: ") {
        Some(summary) => summary.to_owned(),
        None if first == "no tests ran" => "there were none to run".to_owned(),
        None => return format!("{role} ran the tests"),
    };
    let sent = output.lines().find_map(|l| l.strip_prefix("Sent the failures to ")).and_then(|l| l.split(' ').next());
    match sent {
        Some(who) => format!("{role} ran the tests: {summary}; the failures went to {who}"),
        None => format!("{role} ran the tests: {summary}"),
    }
}

/// The `N` of "version N" in an editor's result.
fn version_in(output: &str) -> Option<u32> {
    let (_, rest) = output.rsplit_once("version ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The JSON string value after `key` (`"key": "value"`), if it is complete.
fn string_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = text[text.find(key)? + key.len()..].trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(&rest[..i]),
            _ => escaped = false,
        }
    }
    None
}

fn first_line(text: &str) -> &str {
    text.trim().lines().next().unwrap_or_default()
}

/// `text` in quotes, cut to a readable length.
fn quote(text: &str) -> String {
    format!("\u{201c}{}\u{201d}", cut(text.trim()))
}

fn cut(text: &str) -> String {
    let text = first_line(text);
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("{}…", text[..i].trim_end()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn command(name: &str, args: Value) -> Command {
        Command::new(name, args)
    }

    /// One command, its result, the words: one line per case.
    #[test]
    fn each_command_is_told_in_words() {
        let ok = |s: &str| Some(Ok(s.to_owned()));
        let cases: Vec<(Command, Option<Result<String, String>>, Option<&str>)> = vec![
            (command("Editor.write", json!({"path": "game.js", "content": "x"})), ok("wrote game.js (1 line, version 2)"), Some("Alex wrote game.js (version 2)")),
            (command("Editor.write", json!({"path": "game.js", "content": "x"})), None, Some("Alex wrote game.js")),
            (command("Editor.replace", json!({"path": "a.js", "old": "x", "new": "y"})), ok("replaced in a.js (3 lines, version 4)"), Some("Alex edited a.js (version 4)")),
            (command("Editor.write", json!({"path": "game.js"})), Some(Err("content is missing\nUse Editor.write(path, content)".into())), Some("Alex tried to write game.js, but it failed: content is missing")),
            (command("Plan.append_task", json!({"task_id": "4", "instruction": "Write the code", "assignee": "Alex"})), ok("Task 4 appended"), Some("Alex assigned 'Write the code' to Alex")),
            (command("Plan.append_task", json!({"task_id": "4", "instruction": "Ship it"})), ok("Task 4 appended"), Some("Alex added 'Ship it' to the plan")),
            (command("Plan.finish_current_task", json!({})), ok("Current task is finished. The current task is now 2: Design the system"), Some("Alex marked the current task done; next: 'Design the system'")),
            (command("Plan.finish_current_task", json!({})), ok("Current task is finished. Every task in the plan is finished; use end"), Some("Alex marked the last task done")),
            (command("Plan.finish_current_task", json!({})), ok("There is no current task to finish: the plan has no tasks."), Some("Alex found no task left to finish")),
            (command("Sandbox.run_tests", json!({})), ok("tests: 3 passed"), Some("Alex ran the tests: 3 passed")),
            (command("Sandbox.run_tests", json!({})), ok("tests: 2 passed, 1 failed\nFAILED a › b\nSent the failures to Alex to fix (round 1 of 3)."), Some("Alex ran the tests: 2 passed, 1 failed; the failures went to Alex")),
            (command("Sandbox.run_tests", json!({})), ok("no tests ran"), Some("Alex ran the tests: there were none to run")),
            (command("Sandbox.run_tests", json!({})), Some(Err("the sandbox is not available".into())), Some("Alex tried to run the tests, but it failed: the sandbox is not available")),
            (command(PUBLISH_TEAM_MESSAGE, json!({"send_to": "Bob", "content": "Design it"})), ok("message sent to Bob"), Some("Alex messaged Bob")),
            (command(ASK_HUMAN, json!({"question": "Which colour?"})), ok("blue"), Some("Alex asked you: \u{201c}Which colour?\u{201d} You answered: \u{201c}blue\u{201d}")),
            (command(REPLY_TO_HUMAN, json!({"content": "hi"})), ok("received"), None),
            (command(END, json!({})), ok(""), None),
            (command("Host.add_todo", json!({"text": "milk"})), ok("Added #3"), Some("Alex used the page's tool add_todo")),
            (command("Data.analyse", json!({})), ok(""), Some("Alex ran Data.analyse")),
        ];
        for (command, outcome, words) in &cases {
            assert_eq!(deed("Alex", command, outcome.as_ref()).as_deref(), *words, "{command:?} {outcome:?}");
        }
    }

    #[test]
    fn long_quotes_are_cut() {
        let long = "a ".repeat(100);
        let words = deed("Mike", &command("Plan.append_task", json!({"instruction": long})), None).unwrap_or_default();
        assert!(words.ends_with("…' to the plan") && words.chars().count() < 120, "{words}");
    }

    /// What the status says while an answer streams, at points of the stream.
    #[test]
    fn a_streaming_answer_says_which_file_is_being_written() {
        let cases: &[(&str, Option<&str>)] = &[
            ("Coding in order.", None),
            ("Coding.\n```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"pa", Some("writing a file")),
            ("Coding.\n```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"path\": \"game.js\", \"content\": \"export", Some("writing game.js")),
            (
                "```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"path\": \"game.js\", \"content\": \"x\"}}, {\"command_name\": \"Editor.write\", \"args\": {\"path\": \"index.html\", \"con",
                Some("writing index.html"),
            ),
            // Arguments before the name: the path inside the same object.
            ("```json\n[{\"args\": {\"content\": \"x\", \"path\": \"a.js\"}, \"command_name\": \"Editor.write\"", Some("writing a.js")),
            ("```json\n[{\"command_name\": \"Plan.append_task\", \"args\": {\"instruction\": \"x\"", None),
            ("```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"path\": \"a \\\" b.js\", \"c", Some("writing a \\\" b.js")),
        ];
        for (answer, doing) in cases {
            assert_eq!(doing_from_stream(answer).as_deref(), *doing, "{answer}");
        }
    }

    #[test]
    fn a_report_to_the_leader_is_told_plainly() {
        assert_eq!(report_text("I have finished the task. Outputs: Command end executed: "), "Finished the task and handed it back.");
        assert!(report_text("Outputs: Command Editor.write failed: bad path").starts_with("Stopped with a problem"));
    }
}
