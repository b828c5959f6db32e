//! The store port: how sessions are kept durable (in the browser, in
//! IndexedDB) so a run survives a reload, can be listed, duplicated,
//! exported and imported.
//!
//! A session is saved as records, one kind per object store: the session
//! itself (title, idea, team kind, settings *without* any API key, status,
//! times), a meta record (idea, round, the message-id watermark, the
//! history as ids), an append-only message log, one record per role (its
//! `RoleSnapshot`: memory pointers, buffer, news, react state, plan, call
//! journal), one record per file *version*, the ledger's head (budget,
//! prices, totals) and its append-only cost entries, plus a lease lock.
//! The store keeps nothing app-wide but its id counter: the settings and
//! the key the person asked to remember are the page's (`localStorage`,
//! `web::settings_store`), never a record a session read or export could
//! reach.
//!
//! Writes go through [`Store::commit`], which applies a [`Batch`] in one
//! transaction; [`Batch::between`] computes the minimal batch from the
//! previous and the current `TeamSnapshot`, so the runner can commit after
//! every change, before the next model call. Times come from the caller
//! (the core has no clock); nothing here does IO.
//!
//! Deliberately absent: any API-key field in session records, Web Locks
//! (the lease record works across tabs and in the memory store alike), and
//! integration with the running team (the runner calls `commit`).
//!
//! Layout:
//! - `record`: the record types and `SCHEMA_VERSION`.
//! - `batch`: `Batch` and the snapshot diff.
//! - `data`: `SessionData` (a loaded session) ↔ `TeamSnapshot`.
//! - `export`: the versioned JSON export, its migrations and validation.
//! - `writer`: `SessionWriter`, write-through for a running team.
//! - `reopen` (site): which session the page opens on load.
//! - `memory`: `MemoryStore`, for native tests and as a fallback.
//! - `contract`: the tests every `Store` must pass (compiled for tests
//!   only: the crate's own, and the browser tests through the
//!   `test-support` feature, which they turn on; never shipped).

mod batch;
#[cfg(any(test, feature = "test-support"))]
pub mod contract;
mod data;
mod export;
mod memory;
mod none;
mod record;
#[cfg(feature = "site")]
mod reopen;
mod tracker;
mod writer;

#[cfg(test)]
mod tests;

use futures::future::LocalBoxFuture;

use super::keep_error::KeepError;

pub use batch::{Batch, HistoryEdit, ListEdit, RoleEdit};
pub use data::{file_versions, SessionData};
pub use export::{export_json, file_stem, import_json, migrate_export, EXPORT_FORMAT};
pub use memory::MemoryStore;
pub use none::{MayKeep, NoStore};
pub use record::{
    FileVersion, LedgerRecord, LockRecord, MetaHead, MetaRecord, NewSession, RoleRecord, SessionRecord, SessionSettings,
    SessionStatus, SCHEMA_VERSION,
};
pub use record::{session_id, sort_sessions};
#[cfg(feature = "site")]
pub use reopen::{session_to_reopen, Arrival};
pub use tracker::{Changes, Pending, Tracker};
pub use writer::SessionWriter;

/// What a store operation returns.
pub type StoreFuture<'a, T> = LocalBoxFuture<'a, Result<T, StoreError>>;

/// Why the store could not do what was asked. Every variant is written for
/// the person in front of the tab: the runner pauses and shows it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    #[error("Saving is not possible in this browser ({0}); in a private window IndexedDB may be switched off. The team can still run, but nothing will survive a reload: keep this tab open until you have what you need.")]
    Unavailable(String),
    // The same words as a checkpoint that could not be kept for it.
    #[error("{}", KeepError::Quota)]
    QuotaExceeded,
    #[error("Another tab with an older tabteam keeps the database open, so it cannot be upgraded. Close the other tabteam tabs, then reload this one.")]
    Blocked,
    #[error("{}", KeepError::LeaseLost { by: by.clone() })]
    Locked { by: String },
    #[error("There is no session \"{0}\" (it may have been deleted in another tab). Choose another one in the Sessions list.")]
    NotFound(String),
    #[error("Saved data could not be read ({0}). Open another session or start a new one; export this one first if you want to keep what can be read.")]
    Corrupt(String),
    #[error("This data was saved by a newer tabteam (schema {found}; this one reads up to {supported}). Reload the page to get the newer tabteam, then open it again.")]
    TooNew { found: u32, supported: u32 },
    #[error("Saving failed ({0}), so the last change was not saved and the run is paused. Resume to try again; if it keeps failing, export the session to keep it.")]
    Other(String),
}

/// A commit that failed under a checkpoint: a full quota, a lease another
/// tab took and a deleted session keep their own kinds (and words); any
/// other failure keeps the store's words.
impl From<StoreError> for KeepError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::QuotaExceeded => KeepError::Quota,
            StoreError::Locked { by } => KeepError::LeaseLost { by },
            StoreError::NotFound(_) => KeepError::SessionGone,
            other => KeepError::Other(other.to_string()),
        }
    }
}

impl StoreError {
    /// A batch changes a role the session does not hold, without bringing
    /// the role's head (a batch made against another state of the store).
    pub(crate) fn role_not_saved(role: &str) -> Self {
        StoreError::Corrupt(format!("a change to the role \"{role}\", which is not saved"))
    }

    pub(crate) fn corrupt(what: &str, e: impl std::fmt::Display) -> Self {
        StoreError::Corrupt(format!("{what}: {e}"))
    }
}

/// A place sessions are kept. Single-threaded: futures are not `Send`.
///
/// Every method is one transaction: it happens entirely or not at all.
/// The provided methods are built on the required ones and are the same
/// for every store.
pub trait Store {
    /// Every session, most recently updated first.
    fn list_sessions(&self) -> StoreFuture<'_, Vec<SessionRecord>>;

    /// One session's record.
    fn session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionRecord>;

    /// Writes `data` as a new session under a fresh id (which replaces
    /// `data.session.id`); returns its record.
    fn insert_session(&self, data: SessionData) -> StoreFuture<'_, SessionRecord>;

    fn rename_session<'a>(&'a self, id: &'a str, title: &'a str, now_ms: u64) -> StoreFuture<'a, ()>;

    /// Deletes the session and everything in it. Refused with `Locked`
    /// while any tab (this one included) holds a live lease on it.
    fn delete_session<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, ()>;

    /// Everything saved for the session.
    fn load_session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionData>;

    /// Applies `batch` to the session atomically: all of it is saved, or
    /// (on any error) none of it. With `batch.holder` set, refused with
    /// `Locked` while another holder has a live lease.
    fn commit<'a>(&'a self, id: &'a str, batch: Batch) -> StoreFuture<'a, ()>;

    /// Takes (or renews) the lease on a session for `holder` until
    /// `now_ms + ttl_ms`. Refused with `Locked` while another holder's
    /// lease is live.
    fn acquire_lock<'a>(&'a self, id: &'a str, holder: &'a str, now_ms: u64, ttl_ms: u64) -> StoreFuture<'a, LockRecord>;

    /// Gives the lease up, if `holder` has it.
    fn release_lock<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, ()>;

    /// A new, empty session (no team state yet).
    fn create_session(&self, new: NewSession) -> StoreFuture<'_, SessionRecord> {
        self.insert_session(SessionData::new(new.into_record()))
    }

    /// A copy of everything saved in session `id`, as a new idle session.
    fn duplicate_session<'a>(&'a self, id: &'a str, title: &'a str, now_ms: u64) -> StoreFuture<'a, SessionRecord> {
        Box::pin(async move {
            let mut data = self.load_session(id).await?;
            data.session.title = title.to_string();
            data.session.created_ms = now_ms;
            data.session.updated_ms = now_ms;
            data.session.status = SessionStatus::Idle;
            self.insert_session(data).await
        })
    }

    /// Same as `acquire_lock`, for a holder that already has the lease.
    fn renew_lock<'a>(&'a self, id: &'a str, holder: &'a str, now_ms: u64, ttl_ms: u64) -> StoreFuture<'a, LockRecord> {
        self.acquire_lock(id, holder, now_ms, ttl_ms)
    }

    /// The session as a versioned JSON document. It contains no API key:
    /// session records have no field for one, and the store keeps none.
    fn export_session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, String> {
        Box::pin(async move { export_json(&self.load_session(id).await?) })
    }

    /// Reads an exported session (older schemas are migrated, newer ones
    /// refused with `TooNew`, anything inconsistent with `Corrupt`) and
    /// saves it as a new idle session.
    fn import_session<'a>(&'a self, json: &'a str, now_ms: u64) -> StoreFuture<'a, SessionRecord> {
        Box::pin(async move {
            let mut data = import_json(json)?;
            data.session.created_ms = now_ms;
            data.session.updated_ms = now_ms;
            data.session.status = SessionStatus::Idle;
            self.insert_session(data).await
        })
    }
}

/// Test hook: makes a store's next write transaction fail after `writes`
/// record writes, as a full disk would (`QuotaExceeded`). The contract
/// tests use it to check that a failed commit leaves nothing behind.
pub trait InjectFault {
    fn fail_after_writes(&self, writes: usize);
}
