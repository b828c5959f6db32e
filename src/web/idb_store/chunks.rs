//! The append-only logs of a session in IndexedDB (schema v3): the message
//! log, the cost entries and the history are each kept as *chunks*, rows
//! `{s, c, end, json}` under the key `[s, c]`, where `json` is a JSON array
//! of up to about `LOG_CHUNK_BYTES` (or `ID_CHUNK_BYTES`) of entries in the order they were appended
//! and `end` counts the entries up to and including this chunk. Since v4 a
//! role's id lists are chunked the same way, under `[s, r, l, c]`.
//!
//! Appending extends the last chunk (its `Tail`, which the store keeps in
//! memory after a load or a commit, else reads with one cursor step) while
//! it has room and starts the next one when it is full, so a commit writes
//! what it adds plus at most one small chunk it rewrites; a restore reads a
//! few hundred rows with one `getAll` instead of one row per entry. The
//! entries are never parsed on the way in: they are joined as JSON text.

use js_sys::{Object, Reflect};
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;
use web_sys::IdbObjectStore;

use super::errors::describe;
use super::rows::{num, session_range};
use super::IdbStore;
use crate::core::store::StoreError;

/// The size at which schema v3 closed a chunk, which the v2 → v3 upgrade
/// keeps.
pub(super) const V3_CHUNK_BYTES: usize = 32 * 1024;
/// The open chunk of every log is in the session's tail row, which each
/// commit rewrites: a chunk of the message log or of the cost entries is
/// closed at this size, so a restore reads ~1 row per 4 KiB and a commit
/// rewrites at most ~4 KiB of each (a bigger tail row is a slower
/// commit)...
pub(super) const LOG_CHUNK_BYTES: usize = 4 * 1024;
/// ... and a chunk of message ids (the history, a role's list: ~170 ids)
/// at this one: a team's 20 lists' open chunks are the bulk of the tail
/// row (~42 KB at 10,000 messages with 4 KiB, ~14 KB with 1 KiB); the
/// restore reads more, smaller rows (10,000 messages: ~131–141 ms).
pub(super) const ID_CHUNK_BYTES: usize = 1024;

/// The last chunk of a log: where appending continues.
#[derive(Debug, Clone)]
pub(super) struct Tail {
    c: u32,
    end: u64,
    json: String,
}

impl Tail {
    pub(super) fn new(c: u32, end: u64, json: String) -> Self {
        Self { c, end, json }
    }

    pub(super) fn c(&self) -> u32 {
        self.c
    }

    /// How many entries the log holds.
    pub(super) fn end(&self) -> u64 {
        self.end
    }
}

/// A chunk to write: its number, its `end`, its JSON array.
#[derive(Debug, Clone)]
pub(super) struct Chunk {
    pub c: u32,
    pub end: u64,
    pub json: String,
}

/// Whether a chunk of `json` is closed at `limit` bytes.
pub(super) fn is_full(json: &str, limit: usize) -> bool {
    json.len() >= limit || !json.ends_with(']')
}

/// The chunks that append `items` (each an entry's JSON) to a log whose
/// last chunk is `tail` (`None`: an empty log). The first one rewrites
/// `tail` (taken, not copied) when it still has room; a chunk is closed at
/// `limit` bytes.
pub(super) fn append<I: IntoIterator<Item = String>>(tail: Option<Tail>, items: I, limit: usize) -> Vec<Chunk> {
    let (mut c, mut end, mut json) = match tail {
        Some(t) if !is_full(&t.json, limit) => {
            let mut json = t.json;
            json.pop();
            (t.c, t.end, json)
        }
        Some(t) => (t.c + 1, t.end, "[".to_string()),
        None => (0, 0, "[".to_string()),
    };
    let mut out = Vec::new();
    let mut touched = false;
    for item in items {
        if json.len() > 1 && json.len() + item.len() >= limit {
            json.push(']');
            out.push(Chunk { c, end, json: std::mem::replace(&mut json, "[".to_string()) });
            c += 1;
        }
        if json.len() > 1 {
            json.push(',');
        }
        json.push_str(&item);
        end += 1;
        touched = true;
    }
    if touched {
        json.push(']');
        out.push(Chunk { c, end, json });
    }
    out
}

/// The row of a chunk of session `s`.
pub(super) fn chunk_row(s: &str, chunk: &Chunk) -> Result<JsValue, StoreError> {
    keyed_chunk_row(&[("s", s.into())], chunk)
}

/// The row of a chunk under the key fields `keys` (then `c`).
pub(super) fn keyed_chunk_row(keys: &[(&str, JsValue)], chunk: &Chunk) -> Result<JsValue, StoreError> {
    let obj = Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&obj, &JsValue::from_str(k), v).map(|_| ()).map_err(|e| StoreError::Other(describe(&e)));
    for (k, v) in keys {
        set(k, v)?;
    }
    set("c", &num(u64::from(chunk.c)))?;
    set("end", &num(chunk.end))?;
    set("json", &JsValue::from_str(&chunk.json))?;
    Ok(obj.into())
}

impl IdbStore {
    /// Every entry of session `s`'s log in `store`, in order.
    pub(super) async fn log<T: DeserializeOwned>(&self, store: &IdbObjectStore, s: &str) -> Result<Vec<T>, StoreError> {
        let rows = self.get_all(store, Some(&session_range(s)?)).await?;
        entries(&rows)
    }
}

/// The entries of chunk rows, in order.
pub(super) fn entries<T: DeserializeOwned>(rows: &[JsValue]) -> Result<Vec<T>, StoreError> {
    let field = JsValue::from_str("json");
    let mut out = Vec::new();
    for row in rows {
        let json = Reflect::get(row, &field)
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| StoreError::Corrupt("a saved chunk has no data".into()))?;
        let mut part: Vec<T> = serde_json::from_str(&json).map_err(|e| StoreError::corrupt("a saved chunk", e))?;
        if out.is_empty() {
            out = part;
        } else {
            out.append(&mut part);
        }
    }
    Ok(out)
}

pub(super) fn tail_of(row: &JsValue) -> Result<Tail, StoreError> {
    let field = |k: &str| Reflect::get(row, &JsValue::from_str(k)).ok();
    let number = |k: &str| field(k).and_then(|v| v.as_f64()).ok_or_else(|| StoreError::Corrupt(format!("a saved chunk has no \"{k}\"")));
    let json = field("json").and_then(|v| v.as_string()).ok_or_else(|| StoreError::Corrupt("a saved chunk has no data".into()))?;
    Ok(Tail { c: number("c")? as u32, end: number("end")? as u64, json })
}
