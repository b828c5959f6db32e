//! The fixed-SOP software company (MetaGPT's classic pipeline): a user's
//! requirement becomes a PRD (Alice), a system design (Bob), a task list
//! (Eve), the code (Alex) and its tests (Edward). Each role watches the
//! previous one's action, so the work flows by routing alone.
//!
//! Deliberately absent: the team leader and RoleZero's command loop (the
//! SOP needs neither), code review, running the tests, and any IO: every document and file goes into the
//! team's `ProjectFiles`; saving or exporting them is someone else's job.
//!
//! Layout:
//! - `roles`: `SopRole`, `SOP_ROLES` (the five roles, for the team and the
//!   UI), `sop_team`.
//! - `write_prd`, `write_design`, `write_tasks`: the structured actions,
//!   each an `ActionNode` filled with bounded retries and written as
//!   markdown under `docs/`.
//! - `write_code`, `write_test`: one model call per file, the answer's code
//!   block written to the project.
//! - `document`: reading an upstream document, filling a node through the
//!   role's gate, writing a file; the shared plumbing of the actions.
//! - `incremental`: follow-ups (MetaGPT's incremental development): how a
//!   step knows it refines, and the refined documents' fields.
//! - `prompts`: the prompt templates (`prompts/*.md`) and their renderer.
//! - `code_block`: finding the code in an answer; fencing code for a prompt.
//! - `script` (tests and the token bench only): the scripted 2048 project.

mod code_block;
mod document;
mod incremental;
mod prompts;
mod roles;
mod write_code;
mod write_design;
mod write_prd;
mod write_tasks;
mod write_test;

#[cfg(any(test, feature = "bench-support"))]
#[doc(hidden)]
pub mod script;
#[cfg(test)]
pub(crate) mod tests;

pub use code_block::{extract_code, fence_language, fenced};
pub use roles::{sop_team, SopRole, SOP_ENVIRONMENT, SOP_ROLES};
pub use write_code::WriteCode;
pub use write_design::WriteDesign;
pub use write_prd::WritePrd;
pub use write_tasks::WriteTasks;
pub use write_test::{test_path, WriteTest};

/// The action kinds (`cause_by`) of the pipeline, in order.
pub const WRITE_PRD: &str = "WritePRD";
pub const WRITE_DESIGN: &str = "WriteDesign";
pub const WRITE_TASKS: &str = "WriteTasks";
pub const WRITE_CODE: &str = "WriteCode";
pub const WRITE_TEST: &str = "WriteTest";

/// Where the documents are written in the project's files.
pub const PRD_PATH: &str = "docs/prd.md";
pub const DESIGN_PATH: &str = "docs/system_design.md";
pub const TASKS_PATH: &str = "docs/tasks.md";

/// How many answers a structured action asks for before it gives up.
pub const FILL_ATTEMPTS: u32 = 3;
