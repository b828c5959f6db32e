//! DOMExceptions to `StoreError`s a person understands:
//! `QuotaExceededError` → `QuotaExceeded`, a blocked upgrade → `Blocked`
//! (in `IdbStore::open_at`), no IndexedDB → `Unavailable`, `VersionError`
//! → `TooNew` (with the version found), a request on a connection another
//! tab's upgrade closed → `Unavailable` (reload). Anything else keeps the
//! DOMException's name and message in `Other`. It decides nothing about
//! retrying: the caller (the commit protocol, the UI) does.

use js_sys::Reflect;
use wasm_bindgen::JsValue;
use web_sys::{IdbFactory, IdbTransaction};

use super::{idb, IdbStore};
use crate::core::store::{StoreError, SCHEMA_VERSION};

impl IdbStore {
    /// A failed call's or request's error, for a person.
    pub(super) fn js_error(&self, value: &JsValue) -> StoreError {
        match dom_name(value) {
            Some((name, _)) if name == "QuotaExceededError" => StoreError::QuotaExceeded,
            Some((name, _)) if self.closed.get() && (name == "InvalidStateError" || name == "TransactionInactiveError") => closed(),
            Some((name, message)) => StoreError::Other(format!("{name}: {message}")),
            None => StoreError::Other(describe(value)),
        }
    }
}

/// Did `tx` end because a request failed with the DOMException `name`?
pub(super) fn aborted_by(tx: &IdbTransaction, name: &str) -> bool {
    tx.error().is_some_and(|e| e.name() == name)
}

pub(super) fn closed() -> StoreError {
    StoreError::Unavailable("this tab's connection to the database was closed, most likely because another tab opened a newer tabteam; reload this tab".into())
}

/// The name and message of a DOMException, or of the `error` a request or
/// transaction carries.
pub(super) fn dom_name(value: &JsValue) -> Option<(String, String)> {
    let field = |v: &JsValue, f: &str| Reflect::get(v, &JsValue::from_str(f)).ok().and_then(|x| x.as_string());
    if let Some(name) = field(value, "name") {
        return Some((name, field(value, "message").unwrap_or_default()));
    }
    let inner = Reflect::get(value, &JsValue::from_str("error")).ok().filter(|v| v.is_object())?;
    field(&inner, "name").map(|name| (name, field(&inner, "message").unwrap_or_default()))
}

pub(super) fn describe(value: &JsValue) -> String {
    dom_name(value)
        .map(|(n, m)| format!("{n}: {m}"))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// Why opening failed, for a person.
pub(super) fn open_error(e: &JsValue) -> StoreError {
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
pub(super) async fn too_new(factory: &IdbFactory, name: &str) -> StoreError {
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
