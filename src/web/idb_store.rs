//! `IdbStore`: the store port on the browser's IndexedDB, through
//! `web::idb` (our few futures over web-sys's IndexedDB requests).
//!
//! One database (`tabteam` by default) whose version is the store's
//! `SCHEMA_VERSION`. Each object store holds rows `{<key fields>, json}`:
//! the key fields are what the key path (and the one index) reads, `json` is
//! the serde record. Keys start with the session id, so one key range over
//! the primary key reads or deletes a session's rows: that range is the
//! index by session, with no second index to keep up to date.
//!
//! | store         | key path            | row                          | since |
//! |---------------|---------------------|------------------------------|-------|
//! | `sessions`    | `id`                | `{id, w, json: SessionRecord}` (`w`: write stamp, v4; the claim count, v5) | v1 |
//! | `claims`      | `[s, n]`, out of line | `true`: write `n` of the session was made | v5 |
//! | `tails`       | `s`                 | `{s, json: TailRecord}` (`idb_tail.rs`) | v4 |
//! | `meta`        | `s`                 | `{s, json: MetaHead}` (v1–v2: `MetaRecord`, history inside) | v1–v3 |
//! | `history`     | `[s, c]`            | chunk of message ids         | v3    |
//! | `ledger`      | `s`                 | `{s, json: LedgerRecord}`    | v1–v3 |
//! | `messages`    | `[s, id]`           | `{s, id, json: Message}`     | v1–v2 |
//! | `message_chunks` | `[s, c]`         | chunk of `Message`s          | v3    |
//! | `roles`       | `[s, name]`         | `{s, name, json: RoleRecord}`| v1–v3 |
//! | `role_lists`  | `[s, r, l, c]`      | chunk of a role's list of ids | v4   |
//! | `project`     | `s`                 | `{s, json: ProjectFiles}`    | v1 only |
//! | `files`       | `[s, p, v]`         | `{s, p, v, json: FileVersion}` | v2  |
//! | `costs`       | `[s, seq]`          | `{s, seq, json: CostEntry}`  | v1–v2 |
//! | `cost_chunks` | `[s, c]`            | chunk of `CostEntry`s        | v3    |
//! | `locks`       | `s`                 | `{s, json: LockRecord}`      | v1    |
//! | `experiences` | `id`, index `role`  | `{id, role, json: ExperienceRecord}` | v1 |
//! | `settings`    | out of line: `app`, `api_key`, counters | a JSON string | v1 |
//!
//! A chunk is `{s, c, end, json}`: a JSON array of entries in the order
//! they were appended (`idb_chunks.rs`), so a restore reads a few hundred
//! rows, not one per message and cost entry. Since v4 the last, open chunk
//! of every log is in the session's tail row with the meta head, the
//! ledger head and the roles' records without their lists; only a full
//! chunk goes to its log's store. A commit of a running team is then the
//! session's next claim (an `add` of `[s, n]` to `claims`, which fails if
//! any other write of the session made that claim first), and two puts
//! (the tail, the session), with nothing read: see `commit_once` and
//! docs/decisions/storage-tail-and-claims.md.
//!
//! Upgrades run as a chain of steps, one per version (0→1 creates v1;
//! 1→2 splits each session's `project` record into one `files` row per
//! version and drops `project`; 2→3 moves `messages` and `costs` into
//! chunks and the meta's history into `history`, then drops the old
//! stores; 3→4 moves each session's meta, ledger and roles into its tail
//! row and the roles' lists into `role_lists`, then drops `meta`,
//! `ledger` and `roles`; 4→5 creates `claims`: v4's text write stamps
//! read as a count of 0), inside the upgrade transaction: a failing step
//! aborts the upgrade and the old data stays as it was.
//!
//! Every `Store` method is one IndexedDB transaction (write transactions
//! with relaxed durability); `commit` is one read-write transaction over
//! exactly the stores the batch touches, and any failure aborts it
//! (nothing half-written). DOMException names are
//! mapped to `StoreError`s a person understands: `QuotaExceededError` →
//! `QuotaExceeded`, a blocked upgrade → `Blocked`, no IndexedDB →
//! `Unavailable`, `VersionError` → `TooNew`. When another tab opens a newer
//! schema, this connection closes itself (so it does not block the
//! upgrade) and reports `Unavailable` afterwards.
//!
//! It holds no logic of its own beyond storage: the rules (what a lease
//! allows, what a commit writes) are the same as `MemoryStore`'s and are
//! checked by the same contract tests.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::future::{select, Either};
#[path = "idb_chunks.rs"]
mod chunks;
#[path = "idb_tail.rs"]
mod tail;

use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    DomException, IdbCursorDirection, IdbCursorWithValue, IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStore,
    IdbObjectStoreParameters, IdbRequest, IdbTransaction,
};

use super::idb::{self, Pending};

use crate::core::cost::CostEntry;
use crate::core::files::ProjectFiles;
use crate::core::message::Message;
use crate::core::message::MessageId;
use crate::core::store::{
    file_versions, session_id, sort_sessions, AppSettings, Batch, ExperienceRecord, FileVersion, InjectFault,
    LockRecord, MetaRecord, NewExperience, RoleEdit, RoleRecord, SessionData, SessionRecord, Store, StoreError,
    StoreFuture, SCHEMA_VERSION,
};

/// The database the app uses.
pub const DEFAULT_DB: &str = "tabteam";

const SESSIONS: &str = "sessions";
const META: &str = "meta";
const LEDGER: &str = "ledger";
const MESSAGES_V2: &str = "messages";
const MESSAGE_CHUNKS: &str = "message_chunks";
const HISTORY: &str = "history";
const ROLES: &str = "roles";
const ROLE_LISTS: &str = "role_lists";
const TAILS: &str = "tails";
const FILES: &str = "files";
const PROJECT_V1: &str = "project";
const COSTS_V2: &str = "costs";
const COST_CHUNKS: &str = "cost_chunks";
const LOCKS: &str = "locks";
const EXPERIENCES: &str = "experiences";
const SETTINGS: &str = "settings";
const CLAIMS: &str = "claims";

/// How long this connection's own lease must still run for a commit to
/// be made without reading anything (see [`IdbStore::commit_once`]): far
/// longer than a transaction can wait to reach the database, far shorter
/// than the lease the app keeps renewed (20 s, renewed every 5 s).
const LEASE_MARGIN_MS: u64 = 5_000;

/// The stores holding a session's rows.
const SESSION_STORES: [&str; 9] = [SESSIONS, TAILS, MESSAGE_CHUNKS, HISTORY, ROLE_LISTS, FILES, COST_CHUNKS, LOCKS, CLAIMS];

const APP_SETTINGS: &str = "app";
const REMEMBERED_KEY: &str = "api_key";
const SESSION_COUNTER: &str = "session_counter";
const EXPERIENCE_COUNTER: &str = "experience_counter";

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

/// What a session holds, as this connection last wrote or read it: its
/// record and its tail row (which knows every list's length, so a batch's
/// list edits are made on it without the whole lists), so a commit issues
/// all its writes before it awaits anything. It is true while the session's
/// claim count is still `claims`: every write of a session by any
/// connection (a commit, a rename, a lease taken, renewed or let go) is
/// the session's next claim, a row `[s, n]` in `claims`, and sets the
/// session row's `w` to `n`. A commit that finds the count moved on is
/// undone and made again from what the database holds.
#[derive(Debug, Clone)]
struct Known {
    claims: u64,
    session: Option<SessionRecord>,
    tail: tail::TailRecord,
    /// The session's lease row as this connection last read or wrote it
    /// (`Some(None)`: none; `None`: not known, a commit reads it). Every
    /// write of a lease row is a claim, so while the count is `claims` the
    /// lease row is this one: a commit checks the lease against it instead
    /// of reading it.
    lock: Option<Option<LockRecord>>,
}

/// What the last commit of a connection did, for the storage benchmark
/// (`benches/web/storage.rs`) to tell where its time goes.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CommitProbe {
    /// Requests in its transaction (puts and deletes; the reads apart).
    pub writes: usize,
    /// Bytes of the tail row's JSON it wrote (0: none).
    pub tail_bytes: usize,
    /// `performance.now()` once every request was issued (before the
    /// session row read first, if any, is awaited)...
    pub issued_ms: f64,
    /// ... and once that read was checked, just before the commit is
    /// asked for (a claimed commit reads nothing: at once).
    pub checked_ms: f64,
    /// Made from what the connection knew of the session (`Known`), not
    /// made again after finding that view stale.
    pub from_known: bool,
    /// Made without reading anything, checked by its claim alone.
    pub claimed: bool,
}

/// How a commit ended.
enum Committed {
    Done(Known),
    /// The session changed under what this connection knew of it.
    Stale,
}

#[wasm_bindgen]
extern "C" {
    /// An `IDBDatabase`, for `transaction(names, mode, options)`, which
    /// web-sys has only behind `web_sys_unstable_apis`.
    type DatabaseWithOptions;
    #[wasm_bindgen(method, catch, js_name = transaction)]
    fn transaction_with_options(this: &DatabaseWithOptions, names: &Array, mode: &str, options: &Object) -> Result<IdbTransaction, JsValue>;

    /// An `IDBTransaction`, for `commit()` (IndexedDB 3.0: Chromium 76,
    /// Firefox 74, Safari 15), which web-sys marks deprecated. Where it
    /// is missing the call throws, and the transaction commits by itself
    /// once its requests are done, as before.
    type TransactionCommit;
    #[wasm_bindgen(method, catch)]
    fn commit(this: &TransactionCommit) -> Result<(), JsValue>;
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

    fn begin(&self, stores: &[&str], write: bool) -> Result<IdbTransaction, StoreError> {
        if self.closed.get() {
            return Err(closed());
        }
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        if write {
            self.db.unchecked_ref::<DatabaseWithOptions>().transaction_with_options(&names, "readwrite", &self.relaxed)
        } else {
            self.db.transaction_with_str_sequence(&names)
        }
        .map_err(|e| self.js_error(&e))
    }

    /// What the last commit did (benchmarks).
    #[doc(hidden)]
    pub fn last_commit(&self) -> CommitProbe {
        self.probe.get()
    }

    fn read(&self, stores: &[&str]) -> Result<IdbTransaction, StoreError> {
        self.begin(stores, false)
    }

    /// A write transaction, the future of its end, and its writes.
    fn write(&self, stores: &[&str]) -> Result<(IdbTransaction, Pending, Writes<'_>), StoreError> {
        let tx = self.begin(stores, true)?;
        let end = idb::transaction_end(&tx);
        Ok((tx, end, Writes { store: self, count: 0 }))
    }

    /// Ends a write transaction: aborts it when `result` is an error, else
    /// asks for the commit and waits until it is durable, or reports why
    /// it was not. Every request is issued by then (and every read
    /// checked), so nothing is lost by asking: the backend commits as soon
    /// as the requests are done, instead of once this tab has had every
    /// answer back and IndexedDB has seen it make no new request.
    async fn finish<T>(&self, tx: IdbTransaction, end: Pending, result: Result<T, StoreError>) -> Result<T, StoreError> {
        let value = match result {
            Ok(value) => value,
            Err(e) => {
                // It may have aborted already (a failed request does that,
                // failing the requests after it too): then its own error
                // says why.
                let cause = tx.error().map(|d| self.js_error(&d.into()));
                let _ = tx.abort();
                return Err(cause.unwrap_or(e));
            }
        };
        // It throws when the transaction has ended already (a failed
        // request aborted it): `end` says so and why.
        let _ = tx.unchecked_ref::<TransactionCommit>().commit();
        match end.await {
            Ok(done) if done.as_bool() == Some(true) => Ok(value),
            Ok(_) => Err(tx
                .error()
                .map(|e| self.js_error(&e.into()))
                .unwrap_or_else(|| StoreError::Other("the save was aborted".into()))),
            Err(e) => Err(tx.error().map(|d| self.js_error(&d.into())).unwrap_or_else(|| self.js_error(&e))),
        }
    }

    /// A request made, to await later (its failure to start mapped).
    fn issue(&self, made: Result<IdbRequest, JsValue>) -> Result<Pending, StoreError> {
        idb::issued(made).map_err(|e| self.js_error(&e))
    }

    /// The outcome of a request issued earlier.
    async fn outcome(&self, pending: Pending) -> Result<JsValue, StoreError> {
        pending.await.map_err(|e| self.js_error(&e))
    }

    /// A request made and its outcome.
    async fn ask(&self, made: Result<IdbRequest, JsValue>) -> Result<JsValue, StoreError> {
        self.outcome(self.issue(made)?).await
    }

    /// The row under `key` in `store`, if there is one.
    async fn get(&self, store: &IdbObjectStore, key: &JsValue) -> Result<Option<JsValue>, StoreError> {
        Ok(found(self.ask(store.get(key)).await?))
    }

    /// Every row of `store` in `query` (a key range; `None`: all).
    async fn get_all(&self, store: &IdbObjectStore, query: Option<&JsValue>) -> Result<Vec<JsValue>, StoreError> {
        let made = match query {
            Some(q) => store.get_all_with_key(q),
            None => store.get_all(),
        };
        Ok(rows(self.ask(made).await?))
    }

    fn js_error(&self, value: &JsValue) -> StoreError {
        match dom_name(value) {
            Some((name, _)) if name == "QuotaExceededError" => StoreError::QuotaExceeded,
            Some((name, _)) if self.closed.get() && (name == "InvalidStateError" || name == "TransactionInactiveError") => closed(),
            Some((name, message)) => StoreError::Other(format!("{name}: {message}")),
            None => StoreError::Other(describe(value)),
        }
    }

    async fn get_row<T: DeserializeOwned>(&self, store: &IdbObjectStore, key: &JsValue) -> Result<Option<T>, StoreError> {
        self.get(store, key).await?.map(|r| parse_row(&r)).transpose()
    }

    async fn get_setting<T: DeserializeOwned>(&self, store: &IdbObjectStore, key: &str) -> Result<Option<T>, StoreError> {
        match self.get(store, &JsValue::from_str(key)).await? {
            None => Ok(None),
            Some(v) => {
                let json = v.as_string().ok_or_else(|| StoreError::Corrupt(format!("the setting \"{key}\" is not text")))?;
                serde_json::from_str(&json).map(Some).map_err(|e| StoreError::corrupt("a saved setting", e))
            }
        }
    }

    async fn all_rows<T: DeserializeOwned>(&self, store: &IdbObjectStore, query: Option<&JsValue>) -> Result<Vec<T>, StoreError> {
        let rows = self.get_all(store, query).await?;
        // One JS string for the field name, not one per row (a session's
        // log is thousands of rows).
        let field = JsValue::from_str("json");
        rows.iter().map(|row| parse_field(row, &field)).collect()
    }

    async fn session_row(&self, tx: &IdbTransaction, id: &str) -> Result<SessionRecord, StoreError> {
        Ok(self.stamped_session_row(tx, id).await?.0)
    }

    /// The session's record and its claim count.
    async fn stamped_session_row(&self, tx: &IdbTransaction, id: &str) -> Result<(SessionRecord, u64), StoreError> {
        let row = self.get(&object_store(tx, SESSIONS)?, &JsValue::from_str(id)).await?;
        let row = row.ok_or_else(|| StoreError::NotFound(id.to_string()))?;
        Ok((parse_row(&row)?, stamp_of(&row)))
    }

    /// The session row's record JSON and claim count, if there is one.
    async fn raw_session_row(&self, tx: &IdbTransaction, id: &str) -> Result<Option<(String, u64)>, StoreError> {
        let row = self.get(&object_store(tx, SESSIONS)?, &JsValue::from_str(id)).await?;
        row.map(|row| Ok((json_of(&row).ok_or_else(|| StoreError::Corrupt("a saved row has no data".into()))?, stamp_of(&row)))).transpose()
    }

    /// Makes the session's next claim after `old` and writes the session
    /// row (`json`, its record) with it, so that a commit of any connection
    /// that knew the session before finds it changed; the new claim count.
    /// The claim is put when `old` was read in this transaction (or is
    /// checked against what it read), added when only its add checks it
    /// (`only_new`: it fails if another connection made it first).
    fn restamp(&self, tx: &IdbTransaction, w: &mut Writes<'_>, id: &str, json: &str, old: u64, only_new: bool) -> Result<u64, StoreError> {
        w.claim(&object_store(tx, CLAIMS)?, id, old + 1, only_new)?;
        w.put(&object_store(tx, SESSIONS)?, &session_raw(id, json, old + 1)?)?;
        Ok(old + 1)
    }

    /// This connection wrote session `id` outside a commit (a lease row, a
    /// rename), moving its claim count from `old` to `new`: what it knows
    /// of the session stays true if it was true, with `change` made (a
    /// commit running now keeps its own view, and its next one finds it
    /// stale and reads the database).
    fn rewritten(&self, id: &str, old: u64, new: u64, change: impl FnOnce(&mut Known)) {
        if let Some(known) = self.known.borrow_mut().get_mut(id) {
            if known.claims == old {
                known.claims = new;
                change(known);
            }
        }
    }

    async fn lock_row(&self, tx: &IdbTransaction, id: &str) -> Result<Option<LockRecord>, StoreError> {
        self.get_row(&object_store(tx, LOCKS)?, &JsValue::from_str(id)).await
    }

    async fn next(&self, tx: &IdbTransaction, w: &mut Writes<'_>, counter: &str) -> Result<u64, StoreError> {
        let settings = object_store(tx, SETTINGS)?;
        let n = self.get_setting::<u64>(&settings, counter).await?.unwrap_or(0) + 1;
        w.put_setting(&settings, counter, &n)?;
        Ok(n)
    }

    /// One commit of `batch` as one transaction, in one of three ways:
    ///
    /// - *Claimed* (`known`, and this connection's own lease known to run
    ///   `LEASE_MARGIN_MS` longer): nothing is read. The session's next
    ///   claim `[s, n + 1]` is *added* (an `add` fails when the row is
    ///   there), then the tail row, the session row (and a sealed chunk now
    ///   and then) are put, and the commit is asked for at once. If any
    ///   connection wrote the session since `known` was true, it made that
    ///   claim first: the add fails, IndexedDB aborts the whole transaction,
    ///   and the commit is made again from the database.
    /// - *Checked* (`known`, without such a lease): the same writes, the
    ///   claim put; the session row (and the lease row when `known` does not
    ///   hold it) is read first and checked once the writes are issued: a
    ///   claim count that moved on, or a lease held by another tab, aborts.
    /// - *Read* (no `known`): the tail and the session row are read first.
    ///
    /// Why a claimed commit needs the lease: deleting a session is refused
    /// while a lease on it runs (`delete_session`), and the only write that
    /// removes claims is that deletion; a connection whose lease runs for a
    /// while yet cannot find its session deleted under it.
    async fn commit_once(&self, id: &str, batch: &Batch, known: Option<Known>) -> Result<Committed, StoreError> {
        let roles_touched = !batch.roles.is_empty() || !batch.roles_removed.is_empty();
        let claimed = known.as_ref().is_some_and(|k| k.session.is_some() && k.leased_to(batch));
        // The lease as this connection knows it holds while the claim
        // count is the known one (checked below); else it is read.
        let lock_known = known.as_ref().is_some_and(|k| k.lock.is_some());
        let touched = [
            (LOCKS, batch.holder.is_some() && !lock_known),
            (HISTORY, batch.history.is_some()),
            (MESSAGE_CHUNKS, !batch.messages.is_empty()),
            (ROLE_LISTS, roles_touched),
            (FILES, !batch.files.is_empty() || !batch.files_removed.is_empty()),
            (COST_CHUNKS, !batch.costs.is_empty() || batch.costs_replaced),
        ];
        let mut stores = vec![SESSIONS, TAILS, CLAIMS];
        stores.extend(touched.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
        let (tx, end, mut w) = self.write(&stores)?;
        let result = async {
            let sessions = object_store(&tx, SESSIONS)?;
            let tails = object_store(&tx, TAILS)?;
            let key = JsValue::from_str(id);
            // Issued now, awaited once the writes are issued.
            let row = if claimed { None } else { Some(self.issue(sessions.get(&key))?) };
            let lock = match &batch.holder {
                Some(_) if !lock_known => Some(self.issue(object_store(&tx, LOCKS)?.get(&key))?),
                _ => None,
            };
            let cached = known.is_some();
            let mut known = match known {
                Some(known) => known,
                None => {
                    let found = self.get(&tails, &key).await?;
                    let tail = found.map(|r| parse_row(&r)).transpose()?.unwrap_or_default();
                    Known { claims: 0, session: None, tail, lock: None }
                }
            };
            let mut extras = Vec::new();
            if let Some(edit) = &batch.history {
                if known.tail.history.end == edit.keep as u64 {
                    known.tail.append_history(id, &edit.append, &mut extras)?;
                } else {
                    // Not an append (a replaced history): rewritten whole.
                    let sealed = self.log::<u64>(&object_store(&tx, HISTORY)?, id).await?;
                    let mut all: Vec<MessageId> = sealed.into_iter().chain(known.tail.history.entries::<u64>()?).map(MessageId).collect();
                    edit.apply(&mut all);
                    known.tail.replace_history(id, &all, &mut extras)?;
                }
            }
            // A list cut below its open chunk (rare: a running team
            // appends, or empties a list) is read to be written again.
            let mut sealed = tail::Sealed::new();
            for (role, l) in known.tail.cuts(batch) {
                let range = prefix_range(&[id.into(), role.as_str().into(), num(l as u64)])?;
                let rows = self.get_all(&object_store(&tx, ROLE_LISTS)?, Some(&range)).await?;
                let ids = chunks::entries::<u64>(&rows)?.into_iter().map(MessageId).collect();
                sealed.insert((role, l), ids);
            }
            known.tail.apply(id, batch, &mut sealed, &mut extras)?;
            if !batch.files_removed.is_empty() || !batch.files.is_empty() {
                let files = object_store(&tx, FILES)?;
                for path in &batch.files_removed {
                    w.delete(&files, &prefix_range(&[id.into(), path.as_str().into()])?)?;
                }
                for f in &batch.files {
                    w.put(&files, &file_row(id, f)?)?;
                }
            }
            w.extras(&tx, extras)?;
            let tail_changed = batch.meta.is_some()
                || batch.ledger.is_some()
                || batch.history.is_some()
                || !batch.messages.is_empty()
                || !batch.costs.is_empty()
                || batch.costs_replaced
                || roles_touched;
            let mut tail_bytes = 0;
            if tail_changed || !cached {
                let json = to_json(&known.tail)?;
                tail_bytes = json.len();
                w.put(&tails, &raw_row(&[("s", id.into())], &json)?)?;
            }
            let update = |mut record: SessionRecord| {
                record.updated_ms = batch.now_ms;
                if let Some(status) = batch.status {
                    record.status = status;
                }
                if let Some(settings) = &batch.settings {
                    record.settings = settings.clone();
                }
                record
            };
            let issued_ms;
            let (record, n) = match (row, known.session.take()) {
                (row, Some(record)) => {
                    // Written as known; a claimed commit is checked by its
                    // claim, a checked one against the session row.
                    let record = update(record);
                    let n = self.restamp(&tx, &mut w, id, &to_json(&record)?, known.claims, claimed)?;
                    issued_ms = performance_now();
                    if let Some(row) = row {
                        let row = found(self.outcome(row).await?).ok_or_else(|| StoreError::NotFound(id.to_string()))?;
                        if stamp_of(&row) != known.claims {
                            return Ok(None);
                        }
                    }
                    (record, n)
                }
                (Some(row), None) => {
                    let row = found(self.outcome(row).await?).ok_or_else(|| StoreError::NotFound(id.to_string()))?;
                    let record = update(parse_row(&row)?);
                    let n = self.restamp(&tx, &mut w, id, &to_json(&record)?, stamp_of(&row), false)?;
                    issued_ms = performance_now();
                    (record, n)
                }
                (None, None) => unreachable!("a claimed commit knows the session record"),
            };
            (known.session, known.claims) = (Some(record), n);
            if let Some(holder) = &batch.holder {
                if let Some(lock) = lock {
                    known.lock = Some(found(self.outcome(lock).await?).map(|r| parse_row(&r)).transpose()?);
                }
                // Read now, or known and still so (the claim count is
                // unchanged: checked above, or by the claim itself).
                if let Some(Some(lock)) = known.lock.as_ref().filter(|l| l.as_ref().is_some_and(|l| l.excludes(holder, batch.now_ms))) {
                    return Err(StoreError::Locked { by: lock.holder.clone() });
                }
            }
            let checked_ms = performance_now();
            self.probe.set(CommitProbe { writes: w.count, tail_bytes, issued_ms, checked_ms, from_known: cached, claimed });
            Ok(Some(known))
        }
        .await;
        match result {
            Ok(None) => {
                let _ = tx.abort();
                Ok(Committed::Stale)
            }
            result => match self.finish(tx.clone(), end, result).await {
                Ok(Some(known)) => Ok(Committed::Done(known)),
                Ok(None) => Ok(Committed::Stale),
                // Another connection made this claim first.
                Err(_) if claimed && aborted_by(&tx, "ConstraintError") => Ok(Committed::Stale),
                Err(e) => Err(e),
            },
        }
    }
}

impl Known {
    /// Does `batch`'s holder hold the session's lease, as known, for
    /// `LEASE_MARGIN_MS` past the batch's time at least?
    fn leased_to(&self, batch: &Batch) -> bool {
        match (&batch.holder, &self.lock) {
            (Some(holder), Some(Some(lock))) => {
                lock.holder == *holder && lock.expires_ms >= batch.now_ms.saturating_add(LEASE_MARGIN_MS)
            }
            _ => false,
        }
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

/// The writes of one transaction: issued without waiting (the transaction
/// orders them and commits them together), counted for the fault hook.
struct Writes<'a> {
    store: &'a IdbStore,
    count: usize,
}

impl Writes<'_> {
    fn check(&mut self) -> Result<(), StoreError> {
        if self.store.fault.get() == Some(self.count) {
            self.store.fault.set(None);
            // A real DOMException, through the same mapping as a real one.
            let e = DomException::new_with_message_and_name("simulated: the disk is full", "QuotaExceededError")
                .map(JsValue::from)
                .unwrap_or_else(|e| e);
            return Err(self.store.js_error(&e));
        }
        self.count += 1;
        Ok(())
    }

    fn put(&mut self, store: &IdbObjectStore, row: &JsValue) -> Result<(), StoreError> {
        self.check()?;
        store.put(row).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    fn put_setting<T: Serialize>(&mut self, store: &IdbObjectStore, key: &str, value: &T) -> Result<(), StoreError> {
        self.check()?;
        let json = to_json(value)?;
        store.put_with_key(&JsValue::from_str(&json), &JsValue::from_str(key)).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// Claim `n` of session `s`: added (failing, and so aborting the
    /// transaction, when another connection made it first) when `only_new`,
    /// else put (the count was read in this transaction).
    fn claim(&mut self, store: &IdbObjectStore, s: &str, n: u64, only_new: bool) -> Result<(), StoreError> {
        self.check()?;
        let key = key(&[s.into(), num(n)]);
        if only_new { store.add_with_key(&JsValue::TRUE, &key) } else { store.put_with_key(&JsValue::TRUE, &key) }
            .map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// Deletes the row under a key, or the rows in a key range.
    fn delete(&mut self, store: &IdbObjectStore, query: &JsValue) -> Result<(), StoreError> {
        self.check()?;
        store.delete(query).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// The sealed chunks and deletions a tail's change brings.
    fn extras(&mut self, tx: &IdbTransaction, extras: Vec<tail::Extra>) -> Result<(), StoreError> {
        for extra in extras {
            match extra {
                tail::Extra::Put(name, row) => self.put(&object_store(tx, name)?, &row)?,
                tail::Extra::Delete(name, range) => self.delete(&object_store(tx, name)?, &range)?,
            }
        }
        Ok(())
    }
}

thread_local! {
    /// The page's `performance`, found once (each lookup crosses into
    /// JavaScript twice more).
    static PERFORMANCE: Option<web_sys::Performance> = web_sys::window().and_then(|w| w.performance());
}

fn performance_now() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, web_sys::Performance::now))
}

fn object_store(tx: &IdbTransaction, name: &str) -> Result<IdbObjectStore, StoreError> {
    tx.object_store(name).map_err(|e| StoreError::Corrupt(format!("the database has no \"{name}\" store: {}", describe(&e))))
}

/// A `get`'s result: `undefined` when there is no row.
fn found(result: JsValue) -> Option<JsValue> {
    (!result.is_undefined()).then_some(result)
}

/// A `getAll`'s result as a list.
fn rows(result: JsValue) -> Vec<JsValue> {
    result.dyn_into::<Array>().map(|a| a.to_vec()).unwrap_or_default()
}

/// The page's IndexedDB, or why there is none.
fn factory() -> Result<IdbFactory, StoreError> {
    idb::factory().ok_or_else(|| StoreError::Unavailable("IndexedDB is missing".into()))
}

fn to_json<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Other(format!("a record could not be written: {e}")))
}

/// A row: the key fields, then the record as JSON.
fn row<T: Serialize>(keys: &[(&str, JsValue)], record: &T) -> Result<JsValue, StoreError> {
    raw_row(keys, &to_json(record)?)
}

/// [`row`] of a record already in JSON.
fn raw_row(keys: &[(&str, JsValue)], json: &str) -> Result<JsValue, StoreError> {
    let obj = Object::new();
    for (name, value) in keys {
        Reflect::set(&obj, &JsValue::from_str(name), value).map_err(|e| StoreError::Other(describe(&e)))?;
    }
    Reflect::set(&obj, &JsValue::from_str("json"), &JsValue::from_str(json)).map_err(|e| StoreError::Other(describe(&e)))?;
    Ok(obj.into())
}

/// The session row of `record`, with its claim count `n`.
fn session_value(id: &str, record: &SessionRecord, n: u64) -> Result<JsValue, StoreError> {
    session_raw(id, &to_json(record)?, n)
}

/// [`session_value`] of a record already in JSON.
fn session_raw(id: &str, json: &str, n: u64) -> Result<JsValue, StoreError> {
    raw_row(&[("id", id.into()), ("w", num(n))], json)
}

/// The record's JSON in a row.
fn json_of(row: &JsValue) -> Option<String> {
    Reflect::get(row, &JsValue::from_str("json")).ok().and_then(|v| v.as_string())
}

/// The claim count of a session row (0 before schema v5, whose rows have
/// no claims yet: v4 wrote a text stamp there, earlier versions nothing).
fn stamp_of(row: &JsValue) -> u64 {
    Reflect::get(row, &JsValue::from_str("w")).ok().and_then(|v| v.as_f64()).map_or(0, |n| n as u64)
}

/// Did `tx` end because a request failed with the DOMException `name`?
fn aborted_by(tx: &IdbTransaction, name: &str) -> bool {
    tx.error().is_some_and(|e| e.name() == name)
}

fn parse_row<T: DeserializeOwned>(row: &JsValue) -> Result<T, StoreError> {
    parse_field(row, &JsValue::from_str("json"))
}

/// [`parse_row`] with the `json` field's name made by the caller.
fn parse_field<T: DeserializeOwned>(row: &JsValue, field: &JsValue) -> Result<T, StoreError> {
    let json = Reflect::get(row, field)
        .ok()
        .and_then(|v| v.as_string())
        .ok_or_else(|| StoreError::Corrupt("a saved row has no data".into()))?;
    serde_json::from_str(&json).map_err(|e| StoreError::corrupt("a saved record", e))
}

fn num(n: u64) -> JsValue {
    // Ids and sequence numbers stay far below 2^53.
    JsValue::from_f64(n as f64)
}

fn key(parts: &[JsValue]) -> JsValue {
    parts.iter().collect::<Array>().into()
}

/// Every key that starts with `prefix`: arrays sort after every number and
/// string, so `[…prefix, []]` is above all of them.
fn prefix_range(prefix: &[JsValue]) -> Result<JsValue, StoreError> {
    let mut upper: Vec<JsValue> = prefix.to_vec();
    upper.push(Array::new().into());
    IdbKeyRange::bound(&key(prefix), &key(&upper)).map(JsValue::from).map_err(|e| StoreError::Other(describe(&e)))
}

fn session_range(id: &str) -> Result<JsValue, StoreError> {
    prefix_range(&[id.into()])
}

fn file_row(s: &str, f: &FileVersion) -> Result<JsValue, StoreError> {
    row(&[("s", s.into()), ("p", f.path.as_str().into()), ("v", num(u64::from(f.version)))], f)
}

fn session_keyed<T: Serialize>(s: &str, record: &T) -> Result<JsValue, StoreError> {
    row(&[("s", s.into())], record)
}

fn closed() -> StoreError {
    StoreError::Unavailable("this tab's connection to the database was closed, most likely because another tab opened a newer tabteam; reload this tab".into())
}

/// The name and message of a DOMException, or of the `error` a request or
/// transaction carries.
fn dom_name(value: &JsValue) -> Option<(String, String)> {
    let field = |v: &JsValue, f: &str| Reflect::get(v, &JsValue::from_str(f)).ok().and_then(|x| x.as_string());
    if let Some(name) = field(value, "name") {
        return Some((name, field(value, "message").unwrap_or_default()));
    }
    let inner = Reflect::get(value, &JsValue::from_str("error")).ok().filter(|v| v.is_object())?;
    field(&inner, "name").map(|name| (name, field(&inner, "message").unwrap_or_default()))
}

fn describe(value: &JsValue) -> String {
    dom_name(value)
        .map(|(n, m)| format!("{n}: {m}"))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// Why opening failed, for a person.
fn open_error(e: &JsValue) -> StoreError {
    match dom_name(e) {
        Some((name, _)) if name == "QuotaExceededError" => StoreError::QuotaExceeded,
        Some((name, message))
            if ["InvalidStateError", "SecurityError", "NotAllowedError", "UnknownError"].contains(&name.as_str()) =>
        {
            StoreError::Unavailable(format!("{name}: {message}"))
        }
        Some((name, message)) => StoreError::Other(format!("opening the database failed: {name}: {message}")),
        None => StoreError::Unavailable(describe(e)),
    }
}

/// The database is at a newer version than this build knows: say which.
async fn too_new(factory: &IdbFactory, name: &str) -> StoreError {
    // Opening without a version opens whatever is there, without upgrading.
    let found = match idb::open(factory, name, None, None) {
        Ok(opening) => match opening.await {
            Ok(db) => {
                let version = db.version() as u32;
                db.close();
                version
            }
            Err(_) => 0,
        },
        Err(_) => 0,
    };
    StoreError::TooNew { found: found.max(SCHEMA_VERSION + 1), supported: SCHEMA_VERSION }
}

/// Runs the upgrade steps from `old` to `new`, one version at a time.
async fn upgrade(db: &IdbDatabase, tx: &IdbTransaction, old: u32, new: u32) -> Result<(), StoreError> {
    for version in old..new {
        match version {
            0 => create_v1(db)?,
            1 => files_per_version(db, tx).await?,
            2 => chunked_logs(db, tx).await?,
            3 => tails_from_v3(db, tx).await?,
            4 => drop(create_store(db, CLAIMS, None)?),
            _ => return Err(StoreError::Other(format!("no upgrade step from schema {version}"))),
        }
    }
    Ok(())
}

/// Creates the store `name` whose rows are keyed by `key_path` (a field's
/// name, or an array of them; `None`: keys given apart).
fn create_store(db: &IdbDatabase, name: &str, key_path: Option<JsValue>) -> Result<IdbObjectStore, StoreError> {
    let params = IdbObjectStoreParameters::new();
    if let Some(path) = &key_path {
        params.set_key_path(path);
    }
    db.create_object_store_with_optional_parameters(name, &params)
        .map_err(|e| StoreError::Other(format!("creating \"{name}\": {}", describe(&e))))
}

fn single(field: &str) -> Option<JsValue> {
    Some(JsValue::from_str(field))
}

fn array(fields: &[&str]) -> Option<JsValue> {
    Some(fields.iter().map(|f| JsValue::from_str(f)).collect::<Array>().into())
}

/// Schema v1.
fn create_v1(db: &IdbDatabase) -> Result<(), StoreError> {
    create_store(db, SESSIONS, single("id"))?;
    create_store(db, META, single("s"))?;
    create_store(db, LEDGER, single("s"))?;
    create_store(db, MESSAGES_V2, array(&["s", "id"]))?;
    create_store(db, ROLES, array(&["s", "name"]))?;
    create_store(db, PROJECT_V1, single("s"))?;
    create_store(db, COSTS_V2, array(&["s", "seq"]))?;
    create_store(db, LOCKS, single("s"))?;
    let experiences = create_store(db, EXPERIENCES, single("id"))?;
    experiences
        .create_index_with_str("role", "role")
        .map_err(|e| StoreError::Other(format!("creating the role index: {}", describe(&e))))?;
    create_store(db, SETTINGS, None)?;
    Ok(())
}

/// v1 → v2: one `files` row per file version instead of one `project`
/// record per session.
async fn files_per_version(db: &IdbDatabase, tx: &IdbTransaction) -> Result<(), StoreError> {
    let files = create_store(db, FILES, array(&["s", "p", "v"]))?;
    let project = object_store(tx, PROJECT_V1)?;
    let failed = |e: JsValue| StoreError::Other(format!("upgrading to schema 2: {}", describe(&e)));
    let rows = rows(idb::issued(project.get_all()).map_err(failed)?.await.map_err(failed)?);
    for r in rows {
        let s = Reflect::get(&r, &JsValue::from_str("s"))
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| StoreError::Corrupt("a v1 project record has no session id".into()))?;
        let project: ProjectFiles = parse_row(&r)?;
        for v in file_versions(&project) {
            files.put(&file_row(&s, &v)?).map_err(failed)?;
        }
    }
    db.delete_object_store(PROJECT_V1).map_err(|e| StoreError::Other(format!("dropping the v1 project store: {}", describe(&e))))
}

impl Store for IdbStore {
    fn list_sessions(&self) -> StoreFuture<'_, Vec<SessionRecord>> {
        Box::pin(async move {
            let tx = self.read(&[SESSIONS])?;
            let mut all: Vec<SessionRecord> = self.all_rows(&object_store(&tx, SESSIONS)?, None).await?;
            sort_sessions(&mut all);
            Ok(all)
        })
    }

    fn session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionRecord> {
        Box::pin(async move {
            let tx = self.read(&[SESSIONS])?;
            self.session_row(&tx, id).await
        })
    }

    fn insert_session(&self, data: SessionData) -> StoreFuture<'_, SessionRecord> {
        Box::pin(async move {
            let mut stores = SESSION_STORES.to_vec();
            stores.push(SETTINGS);
            let (tx, end, mut w) = self.write(&stores)?;
            let result = async {
                let mut record = data.session.clone();
                record.id = session_id(self.next(&tx, &mut w, SESSION_COUNTER).await?);
                let s = record.id.as_str();
                // A new session: no claims yet.
                w.put(&object_store(&tx, SESSIONS)?, &session_value(s, &record, 0)?)?;
                let mut extras = Vec::new();
                let messages = data.messages.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                let costs = data.costs.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                let history = data.meta.as_ref().map(|m| &m.history[..]).unwrap_or(&[]);
                let tail = tail::from_nothing(
                    s,
                    data.meta.as_ref().map(MetaRecord::head),
                    data.ledger.clone(),
                    history,
                    messages,
                    costs,
                    &data.roles,
                    &mut extras,
                )?;
                w.extras(&tx, extras)?;
                w.put(&object_store(&tx, TAILS)?, &session_keyed(s, &tail)?)?;
                let files = object_store(&tx, FILES)?;
                for f in &data.files {
                    w.put(&files, &file_row(s, f)?)?;
                }
                let known = Known { claims: 0, session: Some(record.clone()), tail, lock: Some(None) };
                Ok((record, known))
            }
            .await;
            let (record, known) = self.finish(tx, end, result).await?;
            self.known.borrow_mut().insert(record.id.clone(), known);
            Ok(record)
        })
    }

    fn rename_session<'a>(&'a self, id: &'a str, title: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[SESSIONS, CLAIMS])?;
            let result = async {
                let (mut record, old) = self.stamped_session_row(&tx, id).await?;
                record.title = title.to_string();
                record.updated_ms = now_ms;
                let new = self.restamp(&tx, &mut w, id, &to_json(&record)?, old, false)?;
                Ok((record, old, new))
            }
            .await;
            let (record, old, new) = self.finish(tx, end, result).await?;
            self.rewritten(id, old, new, |known| known.session = Some(record));
            Ok(())
        })
    }

    fn delete_session<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&SESSION_STORES)?;
            let result = async {
                self.session_row(&tx, id).await?;
                if let Some(lock) = self.lock_row(&tx, id).await? {
                    if lock.expires_ms > now_ms {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
                self.known.borrow_mut().remove(id);
                for name in [MESSAGE_CHUNKS, HISTORY, ROLE_LISTS, FILES, COST_CHUNKS, CLAIMS] {
                    w.delete(&object_store(&tx, name)?, &session_range(id)?)?;
                }
                for name in [TAILS, LOCKS, SESSIONS] {
                    w.delete(&object_store(&tx, name)?, &JsValue::from_str(id))?;
                }
                Ok(())
            }
            .await;
            self.finish(tx, end, result).await
        })
    }

    fn load_session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionData> {
        Box::pin(async move {
            let tx = self.read(&[SESSIONS, TAILS, ROLE_LISTS, MESSAGE_CHUNKS, HISTORY, FILES, COST_CHUNKS])?;
            let store = |name| object_store(&tx, name);
            let (sessions, tails, lists, messages, history, files, costs) = (
                store(SESSIONS)?,
                store(TAILS)?,
                store(ROLE_LISTS)?,
                store(MESSAGE_CHUNKS)?,
                store(HISTORY)?,
                store(FILES)?,
                store(COST_CHUNKS)?,
            );
            let range = || session_range(id);
            let ranges = (range()?, range()?);
            let key = JsValue::from_str(id);
            // Every read is issued before any is awaited: IndexedDB answers
            // them in order, and the round trips overlap instead of adding up.
            let (session, tail, lists, messages, history, files, costs) = futures::join!(
                self.get(&sessions, &key),
                self.get(&tails, &key),
                self.get_all(&lists, Some(&ranges.0)),
                self.log::<Message>(&messages, id),
                self.log::<u64>(&history, id),
                self.all_rows::<FileVersion>(&files, Some(&ranges.1)),
                self.log::<CostEntry>(&costs, id),
            );
            let row = session?.ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            let (session, claims) = (parse_row::<SessionRecord>(&row)?, stamp_of(&row));
            let tail: tail::TailRecord = tail?.map(|r| parse_row(&r)).transpose()?.unwrap_or_default();
            let (mut messages, mut history, mut costs) = (messages?, history?, costs?);
            messages.extend(tail.messages.entries::<Message>()?);
            history.extend(tail.history.entries::<u64>()?);
            costs.extend(tail.costs.entries::<CostEntry>()?);
            let roles = tail.roles_with(&lists?)?;
            let (meta, ledger) = (tail.meta.clone(), tail.ledger.clone());
            // What a commit of this connection starts from next.
            let known = Known { claims, session: Some(session.clone()), tail, lock: None };
            self.known.borrow_mut().insert(id.to_string(), known);
            // The log is appended in commit order; a message is kept once.
            messages.sort_by_key(|m| m.id);
            messages.dedup_by_key(|m| m.id);
            let meta = meta.map(|head| MetaRecord::from_head(head, history.into_iter().map(MessageId).collect()));
            let files = files?;
            Ok(SessionData { session, meta, ledger, roles: roles.into_iter().map(|r| r.role).collect(), messages, files, costs })
        })
    }

    fn commit<'a>(&'a self, id: &'a str, batch: Batch) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // Taken out while the commit runs (a second commit of the session
            // meanwhile starts from the database), put back once it is kept.
            let known = self.known.borrow_mut().remove(id);
            let mut outcome = self.commit_once(id, &batch, known).await?;
            if let Committed::Stale = outcome {
                outcome = self.commit_once(id, &batch, None).await?;
            }
            match outcome {
                Committed::Done(known) => {
                    self.known.borrow_mut().insert(id.to_string(), known);
                    Ok(())
                }
                Committed::Stale => Err(StoreError::Other("the session changed while it was being saved; try again".into())),
            }
        })
    }

    fn acquire_lock<'a>(&'a self, id: &'a str, holder: &'a str, now_ms: u64, ttl_ms: u64) -> StoreFuture<'a, LockRecord> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[SESSIONS, LOCKS, CLAIMS])?;
            let result = async {
                let (json, old) = self.raw_session_row(&tx, id).await?.ok_or_else(|| StoreError::NotFound(id.to_string()))?;
                if let Some(lock) = self.lock_row(&tx, id).await? {
                    if lock.excludes(holder, now_ms) {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
                let lock = LockRecord { holder: holder.to_string(), expires_ms: now_ms.saturating_add(ttl_ms) };
                w.put(&object_store(&tx, LOCKS)?, &session_keyed(id, &lock)?)?;
                let new = self.restamp(&tx, &mut w, id, &json, old, false)?;
                Ok((lock, old, new))
            }
            .await;
            let (lock, old, new) = self.finish(tx, end, result).await?;
            let known_lock = lock.clone();
            self.rewritten(id, old, new, |known| known.lock = Some(Some(known_lock)));
            Ok(lock)
        })
    }

    fn release_lock<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[SESSIONS, LOCKS, CLAIMS])?;
            let result = async {
                match self.lock_row(&tx, id).await? {
                    Some(lock) if lock.holder == holder => {
                        w.delete(&object_store(&tx, LOCKS)?, &JsValue::from_str(id))?;
                        match self.raw_session_row(&tx, id).await? {
                            Some((json, old)) => Ok(Some((old, self.restamp(&tx, &mut w, id, &json, old, false)?))),
                            None => Ok(None),
                        }
                    }
                    _ => Ok(None),
                }
            }
            .await;
            if let Some((old, new)) = self.finish(tx, end, result).await? {
                self.rewritten(id, old, new, |known| known.lock = Some(None));
            }
            Ok(())
        })
    }

    fn app_settings(&self) -> StoreFuture<'_, AppSettings> {
        Box::pin(async move {
            let tx = self.read(&[SETTINGS])?;
            Ok(self.get_setting(&object_store(&tx, SETTINGS)?, APP_SETTINGS).await?.unwrap_or_default())
        })
    }

    fn put_app_settings(&self, settings: AppSettings) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[SETTINGS])?;
            let result = (|| {
                let store = object_store(&tx, SETTINGS)?;
                if !settings.remember_key {
                    w.delete(&store, &JsValue::from_str(REMEMBERED_KEY))?;
                }
                w.put_setting(&store, APP_SETTINGS, &settings)
            })();
            self.finish(tx, end, result).await
        })
    }

    fn remembered_key(&self) -> StoreFuture<'_, Option<String>> {
        Box::pin(async move {
            let tx = self.read(&[SETTINGS])?;
            self.get_setting(&object_store(&tx, SETTINGS)?, REMEMBERED_KEY).await
        })
    }

    fn put_remembered_key(&self, api_key: Option<String>) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[SETTINGS])?;
            let result = async {
                let store = object_store(&tx, SETTINGS)?;
                match api_key {
                    None => w.delete(&store, &JsValue::from_str(REMEMBERED_KEY)),
                    Some(api_key) => {
                        let settings: AppSettings = self.get_setting(&store, APP_SETTINGS).await?.unwrap_or_default();
                        if !settings.remember_key {
                            return Err(StoreError::remember_key_off());
                        }
                        w.put_setting(&store, REMEMBERED_KEY, &api_key)
                    }
                }
            }
            .await;
            self.finish(tx, end, result).await
        })
    }

    fn add_experience(&self, new: NewExperience) -> StoreFuture<'_, ExperienceRecord> {
        Box::pin(async move {
            let (tx, end, mut w) = self.write(&[EXPERIENCES, SETTINGS])?;
            let result = async {
                let record = ExperienceRecord {
                    id: self.next(&tx, &mut w, EXPERIENCE_COUNTER).await?,
                    role: new.role,
                    session_id: new.session_id,
                    created_ms: new.now_ms,
                    experience: new.experience,
                };
                let r = row(&[("id", num(record.id)), ("role", record.role.as_str().into())], &record)?;
                w.put(&object_store(&tx, EXPERIENCES)?, &r)?;
                Ok(record)
            }
            .await;
            self.finish(tx, end, result).await
        })
    }

    fn list_experiences<'a>(&'a self, role: Option<&'a str>) -> StoreFuture<'a, Vec<ExperienceRecord>> {
        Box::pin(async move {
            let tx = self.read(&[EXPERIENCES])?;
            let store = object_store(&tx, EXPERIENCES)?;
            let Some(role) = role else {
                return self.all_rows(&store, None).await;
            };
            let index = store.index("role").map_err(|e| StoreError::Corrupt(format!("the role index is missing: {}", describe(&e))))?;
            let rows = rows(self.ask(index.get_all_with_key(&JsValue::from_str(role))).await?);
            rows.iter().map(parse_row).collect()
        })
    }
}

/// v2 → v3: the message log and the cost entries in chunks instead of one
/// row per entry; the history out of the meta record into chunks of ids.
/// The entries' JSON is carried over as it is, never re-encoded.
async fn chunked_logs(db: &IdbDatabase, tx: &IdbTransaction) -> Result<(), StoreError> {
    let chunked = || array(&["s", "c"]);
    let message_chunks = create_store(db, MESSAGE_CHUNKS, chunked())?;
    let cost_chunks = create_store(db, COST_CHUNKS, chunked())?;
    let history = create_store(db, HISTORY, chunked())?;
    let failed = |e: JsValue| StoreError::Other(format!("upgrading to schema 3: {}", describe(&e)));
    let put = |store: &IdbObjectStore, s: &str, chunks: Vec<chunks::Chunk>| -> Result<(), StoreError> {
        for chunk in &chunks {
            store.put(&chunks::chunk_row(s, chunk)?).map_err(failed)?;
        }
        Ok(())
    };
    let text = |row: &JsValue, k: &str| {
        Reflect::get(row, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| StoreError::Corrupt(format!("a v2 row has no \"{k}\"")))
    };
    // One session's rows come together (keys start with the session id).
    for (old, new) in [(MESSAGES_V2, &message_chunks), (COSTS_V2, &cost_chunks)] {
        let rows = rows(idb::issued(object_store(tx, old)?.get_all()).map_err(failed)?.await.map_err(failed)?);
        let mut current: Option<(String, Vec<String>)> = None;
        for row in &rows {
            let (s, json) = (text(row, "s")?, text(row, "json")?);
            match &mut current {
                Some((cur, items)) if *cur == s => items.push(json),
                _ => {
                    if let Some((cur, items)) = current.take() {
                        put(new, &cur, chunks::append(None, items, chunks::V3_CHUNK_BYTES))?;
                    }
                    current = Some((s, vec![json]));
                }
            }
        }
        if let Some((cur, items)) = current {
            put(new, &cur, chunks::append(None, items, chunks::V3_CHUNK_BYTES))?;
        }
        db.delete_object_store(old).map_err(|e| StoreError::Other(format!("dropping the v2 \"{old}\" store: {}", describe(&e))))?;
    }
    let meta = object_store(tx, META)?;
    let rows = rows(idb::issued(meta.get_all()).map_err(failed)?.await.map_err(failed)?);
    for row in &rows {
        let s = text(row, "s")?;
        let record: MetaRecord = parse_row(row)?;
        put(&history, &s, chunks::append(None, record.history.iter().map(|id| id.0.to_string()), chunks::V3_CHUNK_BYTES))?;
        meta.put(&session_keyed(&s, &record.head())?).map_err(failed)?;
    }
    Ok(())
}

/// The last chunk of session `s`'s log in `store` (upgrades).
async fn last_chunk(store: &IdbObjectStore, s: &str) -> Result<Option<chunks::Tail>, StoreError> {
    let failed = |e: JsValue| StoreError::Other(format!("upgrading to schema 4: {}", describe(&e)));
    let made = store.open_cursor_with_range_and_direction(&session_range(s)?, IdbCursorDirection::Prev);
    let cursor = idb::issued(made).map_err(failed)?.await.map_err(failed)?;
    match cursor.dyn_into::<IdbCursorWithValue>() {
        Ok(cursor) => chunks::tail_of(&cursor.value().map_err(failed)?).map(Some),
        Err(_) => Ok(None),
    }
}

/// v3 → v4: each session's meta head, ledger head and roles move into its
/// tail row, the roles' lists into chunks; the logs' chunks stay where they
/// are (each tail's open chunks start after them).
async fn tails_from_v3(db: &IdbDatabase, tx: &IdbTransaction) -> Result<(), StoreError> {
    let tails = create_store(db, TAILS, single("s"))?;
    let lists = create_store(db, ROLE_LISTS, array(&["s", "r", "l", "c"]))?;
    let failed = |e: JsValue| StoreError::Other(format!("upgrading to schema 4: {}", describe(&e)));
    let ask = |made: Result<IdbRequest, JsValue>| async move { idb::issued(made).map_err(failed)?.await.map_err(failed) };
    let (meta, ledger, roles) = (object_store(tx, META)?, object_store(tx, LEDGER)?, object_store(tx, ROLES)?);
    let (messages, history, costs) = (object_store(tx, MESSAGE_CHUNKS)?, object_store(tx, HISTORY)?, object_store(tx, COST_CHUNKS)?);
    let ids = rows(ask(object_store(tx, SESSIONS)?.get_all_keys()).await?);
    for id in ids {
        let s = id.as_string().ok_or_else(|| StoreError::Corrupt("a v3 session id is not text".into()))?;
        let key = JsValue::from_str(&s);
        let meta_row = found(ask(meta.get(&key)).await?);
        let ledger_row = found(ask(ledger.get(&key)).await?);
        let role_rows = rows(ask(roles.get_all_with_key(&session_range(&s)?)).await?);
        let mut tail = tail::TailRecord {
            meta: meta_row.map(|r| parse_row(&r)).transpose()?,
            ledger: ledger_row.map(|r| parse_row(&r)).transpose()?,
            messages: tail::OpenLog::after(last_chunk(&messages, &s).await?.as_ref()),
            history: tail::OpenLog::after(last_chunk(&history, &s).await?.as_ref()),
            costs: tail::OpenLog::after(last_chunk(&costs, &s).await?.as_ref()),
            roles: Vec::new(),
        };
        let records = role_rows.iter().map(parse_row::<RoleRecord>).collect::<Result<Vec<_>, _>>()?;
        let roles = records.iter().map(|r| RoleEdit::new_role(r.index as usize, &r.role)).collect();
        let mut extras = Vec::new();
        tail.apply(&s, &Batch { roles, ..Batch::default() }, &mut tail::Sealed::new(), &mut extras)?;
        for extra in extras {
            if let tail::Extra::Put(_, row) = extra {
                lists.put(&row).map_err(failed)?;
            }
        }
        tails.put(&session_keyed(&s, &tail)?).map_err(failed)?;
    }
    for old in [META, LEDGER, ROLES] {
        db.delete_object_store(old).map_err(|e| StoreError::Other(format!("dropping the v3 \"{old}\" store: {}", describe(&e))))?;
    }
    Ok(())
}
