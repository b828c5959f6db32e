//! A kept session: the writer that commits the team's changes to the
//! store, the lease that keeps a second tab out (renewed while the session
//! is open), and the `Durable` sink the team's checkpoints write through.
//!
//! The lease holder is the tab's id, given by the page (`Edge::holder`):
//! a reload of the same tab takes its own lease back at once, while
//! another tab finds the session locked until the lease runs out
//! (`LEASE_MS` after the last renewal, so a crashed tab blocks it briefly,
//! never forever). Deliberately not here: when to save (the host decides)
//! and any browser API (time, tasks and waits come through the `Edge`).

use std::cell::Cell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::lock::Mutex;

use crate::core::checkpoint::{Checkpoints, Durable};
use crate::core::keep_error::KeepError;
use crate::core::snapshot::TeamSnapshot;
use crate::core::store::{MayKeep, NewSession, SessionData, SessionStatus, SessionWriter, Store, StoreError};

use super::Edge;

/// How long a lease lasts without renewal, and how often it is renewed.
pub const LEASE_MS: u64 = 20_000;
const RENEW_MS: u64 = 5_000;

/// One open session: writes its checkpoints and holds its lease.
pub struct Keeper<S: ?Sized + Store> {
    store: Rc<S>,
    edge: Rc<dyn Edge>,
    writer: Rc<Mutex<SessionWriter>>,
    pub session_id: String,
    holder: String,
    open: Rc<Cell<bool>>,
}

// Each way in is a plain function that decides, before any future is
// made, whether the store type can keep anything (`MayKeep`): an `async
// fn`'s later steps stay built in even when they cannot be reached, so
// this is what leaves the whole keeper out of a `Host<NoStore>`.
impl<S: ?Sized + Store + MayKeep + 'static> Keeper<S> {
    /// A new session for `new`, leased to this tab.
    pub fn create(store: Rc<S>, edge: Rc<dyn Edge>, new: NewSession) -> LocalBoxFuture<'static, Result<Keeper<S>, StoreError>> {
        if !S::KEEPS {
            return Box::pin(async { Err(no_store()) });
        }
        Box::pin(Self::create_kept(store, edge, new))
    }

    async fn create_kept(store: Rc<S>, edge: Rc<dyn Edge>, new: NewSession) -> Result<Keeper<S>, StoreError> {
        let record = store.create_session(new).await?;
        let holder = edge.holder().await;
        store.acquire_lock(&record.id, &holder, edge.now_ms(), LEASE_MS).await?;
        Ok(Self::leased(store, edge, record.id, holder, None))
    }

    /// An existing session, leased to this tab (refused with `Locked`
    /// while another tab holds it), with what it holds.
    pub fn open(store: Rc<S>, edge: Rc<dyn Edge>, id: &str) -> LocalBoxFuture<'_, Result<(Keeper<S>, SessionData), StoreError>> {
        if !S::KEEPS {
            return Box::pin(async { Err(no_store()) });
        }
        Box::pin(Self::open_kept(store, edge, id))
    }

    async fn open_kept(store: Rc<S>, edge: Rc<dyn Edge>, id: &str) -> Result<(Keeper<S>, SessionData), StoreError> {
        let holder = edge.holder().await;
        store.acquire_lock(id, &holder, edge.now_ms(), LEASE_MS).await?;
        let data = match store.load_session(id).await {
            Ok(data) => data,
            Err(e) => {
                let _ = store.release_lock(id, &holder).await;
                return Err(e);
            }
        };
        let saved = data.snapshot().ok().flatten();
        Ok((Self::leased(store, edge, id.to_string(), holder, saved), data))
    }

    fn leased(
        store: Rc<S>,
        edge: Rc<dyn Edge>,
        session_id: String,
        holder: String,
        saved: Option<TeamSnapshot>,
    ) -> Keeper<S> {
        let keeper = Keeper {
            writer: Rc::new(Mutex::new(SessionWriter::new(session_id.clone(), holder.clone(), saved))),
            store,
            edge,
            session_id,
            holder,
            open: Rc::new(Cell::new(true)),
        };
        keeper.renew_in_background();
        keeper
    }

    fn renew_in_background(&self) {
        let (store, edge, id, holder, open) =
            (self.store.clone(), self.edge.clone(), self.session_id.clone(), self.holder.clone(), self.open.clone());
        let wait = self.edge.clone();
        wait.spawn(Box::pin(async move {
            loop {
                edge.sleep(RENEW_MS).await;
                if !open.get() {
                    break;
                }
                // A failed renewal shows at the next commit (Locked).
                let _ = store.renew_lock(&id, &holder, edge.now_ms(), LEASE_MS).await;
            }
        }));
    }

    /// Commit `snapshot`'s changes and the session's status now.
    pub fn save(&self, snapshot: TeamSnapshot, status: SessionStatus) -> LocalBoxFuture<'_, Result<(), StoreError>> {
        if !S::KEEPS {
            return Box::pin(async { Err(no_store()) });
        }
        Box::pin(self.save_kept(snapshot, status))
    }

    async fn save_kept(&self, snapshot: TeamSnapshot, status: SessionStatus) -> Result<(), StoreError> {
        let mut writer = self.writer.lock().await;
        writer.save(&*self.store, snapshot, Some(status), self.edge.now_ms()).await.map(|_| ())
    }

    /// Let the session go (another tab may open it at once).
    pub fn release(&self) -> LocalBoxFuture<'_, ()> {
        self.open.set(false);
        if !S::KEEPS {
            return Box::pin(async {});
        }
        Box::pin(async move {
            let _ = self.store.release_lock(&self.session_id, &self.holder).await;
        })
    }

    /// The keeper as the checkpoints' sink: each checkpoint is committed
    /// (serialized with the others) before the call waiting on it is made.
    pub fn sink(&self) -> KeeperSink<S> {
        KeeperSink { store: self.store.clone(), edge: self.edge.clone(), writer: self.writer.clone() }
    }
}

impl<S: ?Sized + Store> Drop for Keeper<S> {
    fn drop(&mut self) {
        self.open.set(false);
    }
}

fn no_store() -> StoreError {
    StoreError::Unavailable("no store".into())
}

/// See [`Keeper::sink`].
pub struct KeeperSink<S: ?Sized + Store> {
    store: Rc<S>,
    edge: Rc<dyn Edge>,
    writer: Rc<Mutex<SessionWriter>>,
}

impl<S: ?Sized + Store + 'static> Durable for KeeperSink<S> {
    fn keep(&self, team: Rc<Checkpoints>) -> LocalBoxFuture<'static, Result<(), KeepError>> {
        let (store, edge, writer) = (self.store.clone(), self.edge.clone(), self.writer.clone());
        Box::pin(async move {
            let mut writer = writer.lock().await;
            // Read once the writer is free: only what changed since the
            // last commit, straight from the live team.
            let changes = team.with_frame(|frame| writer.changes(frame));
            writer
                .commit(&*store, changes, Some(SessionStatus::Running), edge.now_ms())
                .await
                .map(|_| ())
                .map_err(KeepError::from)
        })
    }
}
