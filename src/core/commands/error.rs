//! Why a command could not run, as text a model can act on.
//!
//! `CommandError` is what the registry reports for one command: an unknown
//! name (with the list and a close match), arguments that do not fit the
//! signature (every problem at once, so one round fixes them all), or the
//! handler's own failure text. `ArgError` is a handler asking `Args` for
//! something validation did not provide, which means the spec and the
//! handler disagree. None of these carries state to recover: the command
//! did not run.

use std::fmt;

use thiserror::Error;

use super::ParamType;

/// Why one command did not run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    #[error(
        "there is no such command.{} Available commands: {}.",
        suggestion.as_ref().map(|s| format!(" Did you mean {s}?")).unwrap_or_default(),
        available.join(", ")
    )]
    Unknown {
        name: String,
        /// A registered name close to the one written.
        suggestion: Option<String>,
        available: Vec<String>,
    },

    #[error("its args should be an object of named arguments but are {found}. Use {signature}.")]
    ArgsNotObject { found: String, signature: String },

    #[error("{}. Use {signature}.", join(problems))]
    InvalidArgs {
        /// The full call signature, `Plan.append_task(task_id: str, ...)`.
        signature: String,
        problems: Vec<ArgProblem>,
    },

    /// The handler ran and refused; the text is its own.
    #[error("{0}")]
    Failed(String),
}

/// One thing wrong with the arguments of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgProblem {
    Missing { param: String },
    WrongType { param: String, expected: ParamType, found: String },
    /// The right type but not one of the allowed values (`allowed`:
    /// `'low', 'high'`); `list` when the parameter is a list of them.
    NotAllowed { param: String, allowed: String, list: bool, found: String },
    Unexpected { arg: String, suggestion: Option<String> },
}

impl fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgProblem::Missing { param } => write!(f, "missing argument '{param}'"),
            ArgProblem::WrongType { param, expected, found } => {
                write!(f, "argument '{param}' should be {} but is {found}", expected.name())
            }
            ArgProblem::NotAllowed { param, allowed, list: false, found } => {
                write!(f, "argument '{param}' should be one of {allowed} but is {found}")
            }
            ArgProblem::NotAllowed { param, allowed, list: true, found } => {
                write!(f, "argument '{param}' should hold only {allowed} but has {found}")
            }
            ArgProblem::Unexpected { arg, suggestion: None } => write!(f, "unexpected argument '{arg}'"),
            ArgProblem::Unexpected { arg, suggestion: Some(s) } => {
                write!(f, "unexpected argument '{arg}' (did you mean '{s}'?)")
            }
        }
    }
}

/// A handler asked for an argument that validation did not provide under
/// that name and type: the handler and its spec disagree.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("internal error: the command has no {expected} argument '{name}'")]
pub struct ArgError {
    pub name: String,
    pub expected: &'static str,
}

/// Handlers report failures as text; `?` on an `Args` getter does that.
impl From<ArgError> for String {
    fn from(error: ArgError) -> Self {
        error.to_string()
    }
}

fn join(problems: &[ArgProblem]) -> String {
    let texts: Vec<String> = problems.iter().map(ArgProblem::to_string).collect();
    let mut text = texts.join("; ");
    // "missing argument 'x'" starts a sentence in the message.
    // (A one-byte first char is ASCII: no Unicode case tables needed.)
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text
}
