//! A small key-value store over IndexedDB (through `web::idb`): JSON values
//! under string keys in one object store.
//!
//! It is the seed of the session store; it knows nothing of sessions or
//! schemas beyond its own database version.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;
use web_sys::{IdbDatabase, IdbObjectStore, IdbTransaction, IdbTransactionMode};

use super::idb;

const STORE: &str = "kv";
const VERSION: u32 = 1;

/// What can go wrong talking to IndexedDB.
#[derive(Debug, thiserror::Error)]
pub enum KvError {
    #[error("IndexedDB is not available in this browser (private mode?): {0}")]
    Unavailable(String),
    #[error("IndexedDB failed: {0}")]
    Storage(String),
    #[error("a stored value could not be read back: {0}")]
    Corrupt(String),
}

impl From<JsValue> for KvError {
    fn from(e: JsValue) -> Self {
        let text = js_sys::Reflect::get(&e, &JsValue::from_str("message")).ok().and_then(|m| m.as_string());
        KvError::Storage(text.or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}")))
    }
}

/// An open key-value database.
pub struct Kv {
    db: IdbDatabase,
}

impl Kv {
    /// Open (creating if needed) the database `name`.
    pub async fn open(name: &str) -> Result<Self, KvError> {
        let factory = idb::factory().ok_or_else(|| KvError::Unavailable("no indexedDB".into()))?;
        let upgrade: idb::Upgrade = Box::new(|db: IdbDatabase, _, _| {
            if !db.object_store_names().contains(STORE) {
                // An error here surfaces as a failed open below.
                let _ = db.create_object_store(STORE);
            }
        });
        Ok(Self { db: idb::open(&factory, name, Some(VERSION), Some(upgrade))?.await? })
    }

    fn store(&self, mode: IdbTransactionMode) -> Result<(IdbTransaction, IdbObjectStore), KvError> {
        let tx = self.db.transaction_with_str_and_mode(STORE, mode)?;
        let store = tx.object_store(STORE)?;
        Ok((tx, store))
    }

    /// Store `value` under `key`, committed before this returns.
    pub async fn put<T: Serialize>(&self, key: &str, value: &T) -> Result<(), KvError> {
        let json = serde_json::to_string(value).map_err(|e| KvError::Storage(e.to_string()))?;
        let (tx, store) = self.store(IdbTransactionMode::Readwrite)?;
        let end = idb::transaction_end(&tx);
        idb::issued(store.put_with_key(&JsValue::from_str(&json), &JsValue::from_str(key)))?.await?;
        committed(end.await?)
    }

    /// Read the value under `key`, if any.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, KvError> {
        let (_, store) = self.store(IdbTransactionMode::Readonly)?;
        let value = idb::issued(store.get(&JsValue::from_str(key)))?.await?;
        match value.as_string() {
            None => Ok(None),
            Some(json) => serde_json::from_str(&json).map(Some).map_err(|e| KvError::Corrupt(e.to_string())),
        }
    }

    /// Remove the value under `key`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        let (tx, store) = self.store(IdbTransactionMode::Readwrite)?;
        let end = idb::transaction_end(&tx);
        idb::issued(store.delete(&JsValue::from_str(key)))?.await?;
        committed(end.await?)
    }

    pub fn close(&self) {
        self.db.close();
    }
}

/// A transaction's end as a result.
fn committed(end: JsValue) -> Result<(), KvError> {
    match end.as_bool() {
        Some(true) => Ok(()),
        _ => Err(KvError::Storage("the write was aborted".into())),
    }
}
