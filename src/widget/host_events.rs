//! The events the host page hears, and their payloads (the `detail` of a
//! `CustomEvent` dispatched on the host element; documented in
//! `pkg/README.md`). Built as JSON values here from the team's events, so
//! the payloads are one function each and nothing else decides them.
//!
//! Never a key: no payload carries settings or request headers.

use serde_json::{json, Value};

use crate::core::events::{StopReason, TeamEvent};
use crate::core::plan::Plan;
use crate::core::view::stop_text;

/// The host event for a team event, if the host hears about it.
/// `total` and `budget` are the run's spend so far and its budget.
pub fn for_team_event(event: &TeamEvent, total: f64, budget: f64) -> Option<(&'static str, Value)> {
    Some(match event {
        TeamEvent::Published { message } => (
            "message",
            json!({
                "id": message.id.0,
                "from": if message.sent_from.is_empty() { "user" } else { message.sent_from.as_str() },
                "to": message.send_to.iter().collect::<Vec<_>>(),
                "content": message.content,
                "causeBy": message.cause_by.as_str(),
            }),
        ),
        TeamEvent::AskHuman { id, role, question } => ("ask-human", json!({ "questionId": id, "role": role, "question": question })),
        TeamEvent::ReplyToHuman { role, content } => ("reply-to-human", json!({ "role": role, "content": content })),
        TeamEvent::LlmFinished { role, entry } => (
            "cost",
            json!({
                "role": role,
                "model": entry.model,
                "promptTokens": entry.prompt_tokens,
                "completionTokens": entry.completion_tokens,
                "cost": entry.cost,
                "estimated": entry.estimated,
                "total": total,
                "budget": budget,
            }),
        ),
        TeamEvent::RoleFailed { role, error: e } => error(Some(role), e),
        TeamEvent::Stopped { reason } => ("finished", finished(reason)),
        _ => return None,
    })
}

/// `finished`: why the run stopped, in the core's words and in a form a
/// program can switch on.
pub fn finished(reason: &StopReason) -> Value {
    let mut detail = serde_json::to_value(reason).unwrap_or(Value::Null);
    let kind = detail.get("kind").cloned().unwrap_or(Value::Null);
    if let Some(map) = detail.as_object_mut() {
        map.remove("kind");
    }
    json!({ "reason": kind, "details": detail, "text": stop_text(reason) })
}

/// `error`: something went wrong (a role's call failed, the key could not
/// be had, the options are wrong). `role` is null for the widget's own.
pub fn error(role: Option<&str>, message: &str) -> (&'static str, Value) {
    ("error", json!({ "role": role, "message": message }))
}

/// `plan-updated`: the planning role's tasks, and which one is current.
pub fn plan_updated(plan: &Plan) -> Value {
    let tasks: Vec<Value> = plan
        .tasks()
        .iter()
        .map(|t| {
            json!({
                "id": t.id,
                "instruction": t.instruction,
                "assignee": t.assignee,
                "dependsOn": t.dependent_task_ids,
                "finished": t.is_finished,
            })
        })
        .collect();
    json!({ "tasks": tasks, "currentTaskId": plan.current_task_id() })
}
