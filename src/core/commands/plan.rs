//! The `Plan.*` commands (append, reset, replace, finish the current task)
//! for any context that can lend out a `Plan`.
//!
//! They are thin: `Plan` validates and refuses with `PlanError` texts, which
//! become the failure output as they are. What finishing a task means for
//! the role around it (recording its result, clearing working memory,
//! stopping when the plan is done) is the role's business, not done here.

use std::ops::DerefMut;

use serde_json::Value;

use super::{Args, CommandSpec, Param, ParamType, Registry};
use crate::core::plan::Plan;

/// A context whose plan the `Plan.*` commands edit.
/// The plan is lent as a guard, so a context may keep it in a `RefCell`
/// shared with its role (a `RefMut`) or own it (a plain `&mut`).
pub trait HasPlan {
    fn plan(&mut self) -> impl DerefMut<Target = Plan> + '_;
}

impl HasPlan for Plan {
    fn plan(&mut self) -> impl DerefMut<Target = Plan> + '_ {
        self
    }
}

impl HasPlan for std::rc::Rc<std::cell::RefCell<Plan>> {
    fn plan(&mut self) -> impl DerefMut<Target = Plan> + '_ {
        self.borrow_mut()
    }
}

/// Registers `Plan.append_task`, `Plan.reset_task`, `Plan.replace_task` and
/// `Plan.finish_current_task` with MetaGPT's signatures.
pub fn register_plan_commands<C: HasPlan + 'static>(registry: &mut Registry<C>) {
    let str_param = |name: &str| Param::new(name, ParamType::Str);
    let list_param = |name: &str| Param::new(name, ParamType::StrList);

    registry.register_fn(
        CommandSpec::new(
            "Plan.append_task",
            "Append a new task with task_id (number) to the end of existing task sequences. \
             If dependent_task_ids is not empty, the task will depend on the tasks with the ids in the list. \
             Note that the assignee should be the 'name' of the role.",
        )
        .param(str_param("task_id"))
        .param(list_param("dependent_task_ids"))
        .param(str_param("instruction"))
        .param(str_param("assignee"))
        .param(str_param("task_type").with_default(Value::from(""))),
        |cx: &mut C, args: Args| {
            let id = args.str("task_id")?.to_owned();
            let mut plan = cx.plan();
            plan.append_task(
                id.clone(),
                args.str_list("dependent_task_ids")?,
                args.str("instruction")?,
                args.str("assignee")?,
                args.str("task_type")?,
            )
            .map_err(|e| e.to_string())?;
            Ok(format!("Task {id} appended; the plan has {} tasks. {}", plan.len(), current(&plan)))
        },
    );

    registry.register_fn(
        CommandSpec::new(
            "Plan.reset_task",
            "Reset a task based on task_id, i.e. set Task.is_finished=False and request redo. \
             This also resets all tasks depending on it.",
        )
        .param(str_param("task_id")),
        |cx: &mut C, args: Args| {
            let id = args.str("task_id")?;
            let mut plan = cx.plan();
            plan.reset_task(id).map_err(|e| e.to_string())?;
            Ok(format!("Task {id} and the tasks depending on it are reset. {}", current(&plan)))
        },
    );

    registry.register_fn(
        CommandSpec::new(
            "Plan.replace_task",
            "Replace an existing task (can be current task) based on task_id, and reset all tasks depending on it. \
             The task keeps its task type.",
        )
        .param(str_param("task_id"))
        .param(list_param("new_dependent_task_ids"))
        .param(str_param("new_instruction"))
        .param(str_param("new_assignee")),
        |cx: &mut C, args: Args| {
            let id = args.str("task_id")?;
            let mut plan = cx.plan();
            plan.replace_task(
                id,
                args.str_list("new_dependent_task_ids")?,
                args.str("new_instruction")?,
                args.str("new_assignee")?,
            )
            .map_err(|e| e.to_string())?;
            Ok(format!("Task {id} replaced and the tasks depending on it reset. {}", current(&plan)))
        },
    );

    registry.register_fn(
        CommandSpec::new(
            "Plan.finish_current_task",
            "Finish current task, set Task.is_finished=True, set current task to next task",
        ),
        |cx: &mut C, _args: Args| {
            let mut plan = cx.plan();
            // Nothing current is not a failure (MetaGPT ignores it too):
            // failing would skip an `end` written after this command.
            if plan.current_task().is_none() {
                let why = if plan.is_empty() { "the plan has no tasks" } else { "every task is already finished" };
                return Ok(format!(
                    "There is no current task to finish: {why}. If you no longer need to take action, use the command 'end' to stop."
                ));
            }
            plan.finish_current_task().map_err(|e| e.to_string())?;
            Ok(match plan.current_task() {
                Some(next) => format!("Current task is finished. The current task is now {}: {}", next.id, next.instruction),
                None => "Current task is finished. Every task in the plan is finished; \
                         if you no longer need to take action, use the command 'end' to stop."
                    .to_owned(),
            })
        },
    );
}

/// "The current task is 2." / "Every task is finished."
fn current(plan: &Plan) -> String {
    match plan.current_task_id() {
        Some(id) => format!("The current task is {id}."),
        None => "Every task is finished.".to_owned(),
    }
}
