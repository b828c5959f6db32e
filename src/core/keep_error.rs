//! `KeepError`: why a checkpoint could not be kept, the one error of the
//! write-through seam (`checkpoint::Durable`). Told apart so that past the
//! checkpoint a full quota, a session another tab took and a deleted
//! session each reach the person with their own words and what to do.
//!
//! A module of its own, below the role and the gate that carry it
//! (`RoleError::Storage`); the store's errors are turned into it in
//! `store` (`From<StoreError>`), so this file names no store.

/// A checkpoint was not kept: the call waiting on it is not made and the
/// run pauses. Each `Display` is the sentence a person reads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeepError {
    /// The browser's storage for the site is full.
    #[error(
        "The browser's storage for this site is full, so the last change was not saved and the run is paused. \
         Free some space: delete old sessions in the Sessions list (export those you want to keep first), then Resume."
    )]
    Quota,
    /// Another tab holds the session's lease (this tab's ran out, or was
    /// taken over): `by` is the other tab's id.
    #[error(
        "This session is open in another tab ({by}). Close it there, or wait a moment for that tab's hold on it to \
         run out, then Resume."
    )]
    LeaseLost { by: String },
    /// The session is no longer in the store (deleted, say in another tab).
    #[error(
        "This session was deleted (in another tab, perhaps), so the run cannot be saved and is paused. \
         Start a new session, or open another one in the Sessions list."
    )]
    SessionGone,
    /// Any other failure, in the store's own words for a person.
    #[error("{0}")]
    Other(String),
}
