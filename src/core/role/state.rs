//! `RoleState` and `ReactProgress`: everything about a role that changes
//! while it works, all of it saved, so a restored role resumes mid-reaction
//! without repeating a finished step.
//!
//! Plain data: the loop that changes it is in `react.rs`.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::core::gate::CallJournal;
use crate::core::memory::Memory;
use crate::core::message::{MessageId, MessageRef};
use crate::core::plan::Plan;

/// Where a reaction stands: saved with the role so a restored role resumes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReactProgress {
    pub actions_taken: u32,
    /// The state chosen by the last think whose act has not finished yet.
    pub chosen: Option<i32>,
    /// The response so far (the last act's message).
    pub last_response: Option<MessageId>,
    /// Plan-and-act: how often the current task was re-planned.
    pub replans: u32,
    /// Where a custom [`Reactor`] stands (its own shape, saved as JSON).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub extra: serde_json::Value,
}

/// A role's changing state. Everything here is saved.
#[derive(Debug, Clone, Default)]
pub struct RoleState {
    pub memory: Memory,
    pub working_memory: Memory,
    /// The news of the last observation (kept until the next one, as MetaGPT does).
    pub news: Vec<MessageRef>,
    /// Index of the current action; -1 when there is none.
    pub state: i32,
    pub latest_observed: Option<MessageId>,
    /// News was observed and the reaction to it has not finished.
    pub pending: bool,
    pub progress: ReactProgress,
    /// Shared with the command handlers that edit it while the role acts.
    pub plan: Rc<RefCell<Plan>>,
    /// Answers of the pending reaction's finished calls (see `gate`).
    pub journal: Rc<RefCell<CallJournal>>,
}
