//! `SessionWriter`: write-through for a running team. It remembers what
//! the store holds of the session (a [`Tracker`]), and each save commits
//! only what changed since, as the lease holder.
//!
//! A failed save leaves the tracker as it was, so the next save carries
//! everything since the last success: nothing is lost, and the runner
//! pauses on the error. When to save (after each change, before the next
//! model call) is the runner's decision; this only does the saving.

use crate::core::snapshot::{Frame, OwnedFrame, TeamSnapshot};

use super::tracker::{Changes, Tracker};
use super::{SessionStatus, Store, StoreError};

/// Commits a team's changes to one session.
#[derive(Debug, Clone)]
pub struct SessionWriter {
    session_id: String,
    holder: String,
    tracker: Tracker,
}

impl SessionWriter {
    /// For session `session_id`, writing as lease holder `holder`; `saved`
    /// is what the store holds now (`SessionData::snapshot` after a load,
    /// `None` for a new session).
    pub fn new(session_id: impl Into<String>, holder: impl Into<String>, saved: Option<TeamSnapshot>) -> Self {
        Self { session_id: session_id.into(), holder: holder.into(), tracker: Tracker::new(saved.as_ref()) }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// What to commit to bring the session to `frame` (the live team:
    /// `Team::with_frame`, `Checkpoints::with_frame`).
    pub fn changes(&self, frame: &Frame) -> Changes {
        self.tracker.changes(frame)
    }

    /// Commits `changes` (and `status`, if given) in one transaction;
    /// returns how many records it wrote. Nothing is written when nothing
    /// changed.
    pub async fn commit<S: Store + ?Sized>(
        &mut self,
        store: &S,
        changes: Changes,
        status: Option<SessionStatus>,
        now_ms: u64,
    ) -> Result<usize, StoreError> {
        let Changes { mut batch, pending } = changes;
        batch.status = status;
        let batch = batch.stamped(now_ms, Some(&self.holder));
        if batch.is_empty() {
            return Ok(0);
        }
        let written = batch.len();
        store.commit(&self.session_id, batch).await?;
        self.tracker.committed(pending);
        Ok(written)
    }

    /// [`commit`](Self::commit) of the changes to a whole snapshot.
    pub async fn save<S: Store + ?Sized>(
        &mut self,
        store: &S,
        current: TeamSnapshot,
        status: Option<SessionStatus>,
        now_ms: u64,
    ) -> Result<usize, StoreError> {
        let owned = OwnedFrame::of(&current).map_err(|e| StoreError::Other(format!("the team could not be saved: {e}")))?;
        let changes = self.changes(&owned.frame(&current));
        self.commit(store, changes, status, now_ms).await
    }
}
