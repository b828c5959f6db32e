//! `IdbStore`: the store port on the browser's IndexedDB, via the `idb`
//! crate (futures over IndexedDB requests; the same crate as `kv.rs`).
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
//! | `sessions`    | `id`                | `{id, json: SessionRecord}`  | v1    |
//! | `meta`        | `s`                 | `{s, json: MetaHead}` (v1–v2: `MetaRecord`, history inside) | v1 |
//! | `history`     | `[s, c]`            | chunk of message ids         | v3    |
//! | `ledger`      | `s`                 | `{s, json: LedgerRecord}`    | v1    |
//! | `messages`    | `[s, id]`           | `{s, id, json: Message}`     | v1–v2 |
//! | `message_chunks` | `[s, c]`         | chunk of `Message`s          | v3    |
//! | `roles`       | `[s, name]`         | `{s, name, json: RoleRecord}`| v1    |
//! | `project`     | `s`                 | `{s, json: ProjectFiles}`    | v1 only |
//! | `files`       | `[s, p, v]`         | `{s, p, v, json: FileVersion}` | v2  |
//! | `costs`       | `[s, seq]`          | `{s, seq, json: CostEntry}`  | v1–v2 |
//! | `cost_chunks` | `[s, c]`            | chunk of `CostEntry`s        | v3    |
//! | `locks`       | `s`                 | `{s, json: LockRecord}`      | v1    |
//! | `experiences` | `id`, index `role`  | `{id, role, json: ExperienceRecord}` | v1 |
//! | `settings`    | out of line: `app`, `api_key`, counters | a JSON string | v1 |
//!
//! A chunk is `{s, c, end, json}`: a JSON array of entries in the order
//! they were appended, about 32 KiB at most (`idb_chunks.rs`), so a commit
//! rewrites at most the last chunk of a log and a restore reads a few
//! hundred rows, not one per message and cost entry.
//!
//! Upgrades run as a chain of steps, one per version (0→1 creates v1;
//! 1→2 splits each session's `project` record into one `files` row per
//! version and drops `project`; 2→3 moves `messages` and `costs` into
//! chunks and the meta's history into `history`, then drops the old
//! stores), inside the upgrade transaction: a failing step aborts the
//! upgrade and the old data stays as it was.
//!
//! Every `Store` method is one IndexedDB transaction; `commit` is one
//! read-write transaction over exactly the stores the batch touches, and
//! any failure aborts it (nothing half-written). DOMException names are
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
use std::future::IntoFuture;
use std::rc::Rc;

use futures::future::{select, Either};
#[path = "idb_chunks.rs"]
mod chunks;

use idb::{
    DatabaseEvent, Event as _, Factory, IndexParams, KeyPath, KeyRange, ObjectStore, ObjectStoreParams, Query,
    Request as _, Transaction, TransactionResult,
};
use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DomException, IdbDatabase, IdbTransaction, IdbTransactionMode};

use crate::core::cost::CostEntry;
use crate::core::files::ProjectFiles;
use crate::core::message::Message;
use crate::core::message::MessageId;
use crate::core::store::{
    file_versions, MetaHead, session_id, sort_sessions, AppSettings, Batch, ExperienceRecord, FileVersion, InjectFault,
    LedgerRecord, LockRecord, MetaRecord, NewExperience, RoleRecord, SessionData, SessionRecord, Store, StoreError,
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
const FILES: &str = "files";
const PROJECT_V1: &str = "project";
const COSTS_V2: &str = "costs";
const COST_CHUNKS: &str = "cost_chunks";
const LOCKS: &str = "locks";
const EXPERIENCES: &str = "experiences";
const SETTINGS: &str = "settings";

/// The stores holding a session's rows.
const SESSION_STORES: [&str; 9] = [SESSIONS, META, LEDGER, MESSAGE_CHUNKS, HISTORY, ROLES, FILES, COST_CHUNKS, LOCKS];

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
    _on_version_change: Closure<dyn FnMut(web_sys::Event)>,
}

impl IdbStore {
    /// Opens (creating or upgrading as needed) the database `name`.
    pub async fn open(name: &str) -> Result<IdbStore, StoreError> {
        let factory = Factory::new().map_err(|e| StoreError::Unavailable(format!("IndexedDB is missing: {e}")))?;
        let mut request = factory.open(name, Some(SCHEMA_VERSION)).map_err(|e| open_error(&e))?;

        let failure: Rc<RefCell<Option<StoreError>>> = Rc::default();
        let step_failure = failure.clone();
        request.on_upgrade_needed(move |event| {
            let old = event.old_version().unwrap_or(0);
            let target = event.target().ok().and_then(|r| r.transaction());
            match (event.database(), target) {
                (Ok(db), Some(tx)) => wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = upgrade(&db, &tx, old, SCHEMA_VERSION).await {
                        *step_failure.borrow_mut() = Some(e);
                        let _ = tx.abort();
                    }
                }),
                (_, tx) => {
                    // Never let an upgrade commit without its stores.
                    *step_failure.borrow_mut() = Some(StoreError::Other("the database upgrade could not start".into()));
                    if let Some(tx) = tx {
                        let _ = tx.abort();
                    }
                }
            }
        });
        let (blocked_tx, blocked_rx) = futures::channel::oneshot::channel::<()>();
        request.on_blocked(move |_| {
            let _ = blocked_tx.send(());
        });

        let opening = request.into_future();
        let opened = match select(opening, blocked_rx).await {
            Either::Left((opened, _)) => opened,
            Either::Right((Ok(()), opening)) => {
                // The other tab may close later; the connection this
                // request then opens is closed at once, so it blocks nobody.
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(db) = opening.await {
                        db.close();
                    }
                });
                return Err(StoreError::Blocked);
            }
            Either::Right((Err(_), opening)) => opening.await,
        };
        let db: IdbDatabase = match opened {
            Ok(db) => db.into(),
            Err(e) => {
                if let Some(step) = failure.borrow_mut().take() {
                    return Err(step);
                }
                return Err(match js_of(&e).map(|v| dom_name(&v)) {
                    Some(Some((error, _))) if error == "VersionError" => too_new(&factory, name).await,
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
        Ok(IdbStore { db, closed, fault: Cell::new(None), _on_version_change: on_version_change })
    }

    /// Opens the app's database.
    pub async fn open_default() -> Result<IdbStore, StoreError> {
        Self::open(DEFAULT_DB).await
    }

    /// Deletes the database `name` (tests; "forget everything" in the UI).
    /// It waits while another connection to it is open.
    pub async fn delete_database(name: &str) -> Result<(), StoreError> {
        let factory = Factory::new().map_err(|e| StoreError::Unavailable(format!("IndexedDB is missing: {e}")))?;
        factory.delete(name).map_err(|e| open_error(&e))?.await.map_err(|e| open_error(&e))
    }

    /// Closes the connection; further calls fail with `Unavailable`.
    pub fn close(&self) {
        self.closed.set(true);
        self.db.close();
    }

    fn begin(&self, stores: &[&str], mode: IdbTransactionMode) -> Result<(IdbTransaction, Transaction), StoreError> {
        if self.closed.get() {
            return Err(closed());
        }
        let names = Array::new();
        for s in stores {
            names.push(&JsValue::from_str(s));
        }
        let raw = self.db.transaction_with_str_sequence_and_mode(&names, mode).map_err(|e| self.js_error(&e))?;
        Ok((raw.clone(), Transaction::from(raw)))
    }

    fn read(&self, stores: &[&str]) -> Result<Transaction, StoreError> {
        self.begin(stores, IdbTransactionMode::Readonly).map(|(_, tx)| tx)
    }

    fn write(&self, stores: &[&str]) -> Result<(IdbTransaction, Transaction, Writes<'_>), StoreError> {
        let (raw, tx) = self.begin(stores, IdbTransactionMode::Readwrite)?;
        Ok((raw, tx, Writes { store: self, count: 0 }))
    }

    /// Ends a write transaction: aborts it when `result` is an error,
    /// else waits until it is durable and reports why it was not.
    async fn finish<T>(&self, raw: IdbTransaction, tx: Transaction, result: Result<T, StoreError>) -> Result<T, StoreError> {
        let value = match result {
            Ok(value) => value,
            Err(e) => {
                // It may have aborted already (a failed request does that,
                // failing the requests after it too): then its own error
                // says why.
                let cause = raw.error().map(|d| self.js_error(&d.into()));
                let _ = raw.abort();
                return Err(cause.unwrap_or(e));
            }
        };
        match tx.await {
            Ok(TransactionResult::Committed) => Ok(value),
            Ok(TransactionResult::Aborted) => Err(raw
                .error()
                .map(|e| self.js_error(&e.into()))
                .unwrap_or_else(|| StoreError::Other("the save was aborted".into()))),
            Err(e) => Err(raw.error().map(|d| self.js_error(&d.into())).unwrap_or_else(|| self.idb_error(&e))),
        }
    }

    fn js_error(&self, value: &JsValue) -> StoreError {
        match dom_name(value) {
            Some((name, _)) if name == "QuotaExceededError" => StoreError::QuotaExceeded,
            Some((name, _)) if self.closed.get() && (name == "InvalidStateError" || name == "TransactionInactiveError") => closed(),
            Some((name, message)) => StoreError::Other(format!("{name}: {message}")),
            None => StoreError::Other(describe(value)),
        }
    }

    fn idb_error(&self, e: &idb::Error) -> StoreError {
        match js_of(e) {
            Some(v) => self.js_error(&v),
            None => StoreError::Other(e.to_string()),
        }
    }

    async fn get_row<T: DeserializeOwned>(&self, store: &ObjectStore, key: JsValue) -> Result<Option<T>, StoreError> {
        let row = store.get(Query::Key(key)).map_err(|e| self.idb_error(&e))?.await.map_err(|e| self.idb_error(&e))?;
        row.map(|r| parse_row(&r)).transpose()
    }

    async fn get_setting<T: DeserializeOwned>(&self, store: &ObjectStore, key: &str) -> Result<Option<T>, StoreError> {
        let value = store.get(Query::Key(key.into())).map_err(|e| self.idb_error(&e))?.await.map_err(|e| self.idb_error(&e))?;
        match value {
            None => Ok(None),
            Some(v) => {
                let json = v.as_string().ok_or_else(|| StoreError::Corrupt(format!("the setting \"{key}\" is not text")))?;
                serde_json::from_str(&json).map(Some).map_err(|e| StoreError::corrupt("a saved setting", e))
            }
        }
    }

    async fn all_rows<T: DeserializeOwned>(&self, store: &ObjectStore, query: Option<Query>) -> Result<Vec<T>, StoreError> {
        let rows = store.get_all(query, None).map_err(|e| self.idb_error(&e))?.await.map_err(|e| self.idb_error(&e))?;
        // One JS string for the field name, not one per row (a session's
        // log is thousands of rows).
        let field = JsValue::from_str("json");
        rows.iter().map(|row| parse_field(row, &field)).collect()
    }

    async fn session_row(&self, tx: &Transaction, id: &str) -> Result<SessionRecord, StoreError> {
        let sessions = object_store(tx, SESSIONS)?;
        self.get_row(&sessions, id.into()).await?.ok_or_else(|| StoreError::NotFound(id.to_string()))
    }

    async fn lock_row(&self, tx: &Transaction, id: &str) -> Result<Option<LockRecord>, StoreError> {
        self.get_row(&object_store(tx, LOCKS)?, id.into()).await
    }

    async fn next(&self, tx: &Transaction, w: &mut Writes<'_>, counter: &str) -> Result<u64, StoreError> {
        let settings = object_store(tx, SETTINGS)?;
        let n = self.get_setting::<u64>(&settings, counter).await?.unwrap_or(0) + 1;
        w.put_setting(&settings, counter, &n)?;
        Ok(n)
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

    fn put(&mut self, store: &ObjectStore, row: &JsValue) -> Result<(), StoreError> {
        self.check()?;
        store.put(row, None).map_err(|e| self.store.idb_error(&e))?;
        Ok(())
    }

    fn put_setting<T: Serialize>(&mut self, store: &ObjectStore, key: &str, value: &T) -> Result<(), StoreError> {
        self.check()?;
        let json = to_json(value)?;
        store.put(&JsValue::from_str(&json), Some(&JsValue::from_str(key))).map_err(|e| self.store.idb_error(&e))?;
        Ok(())
    }

    fn put_chunks(&mut self, store: &ObjectStore, s: &str, chunks: Vec<chunks::Chunk>) -> Result<(), StoreError> {
        for chunk in &chunks {
            self.put(store, &chunks::chunk_row(s, chunk)?)?;
        }
        Ok(())
    }

    fn delete(&mut self, store: &ObjectStore, query: Query) -> Result<(), StoreError> {
        self.check()?;
        store.delete(query).map_err(|e| self.store.idb_error(&e))?;
        Ok(())
    }
}

fn object_store(tx: &Transaction, name: &str) -> Result<ObjectStore, StoreError> {
    tx.object_store(name).map_err(|e| StoreError::Corrupt(format!("the database has no \"{name}\" store: {e}")))
}

fn to_json<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Other(format!("a record could not be written: {e}")))
}

/// A row: the key fields, then the record as JSON.
fn row<T: Serialize>(keys: &[(&str, JsValue)], record: &T) -> Result<JsValue, StoreError> {
    let obj = Object::new();
    for (name, value) in keys {
        Reflect::set(&obj, &JsValue::from_str(name), value).map_err(|e| StoreError::Other(describe(&e)))?;
    }
    Reflect::set(&obj, &JsValue::from_str("json"), &JsValue::from_str(&to_json(record)?))
        .map_err(|e| StoreError::Other(describe(&e)))?;
    Ok(obj.into())
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
fn prefix_range(prefix: &[JsValue]) -> Result<Query, StoreError> {
    let mut upper: Vec<JsValue> = prefix.to_vec();
    upper.push(Array::new().into());
    KeyRange::bound(&key(prefix), &key(&upper), Some(false), Some(false))
        .map(Query::KeyRange)
        .map_err(|e| StoreError::Other(e.to_string()))
}

fn session_range(id: &str) -> Result<Query, StoreError> {
    prefix_range(&[id.into()])
}

fn role_row(s: &str, r: &RoleRecord) -> Result<JsValue, StoreError> {
    row(&[("s", s.into()), ("name", r.role.name.as_str().into())], r)
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

/// The DOMException (or error-carrying object) inside an `idb` error.
fn js_of(e: &idb::Error) -> Option<JsValue> {
    use idb::Error as E;
    match e {
        E::DomException(d) => Some(d.clone().into()),
        E::AddFailed(v)
        | E::ClearFailed(v)
        | E::CountFailed(v)
        | E::DeleteFailed(v)
        | E::GetAllFailed(v)
        | E::GetAllKeysFailed(v)
        | E::GetFailed(v)
        | E::GetKeyFailed(v)
        | E::IndexedDbDeleteFailed(v)
        | E::IndexedDbNotFound(v)
        | E::IndexedDbOpenFailed(v)
        | E::IndexNotFound(v)
        | E::IndexCreateFailed(v)
        | E::ObjectStoreCreateFailed(v)
        | E::ObjectStoreDeleteFailed(v)
        | E::ObjectStoreNotFound(v)
        | E::OpenCursorFailed(v)
        | E::RequestErrorNotFound(v)
        | E::RequestResultNotFound(v)
        | E::TransactionAbortError(v)
        | E::TransactionCommitError(v)
        | E::TransactionOpenFailed(v)
        | E::UpdateFailed(v)
        | E::UnexpectedJsType(_, v) => Some(v.clone()),
        _ => None,
    }
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
fn open_error(e: &idb::Error) -> StoreError {
    match js_of(e).and_then(|v| dom_name(&v)) {
        Some((name, _)) if name == "QuotaExceededError" => StoreError::QuotaExceeded,
        Some((name, message))
            if ["InvalidStateError", "SecurityError", "NotAllowedError", "UnknownError"].contains(&name.as_str()) =>
        {
            StoreError::Unavailable(format!("{name}: {message}"))
        }
        Some((name, message)) => StoreError::Other(format!("opening the database failed: {name}: {message}")),
        None => StoreError::Unavailable(e.to_string()),
    }
}

/// The database is at a newer version than this build knows: say which.
async fn too_new(factory: &Factory, name: &str) -> StoreError {
    // Opening without a version opens whatever is there, without upgrading.
    let found = match factory.open(name, None) {
        Ok(request) => match request.await {
            Ok(db) => {
                let version = db.version().unwrap_or(0);
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
async fn upgrade(db: &idb::Database, tx: &Transaction, old: u32, new: u32) -> Result<(), StoreError> {
    for version in old..new {
        match version {
            0 => create_v1(db)?,
            1 => files_per_version(db, tx).await?,
            2 => chunked_logs(db, tx).await?,
            _ => return Err(StoreError::Other(format!("no upgrade step from schema {version}"))),
        }
    }
    Ok(())
}

fn create_store(db: &idb::Database, name: &str, key_path: Option<KeyPath>) -> Result<ObjectStore, StoreError> {
    let mut params = ObjectStoreParams::new();
    params.key_path(key_path);
    db.create_object_store(name, params).map_err(|e| StoreError::Other(format!("creating \"{name}\": {e}")))
}

/// Schema v1.
fn create_v1(db: &idb::Database) -> Result<(), StoreError> {
    let single = |k: &str| Some(KeyPath::new_single(k));
    let array = |ks: &[&str]| Some(KeyPath::new_array(ks.iter().copied()));
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
        .create_index("role", KeyPath::new_single("role"), Some(IndexParams::new()))
        .map_err(|e| StoreError::Other(format!("creating the role index: {e}")))?;
    create_store(db, SETTINGS, None)?;
    Ok(())
}

/// v1 → v2: one `files` row per file version instead of one `project`
/// record per session.
async fn files_per_version(db: &idb::Database, tx: &Transaction) -> Result<(), StoreError> {
    let files = create_store(db, FILES, Some(KeyPath::new_array(["s", "p", "v"])))?;
    let project = object_store(tx, PROJECT_V1)?;
    let rows = project
        .get_all(None, None)
        .map_err(|e| StoreError::Other(e.to_string()))?
        .await
        .map_err(|e| StoreError::Other(e.to_string()))?;
    for r in rows {
        let s = Reflect::get(&r, &JsValue::from_str("s"))
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| StoreError::Corrupt("a v1 project record has no session id".into()))?;
        let project: ProjectFiles = parse_row(&r)?;
        for v in file_versions(&project) {
            files.put(&file_row(&s, &v)?, None).map_err(|e| StoreError::Other(e.to_string()))?;
        }
    }
    db.delete_object_store(PROJECT_V1).map_err(|e| StoreError::Other(format!("dropping the v1 project store: {e}")))
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
            let (raw, tx, mut w) = self.write(&stores)?;
            let result = async {
                let mut record = data.session.clone();
                record.id = session_id(self.next(&tx, &mut w, SESSION_COUNTER).await?);
                let s = record.id.as_str();
                w.put(&object_store(&tx, SESSIONS)?, &row(&[("id", s.into())], &record)?)?;
                if let Some(meta) = &data.meta {
                    w.put(&object_store(&tx, META)?, &session_keyed(s, &meta.head())?)?;
                    let ids = meta.history.iter().map(|id| id.0.to_string());
                    w.put_chunks(&object_store(&tx, HISTORY)?, s, chunks::append(None, ids))?;
                }
                if let Some(ledger) = &data.ledger {
                    w.put(&object_store(&tx, LEDGER)?, &session_keyed(s, ledger)?)?;
                }
                let roles = object_store(&tx, ROLES)?;
                for (i, role) in data.roles.iter().enumerate() {
                    let r = RoleRecord { index: u32::try_from(i).unwrap_or(u32::MAX), role: role.clone() };
                    w.put(&roles, &role_row(s, &r)?)?;
                }
                let messages = data.messages.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                w.put_chunks(&object_store(&tx, MESSAGE_CHUNKS)?, s, chunks::append(None, messages))?;
                let files = object_store(&tx, FILES)?;
                for f in &data.files {
                    w.put(&files, &file_row(s, f)?)?;
                }
                let costs = data.costs.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                w.put_chunks(&object_store(&tx, COST_CHUNKS)?, s, chunks::append(None, costs))?;
                Ok(record)
            }
            .await;
            self.finish(raw, tx, result).await
        })
    }

    fn rename_session<'a>(&'a self, id: &'a str, title: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (raw, tx, mut w) = self.write(&[SESSIONS])?;
            let result = async {
                let mut record = self.session_row(&tx, id).await?;
                record.title = title.to_string();
                record.updated_ms = now_ms;
                w.put(&object_store(&tx, SESSIONS)?, &row(&[("id", id.into())], &record)?)
            }
            .await;
            self.finish(raw, tx, result).await
        })
    }

    fn delete_session<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (raw, tx, mut w) = self.write(&SESSION_STORES)?;
            let result = async {
                self.session_row(&tx, id).await?;
                if let Some(lock) = self.lock_row(&tx, id).await? {
                    if lock.expires_ms > now_ms {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
                for name in [MESSAGE_CHUNKS, HISTORY, ROLES, FILES, COST_CHUNKS] {
                    w.delete(&object_store(&tx, name)?, session_range(id)?)?;
                }
                for name in [META, LEDGER, LOCKS, SESSIONS] {
                    w.delete(&object_store(&tx, name)?, Query::Key(id.into()))?;
                }
                Ok(())
            }
            .await;
            self.finish(raw, tx, result).await
        })
    }

    fn load_session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionData> {
        Box::pin(async move {
            let tx = self.read(&[SESSIONS, META, LEDGER, ROLES, MESSAGE_CHUNKS, HISTORY, FILES, COST_CHUNKS])?;
            let store = |name| object_store(&tx, name);
            let (meta, ledger, roles, messages, history, files, costs) = (
                store(META)?,
                store(LEDGER)?,
                store(ROLES)?,
                store(MESSAGE_CHUNKS)?,
                store(HISTORY)?,
                store(FILES)?,
                store(COST_CHUNKS)?,
            );
            let range = || session_range(id);
            let ranges = (range()?, range()?);
            // Every read is issued before any is awaited: IndexedDB answers
            // them in order, and the round trips overlap instead of adding up.
            let (session, meta, ledger, roles, messages, history, files, costs) = futures::join!(
                self.session_row(&tx, id),
                self.get_row::<MetaHead>(&meta, id.into()),
                self.get_row::<LedgerRecord>(&ledger, id.into()),
                self.all_rows::<RoleRecord>(&roles, Some(ranges.0)),
                self.log::<Message>(&messages, id),
                self.log::<u64>(&history, id),
                self.all_rows::<FileVersion>(&files, Some(ranges.1)),
                self.log::<CostEntry>(&costs, id),
            );
            let (session, meta, ledger, mut roles, mut messages, history, files, costs) =
                (session?, meta?, ledger?, roles?, messages?, history?, files?, costs?);
            roles.sort_by_key(|r| r.index);
            // The log is appended in commit order; a message is kept once.
            messages.sort_by_key(|m| m.id);
            messages.dedup_by_key(|m| m.id);
            let meta = meta.map(|head| MetaRecord::from_head(head, history.into_iter().map(MessageId).collect()));
            Ok(SessionData { session, meta, ledger, roles: roles.into_iter().map(|r| r.role).collect(), messages, files, costs })
        })
    }

    fn commit<'a>(&'a self, id: &'a str, batch: Batch) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut stores = vec![SESSIONS];
            let touched = [
                (LOCKS, batch.holder.is_some()),
                (META, batch.meta.is_some()),
                (HISTORY, batch.history.is_some()),
                (LEDGER, batch.ledger.is_some()),
                (MESSAGE_CHUNKS, !batch.messages.is_empty()),
                (ROLES, !batch.roles.is_empty() || !batch.roles_removed.is_empty()),
                (FILES, !batch.files.is_empty() || !batch.files_removed.is_empty()),
                (COST_CHUNKS, !batch.costs.is_empty() || batch.costs_replaced),
            ];
            stores.extend(touched.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
            let (raw, tx, mut w) = self.write(&stores)?;
            let result = async {
                // The reads a commit needs, issued together: the session,
                // the lease, and the last chunk of each log it appends to.
                let tail_of = |name: &'static str, wanted: bool| {
                    let store = wanted.then(|| object_store(&tx, name)).transpose();
                    async move {
                        match store? {
                            Some(store) => Ok::<_, StoreError>(Some((self.tail(&store, id).await?, store))),
                            None => Ok(None),
                        }
                    }
                };
                let lock = async {
                    match &batch.holder {
                        Some(_) => self.lock_row(&tx, id).await,
                        None => Ok(None),
                    }
                };
                let (record, lock, messages, history, costs) = futures::join!(
                    self.session_row(&tx, id),
                    lock,
                    tail_of(MESSAGE_CHUNKS, !batch.messages.is_empty()),
                    tail_of(HISTORY, batch.history.is_some()),
                    tail_of(COST_CHUNKS, !batch.costs.is_empty() && !batch.costs_replaced),
                );
                let mut record = record?;
                if let (Some(holder), Some(lock)) = (&batch.holder, lock?) {
                    if lock.excludes(holder, batch.now_ms) {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
                // First: the one write that may need to read more.
                if let (Some(edit), Some((tail, store))) = (&batch.history, history?) {
                    let ids = |ids: &[MessageId]| ids.iter().map(|id| id.0.to_string()).collect::<Vec<_>>();
                    if tail.as_ref().map_or(0, chunks::Tail::end) == edit.keep as u64 {
                        w.put_chunks(&store, id, chunks::append(tail, ids(&edit.append)))?;
                    } else {
                        // Not an append (a replaced history): rewritten whole.
                        let mut all: Vec<MessageId> = self.log::<u64>(&store, id).await?.into_iter().map(MessageId).collect();
                        edit.apply(&mut all);
                        w.delete(&store, session_range(id)?)?;
                        w.put_chunks(&store, id, chunks::append(None, ids(&all)))?;
                    }
                }
                if !batch.roles_removed.is_empty() {
                    let roles = object_store(&tx, ROLES)?;
                    for name in &batch.roles_removed {
                        w.delete(&roles, Query::Key(key(&[id.into(), name.as_str().into()])))?;
                    }
                }
                if !batch.files_removed.is_empty() {
                    let files = object_store(&tx, FILES)?;
                    for path in &batch.files_removed {
                        w.delete(&files, prefix_range(&[id.into(), path.as_str().into()])?)?;
                    }
                }
                if let Some(meta) = &batch.meta {
                    w.put(&object_store(&tx, META)?, &session_keyed(id, meta)?)?;
                }
                if let Some(ledger) = &batch.ledger {
                    w.put(&object_store(&tx, LEDGER)?, &session_keyed(id, ledger)?)?;
                }
                if let Some((tail, store)) = messages? {
                    let items = batch.messages.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                    w.put_chunks(&store, id, chunks::append(tail, items))?;
                }
                if batch.costs_replaced || !batch.costs.is_empty() {
                    let store = object_store(&tx, COST_CHUNKS)?;
                    let items = batch.costs.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
                    let tail = match costs? {
                        Some((tail, _)) => tail,
                        None => {
                            w.delete(&store, session_range(id)?)?;
                            None
                        }
                    };
                    w.put_chunks(&store, id, chunks::append(tail, items))?;
                }
                if !batch.roles.is_empty() {
                    let roles = object_store(&tx, ROLES)?;
                    for r in &batch.roles {
                        w.put(&roles, &role_row(id, r)?)?;
                    }
                }
                if !batch.files.is_empty() {
                    let files = object_store(&tx, FILES)?;
                    for f in &batch.files {
                        w.put(&files, &file_row(id, f)?)?;
                    }
                }
                record.updated_ms = batch.now_ms;
                if let Some(status) = batch.status {
                    record.status = status;
                }
                if let Some(settings) = &batch.settings {
                    record.settings = settings.clone();
                }
                w.put(&object_store(&tx, SESSIONS)?, &row(&[("id", id.into())], &record)?)
            }
            .await;
            self.finish(raw, tx, result).await
        })
    }

    fn acquire_lock<'a>(&'a self, id: &'a str, holder: &'a str, now_ms: u64, ttl_ms: u64) -> StoreFuture<'a, LockRecord> {
        Box::pin(async move {
            let (raw, tx, mut w) = self.write(&[SESSIONS, LOCKS])?;
            let result = async {
                self.session_row(&tx, id).await?;
                if let Some(lock) = self.lock_row(&tx, id).await? {
                    if lock.excludes(holder, now_ms) {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
                let lock = LockRecord { holder: holder.to_string(), expires_ms: now_ms.saturating_add(ttl_ms) };
                w.put(&object_store(&tx, LOCKS)?, &session_keyed(id, &lock)?)?;
                Ok(lock)
            }
            .await;
            self.finish(raw, tx, result).await
        })
    }

    fn release_lock<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (raw, tx, mut w) = self.write(&[LOCKS])?;
            let result = async {
                match self.lock_row(&tx, id).await? {
                    Some(lock) if lock.holder == holder => w.delete(&object_store(&tx, LOCKS)?, Query::Key(id.into())),
                    _ => Ok(()),
                }
            }
            .await;
            self.finish(raw, tx, result).await
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
            let (raw, tx, mut w) = self.write(&[SETTINGS])?;
            let result = (|| {
                let store = object_store(&tx, SETTINGS)?;
                if !settings.remember_key {
                    w.delete(&store, Query::Key(REMEMBERED_KEY.into()))?;
                }
                w.put_setting(&store, APP_SETTINGS, &settings)
            })();
            self.finish(raw, tx, result).await
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
            let (raw, tx, mut w) = self.write(&[SETTINGS])?;
            let result = async {
                let store = object_store(&tx, SETTINGS)?;
                match api_key {
                    None => w.delete(&store, Query::Key(REMEMBERED_KEY.into())),
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
            self.finish(raw, tx, result).await
        })
    }

    fn add_experience(&self, new: NewExperience) -> StoreFuture<'_, ExperienceRecord> {
        Box::pin(async move {
            let (raw, tx, mut w) = self.write(&[EXPERIENCES, SETTINGS])?;
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
            self.finish(raw, tx, result).await
        })
    }

    fn list_experiences<'a>(&'a self, role: Option<&'a str>) -> StoreFuture<'a, Vec<ExperienceRecord>> {
        Box::pin(async move {
            let tx = self.read(&[EXPERIENCES])?;
            let store = object_store(&tx, EXPERIENCES)?;
            let Some(role) = role else {
                return self.all_rows(&store, None).await;
            };
            let index = store.index("role").map_err(|e| StoreError::Corrupt(format!("the role index is missing: {e}")))?;
            let rows = index
                .get_all(Some(Query::Key(role.into())), None)
                .map_err(|e| self.idb_error(&e))?
                .await
                .map_err(|e| self.idb_error(&e))?;
            rows.iter().map(parse_row).collect()
        })
    }
}

/// v2 → v3: the message log and the cost entries in chunks instead of one
/// row per entry; the history out of the meta record into chunks of ids.
/// The entries' JSON is carried over as it is, never re-encoded.
async fn chunked_logs(db: &idb::Database, tx: &Transaction) -> Result<(), StoreError> {
    let chunked = || Some(KeyPath::new_array(["s", "c"]));
    let message_chunks = create_store(db, MESSAGE_CHUNKS, chunked())?;
    let cost_chunks = create_store(db, COST_CHUNKS, chunked())?;
    let history = create_store(db, HISTORY, chunked())?;
    let failed = |e: idb::Error| StoreError::Other(format!("upgrading to schema 3: {e}"));
    let put = |store: &ObjectStore, s: &str, chunks: Vec<chunks::Chunk>| -> Result<(), StoreError> {
        for chunk in &chunks {
            store.put(&chunks::chunk_row(s, chunk)?, None).map_err(failed)?;
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
        let rows = object_store(tx, old)?.get_all(None, None).map_err(failed)?.await.map_err(failed)?;
        let mut current: Option<(String, Vec<String>)> = None;
        for row in &rows {
            let (s, json) = (text(row, "s")?, text(row, "json")?);
            match &mut current {
                Some((cur, items)) if *cur == s => items.push(json),
                _ => {
                    if let Some((cur, items)) = current.take() {
                        put(new, &cur, chunks::append(None, items))?;
                    }
                    current = Some((s, vec![json]));
                }
            }
        }
        if let Some((cur, items)) = current {
            put(new, &cur, chunks::append(None, items))?;
        }
        db.delete_object_store(old).map_err(|e| StoreError::Other(format!("dropping the v2 \"{old}\" store: {e}")))?;
    }
    let meta = object_store(tx, META)?;
    let rows = meta.get_all(None, None).map_err(failed)?.await.map_err(failed)?;
    for row in &rows {
        let s = text(row, "s")?;
        let record: MetaRecord = parse_row(row)?;
        put(&history, &s, chunks::append(None, record.history.iter().map(|id| id.0.to_string())))?;
        meta.put(&session_keyed(&s, &record.head())?, None).map_err(failed)?;
    }
    Ok(())
}
