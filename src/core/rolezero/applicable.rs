//! Which commands apply in a role's state: the answer schema a constrained
//! provider follows offers only those (MetaGPT's RoleZero also narrows its
//! commands by state). A small model then cannot write a command that
//! means nothing where it stands: finishing a task no step has worked on,
//! reading files that do not exist, resetting a task not finished.
//!
//! It narrows what a constrained model may write, and nothing else: the
//! prompt still lists every command (it stays the same from call to call,
//! for the providers' prompt caches), and a model that writes freely is
//! read and validated as before. Site only (the widget's size budget): the
//! widget's constrained answers use the whole schema.

use crate::core::commands::Command;
use crate::core::plan::Plan;

use super::commands::END;

/// What the narrowing looks at: the role's plan, its name, whether the
/// project has files, and the commands that worked in this reaction.
pub struct RoleState<'a> {
    pub plan: &'a Plan,
    pub me: &'a str,
    pub has_files: bool,
    pub worked: &'a [Command],
}

impl RoleState<'_> {
    /// Whether the command `name` applies now (commands this module does
    /// not know, such as a role's tools, always do).
    pub fn applies(&self, name: &str) -> bool {
        let (plan, current) = (self.plan, self.plan.current_task());
        // The current task is this role's and no step has worked on it
        // yet (nothing but plan changes ran since the plan last moved):
        // the role does the work, asks or replies; finishing, planning and
        // `end` come back once something ran.
        let untouched = current.is_some_and(|t| t.assignee == self.me) && self.worked.last().is_none_or(|c| is_plan(&c.name));
        match name {
            _ if untouched && (is_plan(name) || name == END) => false,
            "Plan.finish_current_task" => current.is_some(),
            "Plan.reset_task" => plan.tasks().iter().any(|t| t.is_finished),
            "Plan.replace_task" => !plan.is_empty(),
            // The editor's commands but `write` act on files there are.
            _ if name.starts_with("Editor.") && name != "Editor.write" => self.has_files,
            _ => true,
        }
    }
}

fn is_plan(name: &str) -> bool {
    name.starts_with("Plan.")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::core::rolezero::zero::{RoleZero, ZeroConfig};

    /// The names the assistant's schema offers in a state.
    fn offered(plan: &Plan, has_files: bool, worked: &[Command]) -> Vec<String> {
        let zero = RoleZero::new(ZeroConfig::default(), |_| {});
        let state = RoleState { plan, me: "Tabby", has_files, worked };
        zero.registry().names().into_iter().filter(|n| state.applies(n)).map(str::to_owned).collect()
    }

    fn plan(assignee: &str, finished: usize) -> Plan {
        let mut plan = Plan::new("A web page that says hello");
        plan.append_task("1", vec![], "Write index.html.", assignee, "").unwrap();
        plan.append_task("2", vec!["1".into()], "Tell the user.", assignee, "").unwrap();
        for _ in 0..finished {
            plan.finish_current_task().unwrap();
        }
        plan
    }

    #[test]
    fn the_commands_that_apply_by_state() {
        let write = Command::new("Editor.write", json!({"path": "index.html", "content": "hi"}));
        let append = Command::new("Plan.append_task", json!({}));
        let no_files = ["Plan.append_task", "Editor.write", "end", "RoleZero.ask_human", "RoleZero.reply_to_human"];
        // No plan, no files: plan, write, end, ask or reply; nothing to
        // finish, reset, replace, read or list.
        assert_eq!(offered(&Plan::new("x"), false, &[]), no_files);
        // Its own task, untouched (the plan just made, or carried over):
        // do the work, ask or reply; no plan change, no `end`.
        let work = ["Editor.write", "RoleZero.ask_human", "RoleZero.reply_to_human"];
        assert_eq!(offered(&plan("Tabby", 0), false, &[append.clone()]), work);
        assert_eq!(offered(&plan("Tabby", 0), false, &[]), work);
        // Once a step worked on it, it may be finished; with files, the
        // editor's other commands apply.
        let all: Vec<String> = RoleZero::new(ZeroConfig::default(), |_| {}).registry().specs().map(|s| s.name.clone()).collect();
        let without_reset: Vec<&String> = all.iter().filter(|n| *n != "Plan.reset_task").collect();
        assert_eq!(offered(&plan("Tabby", 0), true, &[append.clone(), write.clone()]).iter().collect::<Vec<_>>(), without_reset);
        // A finished task may be reset; the next task is untouched again.
        let second = offered(&plan("Tabby", 1), true, &[write.clone(), Command::bare("Plan.finish_current_task")]);
        assert!(!second.iter().any(|n| n.starts_with("Plan.") || n == "end"), "{second:?}");
        assert_eq!(offered(&plan("Tabby", 1), true, &[write.clone()]), all);
        // Another role's task (a team leader waiting for a report): it may
        // be finished at once. All finished: nothing to finish.
        assert_eq!(offered(&plan("Alex", 0), true, &[]).iter().collect::<Vec<_>>(), without_reset);
        let done = offered(&plan("Tabby", 2), false, &[]);
        assert_eq!(done, ["Plan.append_task", "Plan.reset_task", "Plan.replace_task", "Editor.write", "end", "RoleZero.ask_human", "RoleZero.reply_to_human"]);
    }
}
