//! The command registry: the set of commands a RoleZero-style role may
//! write, each with its signature shown to the model and a handler that
//! runs it (MetaGPT's `thinking_command` and RoleZero's tool map, made into
//! a registry so that adding a command is registering it, not editing a
//! dispatcher).
//!
//! This module validates arguments and runs commands against a caller's
//! context type `C`; it does not parse the model's answer (that is
//! `rolezero::parse`), owns no role state, and implements only the plan
//! commands (`plan.rs`). Editor commands live with the files they edit
//! (`files::editor`); `end`, `ask_human` and the like belong to the role.
//!
//! Layout:
//! - `command`: `Command`, one call the model wrote (name + JSON args).
//! - `spec`: `CommandSpec`, `Param`, `ParamType`: what a command accepts,
//!   and its signature as the prompt shows it.
//! - `args`: `Args`, the validated arguments with typed getters, and the
//!   validation itself.
//! - `error`: `CommandError`, `ArgProblem`, `ArgError`: texts for the model.
//! - `registry`: `Registry`, `CommandHandler`, `RunReport`.
//! - `schema`: the JSON schema of a RoleZero answer, from the specs.
//! - `suggest`: the "did you mean" match for misspelt names.
//! - `plan`: `HasPlan` and the `Plan.*` commands.
//! - `host`: the host page's tools (`Host.*`, from a JSON Schema subset,
//!   run through the `HostPort`) and its readable context.

mod args;
mod command;
mod error;
pub mod host;
mod plan;
mod registry;
mod schema;
mod spec;
mod suggest;

#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod tests;

pub use args::Args;
pub use command::Command;
pub use error::{ArgError, ArgProblem, CommandError};
pub use plan::{register_plan_commands, HasPlan};
pub use registry::{CommandHandler, Registry, RunReport};
pub use schema::{answer_schema, command_schema, ANSWER_SCHEMA_NAME};
pub use spec::{CommandSpec, Param, ParamType};
pub(crate) use suggest::closest;
