//! A session's *tail* in IndexedDB (schema v4): one row per session, in
//! `tails` under `s`, holding everything a commit changes in a running
//! team: the meta head, the ledger's head, each role's record without its
//! id lists, and the open (last, unsealed) chunk of every log: the
//! messages, the history, the cost entries and each role's four id lists
//! (memory, working memory, buffer, news).
//!
//! Why: an IndexedDB request costs about a quarter of a millisecond
//! whatever its size (measured in headless Chromium: 1 put of 200 bytes
//! ~1.0 ms a transaction, 12 puts ~4 ms, 1 put of 32 KiB ~1.3 ms), and a
//! message touches the history, the log, the meta and every role's buffer.
//! Kept in their own stores, that is a dozen requests a commit; with the
//! tail it is the tail row and the session row, plus a sealed chunk now
//! and then: a log's open chunk that reaches its size (`LOG_CHUNK_BYTES`,
//! `ID_CHUNK_BYTES`) moves to its log's store (`message_chunks`,
//! `history`, `cost_chunks`, `role_lists` under `[s, r, l, c]`) and is
//! never written again.
//!
//! A batch changes a role's list by an edit (`ListEdit`: keep the first
//! `keep` ids, append the rest). The open chunk knows the list's length
//! (`end`), so an edit that keeps it all appends to the open chunk, one
//! that cuts into the open chunk only rewrites that, one that keeps
//! nothing writes the list from nothing, and only one that cuts into a
//! sealed chunk needs that list's sealed ids, read by the caller first
//! ([`TailRecord::cuts`]); no whole list is kept in memory. Rows of a
//! role's list exist only while the tail holds that role with that list's
//! open chunk past chunk 0 (every rewrite and removal deletes them then),
//! so a role new to the tail starts from empty lists without a deletion.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use super::chunks::{self, Chunk, Tail};
use super::rows::{num, prefix_range, session_range, to_json};
use super::schema::{COST_CHUNKS, HISTORY, MESSAGE_CHUNKS, ROLE_LISTS};
use crate::core::message::MessageId;
use crate::core::snapshot::RoleSnapshot;
use crate::core::store::{Batch, LedgerRecord, ListEdit, MetaHead, RoleEdit, RoleRecord, StoreError};

pub(super) const LISTS: usize = 4;
const LOG: usize = chunks::LOG_CHUNK_BYTES;
const IDS: usize = chunks::ID_CHUNK_BYTES;

/// The ids in the sealed chunks of the role lists a batch cuts into, by
/// role name and list ([`TailRecord::cuts`]).
pub(super) type Sealed = HashMap<(String, usize), Vec<MessageId>>;

/// The open chunk of a log: chunk number `c`, `end` entries in the log up
/// to and including it, its entries as a JSON array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct OpenLog {
    pub c: u32,
    pub end: u64,
    pub json: String,
}

impl Default for OpenLog {
    fn default() -> Self {
        Self { c: 0, end: 0, json: "[]".into() }
    }
}

impl OpenLog {
    /// The open chunk after the sealed chunk `last` (`None`: no chunk).
    pub fn after(last: Option<&Tail>) -> Self {
        last.map_or_else(Self::default, |t| Self { c: t.c() + 1, end: t.end(), json: "[]".into() })
    }

    /// Appends `items` (each an entry's JSON); returns the chunks it seals
    /// (to write to the log's store, once).
    pub fn append<I: IntoIterator<Item = String>>(&mut self, items: I, limit: usize) -> Vec<Chunk> {
        let mut items = items.into_iter().peekable();
        if items.peek().is_none() {
            return Vec::new();
        }
        let mut sealed = Vec::new();
        if chunks::is_full(&self.json, limit) {
            // The open chunk was full: it is sealed as it was.
            sealed.push(Chunk { c: self.c, end: self.end, json: std::mem::replace(&mut self.json, "[]".into()) });
            self.c += 1;
        }
        // The open chunk's text is moved in and back, never copied.
        let tail = Tail::new(self.c, self.end, std::mem::take(&mut self.json));
        let mut all = chunks::append(Some(tail), items, limit);
        let last = all.pop().expect("appending at least one entry leaves an open chunk");
        sealed.extend(all);
        (self.c, self.end, self.json) = (last.c, last.end, last.json);
        sealed
    }

    pub fn entries<T: DeserializeOwned>(&self) -> Result<Vec<T>, StoreError> {
        serde_json::from_str(&self.json).map_err(|e| StoreError::corrupt("a saved log", e))
    }

    /// Where the open chunk of a list of ids starts in the list (its ids
    /// are numbers: one comma between two).
    fn start_of_ids(&self) -> u64 {
        let count = if self.json.len() <= 2 { 0 } else { 1 + self.json.bytes().filter(|&b| b == b',').count() as u64 };
        self.end.saturating_sub(count)
    }

    /// How `edit` is made on this list of ids.
    fn way(&self, edit: &ListEdit) -> Way {
        let keep = edit.keep as u64;
        if keep == self.end {
            Way::Append
        } else if keep == 0 {
            Way::Anew
        } else if keep > self.end {
            Way::Past
        } else if keep >= self.start_of_ids() {
            Way::CutOpen
        } else {
            Way::CutSealed
        }
    }

    /// Makes `edit` on this list of ids (keys `keys`); `sealed` holds the
    /// list's sealed ids when the edit cuts into them.
    fn edit(&mut self, edit: &ListEdit, keys: &[JsValue], sealed: Option<Vec<MessageId>>, out: &mut Vec<Extra>) -> Result<(), StoreError> {
        match self.way(edit) {
            Way::Append => {}
            Way::CutOpen => {
                let start = self.start_of_ids();
                let mut ids: Vec<u64> = self.entries()?;
                ids.truncate((edit.keep as u64 - start) as usize);
                self.json = to_json(&ids)?;
                self.end = edit.keep as u64;
            }
            way @ (Way::Anew | Way::CutSealed) => {
                let mut all = Vec::new();
                if way == Way::CutSealed {
                    all = sealed.ok_or_else(|| StoreError::Other("a role's list was not read before it was cut".into()))?;
                    all.extend(self.entries::<u64>()?.into_iter().map(MessageId));
                    all.truncate(edit.keep);
                }
                if self.c > 0 {
                    out.push(Extra::Delete(ROLE_LISTS, prefix_range(keys)?));
                }
                *self = OpenLog::default();
                seal(out, ROLE_LISTS, keys, self.append(ids_json(&all), IDS))?;
            }
            Way::Past => {
                return Err(StoreError::Corrupt(format!("a change keeps {} ids of a list that holds {}", edit.keep, self.end)));
            }
        }
        seal(out, ROLE_LISTS, keys, self.append(ids_json(&edit.append), IDS))
    }
}

/// How a list's edit is made on the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Keeps the whole list: appends to the open chunk.
    Append,
    /// Keeps part of the open chunk: rewrites it.
    CutOpen,
    /// Keeps nothing: the list is written from nothing.
    Anew,
    /// Keeps part of the sealed chunks: they are read, and the list is
    /// written again.
    CutSealed,
    /// Keeps more than the list holds (a batch made against another
    /// state of the store).
    Past,
}

/// A role: its record without its lists, and each list's open chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct OpenRole {
    pub head: RoleRecord,
    pub lists: [OpenLog; LISTS],
}

/// The tail row's record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct TailRecord {
    pub meta: Option<MetaHead>,
    pub ledger: Option<LedgerRecord>,
    pub messages: OpenLog,
    pub history: OpenLog,
    pub costs: OpenLog,
    /// In the team's order.
    pub roles: Vec<OpenRole>,
}

/// A write besides the tail row and the session row.
pub(super) enum Extra {
    Put(&'static str, JsValue),
    /// A key range's rows deleted.
    Delete(&'static str, JsValue),
}

fn ids_json(ids: &[MessageId]) -> impl Iterator<Item = String> + '_ {
    ids.iter().map(|id| id.0.to_string())
}

fn list_keys(s: &str, r: &str, l: usize) -> [JsValue; 3] {
    [s.into(), r.into(), num(l as u64)]
}

fn seal(out: &mut Vec<Extra>, store: &'static str, keys: &[JsValue], chunks: Vec<Chunk>) -> Result<(), StoreError> {
    const FIELDS: [&str; 3] = ["s", "r", "l"];
    let named: Vec<(&str, JsValue)> = FIELDS.iter().copied().zip(keys.iter().cloned()).collect();
    for chunk in &chunks {
        out.push(Extra::Put(store, chunks::keyed_chunk_row(&named, chunk)?));
    }
    Ok(())
}

impl TailRecord {
    /// The lists `batch` cuts into below their open chunk, by role name
    /// and list: the caller reads their sealed ids for [`TailRecord::apply`].
    pub fn cuts(&self, batch: &Batch) -> Vec<(String, usize)> {
        let mut cuts = Vec::new();
        for edit in &batch.roles {
            let Some(role) = self.roles.iter().find(|r| r.head.role.name == edit.name) else { continue };
            for (l, e) in edit.lists.iter().enumerate() {
                if e.as_ref().is_some_and(|e| role.lists[l].way(e) == Way::CutSealed) {
                    cuts.push((edit.name.clone(), l));
                }
            }
        }
        cuts
    }

    /// Applies `batch` (without its history, see [`TailRecord::history`]),
    /// `sealed` holding the sealed ids of the lists it cuts into
    /// ([`TailRecord::cuts`]); the other writes it needs.
    pub fn apply(&mut self, s: &str, batch: &Batch, sealed: &mut Sealed, out: &mut Vec<Extra>) -> Result<(), StoreError> {
        let sk = [JsValue::from_str(s)];
        if batch.meta.is_some() {
            self.meta = batch.meta.clone();
        }
        if batch.ledger.is_some() {
            self.ledger = batch.ledger.clone();
        }
        if !batch.messages.is_empty() {
            let items = batch.messages.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
            seal(out, MESSAGE_CHUNKS, &sk, self.messages.append(items, LOG))?;
        }
        if batch.costs_replaced {
            out.push(Extra::Delete(COST_CHUNKS, session_range(s)?));
            self.costs = OpenLog::default();
        }
        if !batch.costs.is_empty() {
            let items = batch.costs.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
            seal(out, COST_CHUNKS, &sk, self.costs.append(items, LOG))?;
        }
        for name in &batch.roles_removed {
            if let Some(at) = self.roles.iter().position(|r| r.head.role.name == *name) {
                let gone = self.roles.remove(at);
                if gone.lists.iter().any(|l| l.c > 0) {
                    out.push(Extra::Delete(ROLE_LISTS, prefix_range(&[s.into(), name.as_str().into()])?));
                }
            }
        }
        for edit in &batch.roles {
            let at = match self.roles.iter().position(|r| r.head.role.name == edit.name) {
                Some(at) => at,
                None => {
                    // New to the tail: its lists start empty.
                    let head = edit.head.clone().ok_or_else(|| StoreError::role_not_saved(&edit.name))?;
                    let role = RoleSnapshot::from_parts(edit.name.clone(), head, Default::default());
                    self.roles.push(OpenRole { head: RoleRecord { index: edit.index, role }, lists: Default::default() });
                    self.roles.len() - 1
                }
            };
            let role = &mut self.roles[at];
            role.head.index = edit.index;
            if let Some(head) = &edit.head {
                role.head.role.set_head(head.clone());
            }
            for (l, e) in edit.lists.iter().enumerate() {
                if let Some(e) = e {
                    let keys = list_keys(s, &edit.name, l);
                    role.lists[l].edit(e, &keys, sealed.remove(&(edit.name.clone(), l)), out)?;
                }
            }
        }
        if !batch.roles.is_empty() {
            self.roles.sort_unstable_by_key(|r| r.head.index);
        }
        Ok(())
    }

    /// Appends `ids` to the history (which holds `self.history.end` ids).
    pub fn append_history(&mut self, s: &str, ids: &[MessageId], out: &mut Vec<Extra>) -> Result<(), StoreError> {
        seal(out, HISTORY, &[s.into()], self.history.append(ids_json(ids), IDS))
    }

    /// Writes the whole history `all` again.
    pub fn replace_history(&mut self, s: &str, all: &[MessageId], out: &mut Vec<Extra>) -> Result<(), StoreError> {
        out.push(Extra::Delete(HISTORY, session_range(s)?));
        self.history = OpenLog::default();
        self.append_history(s, all, out)
    }

    /// The roles in the team's order, each with its whole lists, from the
    /// sealed chunks of `role_lists` (`list_rows`, in key order).
    pub fn roles_with(&self, list_rows: &[JsValue]) -> Result<Vec<RoleRecord>, StoreError> {
        let mut sealed: HashMap<(String, usize), Vec<u64>> = HashMap::new();
        let (r_field, l_field) = (JsValue::from_str("r"), JsValue::from_str("l"));
        for row in list_rows {
            let r = js_sys::Reflect::get(row, &r_field).ok().and_then(|v| v.as_string());
            let l = js_sys::Reflect::get(row, &l_field).ok().and_then(|v| v.as_f64());
            let (Some(r), Some(l)) = (r, l) else {
                return Err(StoreError::Corrupt("a saved role list has no role or list".into()));
            };
            let mut ids: Vec<u64> = chunks::entries(std::slice::from_ref(row))?;
            sealed.entry((r, l as usize)).or_default().append(&mut ids);
        }
        let mut roles = Vec::with_capacity(self.roles.len());
        for role in &self.roles {
            let mut record = role.head.clone();
            let name = record.role.name.clone();
            for (l, list) in record.role.lists_mut().into_iter().enumerate() {
                let mut ids = sealed.remove(&(name.clone(), l)).unwrap_or_default();
                ids.extend(role.lists[l].entries::<u64>()?);
                *list = ids.into_iter().map(MessageId).collect();
            }
            roles.push(record);
        }
        Ok(roles)
    }
}

/// The tail (and the sealed chunks) that hold, from nothing, `roles` and
/// the logs given as entries' JSON.
pub(super) fn from_nothing(
    s: &str,
    meta: Option<MetaHead>,
    ledger: Option<LedgerRecord>,
    history: &[MessageId],
    messages: Vec<String>,
    costs: Vec<String>,
    roles: &[RoleSnapshot],
    out: &mut Vec<Extra>,
) -> Result<TailRecord, StoreError> {
    let mut tail = TailRecord { meta, ledger, ..TailRecord::default() };
    let sk = [JsValue::from_str(s)];
    seal(out, MESSAGE_CHUNKS, &sk, tail.messages.append(messages, LOG))?;
    seal(out, COST_CHUNKS, &sk, tail.costs.append(costs, LOG))?;
    tail.append_history(s, history, out)?;
    let batch = Batch { roles: roles.iter().enumerate().map(|(i, r)| RoleEdit::new_role(i, r)).collect(), ..Batch::default() };
    tail.apply(s, &batch, &mut Sealed::new(), out)?;
    Ok(tail)
}
