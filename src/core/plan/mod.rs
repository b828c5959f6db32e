//! The plan data model: tasks, their dependencies, the current task, and the
//! plan as prompt text (MetaGPT's `Plan` and `Task`).
//!
//! Pure data and algorithms: no LLM calls, no IO, no planning decisions
//! (the planner and RoleZero's commands drive these operations). Unlike
//! MetaGPT, every operation refuses what would break the plan (unknown or
//! duplicate ids, cycles) with an error a model can read and act on, and
//! nothing here recurses, so plan size never meets a stack limit.
//!
//! Layout:
//! - `task`: `Task` and the `TASK_TYPES` catalogue.
//! - `plan`: `Plan` and its operations (append, reset, replace, finish, add).
//! - `sort`: `topological_sort`, iterative.
//! - `render`: `Plan::status_text` and `Plan::current_task_text`.
//! - `error`: `PlanError`.

mod error;
#[allow(clippy::module_inception)]
mod plan;
mod render;
mod sort;
mod task;

#[cfg(test)]
mod tests;

pub use error::PlanError;
pub use plan::Plan;
pub use sort::topological_sort;
pub use task::{Task, TASK_TYPES};
