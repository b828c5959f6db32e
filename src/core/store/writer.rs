//! `SessionWriter`: write-through for a running team. It remembers the
//! last snapshot the store has, and each `save` commits only the
//! difference to the current one, as the lease holder.
//!
//! A failed save keeps the old snapshot as "saved", so the next save
//! carries everything since the last success: nothing is lost, and the
//! runner pauses on the error. When to save (after each change, before the
//! next model call) is the runner's decision; this only does the saving.

use crate::core::snapshot::TeamSnapshot;

use super::{Batch, SessionStatus, Store, StoreError};

/// Commits a team's changes to one session.
#[derive(Debug, Clone)]
pub struct SessionWriter {
    session_id: String,
    holder: String,
    saved: Option<TeamSnapshot>,
}

impl SessionWriter {
    /// For session `session_id`, writing as lease holder `holder`; `saved`
    /// is what the store holds now (`SessionData::snapshot` after a load,
    /// `None` for a new session).
    pub fn new(session_id: impl Into<String>, holder: impl Into<String>, saved: Option<TeamSnapshot>) -> Self {
        Self { session_id: session_id.into(), holder: holder.into(), saved }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The last snapshot the store confirmed.
    pub fn saved(&self) -> Option<&TeamSnapshot> {
        self.saved.as_ref()
    }

    /// Commits what changed since the last save (and `status`, if given)
    /// in one transaction; returns how many records it wrote. Nothing is
    /// written when nothing changed.
    pub async fn save<S: Store + ?Sized>(
        &mut self,
        store: &S,
        current: TeamSnapshot,
        status: Option<SessionStatus>,
        now_ms: u64,
    ) -> Result<usize, StoreError> {
        let batch = Batch { status, ..Batch::between(self.saved.as_ref(), &current) }.stamped(now_ms, Some(&self.holder));
        if batch.is_empty() {
            return Ok(0);
        }
        let written = batch.len();
        store.commit(&self.session_id, batch).await?;
        self.saved = Some(current);
        Ok(written)
    }
}
