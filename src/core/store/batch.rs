//! `Batch`: one commit's worth of changes to a session, and the pure diff
//! that computes the smallest batch between two snapshots of a team.
//!
//! The runner keeps the last committed `TeamSnapshot`; after a change it
//! takes a new one and commits `Batch::between(Some(&last), &new)`. Only
//! what changed is written: messages by id (a message is immutable), role
//! records that differ, file versions past the ones saved, cost entries
//! past the ones saved, and the meta and ledger head when they differ. A
//! message body or a file version is never rewritten; what is rewritten is
//! small (a role's id lists, the meta head, the ledger's totals); the history
//! only grows by the ids appended ([`HistoryEdit`]).

use std::collections::{BTreeMap, HashSet};

use crate::core::cost::CostEntry;
use crate::core::message::{Message, MessageId};
use crate::core::snapshot::{RoleSnapshot, TeamSnapshot};

use super::data::versions_of;
use crate::core::files::ProjectFiles;

use super::record::{FileVersion, LedgerRecord, MetaHead, RoleRecord, SessionSettings, SessionStatus};

/// Changes to one session, applied together by `Store::commit`. Deletions
/// (`roles_removed`, `files_removed`, `costs_replaced`) are applied before
/// the writes of the same batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// Becomes the session's `updated_ms`.
    pub now_ms: u64,
    /// The lease holder committing; the commit is refused while another
    /// holder's lease is live. `None` skips the check.
    pub holder: Option<String>,
    pub status: Option<SessionStatus>,
    pub settings: Option<SessionSettings>,
    pub meta: Option<MetaHead>,
    /// How the history changed (`None`: it did not).
    pub history: Option<HistoryEdit>,
    pub ledger: Option<LedgerRecord>,
    /// Appended to the log (a message already there is left as it is).
    pub messages: Vec<Message>,
    /// Written whole (new or changed roles).
    pub roles: Vec<RoleRecord>,
    pub roles_removed: Vec<String>,
    /// New versions; with `files_removed` naming the path first when its
    /// saved history is replaced (a file deleted and written again).
    pub files: Vec<FileVersion>,
    /// Paths whose every saved version is deleted.
    pub files_removed: Vec<String>,
    /// Appended cost entries.
    pub costs: Vec<CostEntry>,
    /// The saved entries are dropped before `costs` is written.
    pub costs_replaced: bool,
}

/// A change to the history: it becomes its first `keep` ids followed by
/// `append`. A running team only appends (`keep` is what was saved).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryEdit {
    pub keep: usize,
    pub append: Vec<MessageId>,
}

impl HistoryEdit {
    /// The edit from `saved` to `cur`, `None` when they are equal.
    pub fn between(saved: &[MessageId], cur: impl ExactSizeIterator<Item = MessageId>) -> Option<Self> {
        let len = cur.len();
        let mut keep = 0;
        let mut append = Vec::new();
        for (i, id) in cur.enumerate() {
            if append.is_empty() && saved.get(i) == Some(&id) {
                keep = i + 1;
            } else {
                if append.is_empty() {
                    append.reserve(len - i);
                }
                append.push(id);
            }
        }
        (keep != saved.len() || !append.is_empty()).then_some(HistoryEdit { keep, append })
    }

    /// Applies it to `history`.
    pub fn apply(&self, history: &mut Vec<MessageId>) {
        history.truncate(self.keep);
        history.extend_from_slice(&self.append);
    }
}

impl Batch {
    /// A batch that only touches the session's `updated_ms`.
    pub fn at(now_ms: u64) -> Self {
        Self { now_ms, ..Self::default() }
    }

    /// The changes that turn the saved `prev` (none: nothing saved yet)
    /// into `cur`. `now_ms`, `holder`, `status` and `settings` are left for
    /// the caller.
    pub fn between(prev: Option<&TeamSnapshot>, cur: &TeamSnapshot) -> Self {
        let mut batch = Batch::default();

        let meta = MetaHead::of(cur);
        if prev.map(MetaHead::of).as_ref() != Some(&meta) {
            batch.meta = Some(meta);
        }
        batch.history = HistoryEdit::between(prev.map_or(&[][..], |p| &p.history), cur.history.iter().copied());
        let ledger = LedgerRecord::of(&cur.ledger);
        if prev.map(|p| LedgerRecord::of(&p.ledger)).as_ref() != Some(&ledger) {
            batch.ledger = Some(ledger);
        }

        let known: HashSet<MessageId> = prev.map(|p| p.messages.iter().map(|m| m.id).collect()).unwrap_or_default();
        batch.messages = cur.messages.iter().filter(|m| !known.contains(&m.id)).cloned().collect();

        let before: BTreeMap<&str, (usize, &RoleSnapshot)> = prev
            .map(|p| p.roles.iter().enumerate().map(|(i, r)| (r.name.as_str(), (i, r))).collect())
            .unwrap_or_default();
        for (i, role) in cur.roles.iter().enumerate() {
            if before.get(role.name.as_str()) != Some(&(i, role)) {
                batch.roles.push(RoleRecord { index: u32::try_from(i).unwrap_or(u32::MAX), role: role.clone() });
            }
        }
        let names: HashSet<&str> = cur.roles.iter().map(|r| r.name.as_str()).collect();
        batch.roles_removed = before.keys().filter(|n| !names.contains(*n)).map(|n| n.to_string()).collect();

        diff_files(prev.map(|p| &p.files), &cur.files, &mut batch);

        let saved = prev.map(|p| p.ledger.entries()).unwrap_or(&[]);
        let entries = cur.ledger.entries();
        if entries.starts_with(saved) {
            batch.costs = entries[saved.len()..].to_vec();
        } else {
            batch.costs_replaced = true;
            batch.costs = entries.to_vec();
        }
        batch
    }

    /// Everything needed to save `cur` from nothing.
    pub fn full(cur: &TeamSnapshot) -> Self {
        Self::between(None, cur)
    }

    /// Sets when and by whom it is committed.
    pub fn stamped(mut self, now_ms: u64, holder: Option<&str>) -> Self {
        self.now_ms = now_ms;
        self.holder = holder.map(str::to_string);
        self
    }

    /// True when it changes nothing but `updated_ms`.
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.settings.is_none()
            && self.meta.is_none()
            && self.history.is_none()
            && self.ledger.is_none()
            && self.messages.is_empty()
            && self.roles.is_empty()
            && self.roles_removed.is_empty()
            && self.files.is_empty()
            && self.files_removed.is_empty()
            && self.costs.is_empty()
            && !self.costs_replaced
    }

    /// How many records it writes or deletes (for tests and diagnostics).
    pub fn len(&self) -> usize {
        usize::from(self.status.is_some() || self.settings.is_some())
            + usize::from(self.meta.is_some())
            + usize::from(self.history.is_some())
            + usize::from(self.ledger.is_some())
            + self.messages.len()
            + self.roles.len()
            + self.roles_removed.len()
            + self.files.len()
            + self.files_removed.len()
            + self.costs.len()
            + usize::from(self.costs_replaced)
    }
}

/// The file versions past the saved ones; a path whose saved history is not
/// a prefix of the current one is replaced, a path gone is removed.
pub(crate) fn diff_files(prev: Option<&ProjectFiles>, cur: &ProjectFiles, batch: &mut Batch) {
    for path in cur.paths() {
        let Ok(history) = cur.history(path) else { continue };
        let saved = prev.and_then(|p| p.history(path).ok()).unwrap_or(&[]);
        if history.starts_with(saved) {
            batch.files.extend(versions_of(path, history, saved.len()));
        } else {
            batch.files_removed.push(path.to_string());
            batch.files.extend(versions_of(path, history, 0));
        }
    }
    if let Some(p) = prev {
        batch.files_removed.extend(p.paths().filter(|path| !cur.exists(path)).map(str::to_string));
    }
}

impl MetaHead {
    pub fn of(snapshot: &TeamSnapshot) -> Self {
        Self {
            idea: snapshot.idea.clone(),
            round: snapshot.round,
            ids: snapshot.ids.clone(),
            experience: snapshot.experience.clone(),
        }
    }
}
