//! The plan as text for a prompt, in RoleZero's format:
//!
//! ```text
//! [GOAL] create a 2048 game
//! [Plan]
//! [TASK_ID 1] (finished) Write the PRD. This task depends on tasks[]. [Assign to Alice]
//! [TASK_ID 2] (        ) Design the system. This task depends on tasks['1']. [Assign to Bob]
//! ```
//!
//! Pure functions of the plan. They do not decide where in a prompt the text
//! goes, nor translate it: the prompt builder does that.

use super::{Plan, Task};

impl Plan {
    /// The goal and every task with its state, dependencies and assignee;
    /// "No Plan" when there are no tasks. Ends with a newline.
    pub fn status_text(&self) -> String {
        let mut out = format!("[GOAL] {}\n", self.goal);
        if self.is_empty() {
            out.push_str("No Plan \n");
            return out;
        }
        out.push_str("[Plan]\n");
        for task in self.tasks() {
            // The blank marker is as wide as "finished" so instructions line up.
            let state = if task.is_finished {
                "finished"
            } else {
                "        "
            };
            out.push_str(&format!(
                "[TASK_ID {}] ({state}) {} This task depends on tasks{}. [Assign to {}]\n",
                task.id,
                task.instruction,
                python_list(&task.dependent_task_ids),
                task.assignee
            ));
        }
        out
    }

    /// The task to work on now: "" when there are no tasks, a plain sentence
    /// when all are finished.
    pub fn current_task_text(&self) -> String {
        match self.current_task() {
            Some(task) => describe(task),
            None if self.is_empty() => String::new(),
            None => "All tasks in the plan are finished.".to_owned(),
        }
    }
}

fn describe(task: &Task) -> String {
    let mut out = format!(
        "[TASK_ID {}] {} This task depends on tasks{}.",
        task.id,
        task.instruction,
        python_list(&task.dependent_task_ids)
    );
    if !task.task_type.is_empty() {
        out.push_str(&format!(" [Task type: {}]", task.task_type));
    }
    out.push_str(&format!(" [Assign to {}]", task.assignee));
    out
}

/// A list of strings as Python prints it, `['1', '2']`, which is how the
/// model has seen dependencies in MetaGPT's prompts.
fn python_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| python_str(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Python's `repr` of a string, for the characters ids are made of: single
/// quotes unless the text holds a single quote and no double one.
fn python_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::python_list;

    fn check(items: &[&str], expect: &str) {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        assert_eq!(python_list(&items), expect, "{items:?}");
    }

    #[test]
    fn python_lists() {
        check(&[], "[]");
        check(&["1"], "['1']");
        check(&["1", "2"], "['1', '2']");
        check(&["it's"], "[\"it's\"]");
        check(&["a'b\"c"], "['a\\'b\"c']");
        check(&["back\\slash"], "['back\\\\slash']");
        check(&["two\nlines"], "['two\\nlines']");
    }
}
