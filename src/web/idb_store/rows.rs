//! A record to a row and back: a row is `{<key fields>, json}` (the key
//! fields are what the store's key path reads, `json` the serde record),
//! keys and key ranges over them, and the plain reads of a request's
//! result. It issues no request: `transaction.rs` does.

use js_sys::{Array, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbKeyRange, IdbObjectStore, IdbTransaction};

use super::errors::describe;
use crate::core::store::{FileVersion, SessionRecord, StoreError};

pub(super) fn object_store(tx: &IdbTransaction, name: &str) -> Result<IdbObjectStore, StoreError> {
    tx.object_store(name).map_err(|e| StoreError::Corrupt(format!("the database has no \"{name}\" store: {}", describe(&e))))
}

/// A `get`'s result: `undefined` when there is no row.
pub(super) fn found(result: JsValue) -> Option<JsValue> {
    (!result.is_undefined()).then_some(result)
}

/// A `getAll`'s result as a list.
pub(super) fn rows(result: JsValue) -> Vec<JsValue> {
    result.dyn_into::<Array>().map(|a| a.to_vec()).unwrap_or_default()
}

pub(super) fn to_json<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Other(format!("a record could not be written: {e}")))
}

/// A row: the key fields, then the record as JSON.
pub(super) fn row<T: Serialize>(keys: &[(&str, JsValue)], record: &T) -> Result<JsValue, StoreError> {
    raw_row(keys, &to_json(record)?)
}

/// [`row`] of a record already in JSON.
pub(super) fn raw_row(keys: &[(&str, JsValue)], json: &str) -> Result<JsValue, StoreError> {
    let obj = Object::new();
    for (name, value) in keys {
        Reflect::set(&obj, &JsValue::from_str(name), value).map_err(|e| StoreError::Other(describe(&e)))?;
    }
    Reflect::set(&obj, &JsValue::from_str("json"), &JsValue::from_str(json)).map_err(|e| StoreError::Other(describe(&e)))?;
    Ok(obj.into())
}

/// The session row of `record`, with its claim count `n`.
pub(super) fn session_value(id: &str, record: &SessionRecord, n: u64) -> Result<JsValue, StoreError> {
    session_raw(id, &to_json(record)?, n)
}

/// [`session_value`] of a record already in JSON.
pub(super) fn session_raw(id: &str, json: &str, n: u64) -> Result<JsValue, StoreError> {
    raw_row(&[("id", id.into()), ("w", num(n))], json)
}

/// The record's JSON in a row.
pub(super) fn json_of(row: &JsValue) -> Option<String> {
    Reflect::get(row, &JsValue::from_str("json")).ok().and_then(|v| v.as_string())
}

/// The claim count of a session row (0 before schema v5, whose rows have
/// no claims yet: v4 wrote a text stamp there, earlier versions nothing).
pub(super) fn stamp_of(row: &JsValue) -> u64 {
    Reflect::get(row, &JsValue::from_str("w")).ok().and_then(|v| v.as_f64()).map_or(0, |n| n as u64)
}

pub(super) fn parse_row<T: DeserializeOwned>(row: &JsValue) -> Result<T, StoreError> {
    parse_field(row, &JsValue::from_str("json"))
}

/// [`parse_row`] with the `json` field's name made by the caller.
pub(super) fn parse_field<T: DeserializeOwned>(row: &JsValue, field: &JsValue) -> Result<T, StoreError> {
    let json = Reflect::get(row, field)
        .ok()
        .and_then(|v| v.as_string())
        .ok_or_else(|| StoreError::Corrupt("a saved row has no data".into()))?;
    serde_json::from_str(&json).map_err(|e| StoreError::corrupt("a saved record", e))
}

pub(super) fn num(n: u64) -> JsValue {
    // Ids and sequence numbers stay far below 2^53.
    JsValue::from_f64(n as f64)
}

pub(super) fn key(parts: &[JsValue]) -> JsValue {
    parts.iter().collect::<Array>().into()
}

/// Every key that starts with `prefix`: arrays sort after every number and
/// string, so `[…prefix, []]` is above all of them.
pub(super) fn prefix_range(prefix: &[JsValue]) -> Result<JsValue, StoreError> {
    let mut upper: Vec<JsValue> = prefix.to_vec();
    upper.push(Array::new().into());
    IdbKeyRange::bound(&key(prefix), &key(&upper)).map(JsValue::from).map_err(|e| StoreError::Other(describe(&e)))
}

pub(super) fn session_range(id: &str) -> Result<JsValue, StoreError> {
    prefix_range(&[id.into()])
}

pub(super) fn file_row(s: &str, f: &FileVersion) -> Result<JsValue, StoreError> {
    row(&[("s", s.into()), ("p", f.path.as_str().into()), ("v", num(u64::from(f.version)))], f)
}

pub(super) fn session_keyed<T: Serialize>(s: &str, record: &T) -> Result<JsValue, StoreError> {
    row(&[("s", s.into())], record)
}
