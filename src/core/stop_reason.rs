//! `StopReason`: why a team stopped running (idle, rounds done, budget,
//! unknown price, the call limit, cancelled, failed, interrupted). Saved with the project's
//! versions and told in the `Stopped` event.
//!
//! A module of its own so that the project log (`versions`), which keeps
//! the last one, and the events, which tell about versions, do not import
//! each other. The words a person reads for each are in `view`.

/// Why a team stopped running.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StopReason {
    /// Every role is idle: the work is done.
    Idle,
    /// The requested number of rounds ran.
    RoundsDone,
    /// The budget would be overrun by the next call.
    BudgetExhausted { spent: f64, budget: f64 },
    /// A model has no known price; the user must enter one.
    UnknownPrice { model: String },
    /// The run made the model calls Settings allow one run (site only);
    /// what was written so far became a version, the request stays open.
    #[cfg(feature = "site")]
    CallLimit { calls: u64 },
    /// The user stopped the run; it can be resumed.
    Cancelled,
    /// Every role that ran this round failed (a provider error, say); the
    /// run pauses so nothing is lost.
    Failed { errors: Vec<(String, String)> },
    /// The tab closed (or reloaded) while the team worked; the session was
    /// opened again from storage.
    Interrupted,
}

impl StopReason {
    /// Whether Resume has something to carry on: every stop but the end of
    /// the work (a run that ended idle, a replay played to its end). A new
    /// request, not Resume, is what follows a finished run.
    pub fn can_resume(&self) -> bool {
        !matches!(self, StopReason::Idle)
    }
}
