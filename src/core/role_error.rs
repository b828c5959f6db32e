//! `RoleError`: why a role could not finish its reaction (a provider error,
//! the budget, an action or the plan that failed, a checkpoint that could
//! not be kept, a model answering off format, the same error twice). Each variant's `Display` is
//! the sentence a person reads, saying what to do.
//!
//! A module of its own so that actions and the gate, which return it, do
//! not depend on the role that runs them. It builds no text for the model.

use super::cost::BudgetError;
use super::keep_error::KeepError;
use super::llm::LlmError;

/// A role failed to finish its reaction. The reaction stays pending.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoleError {
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Budget(#[from] BudgetError),
    #[error("{action} failed: {}. Resume to try again, or choose a stronger model in Settings first.", without_stop(message))]
    Action { action: String, message: String },
    #[error("The plan could not be made: {}. Resume to try again, or choose a stronger model in Settings first.", without_stop(.0))]
    Plan(String),
    /// The role plans with plan-and-act, which this build was made
    /// without (feature `plan-and-act`; the embeddable widget leaves it
    /// out). No model is asked, and neither Resume nor another model helps.
    #[error(
        "This role plans with plan-and-act, which this build of tabteam leaves out (the embeddable widget does), \
         so it cannot work here and Resume will not change that. Run this team on the tabteam site, which includes it."
    )]
    PlanAndActLeftOut,
    /// The checkpoint before a call could not be kept (the call is not made).
    #[error(transparent)]
    Storage(KeepError),
    /// The model keeps answering outside the command format (plain text,
    /// say): asking again did not help, so the team pauses for the person.
    #[error(
        "The model's answers are not in the format the team needs: {answers} answers in a row. \
         Try a stronger model in Settings, or see its last answer; Resume asks it again."
    )]
    OffFormat { answers: u32 },
    /// The same commands met the same error twice in a row (a fix loop
    /// going round): the team pauses for the person instead of paying for
    /// a third try.
    #[error(
        "{role} got the same error twice in a row from the same steps, so the last fix did not change it: \
         \u{201c}{error}\u{201d}. Give the team more detail in a follow-up, or Resume to let it try again."
    )]
    SameErrorTwice { role: String, error: String },
}

impl RoleError {
    /// A pause the person chose in Settings (the budget, the call limit),
    /// not a failure: the status line says it once when the run stops, so
    /// the conversation shows no error bubble for it.
    pub fn is_chosen_pause(&self) -> bool {
        match self {
            RoleError::Budget(BudgetError::Exhausted { .. }) => true,
            #[cfg(feature = "site")]
            RoleError::Budget(BudgetError::CallLimit { .. }) => true,
            _ => false,
        }
    }

    /// What had arrived of an answer this error cut off ("" when none):
    /// kept with the error bubble, so a reopened session shows it too.
    pub fn partial_text(&self) -> &str {
        match self {
            RoleError::Llm(LlmError::Truncated { partial_text }) => partial_text,
            _ => "",
        }
    }
}

/// `text` without its closing full stop, for a sentence that goes on.
fn without_stop(text: &str) -> &str {
    text.trim_end().trim_end_matches('.')
}
