//! Write-through for a running team: a consistent `TeamSnapshot` is handed
//! to a [`Durable`] sink (IndexedDB in the browser) before every model call
//! and before every question to the user, and the call waits until it is
//! kept. MetaGPT saves only when a run crashes and loses the messages no
//! role had consumed; here a reload at any moment loses nothing and no
//! finished call is paid for twice.
//!
//! Why a snapshot can be taken in the middle of a round: the tab is one
//! thread, and a role's state only changes between its own suspension
//! points (its model calls and questions). So each role *captures* its
//! state just before it suspends (when it opens its `LlmGate`, before it
//! asks the user, and when its run ends), and while it is suspended nothing
//! of it changes. The shared parts (post office, ids, ledger, files, plans,
//! call journals) are read live. Together they are the team exactly as it
//! stands at the checkpoint; restored, each pending role re-runs its
//! reaction, replays the finished calls from its journal and makes the call
//! that was in flight again.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::gate::KeepFirst;
use super::keep_error::KeepError;
use super::role::{Role, RoleState};
use super::snapshot::{compose, Frame, TeamParts, TeamSnapshot};

/// Where checkpoints are kept. An error pauses the run: the call that was
/// waiting on the checkpoint is not made.
pub trait Durable {
    /// Keep `team` as it stands when the sink reads it (before the future
    /// resolves; the call waiting on it is made after).
    fn keep(&self, team: Rc<Checkpoints>) -> LocalBoxFuture<'static, Result<(), KeepError>>;
}

/// A running team's checkpoints: the roles' captured states and the live
/// shared parts, turned into a snapshot on demand.
pub struct Checkpoints {
    durable: Rc<dyn Durable>,
    parts: TeamParts,
    idea: RefCell<String>,
    round: Cell<u32>,
    /// Each role's state as of its last capture, in team order.
    roles: RefCell<Vec<(String, RoleState)>>,
}

impl Checkpoints {
    pub(crate) fn new(durable: Rc<dyn Durable>, parts: TeamParts) -> Self {
        Self { durable, parts, idea: RefCell::default(), round: Cell::new(0), roles: RefCell::default() }
    }

    /// The team-level fields a snapshot carries.
    pub(crate) fn set_team(&self, idea: &str, round: u32) {
        if *self.idea.borrow() != idea {
            *self.idea.borrow_mut() = idea.to_string();
        }
        self.round.set(round);
    }

    /// Every role's state, afresh (at the start, and after a restore).
    pub(crate) fn capture_all(&self, roles: &[Role]) {
        *self.roles.borrow_mut() = roles.iter().map(|r| (r.name().to_string(), r.state.clone())).collect();
    }

    /// One role's state as it is now (it is about to suspend, or done).
    pub(crate) fn capture(&self, role: &Role) {
        let mut roles = self.roles.borrow_mut();
        match roles.iter_mut().find(|(name, _)| name == role.name()) {
            Some((_, state)) => *state = role.state.clone(),
            None => roles.push((role.name().to_string(), role.state.clone())),
        }
    }

    /// The team as it stands now.
    pub fn snapshot(&self) -> TeamSnapshot {
        self.with_frame(compose)
    }

    /// `f` over the team as it stands now, borrowed (no snapshot made).
    pub fn with_frame<R>(&self, f: impl FnOnce(&Frame) -> R) -> R {
        let roles = self.roles.borrow();
        self.parts.with_frame(&self.idea.borrow(), self.round.get(), roles.iter().map(|(name, state)| (name.as_str(), state)), f)
    }

    /// Hand the team to the sink and wait until it is kept. The sink reads
    /// it (`snapshot` or `with_frame`) when it is ready to write; whatever
    /// moment that is, every role is suspended at a captured state, so the
    /// team it reads is a consistent checkpoint no older than this call.
    pub async fn keep(self: &Rc<Self>) -> Result<(), KeepError> {
        self.durable.keep(self.clone()).await
    }
}

impl KeepFirst for Checkpoints {
    fn keep_first(self: Rc<Self>) -> LocalBoxFuture<'static, Result<(), KeepError>> {
        let durable = self.durable.clone();
        durable.keep(self)
    }
}

#[cfg(test)]
pub(crate) mod tests;
