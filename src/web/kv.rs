//! A small key-value store over IndexedDB (via the `idb` crate): JSON values
//! under string keys in one object store.
//!
//! It is the seed of the session store; it knows nothing of sessions or
//! schemas beyond its own database version.

use idb::{Database, DatabaseEvent, Factory, ObjectStoreParams, TransactionMode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

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

impl From<idb::Error> for KvError {
    fn from(e: idb::Error) -> Self {
        KvError::Storage(e.to_string())
    }
}

/// An open key-value database.
pub struct Kv {
    db: Database,
}

impl Kv {
    /// Open (creating if needed) the database `name`.
    pub async fn open(name: &str) -> Result<Self, KvError> {
        let factory = Factory::new().map_err(|e| KvError::Unavailable(e.to_string()))?;
        let mut request = factory.open(name, Some(VERSION))?;
        request.on_upgrade_needed(|event| {
            if let Ok(db) = event.database() {
                if !db.store_names().iter().any(|n| n == STORE) {
                    // An error here surfaces as a failed open below.
                    let _ = db.create_object_store(STORE, ObjectStoreParams::new());
                }
            }
        });
        Ok(Self { db: request.await? })
    }

    /// Store `value` under `key`, committed before this returns.
    pub async fn put<T: Serialize>(&self, key: &str, value: &T) -> Result<(), KvError> {
        let json = serde_json::to_string(value).map_err(|e| KvError::Storage(e.to_string()))?;
        let tx = self.db.transaction(&[STORE], TransactionMode::ReadWrite)?;
        let store = tx.object_store(STORE)?;
        store.put(&JsValue::from_str(&json), Some(&JsValue::from_str(key)))?.await?;
        tx.commit()?.await?;
        Ok(())
    }

    /// Read the value under `key`, if any.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, KvError> {
        let tx = self.db.transaction(&[STORE], TransactionMode::ReadOnly)?;
        let store = tx.object_store(STORE)?;
        let value = store.get(JsValue::from_str(key))?.await?;
        tx.await?;
        match value.and_then(|v| v.as_string()) {
            None => Ok(None),
            Some(json) => serde_json::from_str(&json).map(Some).map_err(|e| KvError::Corrupt(e.to_string())),
        }
    }

    /// Remove the value under `key`.
    pub async fn delete(&self, key: &str) -> Result<(), KvError> {
        let tx = self.db.transaction(&[STORE], TransactionMode::ReadWrite)?;
        let store = tx.object_store(STORE)?;
        store.delete(JsValue::from_str(key))?.await?;
        tx.commit()?.await?;
        Ok(())
    }

    pub fn close(&self) {
        self.db.close();
    }
}
