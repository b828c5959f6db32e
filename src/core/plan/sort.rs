//! Topological sort of a task list: every task after all the tasks it
//! depends on.
//!
//! An iterative depth-first post-order, O(tasks + dependencies), so a chain
//! of any length in any order sorts without growing the call stack. It
//! produces the same order as MetaGPT's recursive sort (each task in the
//! given order, preceded by those of its dependencies not yet placed), so
//! an already sorted list comes back unchanged. It does not check ids for
//! emptiness; `Plan::add_tasks` does.

use std::collections::HashMap;

use super::{PlanError, Task};

/// Sort `tasks` so that each comes after the tasks it depends on, keeping
/// the given order wherever the dependencies allow.
///
/// Errors: two tasks with one id, a dependency on an id not in the list, or
/// a cycle (the error carries its path).
pub fn topological_sort(tasks: Vec<Task>) -> Result<Vec<Task>, PlanError> {
    let order = topological_order(&tasks)?;
    let mut slots: Vec<Option<Task>> = tasks.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// The sorted order as positions into `tasks`.
pub(crate) fn topological_order(tasks: &[Task]) -> Result<Vec<usize>, PlanError> {
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(tasks.len());
    for (i, task) in tasks.iter().enumerate() {
        if position.insert(task.id.as_str(), i).is_some() {
            return Err(PlanError::DuplicateInList {
                id: task.id.clone(),
            });
        }
    }
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(tasks.len());
    for task in tasks {
        let mut of_task = Vec::with_capacity(task.dependent_task_ids.len());
        for dep in &task.dependent_task_ids {
            match position.get(dep.as_str()) {
                Some(&p) => of_task.push(p),
                None => {
                    return Err(PlanError::UnknownDependency {
                        task: task.id.clone(),
                        dependency: dep.clone(),
                        known: tasks.iter().map(|t| t.id.clone()).collect(),
                    })
                }
            }
        }
        deps.push(of_task);
    }

    let mut mark = vec![Mark::Unvisited; tasks.len()];
    let mut order = Vec::with_capacity(tasks.len());
    // The explicit stack holds (task, index of its next dependency to visit);
    // it is also the current dependency path, which is what a cycle reports.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..tasks.len() {
        if mark[root] != Mark::Unvisited {
            continue;
        }
        mark[root] = Mark::OnPath;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            match deps[node].get(next) {
                Some(&dep) => {
                    top.1 += 1;
                    match mark[dep] {
                        Mark::Unvisited => {
                            mark[dep] = Mark::OnPath;
                            stack.push((dep, 0));
                        }
                        Mark::OnPath => return Err(cycle_error(tasks, &stack, dep)),
                        Mark::Placed => {}
                    }
                }
                None => {
                    mark[node] = Mark::Placed;
                    order.push(node);
                    stack.pop();
                }
            }
        }
    }
    Ok(order)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Unvisited,
    OnPath,
    Placed,
}

/// The cycle closed by an edge from the top of `stack` back to `dep`, which
/// is on the stack.
fn cycle_error(tasks: &[Task], stack: &[(usize, usize)], dep: usize) -> PlanError {
    let start = stack.iter().position(|&(n, _)| n == dep).unwrap_or(0);
    let mut path: Vec<String> = stack[start..]
        .iter()
        .map(|&(n, _)| tasks[n].id.clone())
        .collect();
    path.push(tasks[dep].id.clone());
    PlanError::Cycle { path }
}
