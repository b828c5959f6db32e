//! `MemoryStore`: the store in memory, for native tests and as the
//! fallback when the browser has no IndexedDB (nothing survives a reload
//! then, and the UI says so).
//!
//! It is laid out like the IndexedDB store on purpose: rows of JSON under
//! ordered keys whose first part is the session id, written in
//! transactions that roll back on any error, so the two pass the same
//! contract tests. Clones share one database, like two connections.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::batch::Batch;
use super::data::SessionData;
use super::record::{
    session_id, sort_sessions, LedgerRecord, LockRecord, MetaHead, MetaRecord, RoleRecord, SessionRecord,
};
use super::{InjectFault, Store, StoreError, StoreFuture};
use crate::core::cost::CostEntry;
use crate::core::message::{Message, MessageId};

/// The in-memory store. `Default` is an empty database; clones share it.
#[derive(Clone, Default)]
pub struct MemoryStore {
    db: Rc<RefCell<Db>>,
}

#[derive(Default)]
struct Db {
    rows: BTreeMap<Key, String>,
    /// Fail the write after this many in a transaction (test hook).
    fail_after: Option<usize>,
}

/// The object stores, as in IndexedDB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Sessions,
    Meta,
    /// A session's history (ids), one row.
    History,
    Ledger,
    Messages,
    Roles,
    Files,
    Costs,
    Locks,
    /// The id counter.
    Settings,
}

/// The tables whose rows belong to one session (key starts with its id).
const SESSION_TABLES: [Table; 9] =
    [Table::Meta, Table::History, Table::Ledger, Table::Messages, Table::Roles, Table::Files, Table::Costs, Table::Locks, Table::Sessions];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Num(u64),
    Str(String),
}

type Key = (Table, Vec<Part>);

fn key(table: Table, parts: impl IntoIterator<Item = Part>) -> Key {
    (table, parts.into_iter().collect())
}

fn s(text: &str) -> Part {
    Part::Str(text.to_string())
}

const SESSION_COUNTER: &str = "session_counter";

/// A write transaction: every change is undone if the closure fails.
struct Txn<'a> {
    db: &'a mut Db,
    undo: Vec<(Key, Option<String>)>,
    writes: usize,
}

impl Txn<'_> {
    fn get<T: DeserializeOwned>(&self, key: &Key) -> Result<Option<T>, StoreError> {
        self.db.rows.get(key).map(|json| parse(json)).transpose()
    }

    /// Every row of `table` whose key starts with `prefix`, in key order.
    fn scan<T: DeserializeOwned>(&self, table: Table, prefix: &[Part]) -> Result<Vec<T>, StoreError> {
        self.keys(table, prefix).iter().filter_map(|k| self.db.rows.get(k)).map(|json| parse(json)).collect()
    }

    fn keys(&self, table: Table, prefix: &[Part]) -> Vec<Key> {
        self.db
            .rows
            .range((table, prefix.to_vec())..)
            .map(|(k, _)| k)
            .take_while(|(t, parts)| *t == table && parts.starts_with(prefix))
            .cloned()
            .collect()
    }

    fn count(&mut self) -> Result<(), StoreError> {
        if self.db.fail_after == Some(self.writes) {
            self.db.fail_after = None;
            return Err(StoreError::QuotaExceeded);
        }
        self.writes += 1;
        Ok(())
    }

    fn put<T: Serialize>(&mut self, key: Key, value: &T) -> Result<(), StoreError> {
        self.count()?;
        let json = serde_json::to_string(value).map_err(|e| StoreError::Other(format!("a record could not be written: {e}")))?;
        let old = self.db.rows.insert(key.clone(), json);
        self.undo.push((key, old));
        Ok(())
    }

    fn delete(&mut self, key: &Key) -> Result<(), StoreError> {
        self.count()?;
        if let Some(old) = self.db.rows.remove(key) {
            self.undo.push((key.clone(), Some(old)));
        }
        Ok(())
    }

    fn delete_prefix(&mut self, table: Table, prefix: &[Part]) -> Result<(), StoreError> {
        self.count()?;
        for k in self.keys(table, prefix) {
            if let Some(old) = self.db.rows.remove(&k) {
                self.undo.push((k, Some(old)));
            }
        }
        Ok(())
    }

    fn rollback(self) {
        for (k, old) in self.undo.into_iter().rev() {
            match old {
                Some(v) => self.db.rows.insert(k, v),
                None => self.db.rows.remove(&k),
            };
        }
    }

    fn session(&self, id: &str) -> Result<SessionRecord, StoreError> {
        self.get(&key(Table::Sessions, [s(id)]))?.ok_or_else(|| StoreError::NotFound(id.to_string()))
    }

    fn next(&mut self, counter: &str) -> Result<u64, StoreError> {
        let k = key(Table::Settings, [s(counter)]);
        let n = self.get::<u64>(&k)?.unwrap_or(0) + 1;
        self.put(k, &n)?;
        Ok(n)
    }
}

fn parse<T: DeserializeOwned>(json: &str) -> Result<T, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::corrupt("a saved record", e))
}

impl MemoryStore {
    /// Runs `f` as one transaction: on error nothing it wrote remains.
    fn transact<T>(&self, f: impl FnOnce(&mut Txn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut db = self.db.borrow_mut();
        let mut txn = Txn { db: &mut db, undo: Vec::new(), writes: 0 };
        match f(&mut txn) {
            Ok(v) => Ok(v),
            Err(e) => {
                txn.rollback();
                Err(e)
            }
        }
    }

    fn ready<'a, T: 'a>(&self, f: impl FnOnce(&mut Txn) -> Result<T, StoreError>) -> StoreFuture<'a, T> {
        Box::pin(std::future::ready(self.transact(f)))
    }
}

impl InjectFault for MemoryStore {
    fn fail_after_writes(&self, writes: usize) {
        self.db.borrow_mut().fail_after = Some(writes);
    }
}

fn write_session_rows(t: &mut Txn, id: &str, data: &SessionData) -> Result<(), StoreError> {
    if let Some(meta) = &data.meta {
        t.put(key(Table::Meta, [s(id)]), &meta.head())?;
        t.put(key(Table::History, [s(id)]), &meta.history)?;
    }
    if let Some(ledger) = &data.ledger {
        t.put(key(Table::Ledger, [s(id)]), ledger)?;
    }
    for (i, role) in data.roles.iter().enumerate() {
        let record = RoleRecord { index: u32::try_from(i).unwrap_or(u32::MAX), role: role.clone() };
        t.put(key(Table::Roles, [s(id), s(&role.name)]), &record)?;
    }
    for m in &data.messages {
        t.put(key(Table::Messages, [s(id), Part::Num(m.id.0)]), m)?;
    }
    for f in &data.files {
        t.put(key(Table::Files, [s(id), s(&f.path), Part::Num(u64::from(f.version))]), f)?;
    }
    for c in &data.costs {
        t.put(key(Table::Costs, [s(id), Part::Num(c.seq)]), c)?;
    }
    Ok(())
}

impl Store for MemoryStore {
    fn list_sessions(&self) -> StoreFuture<'_, Vec<SessionRecord>> {
        self.ready(|t| {
            let mut all: Vec<SessionRecord> = t.scan(Table::Sessions, &[])?;
            sort_sessions(&mut all);
            Ok(all)
        })
    }

    fn session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionRecord> {
        self.ready(|t| t.session(id))
    }

    fn insert_session(&self, data: SessionData) -> StoreFuture<'_, SessionRecord> {
        self.ready(move |t| {
            let mut record = data.session.clone();
            record.id = session_id(t.next(SESSION_COUNTER)?);
            t.put(key(Table::Sessions, [s(&record.id)]), &record)?;
            write_session_rows(t, &record.id, &data)?;
            Ok(record)
        })
    }

    fn rename_session<'a>(&'a self, id: &'a str, title: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        self.ready(move |t| {
            let mut record = t.session(id)?;
            record.title = title.to_string();
            record.updated_ms = now_ms;
            t.put(key(Table::Sessions, [s(id)]), &record)
        })
    }

    fn delete_session<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, ()> {
        self.ready(move |t| {
            t.session(id)?;
            if let Some(lock) = t.get::<LockRecord>(&key(Table::Locks, [s(id)]))? {
                if lock.expires_ms > now_ms {
                    return Err(StoreError::Locked { by: lock.holder });
                }
            }
            for table in SESSION_TABLES {
                t.delete_prefix(table, &[s(id)])?;
            }
            Ok(())
        })
    }

    fn load_session<'a>(&'a self, id: &'a str) -> StoreFuture<'a, SessionData> {
        self.ready(move |t| {
            let session = t.session(id)?;
            let mut roles: Vec<RoleRecord> = t.scan(Table::Roles, &[s(id)])?;
            roles.sort_unstable_by_key(|r| r.index);
            Ok(SessionData {
                session,
                meta: match t.get::<MetaHead>(&key(Table::Meta, [s(id)]))? {
                    Some(head) => {
                        let history = t.get::<Vec<MessageId>>(&key(Table::History, [s(id)]))?.unwrap_or_default();
                        Some(MetaRecord::from_head(head, history))
                    }
                    None => None,
                },
                ledger: t.get::<LedgerRecord>(&key(Table::Ledger, [s(id)]))?,
                roles: roles.into_iter().map(|r| r.role).collect(),
                messages: t.scan::<Message>(Table::Messages, &[s(id)])?,
                files: t.scan(Table::Files, &[s(id)])?,
                costs: t.scan::<CostEntry>(Table::Costs, &[s(id)])?,
            })
        })
    }

    fn commit<'a>(&'a self, id: &'a str, batch: Batch) -> StoreFuture<'a, ()> {
        self.ready(move |t| {
            let mut record = t.session(id)?;
            if let Some(holder) = &batch.holder {
                if let Some(lock) = t.get::<LockRecord>(&key(Table::Locks, [s(id)]))? {
                    if lock.excludes(holder, batch.now_ms) {
                        return Err(StoreError::Locked { by: lock.holder });
                    }
                }
            }
            for name in &batch.roles_removed {
                t.delete(&key(Table::Roles, [s(id), s(name)]))?;
            }
            for path in &batch.files_removed {
                t.delete_prefix(Table::Files, &[s(id), s(path)])?;
            }
            if batch.costs_replaced {
                t.delete_prefix(Table::Costs, &[s(id)])?;
            }
            if let Some(meta) = &batch.meta {
                t.put(key(Table::Meta, [s(id)]), meta)?;
            }
            if let Some(edit) = &batch.history {
                let k = key(Table::History, [s(id)]);
                let mut history = t.get::<Vec<MessageId>>(&k)?.unwrap_or_default();
                edit.apply(&mut history);
                t.put(k, &history)?;
            }
            if let Some(ledger) = &batch.ledger {
                t.put(key(Table::Ledger, [s(id)]), ledger)?;
            }
            for m in &batch.messages {
                t.put(key(Table::Messages, [s(id), Part::Num(m.id.0)]), m)?;
            }
            for edit in &batch.roles {
                let k = key(Table::Roles, [s(id), s(&edit.name)]);
                let saved = t.get::<RoleRecord>(&k)?.map(|r| r.role);
                let role = edit.applied(saved).ok_or_else(|| StoreError::role_not_saved(&edit.name))?;
                t.put(k, &RoleRecord { index: edit.index, role })?;
            }
            for f in &batch.files {
                t.put(key(Table::Files, [s(id), s(&f.path), Part::Num(u64::from(f.version))]), f)?;
            }
            for c in &batch.costs {
                t.put(key(Table::Costs, [s(id), Part::Num(c.seq)]), c)?;
            }
            record.updated_ms = batch.now_ms;
            if let Some(status) = batch.status {
                record.status = status;
            }
            if let Some(settings) = &batch.settings {
                record.settings = settings.clone();
            }
            t.put(key(Table::Sessions, [s(id)]), &record)
        })
    }

    fn acquire_lock<'a>(&'a self, id: &'a str, holder: &'a str, now_ms: u64, ttl_ms: u64) -> StoreFuture<'a, LockRecord> {
        self.ready(move |t| {
            t.session(id)?;
            let k = key(Table::Locks, [s(id)]);
            if let Some(lock) = t.get::<LockRecord>(&k)? {
                if lock.excludes(holder, now_ms) {
                    return Err(StoreError::Locked { by: lock.holder });
                }
            }
            let lock = LockRecord { holder: holder.to_string(), expires_ms: now_ms.saturating_add(ttl_ms) };
            t.put(k, &lock)?;
            Ok(lock)
        })
    }

    fn release_lock<'a>(&'a self, id: &'a str, holder: &'a str) -> StoreFuture<'a, ()> {
        self.ready(move |t| {
            let k = key(Table::Locks, [s(id)]);
            match t.get::<LockRecord>(&k)? {
                Some(lock) if lock.holder == holder => t.delete(&k),
                _ => Ok(()),
            }
        })
    }
}
