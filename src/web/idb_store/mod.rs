//! `IdbStore`: the store port on the browser's IndexedDB, through
//! `web::idb` (futures over web-sys's IndexedDB requests).
//!
//! One database (`tabteam` by default) whose version is the store's
//! `SCHEMA_VERSION`. Each object store holds rows `{<key fields>, json}`:
//! the key fields are what the key path (and the one index) reads, `json` is
//! the serde record. Keys start with the session id, so one key range over
//! the primary key reads or deletes a session's rows: that range is the
//! index by session, with no second index to keep up to date.
//!
//! Every `Store` method is one IndexedDB transaction (write transactions
//! with relaxed durability); `commit` is one read-write transaction over
//! exactly the stores the batch touches, and any failure aborts it
//! (nothing half-written). When another tab opens a newer schema, this
//! connection closes itself (so it does not block the upgrade) and reports
//! `Unavailable` afterwards.
//!
//! One concept a file:
//! - `schema.rs`: the object stores, their keys and rows;
//! - `migrations.rs`: the upgrade steps, one per schema version;
//! - `rows.rs`: records to rows and back, keys and key ranges;
//! - `errors.rs`: DOMExceptions to `StoreError`s a person understands;
//! - `transaction.rs`: one transaction's reads, writes (`Writes`) and end;
//! - `commit.rs`: the commit protocol (what a connection knows, claims);
//! - `chunks.rs`, `tail.rs`: the chunked logs and the session's tail row;
//! - `store.rs`: `impl Store`, each method one transaction.
//!
//! It holds no logic of its own beyond storage: the rules (what a lease
//! allows, what a commit writes) are the same as `MemoryStore`'s and are
//! checked by the same contract tests.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::future::{select, Either};
use js_sys::{Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbFactory, IdbTransaction};

use super::idb;
use crate::core::store::{InjectFault, StoreError, SCHEMA_VERSION};

mod chunks;
mod commit;
mod errors;
mod migrations;
mod rows;
mod schema;
mod store;
mod tail;
mod transaction;

pub use commit::CommitProbe;
use commit::Known;
use errors::{describe, dom_name, open_error, too_new};
use migrations::upgrade;

/// The database the app uses.
pub const DEFAULT_DB: &str = "tabteam";

/// An open connection to the session database.
pub struct IdbStore {
    db: IdbDatabase,
    /// Set when another tab's upgrade made this connection close.
    closed: Rc<Cell<bool>>,
    /// Test hook: fail the write after this many in a transaction.
    fault: Cell<Option<usize>>,
    /// What this connection knows each session holds (see [`Known`]).
    known: RefCell<HashMap<String, Known>>,
    /// What the last commit did (benchmarks read it, see [`CommitProbe`]).
    probe: Cell<CommitProbe>,
    /// `{durability: "relaxed"}`, the options of every write transaction.
    relaxed: Object,
    _on_version_change: Closure<dyn FnMut(web_sys::Event)>,
}

impl IdbStore {
    /// Opens (creating or upgrading as needed) the database `name`.
    pub async fn open(name: &str) -> Result<IdbStore, StoreError> {
        Self::open_at(name, SCHEMA_VERSION).await
    }

    /// Opens `name` upgraded only as far as schema `version` (tests of the
    /// upgrades make an older database with it; the app never does).
    #[doc(hidden)]
    pub async fn open_at(name: &str, version: u32) -> Result<IdbStore, StoreError> {
        let factory = factory()?;
        let failure: Rc<RefCell<Option<StoreError>>> = Rc::default();
        let step_failure = failure.clone();
        let upgrade_step: idb::Upgrade = Box::new(move |db: IdbDatabase, tx: IdbTransaction, old: u32| {
            let step_failure = step_failure.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(e) = upgrade(&db, &tx, old, version).await {
                    *step_failure.borrow_mut() = Some(e);
                    let _ = tx.abort();
                }
            });
        });
        let opening = idb::open(&factory, name, Some(version), Some(upgrade_step)).map_err(|e| open_error(&e))?;
        let blocked = opening.blocked();
        let opened = match select(opening, blocked).await {
            Either::Left((opened, _)) => opened,
            Either::Right((_, opening)) => {
                // The other tab may close later; the connection this
                // request then opens is closed at once, so it blocks nobody.
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(db) = opening.await {
                        db.close();
                    }
                });
                return Err(StoreError::Blocked);
            }
        };
        let db = match opened {
            Ok(db) => db,
            Err(e) => {
                if let Some(step) = failure.borrow_mut().take() {
                    return Err(step);
                }
                return Err(match dom_name(&e) {
                    Some((error, _)) if error == "VersionError" => too_new(&factory, name).await,
                    _ => open_error(&e),
                });
            }
        };

        let closed = Rc::new(Cell::new(false));
        let flag = closed.clone();
        let on_version_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            flag.set(true);
            if let Some(db) = event.target().and_then(|t| t.dyn_into::<IdbDatabase>().ok()) {
                db.close();
            }
        });
        db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
        // Relaxed durability: see docs/decisions/storage-relaxed-durability.md.
        let relaxed = Object::new();
        Reflect::set(&relaxed, &JsValue::from_str("durability"), &JsValue::from_str("relaxed")).map_err(|e| StoreError::Other(describe(&e)))?;
        Ok(IdbStore {
            db,
            closed,
            fault: Cell::new(None),
            known: RefCell::default(),
            probe: Cell::default(),
            relaxed,
            _on_version_change: on_version_change,
        })
    }

    /// Opens the app's database.
    pub async fn open_default() -> Result<IdbStore, StoreError> {
        Self::open(DEFAULT_DB).await
    }

    /// Deletes the database `name` (tests; "forget everything" in the UI).
    /// It waits while another connection to it is open.
    pub async fn delete_database(name: &str) -> Result<(), StoreError> {
        idb::delete(&factory()?, name).await.map_err(|e| open_error(&e))
    }

    /// Closes the connection; further calls fail with `Unavailable`.
    pub fn close(&self) {
        self.closed.set(true);
        self.db.close();
    }
}

impl Drop for IdbStore {
    fn drop(&mut self) {
        self.db.set_onversionchange(None);
        self.db.close();
    }
}

impl InjectFault for IdbStore {
    fn fail_after_writes(&self, writes: usize) {
        self.fault.set(Some(writes));
    }
}

/// The page's IndexedDB, or why there is none.
fn factory() -> Result<IdbFactory, StoreError> {
    idb::factory().ok_or_else(|| StoreError::Unavailable("IndexedDB is missing".into()))
}
