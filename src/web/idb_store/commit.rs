//! The commit protocol: a batch of a running team written as one
//! transaction. Mostly that is the session's next claim (an `add` of
//! `[s, n]` to `claims`, which fails if any other write of the session
//! made that claim first) and two puts (the tail, the session), with
//! nothing read: the connection knows the session (`Known`) as it was at
//! claim count `n - 1`. See `commit_once` for the three ways a commit is
//! made. Why claims at all: the commit is on every run's path, with the
//! goal p95 ≤ 5 ms; reading the session row first instead (the plain
//! check) measured ~0.5 ms worse at p95 and past 4.5 ms in a quarter of
//! the runs (docs/decisions/storage-tail-and-claims.md has the figures).
//!
//! What a batch changes in the rows is `tail.rs`'s business, and what a
//! lease allows is the core's (`LockRecord::excludes`): this file only
//! orders the reads, the writes and the checks.

use wasm_bindgen::JsValue;
use web_sys::IdbTransaction;

use super::chunks;
use super::rows::{file_row, found, num, object_store, parse_row, prefix_range, raw_row, session_raw, stamp_of, to_json};
use super::schema::{CLAIMS, COST_CHUNKS, FILES, HISTORY, LOCKS, MESSAGE_CHUNKS, ROLE_LISTS, SESSIONS, TAILS};
use super::errors::aborted_by;
use super::tail;
use super::transaction::Writes;
use super::IdbStore;
use crate::core::message::MessageId;
use crate::core::store::{Batch, LockRecord, SessionRecord, StoreError};

/// How long this connection's own lease must still run for a commit to
/// be made without reading anything (see [`IdbStore::commit_once`]): far
/// longer than a transaction can wait to reach the database, far shorter
/// than the lease the app keeps renewed (20 s, renewed every 5 s).
const LEASE_MARGIN_MS: u64 = 5_000;

/// What a session holds, as this connection last wrote or read it: its
/// record and its tail row (which knows every list's length, so a batch's
/// list edits are made on it without the whole lists), so a commit issues
/// all its writes before it awaits anything. It is true while the session's
/// claim count is still `claims`: every write of a session by any
/// connection (a commit, a rename, a lease taken, renewed or let go) is
/// the session's next claim, a row `[s, n]` in `claims`, and sets the
/// session row's `w` to `n`. A commit that finds the count moved on is
/// undone and made again from what the database holds.
#[derive(Debug, Clone)]
pub(super) struct Known {
    pub(super) claims: u64,
    pub(super) session: Option<SessionRecord>,
    pub(super) tail: tail::TailRecord,
    /// The session's lease row as this connection last read or wrote it
    /// (`Some(None)`: none; `None`: not known, a commit reads it). Every
    /// write of a lease row is a claim, so while the count is `claims` the
    /// lease row is this one: a commit checks the lease against it instead
    /// of reading it.
    pub(super) lock: Option<Option<LockRecord>>,
}

/// What the last commit of a connection did, for the storage benchmark
/// (`benches/web/storage.rs`) to tell where its time goes.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CommitProbe {
    /// Requests in its transaction (puts and deletes; the reads apart).
    pub writes: usize,
    /// Bytes of the tail row's JSON it wrote (0: none).
    pub tail_bytes: usize,
    /// `performance.now()` once every request was issued (before the
    /// session row read first, if any, is awaited)...
    pub issued_ms: f64,
    /// ... and once that read was checked, just before the commit is
    /// asked for (a claimed commit reads nothing: at once).
    pub checked_ms: f64,
    /// Made from what the connection knew of the session (`Known`), not
    /// made again after finding that view stale.
    pub from_known: bool,
    /// Made without reading anything, checked by its claim alone.
    pub claimed: bool,
}

/// How a commit ended.
pub(super) enum Committed {
    Done(Known),
    /// The session changed under what this connection knew of it.
    Stale,
}

impl IdbStore {
    /// What the last commit did (benchmarks).
    #[doc(hidden)]
    pub fn last_commit(&self) -> CommitProbe {
        self.probe.get()
    }

    /// Makes the session's next claim after `old` and writes the session
    /// row (`json`, its record) with it, so that a commit of any connection
    /// that knew the session before finds it changed; the new claim count.
    /// The claim is put when `old` was read in this transaction (or is
    /// checked against what it read), added when only its add checks it
    /// (`only_new`: it fails if another connection made it first).
    pub(super) fn restamp(&self, tx: &IdbTransaction, w: &mut Writes<'_>, id: &str, json: &str, old: u64, only_new: bool) -> Result<u64, StoreError> {
        w.claim(&object_store(tx, CLAIMS)?, id, old + 1, only_new)?;
        w.put(&object_store(tx, SESSIONS)?, &session_raw(id, json, old + 1)?)?;
        Ok(old + 1)
    }

    /// This connection wrote session `id` outside a commit (a lease row, a
    /// rename), moving its claim count from `old` to `new`: what it knows
    /// of the session stays true if it was true, with `change` made (a
    /// commit running now keeps its own view, and its next one finds it
    /// stale and reads the database).
    pub(super) fn rewritten(&self, id: &str, old: u64, new: u64, change: impl FnOnce(&mut Known)) {
        if let Some(known) = self.known.borrow_mut().get_mut(id) {
            if known.claims == old {
                known.claims = new;
                change(known);
            }
        }
    }

    /// One commit of `batch` as one transaction, in one of three ways:
    ///
    /// - *Claimed* (`known`, and this connection's own lease known to run
    ///   `LEASE_MARGIN_MS` longer): nothing is read. The session's next
    ///   claim `[s, n + 1]` is *added* (an `add` fails when the row is
    ///   there), then the tail row, the session row (and a sealed chunk now
    ///   and then) are put, and the commit is asked for at once. If any
    ///   connection wrote the session since `known` was true, it made that
    ///   claim first: the add fails, IndexedDB aborts the whole transaction,
    ///   and the commit is made again from the database.
    /// - *Checked* (`known`, without such a lease): the same writes, the
    ///   claim put; the session row (and the lease row when `known` does not
    ///   hold it) is read first and checked once the writes are issued: a
    ///   claim count that moved on, or a lease held by another tab, aborts.
    /// - *Read* (no `known`): the tail and the session row are read first.
    ///
    /// Why a claimed commit needs the lease: deleting a session is refused
    /// while a lease on it runs (`delete_session`), and the only write that
    /// removes claims is that deletion; a connection whose lease runs for a
    /// while yet cannot find its session deleted under it.
    pub(super) async fn commit_once(&self, id: &str, batch: &Batch, known: Option<Known>) -> Result<Committed, StoreError> {
        let roles_touched = !batch.roles.is_empty() || !batch.roles_removed.is_empty();
        let claimed = known.as_ref().is_some_and(|k| k.session.is_some() && k.leased_to(batch));
        // The lease as this connection knows it holds while the claim
        // count is the known one (checked below); else it is read.
        let lock_known = known.as_ref().is_some_and(|k| k.lock.is_some());
        let touched = [
            (LOCKS, batch.holder.is_some() && !lock_known),
            (HISTORY, batch.history.is_some()),
            (MESSAGE_CHUNKS, !batch.messages.is_empty()),
            (ROLE_LISTS, roles_touched),
            (FILES, !batch.files.is_empty() || !batch.files_removed.is_empty()),
            (COST_CHUNKS, !batch.costs.is_empty() || batch.costs_replaced),
        ];
        let mut stores = vec![SESSIONS, TAILS, CLAIMS];
        stores.extend(touched.iter().filter(|(_, on)| *on).map(|(name, _)| *name));
        let (tx, end, mut w) = self.write(&stores)?;
        let result = async {
            let sessions = object_store(&tx, SESSIONS)?;
            let tails = object_store(&tx, TAILS)?;
            let key = JsValue::from_str(id);
            // Issued now, awaited once the writes are issued.
            let row = if claimed { None } else { Some(self.issue(sessions.get(&key))?) };
            let lock = match &batch.holder {
                Some(_) if !lock_known => Some(self.issue(object_store(&tx, LOCKS)?.get(&key))?),
                _ => None,
            };
            let cached = known.is_some();
            let mut known = match known {
                Some(known) => known,
                None => {
                    let found = self.get(&tails, &key).await?;
                    let tail = found.map(|r| parse_row(&r)).transpose()?.unwrap_or_default();
                    Known { claims: 0, session: None, tail, lock: None }
                }
            };
            let mut extras = Vec::new();
            if let Some(edit) = &batch.history {
                if known.tail.history.end == edit.keep as u64 {
                    known.tail.append_history(id, &edit.append, &mut extras)?;
                } else {
                    // Not an append (a replaced history): rewritten whole.
                    let sealed = self.log::<u64>(&object_store(&tx, HISTORY)?, id).await?;
                    let mut all: Vec<MessageId> = sealed.into_iter().chain(known.tail.history.entries::<u64>()?).map(MessageId).collect();
                    edit.apply(&mut all);
                    known.tail.replace_history(id, &all, &mut extras)?;
                }
            }
            // A list cut below its open chunk (rare: a running team
            // appends, or empties a list) is read to be written again.
            let mut sealed = tail::Sealed::new();
            for (role, l) in known.tail.cuts(batch) {
                let range = prefix_range(&[id.into(), role.as_str().into(), num(l as u64)])?;
                let rows = self.get_all(&object_store(&tx, ROLE_LISTS)?, Some(&range)).await?;
                let ids = chunks::entries::<u64>(&rows)?.into_iter().map(MessageId).collect();
                sealed.insert((role, l), ids);
            }
            known.tail.apply(id, batch, &mut sealed, &mut extras)?;
            if !batch.files_removed.is_empty() || !batch.files.is_empty() {
                let files = object_store(&tx, FILES)?;
                for path in &batch.files_removed {
                    w.delete(&files, &prefix_range(&[id.into(), path.as_str().into()])?)?;
                }
                for f in &batch.files {
                    w.put(&files, &file_row(id, f)?)?;
                }
            }
            w.extras(&tx, extras)?;
            let tail_changed = batch.meta.is_some()
                || batch.ledger.is_some()
                || batch.history.is_some()
                || !batch.messages.is_empty()
                || !batch.costs.is_empty()
                || batch.costs_replaced
                || roles_touched;
            let mut tail_bytes = 0;
            if tail_changed || !cached {
                let json = to_json(&known.tail)?;
                tail_bytes = json.len();
                w.put(&tails, &raw_row(&[("s", id.into())], &json)?)?;
            }
            let update = |mut record: SessionRecord| {
                record.updated_ms = batch.now_ms;
                if let Some(status) = batch.status {
                    record.status = status;
                }
                if let Some(settings) = &batch.settings {
                    record.settings = settings.clone();
                }
                record
            };
            let issued_ms;
            let (record, n) = match (row, known.session.take()) {
                (row, Some(record)) => {
                    // Written as known; a claimed commit is checked by its
                    // claim, a checked one against the session row.
                    let record = update(record);
                    let n = self.restamp(&tx, &mut w, id, &to_json(&record)?, known.claims, claimed)?;
                    issued_ms = performance_now();
                    if let Some(row) = row {
                        let row = found(self.outcome(row).await?).ok_or_else(|| StoreError::NotFound(id.to_string()))?;
                        if stamp_of(&row) != known.claims {
                            return Ok(None);
                        }
                    }
                    (record, n)
                }
                (Some(row), None) => {
                    let row = found(self.outcome(row).await?).ok_or_else(|| StoreError::NotFound(id.to_string()))?;
                    let record = update(parse_row(&row)?);
                    let n = self.restamp(&tx, &mut w, id, &to_json(&record)?, stamp_of(&row), false)?;
                    issued_ms = performance_now();
                    (record, n)
                }
                (None, None) => unreachable!("a claimed commit knows the session record"),
            };
            (known.session, known.claims) = (Some(record), n);
            if let Some(holder) = &batch.holder {
                if let Some(lock) = lock {
                    known.lock = Some(found(self.outcome(lock).await?).map(|r| parse_row(&r)).transpose()?);
                }
                // Read now, or known and still so (the claim count is
                // unchanged: checked above, or by the claim itself).
                if let Some(Some(lock)) = known.lock.as_ref().filter(|l| l.as_ref().is_some_and(|l| l.excludes(holder, batch.now_ms))) {
                    return Err(StoreError::Locked { by: lock.holder.clone() });
                }
            }
            let checked_ms = performance_now();
            self.probe.set(CommitProbe { writes: w.count, tail_bytes, issued_ms, checked_ms, from_known: cached, claimed });
            Ok(Some(known))
        }
        .await;
        match result {
            Ok(None) => {
                let _ = tx.abort();
                Ok(Committed::Stale)
            }
            result => match self.finish(tx.clone(), end, result).await {
                Ok(Some(known)) => Ok(Committed::Done(known)),
                Ok(None) => Ok(Committed::Stale),
                // Another connection made this claim first.
                Err(_) if claimed && aborted_by(&tx, "ConstraintError") => Ok(Committed::Stale),
                Err(e) => Err(e),
            },
        }
    }
}

impl Known {
    /// Does `batch`'s holder hold the session's lease, as known, for
    /// `LEASE_MARGIN_MS` past the batch's time at least?
    fn leased_to(&self, batch: &Batch) -> bool {
        match (&batch.holder, &self.lock) {
            (Some(holder), Some(Some(lock))) => {
                lock.holder == *holder && lock.expires_ms >= batch.now_ms.saturating_add(LEASE_MARGIN_MS)
            }
            _ => false,
        }
    }
}

thread_local! {
    /// The page's `performance`, found once (each lookup crosses into
    /// JavaScript twice more).
    static PERFORMANCE: Option<web_sys::Performance> = web_sys::window().and_then(|w| w.performance());
}

fn performance_now() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, web_sys::Performance::now))
}
