//! Sessions kept in IndexedDB while a team works: the `Durable` sink the
//! core's checkpoints write through (one transaction per checkpoint, only
//! what changed since the last one, read from the live team), the lease that keeps a second tab out, and
//! the in-flight answers saved when the page goes away.
//!
//! The lease holder is this tab's id (`tab_id.rs`: kept in `sessionStorage`,
//! claimed with a Web Lock so a duplicated tab gets its own): a reload of
//! the same tab takes its own lease back at once, while another tab finds
//! the session locked until the lease runs out (`LEASE_MS` after the last
//! renewal, so a crashed tab blocks it briefly, never forever).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::lock::Mutex;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::checkpoint::{Checkpoints, Durable};
use crate::core::keep_error::KeepError;
use crate::core::snapshot::TeamSnapshot;
use crate::core::store::{NewSession, SessionData, SessionStatus, SessionWriter, Store, StoreError};

use super::idb_store::IdbStore;
use super::tab_id::tab_holder;
use super::transport::sleep;

/// How long a lease lasts without renewal, and how often it is renewed.
pub const LEASE_MS: u64 = 20_000;
const RENEW_MS: u64 = 5_000;

const IN_FLIGHT: &str = "tabteam.inflight.";

pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// One open session: writes its checkpoints and holds its lease.
pub struct Keeper {
    store: Rc<IdbStore>,
    writer: Rc<Mutex<SessionWriter>>,
    pub session_id: String,
    holder: String,
    open: Rc<Cell<bool>>,
}

impl Keeper {
    /// A new session for `new`, leased to this tab.
    pub async fn create(store: Rc<IdbStore>, new: NewSession) -> Result<Keeper, StoreError> {
        let record = store.create_session(new).await?;
        Self::lease(store, record.id, None).await
    }

    /// An existing session, leased to this tab (refused with `Locked`
    /// while another tab holds it), with what it holds.
    pub async fn open(store: Rc<IdbStore>, id: &str) -> Result<(Keeper, SessionData), StoreError> {
        let holder = tab_holder().await;
        store.acquire_lock(id, &holder, now_ms(), LEASE_MS).await?;
        let data = store.load_session(id).await?;
        let saved = data.snapshot()?;
        Ok((Self::leased(store, id.to_string(), holder, saved), data))
    }

    async fn lease(store: Rc<IdbStore>, session_id: String, saved: Option<TeamSnapshot>) -> Result<Keeper, StoreError> {
        let holder = tab_holder().await;
        store.acquire_lock(&session_id, &holder, now_ms(), LEASE_MS).await?;
        Ok(Self::leased(store, session_id, holder, saved))
    }

    fn leased(store: Rc<IdbStore>, session_id: String, holder: String, saved: Option<TeamSnapshot>) -> Keeper {
        let keeper = Keeper {
            writer: Rc::new(Mutex::new(SessionWriter::new(session_id.clone(), holder.clone(), saved))),
            store,
            session_id,
            holder,
            open: Rc::new(Cell::new(true)),
        };
        keeper.renew_in_background();
        keeper
    }

    fn renew_in_background(&self) {
        let (store, id, holder, open) = (self.store.clone(), self.session_id.clone(), self.holder.clone(), self.open.clone());
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                sleep(RENEW_MS).await;
                if !open.get() {
                    break;
                }
                // A failed renewal shows at the next commit (Locked).
                let _ = store.renew_lock(&id, &holder, now_ms(), LEASE_MS).await;
            }
        });
    }

    /// Commit `snapshot`'s changes and the session's status now.
    pub async fn save(&self, snapshot: TeamSnapshot, status: SessionStatus) -> Result<(), StoreError> {
        let mut writer = self.writer.lock().await;
        writer.save(&*self.store, snapshot, Some(status), now_ms()).await.map(|_| ())
    }

    /// Let the session go (another tab may open it at once).
    pub async fn release(&self) {
        self.open.set(false);
        let _ = self.store.release_lock(&self.session_id, &self.holder).await;
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.open.set(false);
    }
}

/// The keeper as the checkpoints' sink: each checkpoint is committed
/// (serialized with the others) before the call waiting on it is made.
pub struct KeeperSink {
    store: Rc<IdbStore>,
    writer: Rc<Mutex<SessionWriter>>,
}

impl Keeper {
    pub fn sink(&self) -> KeeperSink {
        KeeperSink { store: self.store.clone(), writer: self.writer.clone() }
    }
}

impl Durable for KeeperSink {
    fn keep(&self, team: Rc<Checkpoints>) -> LocalBoxFuture<'static, Result<(), KeepError>> {
        let (store, writer) = (self.store.clone(), self.writer.clone());
        Box::pin(async move {
            let mut writer = writer.lock().await;
            // Read once the writer is free: only what changed since the
            // last commit, straight from the live team.
            let changes = team.with_frame(|frame| writer.changes(frame));
            writer.commit(&*store, changes, Some(SessionStatus::Running), now_ms()).await.map(|_| ()).map_err(KeepError::from)
        })
    }
}

/// The text of answers still streaming, by role, for the session that is
/// running; written to `localStorage` when the page goes away so the next
/// load can show them as abandoned (their calls are made again).
#[derive(Clone, Default)]
pub struct InFlight {
    pub session_id: Rc<RefCell<Option<String>>>,
    pub partial: Rc<RefCell<BTreeMap<String, String>>>,
    /// The page is going away (`pagehide` seen, no `pageshow` since): the
    /// requests it aborts are not the run's failures, so the run's end is
    /// not saved (the session stays "running" and reopens interrupted).
    pub leaving: Rc<Cell<bool>>,
}

thread_local! {
    static CURRENT: InFlight = {
        let in_flight = InFlight::default();
        in_flight.save_on_page_hide();
        in_flight
    };
}

impl InFlight {
    /// The tab's one tracker (its `pagehide` handler is installed once).
    pub fn current() -> InFlight {
        CURRENT.with(InFlight::clone)
    }

    /// Follow what `event` says about answers streaming.
    pub fn follow(&self, event: &crate::core::events::TeamEvent) {
        use crate::core::events::TeamEvent;
        match event {
            TeamEvent::LlmStarted { role, quiet: false, .. } => self.started(role),
            TeamEvent::LlmDelta { role, text } => self.delta(role, text),
            TeamEvent::LlmFinished { role, .. } | TeamEvent::RoleFailed { role, .. } => self.finished(role),
            TeamEvent::Stopped { .. } => self.clear(),
            _ => {}
        }
    }

    pub fn started(&self, role: &str) {
        self.partial.borrow_mut().insert(role.to_string(), String::new());
    }

    pub fn delta(&self, role: &str, text: &str) {
        if let Some(t) = self.partial.borrow_mut().get_mut(role) {
            t.push_str(text);
        }
    }

    pub fn finished(&self, role: &str) {
        self.partial.borrow_mut().remove(role);
    }

    pub fn clear(&self) {
        self.partial.borrow_mut().clear();
    }

    /// Save on `pagehide` (synchronous storage: the page is going away).
    fn save_on_page_hide(&self) {
        let this = self.clone();
        let on_hide = Closure::<dyn FnMut()>::new(move || {
            this.leaving.set(true);
            let Some(id) = this.session_id.borrow().clone() else { return };
            let mut partial = BTreeMap::new();
            partial.extend(this.partial.borrow().iter().filter(|(_, t)| !t.is_empty()).map(|(r, t)| (r.clone(), t.clone())));
            if partial.is_empty() {
                return;
            }
            if let (Some(storage), Ok(json)) = (local_storage(), serde_json::to_string(&partial)) {
                let _ = storage.set_item(&format!("{IN_FLIGHT}{id}"), &json);
            }
        });
        // Back from the back/forward cache: the page lives on.
        let leaving = self.leaving.clone();
        let on_show = Closure::<dyn FnMut()>::new(move || leaving.set(false));
        if let Some(window) = web_sys::window() {
            let _ = window.add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref());
            let _ = window.add_event_listener_with_callback("pageshow", on_show.as_ref().unchecked_ref());
        }
        on_hide.forget();
        on_show.forget();
    }

    /// What was streaming in session `id` when the page went away (taken:
    /// shown once).
    pub fn take_abandoned(id: &str) -> BTreeMap<String, String> {
        let Some(storage) = local_storage() else { return BTreeMap::new() };
        let key = format!("{IN_FLIGHT}{id}");
        let found = storage.get_item(&key).ok().flatten().and_then(|json| serde_json::from_str(&json).ok()).unwrap_or_default();
        let _ = storage.remove_item(&key);
        found
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}
