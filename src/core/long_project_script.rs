//! Issue #33's long project as a script: the idea and 30 follow-ups, a
//! feature file each, answered by a model that is a pure function of the
//! request (who asks, and what the newest turn says), so a session restored
//! from any checkpoint gets the same answers as the uninterrupted one.
//! `core::long_project_tests` runs it as the scenario test and
//! `benches/tokens.rs` measures it: one script, so both speak of the same
//! project.
//!
//! Test support only: compiled for tests and with the `bench-support`
//! feature (the bench turns it on through the crate's dev-dependency on
//! itself), never into the site or the widget.

use serde_json::{json, Value};

use super::llm::{ChatRequest, ChatRole};
use super::rolezero::condense::{is_summary_request, SUMMARY_HEADING};
use super::window::{estimate_messages, estimate_tokens};

/// Follow-ups after the idea.
pub const FOLLOW_UPS: usize = 30;

/// The request for feature `n` (0 is the idea).
pub fn request_text(n: usize) -> String {
    if n == 0 {
        "a todo list page; add feature 0: the list itself".to_string()
    } else {
        format!("add feature {n}: one more thing the todo list does")
    }
}

/// The last number after "feature " in `text`.
pub fn feature_in(text: &str) -> Option<usize> {
    text.rmatch_indices("feature ").find_map(|(at, _)| {
        let digits: String = text[at + 8..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// A feature's code, the size a real one has (about 2,400 characters).
pub fn feature_code(n: usize) -> String {
    (0..30).map(|i| format!("export function feature{n}_step{i}(list) {{ return list.map((item) => ({{ ...item, step: {i} }})); }}\n")).collect()
}

/// A RoleZero answer: a thought and one ```json block of commands.
pub fn answer(thought: &str, commands: Value) -> String {
    format!("{thought}\n```json\n{}\n```", serde_json::to_string_pretty(&commands).unwrap_or_default())
}

/// One command of an answer.
pub fn cmd(name: &str, args: Value) -> Value {
    json!({"command_name": name, "args": args})
}

/// The `end` command.
pub fn end() -> Value {
    json!({"command_name": "end"})
}

/// What the model answers to `request`, the same every time it is asked:
/// Mike plans a feature for Alex; Alex reads the previous feature, writes
/// this one and ends; Mike finishes the task and tells the user. A summary
/// request is answered with the features it saw.
pub fn answer_for(request: &ChatRequest) -> String {
    let turns = &request.messages;
    let system = turns.first().map_or("", |m| m.content.as_str());
    if is_summary_request(turns) {
        let features: Vec<String> = turns.iter().filter_map(|m| feature_in(&m.content)).map(|n| n.to_string()).collect();
        return format!(
            "I lead the work on a todo list page, one feature a request. Features mentioned in this part: {}. \
             Each feature lives in its own file featureN.js, written by Alex and checked; every task so far is finished \
             and the user was told each time. Nothing is open.",
            features.join(", ")
        );
    }
    if system.contains("decide what kind of request") {
        return "TASK".into();
    }
    let newest = turns.len().checked_sub(2).map_or("", |i| turns[i].content.as_str());
    // The request being worked on: the newest turn that names a feature
    // (the closing turn, with the plan, is left out).
    let history = &turns[1..turns.len().saturating_sub(1).max(1)];
    let n = history.iter().rev().find_map(|m| feature_in(&m.content)).unwrap_or(0);
    if system.contains("named Mike") {
        if newest.starts_with("[Message] from Alex") || newest.contains("I have finished the task") {
            return answer(
                &format!("Feature {n} is done."),
                json!([
                    cmd("Plan.finish_current_task", json!({})),
                    cmd("RoleZero.reply_to_human", json!({"content": format!("Feature {n} is ready.")})),
                    end(),
                ]),
            );
        }
        return answer(
            &format!("Feature {n} is a job for Alex."),
            json!([
                cmd("Plan.append_task", json!({"task_id": format!("f{n}"), "dependent_task_ids": [], "instruction": format!("Add feature {n}"), "assignee": "Alex"})),
                cmd("TeamLeader.publish_team_message", json!({"content": format!("Add feature {n} in feature{n}.js, in the style of the others."), "send_to": "Alex"})),
                cmd("RoleZero.reply_to_human", json!({"content": format!("Alex is adding feature {n}.")})),
                end(),
            ]),
        );
    }
    // Alex: look at the previous feature, write this one, end.
    if newest.contains("Command Editor.write executed") {
        return answer(&format!("Feature {n} is written."), json!([end()]));
    }
    if newest.contains("Command Editor.read executed") || newest.contains("Command Editor.list executed") {
        return answer(
            &format!("Writing feature {n}."),
            json!([cmd("Editor.write", json!({"path": format!("feature{n}.js"), "content": feature_code(n)}))]),
        );
    }
    if n == 0 {
        return answer("Let me see the project.", json!([cmd("Editor.list", json!({}))]));
    }
    answer("Reading the previous one first.", json!([cmd("Editor.read", json!({"path": format!("feature{}.js", n - 1)}))]))
}

/// Each request's prompt tokens (0 is the idea): the estimate of every
/// call made for it, summary requests included, as `core::window` sizes
/// them. `calls` pairs each request the model got with the request it
/// was made for.
pub fn prompt_tokens_per_request<'r>(calls: impl IntoIterator<Item = (usize, &'r ChatRequest)>) -> Vec<u64> {
    let mut tokens = vec![0; FOLLOW_UPS + 1];
    for (n, request) in calls {
        if let Some(t) = tokens.get_mut(n) {
            *t += estimate_messages(&request.messages);
        }
    }
    tokens
}

/// A request's estimated tokens by the part of the prompt they sit in:
/// the system prompt, the history (summary, file reads, the file list,
/// the role's own answers, others' messages, the rest) and the closing
/// turn (the example, the plan and task, the fixed rules). A summary
/// request counts whole as one part.
pub fn prompt_parts(request: &ChatRequest) -> Vec<(&'static str, u64)> {
    let turns = &request.messages;
    let cost = |text: &str| estimate_tokens(text) + 4;
    if is_summary_request(turns) {
        return vec![("summary requests (condensation calls)", estimate_messages(turns))];
    }
    let last = turns.len().saturating_sub(1);
    let mut parts = Vec::with_capacity(turns.len() + 2);
    for (k, m) in turns.iter().enumerate() {
        let text = m.content.as_str();
        if k == 0 && m.role == ChatRole::System {
            parts.push(("system prompt", cost(text)));
        } else if k == last && text.contains("# Current plan") {
            // The closing turn: the example, the plan and task, the rules.
            let plan = text.find("# Current plan").unwrap_or(0);
            let rules = text.find("# Rules").unwrap_or(text.len()).max(plan);
            parts.push(("closing turn: the example", cost(&text[..plan])));
            parts.push(("closing turn: plan and current task", estimate_tokens(&text[plan..rules])));
            parts.push(("closing turn: rules and output format", estimate_tokens(&text[rules..])));
        } else if k == last {
            parts.push(("closing turn: other (quick think, report)", cost(text)));
        } else if text.starts_with(SUMMARY_HEADING) {
            parts.push(("history: the summary", cost(text)));
        } else if text.contains("Command Editor.read executed") {
            parts.push(("history: file reads (Editor.read outputs)", cost(text)));
        } else if text.contains("Command Editor.list executed") {
            parts.push(("history: file lists (Editor.list outputs)", cost(text)));
        } else if m.role == ChatRole::Assistant {
            parts.push(("history: the role's own answers (code written)", cost(text)));
        } else if text.starts_with("[Message] from") {
            parts.push(("history: messages from others", cost(text)));
        } else {
            parts.push(("history: requests and other command outputs", cost(text)));
        }
    }
    parts
}
