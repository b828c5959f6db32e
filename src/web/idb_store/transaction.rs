//! One IndexedDB transaction of the store: beginning it (write
//! transactions with relaxed durability), its reads, its writes
//! (`Writes`: issued without waiting, counted for the fault hook) and its
//! end (`finish`: commit or abort, and why). What a transaction writes,
//! and in which stores, is decided by its caller (`store.rs`, `commit.rs`).

use js_sys::Array;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;
use web_sys::{DomException, IdbObjectStore, IdbRequest, IdbTransaction};

use super::errors::closed;
use super::idb::{self, Pending};
use super::rows::{found, key, num, object_store, parse_field, parse_row, rows, to_json};
use super::{tail, IdbStore};
use crate::core::store::StoreError;

impl IdbStore {
    /// A transaction over `stores`, refused once the connection is closed.
    fn begin(&self, stores: &[&str], write: bool) -> Result<IdbTransaction, StoreError> {
        if self.closed.get() {
            return Err(closed());
        }
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        if write {
            idb::write_transaction(&self.db, &names, &self.relaxed)
        } else {
            self.db.transaction_with_str_sequence(&names)
        }
        .map_err(|e| self.js_error(&e))
    }

    pub(super) fn read(&self, stores: &[&str]) -> Result<IdbTransaction, StoreError> {
        self.begin(stores, false)
    }

    /// A write transaction, the future of its end, and its writes.
    pub(super) fn write(&self, stores: &[&str]) -> Result<(IdbTransaction, Pending, Writes<'_>), StoreError> {
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
    pub(super) async fn finish<T>(&self, tx: IdbTransaction, end: Pending, result: Result<T, StoreError>) -> Result<T, StoreError> {
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
        let _ = idb::commit(&tx);
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
    pub(super) fn issue(&self, made: Result<IdbRequest, JsValue>) -> Result<Pending, StoreError> {
        idb::issued(made).map_err(|e| self.js_error(&e))
    }

    /// The outcome of a request issued earlier.
    pub(super) async fn outcome(&self, pending: Pending) -> Result<JsValue, StoreError> {
        pending.await.map_err(|e| self.js_error(&e))
    }

    /// A request made and its outcome.
    pub(super) async fn ask(&self, made: Result<IdbRequest, JsValue>) -> Result<JsValue, StoreError> {
        self.outcome(self.issue(made)?).await
    }

    /// The row under `key` in `store`, if there is one.
    pub(super) async fn get(&self, store: &IdbObjectStore, key: &JsValue) -> Result<Option<JsValue>, StoreError> {
        Ok(found(self.ask(store.get(key)).await?))
    }

    /// Every row of `store` in `query` (a key range; `None`: all).
    pub(super) async fn get_all(&self, store: &IdbObjectStore, query: Option<&JsValue>) -> Result<Vec<JsValue>, StoreError> {
        let made = match query {
            Some(q) => store.get_all_with_key(q),
            None => store.get_all(),
        };
        Ok(rows(self.ask(made).await?))
    }

    pub(super) async fn get_row<T: DeserializeOwned>(&self, store: &IdbObjectStore, key: &JsValue) -> Result<Option<T>, StoreError> {
        self.get(store, key).await?.map(|r| parse_row(&r)).transpose()
    }

    pub(super) async fn get_setting<T: DeserializeOwned>(&self, store: &IdbObjectStore, key: &str) -> Result<Option<T>, StoreError> {
        match self.get(store, &JsValue::from_str(key)).await? {
            None => Ok(None),
            Some(v) => {
                let json = v.as_string().ok_or_else(|| StoreError::Corrupt(format!("the setting \"{key}\" is not text")))?;
                serde_json::from_str(&json).map(Some).map_err(|e| StoreError::corrupt("a saved setting", e))
            }
        }
    }

    pub(super) async fn all_rows<T: DeserializeOwned>(&self, store: &IdbObjectStore, query: Option<&JsValue>) -> Result<Vec<T>, StoreError> {
        let rows = self.get_all(store, query).await?;
        // One JS string for the field name, not one per row (a session's
        // log is thousands of rows).
        let field = JsValue::from_str("json");
        rows.iter().map(|row| parse_field(row, &field)).collect()
    }
}

/// The writes of one transaction: issued without waiting (the transaction
/// orders them and commits them together), counted for the fault hook.
pub(super) struct Writes<'a> {
    store: &'a IdbStore,
    pub(super) count: usize,
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

    pub(super) fn put(&mut self, store: &IdbObjectStore, row: &JsValue) -> Result<(), StoreError> {
        self.check()?;
        store.put(row).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    pub(super) fn put_setting<T: Serialize>(&mut self, store: &IdbObjectStore, key: &str, value: &T) -> Result<(), StoreError> {
        self.check()?;
        let json = to_json(value)?;
        store.put_with_key(&JsValue::from_str(&json), &JsValue::from_str(key)).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// Claim `n` of session `s`: added (failing, and so aborting the
    /// transaction, when another connection made it first) when `only_new`,
    /// else put (the count was read in this transaction).
    pub(super) fn claim(&mut self, store: &IdbObjectStore, s: &str, n: u64, only_new: bool) -> Result<(), StoreError> {
        self.check()?;
        let key = key(&[s.into(), num(n)]);
        if only_new { store.add_with_key(&JsValue::TRUE, &key) } else { store.put_with_key(&JsValue::TRUE, &key) }
            .map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// Deletes the row under a key, or the rows in a key range.
    pub(super) fn delete(&mut self, store: &IdbObjectStore, query: &JsValue) -> Result<(), StoreError> {
        self.check()?;
        store.delete(query).map_err(|e| self.store.js_error(&e))?;
        Ok(())
    }

    /// The sealed chunks and deletions a tail's change brings.
    pub(super) fn extras(&mut self, tx: &IdbTransaction, extras: Vec<tail::Extra>) -> Result<(), StoreError> {
        for extra in extras {
            match extra {
                tail::Extra::Put(name, row) => self.put(&object_store(tx, name)?, &row)?,
                tail::Extra::Delete(name, range) => self.delete(&object_store(tx, name)?, &range)?,
            }
        }
        Ok(())
    }
}
