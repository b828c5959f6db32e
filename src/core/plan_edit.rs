//! The person's edits to the plan (the plan board's append, edit, reset and
//! finish), run as the very `Plan.*` commands the team leader uses, so the
//! same validation refuses the same mistakes (a cycle, an unknown
//! dependency, a duplicate id) with the same words.
//!
//! It does not decide when editing is allowed (the runner and the UI allow
//! it only while the team is paused) and does not tell the team: the note
//! for the planning role is [`PlanEdit::note`], published by the runner.

use std::cell::RefCell;
use std::rc::Rc;

use futures::FutureExt;
use serde_json::json;

use super::commands::{register_plan_commands, Command, Registry};
use super::plan::{Plan, Task};

/// One change the person makes to the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanEdit {
    /// `Plan.append_task`.
    Append { task_id: String, dependent_task_ids: Vec<String>, instruction: String, assignee: String },
    /// `Plan.replace_task`: a new instruction, assignee or dependencies.
    Replace { task_id: String, dependent_task_ids: Vec<String>, instruction: String, assignee: String },
    /// `Plan.reset_task`: do it (and what depends on it) again.
    Reset { task_id: String },
    /// `Plan.finish_current_task`.
    FinishCurrent,
}

impl PlanEdit {
    /// The command the team leader would send for this edit.
    pub fn command(&self) -> Command {
        match self {
            PlanEdit::Append { task_id, dependent_task_ids, instruction, assignee } => Command::new(
                "Plan.append_task",
                json!({"task_id": task_id, "dependent_task_ids": dependent_task_ids, "instruction": instruction, "assignee": assignee}),
            ),
            PlanEdit::Replace { task_id, dependent_task_ids, instruction, assignee } => Command::new(
                "Plan.replace_task",
                json!({"task_id": task_id, "new_dependent_task_ids": dependent_task_ids, "new_instruction": instruction, "new_assignee": assignee}),
            ),
            PlanEdit::Reset { task_id } => Command::new("Plan.reset_task", json!({"task_id": task_id})),
            PlanEdit::FinishCurrent => Command::bare("Plan.finish_current_task"),
        }
    }

    /// Run the edit on `plan`: the command's result text, or why it was
    /// refused (the plan is then unchanged).
    pub fn apply(&self, plan: &Rc<RefCell<Plan>>) -> Result<String, String> {
        let mut registry: Registry<Rc<RefCell<Plan>>> = Registry::default();
        register_plan_commands(&mut registry);
        let mut cx = plan.clone();
        let command = self.command();
        // The plan commands are synchronous: the future is ready at once.
        match registry.run_command(&mut cx, &command).now_or_never() {
            Some(Ok(text)) => Ok(text),
            Some(Err(e)) => Err(e.to_string()),
            None => Err(format!("{} did not finish", command.name)),
        }
    }

    /// What the planning role is told, so it takes the change into
    /// account when the team resumes.
    /// What the person's bubble says of the edit (the note above is the
    /// leader's).
    pub fn shown(&self) -> String {
        match self {
            PlanEdit::Append { task_id, instruction, assignee, .. } => format!("You added task {task_id} ({instruction}) for {assignee}."),
            PlanEdit::Replace { task_id, instruction, assignee, .. } => format!("You changed task {task_id} to: {instruction} (for {assignee})."),
            PlanEdit::Reset { task_id } => format!("You asked for task {task_id} to be done again."),
            PlanEdit::FinishCurrent => "You marked the current task as finished.".to_string(),
        }
    }

    pub fn note(&self, result: &str) -> String {
        let what = match self {
            PlanEdit::Append { task_id, instruction, assignee, .. } => format!("I appended task {task_id} ({instruction}) for {assignee}."),
            PlanEdit::Replace { task_id, instruction, assignee, .. } => format!("I changed task {task_id} to: {instruction} (assignee {assignee})."),
            PlanEdit::Reset { task_id } => format!("I reset task {task_id}: it must be done again."),
            PlanEdit::FinishCurrent => "I marked the current task as finished.".to_string(),
        };
        format!("[Plan edited by the user] {what} {result}")
    }
}

/// Task ids typed as "1, 2 3": split on commas and spaces, blanks dropped.
pub fn parse_ids(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// A free id for a new task: one more than the largest numeric id.
pub fn next_task_id(tasks: &[Task]) -> String {
    let max = tasks.iter().filter_map(|t| t.id.parse::<u64>().ok()).max().unwrap_or(0);
    (max + 1).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Rc<RefCell<Plan>> {
        let plan = Rc::new(RefCell::new(Plan::new("a 2048 game")));
        for (id, deps, what, who) in [("1", vec![], "Write the PRD", "Alice"), ("2", vec!["1".to_string()], "Design", "Bob")] {
            plan.borrow_mut().append_task(id.to_string(), deps, what, who, "").unwrap();
        }
        plan
    }

    fn append(id: &str, deps: &[&str], instruction: &str) -> PlanEdit {
        PlanEdit::Append {
            task_id: id.into(),
            dependent_task_ids: deps.iter().map(|d| d.to_string()).collect(),
            instruction: instruction.into(),
            assignee: "Alex".into(),
        }
    }

    /// (edit, Ok text fragment or Err text fragment, the tasks after it as "id:instruction:assignee:done").
    #[test]
    fn edits_run_as_the_leaders_commands() {
        type Case = (PlanEdit, Result<&'static str, &'static str>, &'static [&'static str]);
        let cases: Vec<Case> = vec![
            (append("3", &["2"], "Write the code"), Ok("Task 3 appended; the plan has 3 tasks"), &["1:Write the PRD:Alice:", "2:Design:Bob:", "3:Write the code:Alex:"]),
            (append("3", &["9"], "x"), Err("9"), &["1:Write the PRD:Alice:", "2:Design:Bob:"]),
            (append("2", &[], "again"), Err("2"), &["1:Write the PRD:Alice:", "2:Design:Bob:"]),
            (append("", &[], "no id"), Err(""), &["1:Write the PRD:Alice:", "2:Design:Bob:"]),
            (PlanEdit::FinishCurrent, Ok("The current task is now 2: Design"), &["1:Write the PRD:Alice:done", "2:Design:Bob:"]),
            (
                PlanEdit::Replace { task_id: "2".into(), dependent_task_ids: vec!["1".into()], instruction: "Design with diagrams".into(), assignee: "Eve".into() },
                Ok("Task 2 replaced"),
                &["1:Write the PRD:Alice:", "2:Design with diagrams:Eve:"],
            ),
            (
                PlanEdit::Replace { task_id: "1".into(), dependent_task_ids: vec!["2".into()], instruction: "loop".into(), assignee: "Alice".into() },
                Err("cycle"),
                &["1:Write the PRD:Alice:", "2:Design:Bob:"],
            ),
            (PlanEdit::Reset { task_id: "7".into() }, Err("7"), &["1:Write the PRD:Alice:", "2:Design:Bob:"]),
        ];
        for (i, (edit, want, after)) in cases.into_iter().enumerate() {
            let plan = plan();
            let got = edit.apply(&plan);
            match (&got, want) {
                (Ok(text), Ok(part)) => assert!(text.contains(part), "case {i}: {text}"),
                (Err(text), Err(part)) => assert!(text.contains(part) && !text.is_empty(), "case {i}: {text}"),
                _ => panic!("case {i}: got {got:?}, want {want:?}"),
            }
            let tasks: Vec<String> = plan
                .borrow()
                .tasks()
                .iter()
                .map(|t| format!("{}:{}:{}:{}", t.id, t.instruction, t.assignee, if t.is_finished { "done" } else { "" }))
                .collect();
            assert_eq!(tasks, after, "case {i}: a refused edit changes nothing");
        }
    }

    #[test]
    fn reset_redoes_a_task_and_its_dependents() {
        let plan = plan();
        PlanEdit::FinishCurrent.apply(&plan).unwrap();
        PlanEdit::FinishCurrent.apply(&plan).unwrap();
        assert!(plan.borrow().is_finished());
        let text = PlanEdit::Reset { task_id: "1".into() }.apply(&plan).unwrap();
        assert!(text.contains("The current task is 1"), "{text}");
        assert!(plan.borrow().tasks().iter().all(|t| !t.is_finished));
        // Finishing with nothing current is not a failure, as for the leader.
        let empty = Rc::new(RefCell::new(Plan::new("g")));
        assert!(PlanEdit::FinishCurrent.apply(&empty).unwrap().contains("no current task"));
    }

    #[test]
    fn a_cycle_error_names_it_the_same_way_for_the_user() {
        let plan = plan();
        let err = PlanEdit::Replace { task_id: "1".into(), dependent_task_ids: vec!["2".into()], instruction: "x".into(), assignee: "A".into() }
            .apply(&plan)
            .unwrap_err();
        assert!(err.starts_with("Plan.replace_task") || err.contains("cycle"), "{err}");
    }

    #[test]
    fn ids_and_notes() {
        assert_eq!(parse_ids(" 1, 2 3,,"), ["1", "2", "3"]);
        assert!(parse_ids("  ").is_empty());
        assert_eq!(next_task_id(plan().borrow().tasks()), "3");
        assert_eq!(next_task_id(&[]), "1");
        let note = append("3", &[], "Write the code").note("Task 3 appended.");
        assert_eq!(note, "[Plan edited by the user] I appended task 3 (Write the code) for Alex. Task 3 appended.");
    }
}
