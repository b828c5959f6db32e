//! `Tracker`: what a session's store holds of a running team, kept in
//! memory so each checkpoint hands the store only what changed since,
//! read straight from the live team (a [`Frame`]) without composing a
//! snapshot or diffing two of them. A checkpoint then costs in proportion
//! to the change (plus one pass over the roles' ids), not to the session:
//! the messages already saved are known by id, each role by its saved
//! record, whose lists are compared with the live ones in place (nothing
//! copied but their new ends), the files by their saved versions.
//!
//! It computes the same batch as `Batch::between(saved, compose(frame))`,
//! messages in id order (`checkpoint::tests` checks it at every checkpoint
//! of whole team runs), with two shortcuts for what only grows in a
//! running team: the cost ledger's saved entries are checked by their
//! count and the last one, and so is the history (the post office only
//! appends to it; a restored team gets a new tracker), not compared one by
//! one.

use crate::core::cost::CostEntry;
use std::collections::HashSet;
use crate::core::files::ProjectFiles;
use crate::core::message::{MessageId, MessageRef};
use crate::core::snapshot::{Frame, RoleSnapshot, TeamSnapshot};

use super::batch::{diff_files, role_index, Batch, HistoryEdit, ListEdit, RoleEdit};
use super::record::{LedgerRecord, MetaHead};

/// What the store holds of one session's team.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    meta: Option<MetaHead>,
    ledger: Option<LedgerRecord>,
    costs: usize,
    last_cost: Option<CostEntry>,
    history: Vec<MessageId>,
    /// In the team's order (a role's place is its index).
    roles: Vec<RoleSnapshot>,
    messages: Ids,
    files: ProjectFiles,
}

/// The ids of the messages already saved.
type Ids = HashSet<MessageId>;

/// A batch, and what the tracker learns once it is committed.
#[derive(Debug)]
pub struct Changes {
    pub batch: Batch,
    pub pending: Pending,
}

/// What the store will hold once a batch is committed: the batch's
/// changes, kept to be applied to what the tracker holds.
#[derive(Debug)]
pub struct Pending {
    meta: Option<MetaHead>,
    ledger: Option<LedgerRecord>,
    costs: (usize, Option<CostEntry>),
    history: Option<HistoryEdit>,
    roles: Vec<RoleEdit>,
    roles_removed: Vec<String>,
    messages: Vec<MessageId>,
    files: Option<ProjectFiles>,
}

impl Tracker {
    /// The store holds `saved` (`SessionData::snapshot` after a load), or
    /// nothing yet.
    pub fn new(saved: Option<&TeamSnapshot>) -> Self {
        let Some(s) = saved else { return Self::default() };
        Self {
            meta: Some(MetaHead::of(s)),
            ledger: Some(LedgerRecord::of(&s.ledger)),
            costs: s.ledger.entries().len(),
            last_cost: s.ledger.entries().last().cloned(),
            history: s.history.clone(),
            roles: s.roles.clone(),
            messages: s.messages.iter().map(|m| m.id).collect(),
            files: s.files.clone(),
        }
    }

    /// What to commit to bring the store to `frame`.
    pub fn changes(&self, frame: &Frame) -> Changes {
        let mut batch = Batch::default();
        let mut fresh = Ids::default();
        let mut add_new = |list: &[MessageRef], batch: &mut Batch| {
            for m in list {
                if !self.messages.contains(&m.id) && fresh.insert(m.id) {
                    batch.messages.push((**m).clone());
                }
            }
        };

        let meta = MetaHead {
            idea: frame.idea.to_string(),
            round: frame.round,
            ids: frame.ids.clone(),
            experience: frame.experience.clone(),
            project: frame.project.clone(),
        };
        let meta = (self.meta.as_ref() != Some(&meta)).then_some(meta);
        batch.meta = meta.clone();
        let ledger = LedgerRecord::of(frame.ledger);
        let ledger = (self.ledger.as_ref() != Some(&ledger)).then_some(ledger);
        batch.ledger = ledger.clone();

        batch.history = self.history_edit(frame.history);
        if let Some(edit) = &batch.history {
            add_new(&frame.history[edit.keep..], &mut batch);
        }

        for (i, live) in frame.roles.iter().enumerate() {
            // The saved role of that name: at the same place, unless the
            // team's roles moved.
            let at = match self.roles.get(i) {
                Some(saved) if saved.name == live.name => Some(i),
                _ => self.roles.iter().position(|saved| saved.name == live.name),
            };
            let lists = live.lists();
            let edit = match at.map(|j| (j, &self.roles[j])) {
                Some((j, saved)) => {
                    let head = (saved.head() != live.head()).then(|| live.head().to_head());
                    let old = saved.lists();
                    let edits: [Option<ListEdit>; 4] = std::array::from_fn(|k| ListEdit::between(old[k], lists[k], |m| m.id));
                    (j != i || head.is_some() || edits.iter().any(Option::is_some))
                        .then(|| RoleEdit { index: role_index(i), name: live.name.to_string(), head, lists: edits })
                }
                None => Some(RoleEdit {
                    index: role_index(i),
                    name: live.name.to_string(),
                    head: Some(live.head().to_head()),
                    lists: lists.map(|list| ListEdit::between(&[], list, |m| m.id)),
                }),
            };
            if let Some(edit) = edit {
                // What the saved lists already pointed to is saved: only
                // their new ends are looked at.
                for (list, e) in lists.iter().zip(&edit.lists) {
                    if let Some(e) = e {
                        add_new(&list[e.keep..], &mut batch);
                    }
                }
                batch.roles.push(edit);
            }
        }
        batch.roles_removed = self
            .roles
            .iter()
            .filter(|saved| !frame.roles.iter().any(|r| r.name == saved.name))
            .map(|r| r.name.clone())
            .collect();
        batch.roles_removed.sort_unstable();
        batch.messages.sort_unstable_by_key(|m| m.id);

        diff_files(Some(&self.files), frame.files, &mut batch);
        let files = (!batch.files.is_empty() || !batch.files_removed.is_empty()).then(|| frame.files.clone());

        let entries = frame.ledger.entries();
        let kept = self.costs <= entries.len() && (self.costs == 0 || entries.get(self.costs - 1) == self.last_cost.as_ref());
        if kept {
            batch.costs = entries[self.costs..].to_vec();
        } else {
            batch.costs_replaced = true;
            batch.costs = entries.to_vec();
        }
        let costs = (entries.len(), entries.last().cloned());

        let pending = Pending {
            meta,
            ledger,
            costs,
            history: batch.history.clone(),
            roles: batch.roles.clone(),
            roles_removed: batch.roles_removed.clone(),
            messages: batch.messages.iter().map(|m| m.id).collect(),
            files,
        };
        Changes { batch, pending }
    }

    /// How the history changed: the saved ids and their new end when the
    /// live history is at least as long and holds the last saved id where
    /// it was saved (it only grows), else compared id by id.
    fn history_edit(&self, live: &[MessageRef]) -> Option<HistoryEdit> {
        let n = self.history.len();
        let grown = live.len() >= n && (n == 0 || live[n - 1].id == self.history[n - 1]);
        if grown {
            (live.len() > n).then(|| ListEdit { keep: n, append: live[n..].iter().map(|m| m.id).collect() })
        } else {
            ListEdit::between(&self.history, live, |m| m.id)
        }
    }

    /// The batch `pending` came with is in the store now.
    pub fn committed(&mut self, pending: Pending) {
        if let Some(meta) = pending.meta {
            self.meta = Some(meta);
        }
        if let Some(ledger) = pending.ledger {
            self.ledger = Some(ledger);
        }
        (self.costs, self.last_cost) = pending.costs;
        if let Some(edit) = &pending.history {
            edit.apply(&mut self.history);
        }
        let in_place = pending.roles_removed.is_empty()
            && pending.roles.iter().all(|e| self.roles.get(e.index as usize).is_some_and(|r| r.name == e.name));
        if in_place {
            for edit in &pending.roles {
                edit.apply(&mut self.roles[edit.index as usize]);
            }
        } else {
            // Roles gone, new or moved: each keeps its place unless the
            // batch gives it another.
            let mut roles: Vec<(u32, RoleSnapshot)> = std::mem::take(&mut self.roles)
                .into_iter()
                .enumerate()
                .filter(|(_, r)| !pending.roles_removed.contains(&r.name))
                .map(|(i, r)| (role_index(i), r))
                .collect();
            for edit in &pending.roles {
                match roles.iter().position(|(_, r)| r.name == edit.name) {
                    Some(at) => {
                        edit.apply(&mut roles[at].1);
                        roles[at].0 = edit.index;
                    }
                    // A role new to the store always brings its head.
                    None => roles.extend(edit.applied(None).map(|r| (edit.index, r))),
                }
            }
            roles.sort_unstable_by_key(|(i, _)| *i);
            self.roles = roles.into_iter().map(|(_, r)| r).collect();
        }
        self.messages.extend(pending.messages);
        if let Some(files) = pending.files {
            self.files = files;
        }
    }
}
