//! `Batch`: one commit's worth of changes to a session, and the pure diff
//! that computes the smallest batch between two snapshots of a team.
//!
//! The runner keeps the last committed `TeamSnapshot`; after a change it
//! takes a new one and commits `Batch::between(Some(&last), &new)`. Only
//! what changed is written: messages by id (a message is immutable), role
//! records that differ, file versions past the ones saved, cost entries
//! past the ones saved, and the meta and ledger head when they differ. A
//! message body or a file version is never rewritten; what is rewritten is
//! small (a role's head, the meta head, the ledger's totals); the history
//! and each role's four id lists change by a [`ListEdit`] (a running team
//! appends: the edit carries the new end only), so a batch's size follows
//! the change, not the session.

use std::collections::HashSet;

use litemap::LiteMap;

use crate::core::cost::CostEntry;
use crate::core::message::{Message, MessageId};
use crate::core::snapshot::{RoleHead, RoleSnapshot, TeamSnapshot};

use super::data::versions_of;
use crate::core::files::ProjectFiles;

use super::record::{FileVersion, LedgerRecord, MetaHead, SessionSettings, SessionStatus};

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
    /// How each new, changed or moved role changed, in the team's order.
    pub roles: Vec<RoleEdit>,
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

/// A change to a list of ids (the history, a role's list): it becomes its
/// first `keep` ids followed by `append`. A running team almost always
/// appends (`keep` is what was saved).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListEdit {
    pub keep: usize,
    pub append: Vec<MessageId>,
}

/// The history's edit.
pub type HistoryEdit = ListEdit;

impl ListEdit {
    /// The edit from `saved` to `cur` (its items read as ids by `id`),
    /// `None` when they are equal. One pass over their common prefix,
    /// without allocating; only the new end is copied.
    pub fn between<T>(saved: &[MessageId], cur: &[T], id: impl Fn(&T) -> MessageId) -> Option<Self> {
        let keep = saved.iter().zip(cur).take_while(|(s, c)| **s == id(c)).count();
        (keep != saved.len() || keep != cur.len()).then(|| ListEdit { keep, append: cur[keep..].iter().map(id).collect() })
    }

    /// Applies it to `list` (which must hold `keep` ids at least).
    pub fn apply(&self, list: &mut Vec<MessageId>) {
        list.truncate(self.keep);
        list.extend_from_slice(&self.append);
    }
}

/// How one role changed: where it stands in the team, its head when that
/// changed, and an edit per list that changed. A role the store does not
/// hold yet comes with its head, and its lists start from empty.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleEdit {
    /// Its place in the team's order.
    pub index: u32,
    pub name: String,
    /// Everything but its name and its lists (`None`: as saved).
    pub head: Option<RoleHead>,
    /// Per list, in [`RoleSnapshot::lists`]'s order (`None`: as saved).
    pub lists: [Option<ListEdit>; 4],
}

/// A role's place in the team's order, as stored.
pub(crate) fn role_index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl RoleEdit {
    /// `role`, new to the store, at `index` in the team.
    pub fn new_role(index: usize, role: &RoleSnapshot) -> Self {
        Self {
            index: role_index(index),
            name: role.name.clone(),
            head: Some(role.head().to_head()),
            lists: role.lists().map(|list| ListEdit::between(&[], list, |id| *id)),
        }
    }

    /// The change from `saved`, which stood at `saved_index`, to `cur` at
    /// `index` (`None`: none).
    pub fn between(saved_index: usize, saved: &RoleSnapshot, index: usize, cur: &RoleSnapshot) -> Option<Self> {
        let head = (saved.head() != cur.head()).then(|| cur.head().to_head());
        let (old, new) = (saved.lists(), cur.lists());
        let lists: [Option<ListEdit>; 4] = std::array::from_fn(|k| ListEdit::between(old[k], new[k], |id| *id));
        (saved_index != index || head.is_some() || lists.iter().any(Option::is_some))
            .then(|| Self { index: role_index(index), name: cur.name.clone(), head, lists })
    }

    /// `saved` (`None`: the store holds no such role) with it applied;
    /// `None` when the role is not saved and it brings no head.
    pub fn applied(&self, saved: Option<RoleSnapshot>) -> Option<RoleSnapshot> {
        let mut role = match (saved, &self.head) {
            (Some(role), _) => role,
            (None, Some(head)) => RoleSnapshot::from_parts(self.name.clone(), head.clone(), Default::default()),
            (None, None) => return None,
        };
        self.apply(&mut role);
        Some(role)
    }

    /// Applies it to `role`, the same role as saved.
    pub fn apply(&self, role: &mut RoleSnapshot) {
        if let Some(head) = &self.head {
            role.set_head(head.clone());
        }
        for (edit, list) in self.lists.iter().zip(role.lists_mut()) {
            if let Some(edit) = edit {
                edit.apply(list);
            }
        }
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
        batch.history = ListEdit::between(prev.map_or(&[][..], |p| &p.history), &cur.history, |id| *id);
        let ledger = LedgerRecord::of(&cur.ledger);
        if prev.map(|p| LedgerRecord::of(&p.ledger)).as_ref() != Some(&ledger) {
            batch.ledger = Some(ledger);
        }

        let known: HashSet<MessageId> = prev.map(|p| p.messages.iter().map(|m| m.id).collect()).unwrap_or_default();
        batch.messages = cur.messages.iter().filter(|m| !known.contains(&m.id)).cloned().collect();

        let before: LiteMap<&str, (usize, &RoleSnapshot)> = prev
            .map(|p| p.roles.iter().enumerate().map(|(i, r)| (r.name.as_str(), (i, r))).collect())
            .unwrap_or_default();
        for (i, role) in cur.roles.iter().enumerate() {
            let edit = match before.get(role.name.as_str()) {
                Some(&(j, saved)) => RoleEdit::between(j, saved, i, role),
                None => Some(RoleEdit::new_role(i, role)),
            };
            batch.roles.extend(edit);
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
            project: snapshot.project.clone(),
        }
    }
}
