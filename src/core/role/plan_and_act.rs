//! Plan-and-act (MetaGPT's `Planner` and `Role._plan_and_act`): ask the model
//! for a task list, then act on each current task until none is left.
//!
//! A plan answer that does not parse, names an unknown dependency, repeats an
//! id or makes a cycle is fed back to the model with the error text (up to
//! [`MAX_PLAN_ATTEMPTS`] tries) instead of crashing or looping forever. A task
//! whose result is not a success is re-planned at most [`MAX_REPLANS`] times.
//! The plan lives in the role's state, so a restored role continues with the
//! current task and never redoes a finished one.

use std::rc::Rc;

use serde_json::Value;

use super::Role;
use crate::core::events::TeamEvent;
use crate::core::message::{Message, MessageRef, MsgRole};
use crate::core::plan::{Plan, PlanError, Task, TASK_TYPES};
use crate::core::role_error::RoleError;
use crate::core::world::World;

/// How many answers the model gets to produce a valid plan.
pub const MAX_PLAN_ATTEMPTS: u32 = 3;
/// How often a failing task may be re-planned before the reaction fails.
pub const MAX_REPLANS: u32 = 3;
/// The most tasks a plan may have.
pub const MAX_TASKS: usize = 12;

/// Plan for the latest requirement (if there is no plan yet), then act on
/// each task. The finished plan is the response.
pub async fn plan_and_act(role: &mut Role, world: &World) -> Result<MessageRef, RoleError> {
    // A plan with a goal but no tasks is one whose planning call was cut
    // short (a failure, a Stop, a reload): plan again.
    let (no_goal, no_tasks) = {
        let plan = role.state.plan.borrow();
        (plan.goal.is_empty(), plan.tasks().is_empty())
    };
    if no_goal {
        let goal = role.state.memory.last().map(|m| m.content.clone()).unwrap_or_default();
        *role.state.plan.borrow_mut() = Plan::new(goal);
    }
    if no_goal || no_tasks {
        update_plan(role, world, "").await?;
    }
    loop {
        let Some(task) = role.state.plan.borrow().current_task().cloned() else { break };
        role.state.state = 0;
        let output = role.act(world, Some(&task)).await?;
        let success = !output.metadata.get("is_success").is_some_and(|v| v == "false");
        role.state.plan.borrow_mut().update_current_task_result("", &output.content, success).map_err(plan_error)?;
        if success {
            role.state.plan.borrow_mut().finish_current_task().map_err(plan_error)?;
            role.state.working_memory.clear();
            role.state.progress.replans = 0;
        } else {
            role.state.progress.replans += 1;
            if role.state.progress.replans > MAX_REPLANS {
                return Err(RoleError::Plan(format!(
                    "task {} still fails after {MAX_REPLANS} re-plans: {}",
                    task.id, output.content
                )));
            }
            let feedback = format!("Task {} failed with this result:\n{}\nRevise the current task.", task.id, output.content);
            update_plan(role, world, &feedback).await?;
        }
        world.events.emit(TeamEvent::RoleBusy { role: role.shared_name(), doing: "plan updated".into() });
    }
    let summary = plan_summary(&role.state.plan.borrow());
    let message = Rc::new(
        Message::new(world.new_id(), summary)
            .with_role(MsgRole::Assistant)
            .caused_by("Plan")
            .from_role(&role.spec.name),
    );
    role.state.memory.add(message.clone());
    Ok(message)
}

fn plan_error(e: PlanError) -> RoleError {
    RoleError::Plan(e.to_string())
}

/// Ask the model for a plan (or a revision) until one applies cleanly.
async fn update_plan(role: &mut Role, world: &World, feedback: &str) -> Result<(), RoleError> {
    let prefix = role.prefix(&world.env_desc, &world.post.borrow().role_names());
    let mut error_note = String::new();
    for _ in 0..MAX_PLAN_ATTEMPTS {
        world.events.emit(TeamEvent::RoleBusy { role: role.shared_name(), doing: "planning".into() });
        let prompt = write_plan_prompt(&role.state.plan.borrow(), &context_text(role), feedback, &error_note);
        let gate = role.gate_for(world);
        let answer = gate.aask(&prefix, &prompt).await?;
        let applied = apply_plan_answer(&mut role.state.plan.borrow_mut(), &answer);
        match applied {
            Ok(()) => {
                role.state.journal.borrow_mut().clear();
                return Ok(());
            }
            Err(e) => error_note = e,
        }
    }
    Err(RoleError::Plan(format!("no valid plan after {MAX_PLAN_ATTEMPTS} answers; last error: {error_note}")))
}

fn context_text(role: &Role) -> String {
    role.state.memory.get(10).iter().map(|m| m.history_line()).collect::<Vec<_>>().join("\n")
}

/// The WritePlan prompt, in our words.
pub fn write_plan_prompt(plan: &Plan, context: &str, feedback: &str, error_note: &str) -> String {
    let types: String = TASK_TYPES.iter().map(|(name, desc)| format!("- {name}: {desc}\n")).collect();
    let mut prompt = format!(
        "# Goal\n{goal}\n\n# Context\n{context}\n\n# Current plan\n{status}\n# Task types\n{types}\n\
# Instruction\nWrite a plan to reach the goal, or revise the current plan: one to {MAX_TASKS} tasks. \
When revising, change only what needs to change and give the whole plan, unless asked to revise only the current task; \
then give that single task alone.\n",
        goal = plan.goal,
        status = plan.status_text(),
    );
    if !feedback.is_empty() {
        prompt.push_str(&format!("\n# Feedback\n{feedback}\n"));
    }
    if !error_note.is_empty() {
        prompt.push_str(&format!("\n# Your previous answer could not be used\n{error_note}\nFix it and answer again.\n"));
    }
    prompt.push_str(
        "\n# Output format\nOnly a JSON list in a ```json fence:\n```json\n[\n  {\"task_id\": \"1\", \"dependent_task_ids\": [], \
\"instruction\": \"what to do, one sentence\", \"task_type\": \"one of the task types\"}\n]\n```\n",
    );
    prompt
}

/// Apply a plan answer: one task replaces (same id) or is appended; a list
/// goes through `Plan::add_tasks`. Errors are texts for the model.
pub fn apply_plan_answer(plan: &mut Plan, answer: &str) -> Result<(), String> {
    let tasks = parse_tasks(answer)?;
    if tasks.is_empty() {
        return Err("the plan has no tasks; give at least one task".into());
    }
    if tasks.len() > MAX_TASKS {
        return Err(format!("the plan has {} tasks; give at most {MAX_TASKS}", tasks.len()));
    }
    let single = tasks.len() == 1 || !tasks[0].dependent_task_ids.is_empty();
    let result = if single && !plan.is_empty() {
        // MetaGPT: a single task (or a list that does not start from scratch)
        // revises the plan one task at a time.
        let t = tasks.into_iter().next().ok_or("the plan has no tasks")?;
        if plan.has_task(&t.id) {
            plan.replace_task(&t.id, t.dependent_task_ids, t.instruction, t.assignee)
        } else {
            plan.append_task(t.id, t.dependent_task_ids, t.instruction, t.assignee, t.task_type)
        }
    } else {
        plan.add_tasks(tasks)
    };
    result.map_err(|e: PlanError| e.to_string())
}

/// Read a JSON task list from a model answer: the first ```json fence, else
/// the first `[`…last `]`. Ids may be numbers; they become strings.
pub fn parse_tasks(answer: &str) -> Result<Vec<Task>, String> {
    let body = json_block(answer).ok_or("no JSON list found; answer with a ```json fenced list of tasks")?;
    let value: Value = serde_json::from_str(body).map_err(|e| format!("the JSON does not parse: {e}"))?;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(_) => vec![value],
        _ => return Err("the answer must be a JSON list of task objects".into()),
    };
    items.into_iter().enumerate().map(|(i, item)| task_from_value(i, item)).collect()
}

fn task_from_value(index: usize, item: Value) -> Result<Task, String> {
    let Value::Object(map) = item else {
        return Err(format!("item {} of the list is not a task object", index + 1));
    };
    let text = |key: &str| -> String {
        match map.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        }
    };
    let id = match text("task_id") {
        s if s.is_empty() => text("id"),
        s => s,
    };
    if id.is_empty() {
        return Err(format!("task {} has no task_id", index + 1));
    }
    let deps = match map.get("dependent_task_ids") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|d| match d {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(format!("task {id}: dependency {other} is not an id")),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("task {id}: dependent_task_ids must be a list, not {other}")),
    };
    Ok(Task::new(id, deps, text("instruction"), text("assignee"), text("task_type")))
}

fn json_block(answer: &str) -> Option<&str> {
    if let Some(start) = answer.find("```json") {
        let rest = &answer[start + 7..];
        let end = rest.find("```").unwrap_or(rest.len());
        return Some(rest[..end].trim());
    }
    let start = answer.find(['[', '{'])?;
    let end = answer.rfind([']', '}'])?;
    (end >= start).then(|| answer[start..=end].trim())
}

/// The finished plan as the reaction's response.
pub fn plan_summary(plan: &Plan) -> String {
    let mut out = format!("Plan for: {}\n", plan.goal);
    for t in plan.tasks() {
        out.push_str(&format!("- [{}] {}: {}\n", if t.is_finished { "x" } else { " " }, t.id, t.instruction));
        if !t.result.is_empty() {
            out.push_str(&format!("  result: {}\n", t.result.lines().next().unwrap_or("")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_task_lists() {
        // (answer, Ok(ids) or Err(substring))
        let cases: &[(&str, Result<&[&str], &str>)] = &[
            ("```json\n[{\"task_id\": \"1\", \"instruction\": \"a\"}]\n```", Ok(&["1"])),
            ("Sure! [{\"task_id\": 1}, {\"task_id\": 2, \"dependent_task_ids\": [1]}] done", Ok(&["1", "2"])),
            ("{\"id\": \"7\", \"instruction\": \"x\"}", Ok(&["7"])),
            ("no json here", Err("no JSON list")),
            ("```json\n[{\"task_id\": }]\n```", Err("does not parse")),
            ("[1, 2]", Err("not a task object")),
            ("[{\"instruction\": \"x\"}]", Err("no task_id")),
            ("[{\"task_id\": \"1\", \"dependent_task_ids\": \"0\"}]", Err("must be a list")),
        ];
        for (answer, want) in cases {
            let got = parse_tasks(answer);
            match (got, want) {
                (Ok(tasks), Ok(ids)) => assert_eq!(tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), *ids, "{answer}"),
                (Err(e), Err(sub)) => assert!(e.contains(sub), "{answer}: {e}"),
                (got, want) => panic!("{answer}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn numeric_dependencies_become_ids() {
        let tasks = parse_tasks("[{\"task_id\": 1}, {\"task_id\": 2, \"dependent_task_ids\": [1]}]").unwrap();
        assert_eq!(tasks[1].dependent_task_ids, ["1"]);
    }

    #[test]
    fn apply_answers_to_a_plan() {
        let mut plan = Plan::new("game");
        apply_plan_answer(&mut plan, r#"[{"task_id":"1","instruction":"prd"},{"task_id":"2","dependent_task_ids":["1"],"instruction":"code"}]"#).unwrap();
        assert_eq!(plan.len(), 2);
        // A single task with a known id replaces it and keeps its type.
        apply_plan_answer(&mut plan, r#"[{"task_id":"2","dependent_task_ids":["1"],"instruction":"better code"}]"#).unwrap();
        assert_eq!(plan.task("2").unwrap().instruction, "better code");
        // A single new task is appended.
        apply_plan_answer(&mut plan, r#"[{"task_id":"3","dependent_task_ids":["2"],"instruction":"test"}]"#).unwrap();
        assert_eq!(plan.len(), 3);
        // Errors come back as text the model can act on, plan unchanged.
        let err = apply_plan_answer(&mut plan, r#"[{"task_id":"4","dependent_task_ids":["9"],"instruction":"x"}]"#).unwrap_err();
        assert!(err.contains('9'), "{err}");
        assert_eq!(plan.len(), 3);
        let err = apply_plan_answer(&mut plan, "[]").unwrap_err();
        assert!(err.contains("no tasks"), "{err}");
    }

    #[test]
    fn the_prompt_carries_feedback_and_errors() {
        let p = write_plan_prompt(&Plan::new("a game"), "user: a game", "task 1 failed", "bad json");
        for part in ["# Goal\na game", "task 1 failed", "bad json", "```json", "eda"] {
            assert!(p.contains(part), "missing {part:?}");
        }
    }
}
