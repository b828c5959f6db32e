//! The upgrades, one step per schema version, run inside the upgrade
//! transaction: a failing step aborts the upgrade and the old data stays
//! as it was.
//!
//! - 0 → 1 creates v1;
//! - 1 → 2 splits each session's `project` record into one `files` row
//!   per version and drops `project`;
//! - 2 → 3 moves `messages` and `costs` into chunks and the meta's history
//!   into `history`, then drops the old stores;
//! - 3 → 4 moves each session's meta, ledger and roles into its tail row
//!   and the roles' lists into `role_lists`, then drops `meta`, `ledger`
//!   and `roles`;
//! - 4 → 5 creates `claims` (v4's text write stamps read as a count of 0);
//! - 5 → 6 drops `experiences` and the settings rows nothing read (the
//!   app's settings, a remembered key, the experiences' counter); the
//!   sessions and their id counter stay.
//!
//! There are no downgrades: a database newer than this build is refused
//! (`StoreError::TooNew`, in `errors.rs`).

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbCursorDirection, IdbCursorWithValue, IdbDatabase, IdbObjectStore, IdbObjectStoreParameters, IdbRequest, IdbTransaction};

use super::errors::describe;
use super::idb;
use super::rows::{file_row, found, object_store, parse_row, rows, session_keyed, session_range};
use super::schema::{
    CLAIMS, COSTS_V2, COST_CHUNKS, DROPPED_SETTINGS_V6, EXPERIENCES, FILES, HISTORY, LEDGER, LOCKS, MESSAGES_V2, MESSAGE_CHUNKS,
    META, PROJECT_V1, ROLES, ROLE_LISTS, SESSIONS, SETTINGS, TAILS,
};
use super::{chunks, tail};
use crate::core::files::ProjectFiles;
use crate::core::store::{file_versions, Batch, MetaRecord, RoleEdit, RoleRecord, StoreError};

/// Runs the upgrade steps from `old` to `new`, one version at a time.
pub(super) async fn upgrade(db: &IdbDatabase, tx: &IdbTransaction, old: u32, new: u32) -> Result<(), StoreError> {
    for version in old..new {
        match version {
            0 => create_v1(db)?,
            1 => files_per_version(db, tx).await?,
            2 => chunked_logs(db, tx).await?,
            3 => tails_from_v3(db, tx).await?,
            4 => drop(create_store(db, CLAIMS, None)?),
            5 => unused_app_records(db, tx)?,
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

/// v5 → v6: the app-wide records nothing read go: the `experiences` store
/// and the settings rows of the app's settings, a remembered key (the
/// page keeps the one it remembers in `localStorage`; a copy here was a
/// secret nothing would ever use or forget) and the experiences' counter.
fn unused_app_records(db: &IdbDatabase, tx: &IdbTransaction) -> Result<(), StoreError> {
    db.delete_object_store(EXPERIENCES)
        .map_err(|e| StoreError::Other(format!("dropping the v5 \"{EXPERIENCES}\" store: {}", describe(&e))))?;
    let settings = object_store(tx, SETTINGS)?;
    for key in DROPPED_SETTINGS_V6 {
        settings.delete(&JsValue::from_str(key)).map_err(|e| StoreError::Other(format!("upgrading to schema 6: {}", describe(&e))))?;
    }
    Ok(())
}
