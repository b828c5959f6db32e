//! `Plan`: a goal and its tasks, kept in dependency order, with the current
//! task being the first unfinished one.
//!
//! Every operation validates before it mutates, so a refused command leaves
//! the plan exactly as it was. The indexes (id -> position, dependents,
//! cursor) are derived from the task list and rebuilt on deserialize; they
//! are never serialized. This file does no prompt rendering (`render.rs`)
//! and no planning: choosing tasks is the planner's job.

use std::collections::HashMap;

use serde::{Deserialize, Serialize, Serializer};

use super::sort::{topological_order, topological_sort};
use super::{PlanError, Task};

/// A goal, some context, and the tasks towards it in topological order.
///
/// Architecture Invariant: `tasks` is always topologically sorted, ids are
/// unique and non-empty, every dependency names a task in the plan, and
/// there is no cycle. Nothing outside this module can break that, because
/// the task list is only reachable through the operations below.
///
/// An empty plan has no current task and counts as finished (nothing is
/// left to do), as MetaGPT's `is_plan_finished` does; use `is_empty` to ask
/// whether anything was planned at all.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(try_from = "PlanRecord")]
pub struct Plan {
    pub goal: String,
    pub context: String,
    tasks: Vec<Task>,
    /// Task id -> position in `tasks`.
    position: HashMap<String, usize>,
    /// For each position, the positions of the tasks that list it as a
    /// dependency (always greater, since `tasks` is sorted).
    dependents: Vec<Vec<usize>>,
    /// Position of the first unfinished task, or `tasks.len()`. Every task
    /// before it is finished, so finishing tasks one by one is linear overall.
    cursor: usize,
}

impl Plan {
    /// An empty plan towards `goal`.
    pub fn new(goal: impl Into<String>) -> Self {
        Self {
            goal: goal.into(),
            ..Self::default()
        }
    }

    /// The tasks in topological order.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.position.get(id).and_then(|&p| self.tasks.get(p))
    }

    pub fn has_task(&self, id: &str) -> bool {
        self.position.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The first unfinished task in order.
    pub fn current_task(&self) -> Option<&Task> {
        self.tasks.get(self.cursor)
    }

    pub fn current_task_id(&self) -> Option<&str> {
        self.current_task().map(|t| t.id.as_str())
    }

    /// Whether every task is finished (true for an empty plan).
    pub fn is_finished(&self) -> bool {
        self.cursor >= self.tasks.len()
    }

    /// The finished tasks, in order.
    pub fn finished_tasks(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter().filter(|t| t.is_finished)
    }

    /// Add a new task after all others. Its dependencies must already be in
    /// the plan, so the end is a valid place for it.
    pub fn append_task(
        &mut self,
        id: impl Into<String>,
        dependent_task_ids: Vec<String>,
        instruction: impl Into<String>,
        assignee: impl Into<String>,
        task_type: impl Into<String>,
    ) -> Result<(), PlanError> {
        let task = Task::new(id, dependent_task_ids, instruction, assignee, task_type);
        if task.id.is_empty() {
            return Err(PlanError::EmptyId);
        }
        if self.has_task(&task.id) {
            return Err(PlanError::DuplicateId { id: task.id });
        }
        if task.dependent_task_ids.contains(&task.id) {
            return Err(PlanError::Cycle {
                path: vec![task.id.clone(), task.id],
            });
        }
        for dep in &task.dependent_task_ids {
            if !self.has_task(dep) {
                return Err(self.unknown_dependency(&task.id, dep));
            }
        }

        let at = self.tasks.len();
        for dep in &task.dependent_task_ids {
            if let Some(&p) = self.position.get(dep) {
                self.dependents[p].push(at);
            }
        }
        self.position.insert(task.id.clone(), at);
        self.dependents.push(Vec::new());
        self.tasks.push(task);
        // The cursor needs no care: if every earlier task was finished it
        // already equals `at` and now points at the new task.
        Ok(())
    }

    /// Clear the outcome (code, result, success, finished) of this task and
    /// of every task that depends on it, directly or not, so they are done
    /// again.
    pub fn reset_task(&mut self, id: &str) -> Result<(), PlanError> {
        let at = self.require(id)?;
        let reached = self.dependents_closure(at);
        for (offset, r) in reached.iter().enumerate() {
            if r.is_some() {
                if let Some(task) = self.tasks.get_mut(at + offset) {
                    task.clear_outcome();
                }
            }
        }
        self.cursor = self.cursor.min(at);
        Ok(())
    }

    /// Give the task new dependencies, instruction and assignee. It becomes
    /// unfinished with no outcome, keeps its task type, and every task that
    /// depends on it is reset. The order is repaired if the new
    /// dependencies come later in it.
    pub fn replace_task(
        &mut self,
        id: &str,
        dependent_task_ids: Vec<String>,
        instruction: impl Into<String>,
        assignee: impl Into<String>,
    ) -> Result<(), PlanError> {
        let at = self.require(id)?;
        let mut dep_positions = Vec::with_capacity(dependent_task_ids.len());
        for dep in &dependent_task_ids {
            match self.position.get(dep) {
                Some(&p) => dep_positions.push(p),
                None => return Err(self.unknown_dependency(id, dep)),
            }
        }
        // A cycle appears exactly when a new dependency is the task itself
        // or one of the tasks that (transitively) depend on it.
        let reached = self.dependents_closure(at);
        for &p in &dep_positions {
            if p >= at && reached.get(p - at).is_some_and(Option::is_some) {
                return Err(self.cycle_through(id, at, p, &reached));
            }
        }

        let needs_resort = dep_positions.iter().any(|&p| p > at);
        let old_deps =
            std::mem::replace(&mut self.tasks[at].dependent_task_ids, dependent_task_ids);
        let new_order = if needs_resort {
            match topological_order(&self.tasks) {
                Ok(order) => Some(order),
                Err(err) => {
                    // Unreachable after the checks above; undo and report.
                    self.tasks[at].dependent_task_ids = old_deps;
                    return Err(err);
                }
            }
        } else {
            None
        };

        let task = &mut self.tasks[at];
        task.instruction = instruction.into();
        task.assignee = assignee.into();
        task.clear_outcome();
        for (offset, r) in reached.iter().enumerate().skip(1) {
            if r.is_some() {
                if let Some(dependent) = self.tasks.get_mut(at + offset) {
                    dependent.clear_outcome();
                }
            }
        }

        match new_order {
            Some(order) => {
                let mut slots: Vec<Option<Task>> = std::mem::take(&mut self.tasks)
                    .into_iter()
                    .map(Some)
                    .collect();
                self.tasks = order
                    .into_iter()
                    .filter_map(|i| slots.get_mut(i).and_then(Option::take))
                    .collect();
                self.rebuild_indexes();
            }
            None => {
                for dep in &old_deps {
                    if let Some(&p) = self.position.get(dep) {
                        self.dependents[p].retain(|&d| d != at);
                    }
                }
                for p in dep_positions {
                    self.dependents[p].push(at);
                }
                self.cursor = self.cursor.min(at);
            }
        }
        Ok(())
    }

    /// Mark the current task finished and successful; the next unfinished
    /// task becomes current.
    pub fn finish_current_task(&mut self) -> Result<(), PlanError> {
        let plan_is_empty = self.tasks.is_empty();
        let task = self
            .tasks
            .get_mut(self.cursor)
            .ok_or(PlanError::NoCurrentTask { plan_is_empty })?;
        task.is_finished = true;
        task.is_success = true;
        self.advance_cursor();
        Ok(())
    }

    /// Finish every remaining task.
    pub fn finish_all_tasks(&mut self) {
        for task in self
            .tasks
            .iter_mut()
            .skip(self.cursor)
            .filter(|t| !t.is_finished)
        {
            task.is_finished = true;
            task.is_success = true;
        }
        self.cursor = self.tasks.len();
    }

    /// Record what running the current task produced (MetaGPT's
    /// `update_task_result`): code and result are appended on a new line,
    /// success is overwritten. The task stays current until finished.
    pub fn update_current_task_result(
        &mut self,
        code: &str,
        result: &str,
        is_success: bool,
    ) -> Result<(), PlanError> {
        let plan_is_empty = self.tasks.is_empty();
        let task = self
            .tasks
            .get_mut(self.cursor)
            .ok_or(PlanError::NoCurrentTask { plan_is_empty })?;
        append_line(&mut task.code, code);
        append_line(&mut task.result, result);
        task.is_success = is_success;
        Ok(())
    }

    /// Take a planner's task list (MetaGPT's `add_tasks`). Into an empty plan
    /// the sorted list goes whole. Otherwise the longest common prefix of the
    /// existing and the new sorted list (same id, instruction and
    /// dependencies) keeps its existing tasks with their results, and the
    /// rest of the new list replaces everything after it.
    ///
    /// Errors (plan unchanged): an empty id, two tasks with one id, a
    /// dependency on an id not in the list, a cycle.
    pub fn add_tasks(&mut self, tasks: Vec<Task>) -> Result<(), PlanError> {
        if tasks.is_empty() {
            return Ok(());
        }
        if tasks.iter().any(|t| t.id.is_empty()) {
            return Err(PlanError::EmptyId);
        }
        let new_tasks = topological_sort(tasks)?;
        if self.tasks.is_empty() {
            self.tasks = new_tasks;
        } else {
            let prefix = self
                .tasks
                .iter()
                .zip(&new_tasks)
                .take_while(|(old, new)| {
                    old.id == new.id
                        && old.instruction == new.instruction
                        && old.dependent_task_ids == new.dependent_task_ids
                })
                .count();
            self.tasks.truncate(prefix);
            self.tasks.extend(new_tasks.into_iter().skip(prefix));
        }
        self.rebuild_indexes();
        Ok(())
    }

    /// Position of the task with this id, or an error listing the ids.
    fn require(&self, id: &str) -> Result<usize, PlanError> {
        self.position
            .get(id)
            .copied()
            .ok_or_else(|| PlanError::UnknownTask {
                id: id.to_owned(),
                known: self.ids(),
            })
    }

    fn ids(&self) -> Vec<String> {
        self.tasks.iter().map(|t| t.id.clone()).collect()
    }

    fn unknown_dependency(&self, task: &str, dependency: &str) -> PlanError {
        PlanError::UnknownDependency {
            task: task.to_owned(),
            dependency: dependency.to_owned(),
            known: self.ids(),
        }
    }

    /// The task at `at` and every task depending on it, transitively, as a
    /// table indexed by `position - at`: `Some(p)` when reached, `p` being
    /// the task it depends on along the way (`at` itself for the root). One
    /// sweep forward suffices because dependents come later in the order, so
    /// this is O(tasks after `at` + their dependencies) and never recursive.
    fn dependents_closure(&self, at: usize) -> Vec<Option<usize>> {
        let mut reached = vec![None; self.tasks.len().saturating_sub(at)];
        if let Some(root) = reached.first_mut() {
            *root = Some(at);
        }
        for i in at..self.tasks.len() {
            if reached[i - at].is_none() {
                continue;
            }
            for &d in &self.dependents[i] {
                if let Some(slot) = d.checked_sub(at).and_then(|k| reached.get_mut(k)) {
                    if slot.is_none() {
                        *slot = Some(i);
                    }
                }
            }
        }
        reached
    }

    /// The cycle that making task `id` (at `at`) depend on the task at `dep`
    /// would close: id -> dep -> ... -> id, following `reached` back.
    fn cycle_through(
        &self,
        id: &str,
        at: usize,
        dep: usize,
        reached: &[Option<usize>],
    ) -> PlanError {
        let mut path = vec![id.to_owned()];
        let mut here = dep;
        // Each step moves to a strictly earlier position, so this ends at
        // `at`; the bound is a second guarantee.
        for _ in 0..=reached.len() {
            path.push(self.tasks[here].id.clone());
            if here == at {
                break;
            }
            match here
                .checked_sub(at)
                .and_then(|k| reached.get(k))
                .copied()
                .flatten()
            {
                Some(previous) => here = previous,
                None => break,
            }
        }
        PlanError::Cycle { path }
    }

    fn advance_cursor(&mut self) {
        while self.tasks.get(self.cursor).is_some_and(|t| t.is_finished) {
            self.cursor += 1;
        }
    }

    /// Panic unless the invariants hold and every index equals what a
    /// rebuild from the task list would give.
    #[cfg(test)]
    pub(super) fn assert_consistent(&self) {
        let mut fresh = Plan {
            tasks: self.tasks.clone(),
            ..Plan::default()
        };
        fresh.rebuild_indexes();
        assert_eq!(self.position, fresh.position, "position index");
        assert_eq!(self.cursor, fresh.cursor, "cursor");
        let sorted = |lists: &[Vec<usize>]| -> Vec<Vec<usize>> {
            lists
                .iter()
                .map(|l| {
                    let mut l = l.clone();
                    l.sort_unstable();
                    l
                })
                .collect()
        };
        assert_eq!(
            sorted(&self.dependents),
            sorted(&fresh.dependents),
            "dependents index"
        );
        assert_eq!(self.position.len(), self.tasks.len(), "ids are unique");
        for (i, task) in self.tasks.iter().enumerate() {
            assert!(!task.id.is_empty(), "empty id at {i}");
            for dep in &task.dependent_task_ids {
                let p = self.position.get(dep).copied();
                assert!(
                    p.is_some_and(|p| p < i),
                    "task {} depends on {dep}, not earlier",
                    task.id
                );
            }
        }
    }

    /// Recompute every index from `tasks`, which must be sorted and valid.
    fn rebuild_indexes(&mut self) {
        self.position = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.clone(), i))
            .collect();
        self.dependents = vec![Vec::new(); self.tasks.len()];
        for (i, task) in self.tasks.iter().enumerate() {
            for dep in &task.dependent_task_ids {
                if let Some(&p) = self.position.get(dep) {
                    self.dependents[p].push(i);
                }
            }
        }
        self.cursor = 0;
        self.advance_cursor();
    }
}

/// Plans are equal when goal, context and tasks are; the indexes follow.
impl PartialEq for Plan {
    fn eq(&self, other: &Self) -> bool {
        self.goal == other.goal && self.context == other.context && self.tasks == other.tasks
    }
}

impl Eq for Plan {}

/// Only goal, context and tasks are stored; the indexes are rebuilt.
impl Serialize for Plan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct PlanRef<'a> {
            goal: &'a str,
            context: &'a str,
            tasks: &'a [Task],
        }
        PlanRef {
            goal: &self.goal,
            context: &self.context,
            tasks: &self.tasks,
        }
        .serialize(serializer)
    }
}

/// The stored form. Deserializing validates it like `add_tasks` would, so a
/// stored plan that was edited into an invalid one is refused, not trusted.
#[derive(Default, Deserialize)]
#[serde(default)]
struct PlanRecord {
    goal: String,
    context: String,
    tasks: Vec<Task>,
}

impl TryFrom<PlanRecord> for Plan {
    type Error = PlanError;

    fn try_from(record: PlanRecord) -> Result<Self, PlanError> {
        let mut plan = Plan {
            goal: record.goal,
            context: record.context,
            ..Plan::default()
        };
        plan.add_tasks(record.tasks)?;
        Ok(plan)
    }
}

fn append_line(field: &mut String, text: &str) {
    if !field.is_empty() {
        field.push('\n');
    }
    field.push_str(text);
}
