//! `impl Store for IdbStore`: each method one IndexedDB transaction over
//! the stores it needs (`schema.rs`), made with `transaction.rs` and ended
//! by `finish` (committed, or aborted with nothing half-written). A commit
//! is the commit protocol's (`commit.rs`); the rules it keeps (what a
//! lease allows, how sessions sort) are the core's, shared with
//! `MemoryStore` and checked by the same contract tests.

use wasm_bindgen::JsValue;
use web_sys::IdbTransaction;

use super::commit::{Committed, Known};
use super::rows::{file_row, json_of, object_store, parse_row, session_keyed, session_range, session_value, stamp_of, to_json};
use super::schema::{CLAIMS, COST_CHUNKS, FILES, HISTORY, LOCKS, MESSAGE_CHUNKS, ROLE_LISTS, SESSIONS, SESSION_COUNTER, SESSION_STORES, SETTINGS, TAILS};
use super::tail;
use super::transaction::Writes;
use super::IdbStore;
use crate::core::cost::CostEntry;
use crate::core::message::{Message, MessageId};
use crate::core::store::{
    session_id, sort_sessions, Batch, FileVersion, LockRecord, MetaRecord, SessionData, SessionRecord, Store, StoreError,
    StoreFuture,
};

impl IdbStore {
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

    async fn lock_row(&self, tx: &IdbTransaction, id: &str) -> Result<Option<LockRecord>, StoreError> {
        self.get_row(&object_store(tx, LOCKS)?, &JsValue::from_str(id)).await
    }

    /// The settings counter `counter`'s next number (1 the first time).
    async fn next(&self, tx: &IdbTransaction, w: &mut Writes<'_>, counter: &str) -> Result<u64, StoreError> {
        let settings = object_store(tx, SETTINGS)?;
        let n = self.get_setting::<u64>(&settings, counter).await?.unwrap_or(0) + 1;
        w.put_setting(&settings, counter, &n)?;
        Ok(n)
    }
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
            // The log is appended in commit order; a message is kept once
            // (its copies are the same message: the log is never rewritten,
            // so which copy stays does not matter and the sort need not be
            // stable).
            messages.sort_unstable_by_key(|m| m.id);
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
}
