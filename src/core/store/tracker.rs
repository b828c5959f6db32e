//! `Tracker`: what a session's store holds of a running team, kept in
//! memory so each checkpoint hands the store only what changed since,
//! read straight from the live team (a [`Frame`]) without composing a
//! snapshot or diffing two of them. A checkpoint then costs in proportion
//! to the change (plus a pass over ids), not to the session: the messages
//! already saved are known by id, the history by the ids saved, the cost
//! entries by their count, each role by its saved record, the files by
//! their saved versions.
//!
//! It computes the same batch as `Batch::between(saved, compose(frame))`,
//! messages in id order (`tracker_tests` checks it over whole team runs),
//! with one shortcut: the cost ledger only grows, so its saved entries are
//! checked by their count and the last one, not compared one by one.

use crate::core::cost::CostEntry;
use crate::core::fast_hash::FastSet;
use crate::core::files::ProjectFiles;
use crate::core::message::{MessageId, MessageRef};
use crate::core::snapshot::{Frame, RoleSnapshot, TeamSnapshot};

use super::batch::{diff_files, Batch, HistoryEdit};
use super::record::{LedgerRecord, MetaHead, RoleRecord};

/// What the store holds of one session's team.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    meta: Option<MetaHead>,
    ledger: Option<LedgerRecord>,
    costs: usize,
    last_cost: Option<CostEntry>,
    history: Vec<MessageId>,
    roles: Vec<RoleSnapshot>,
    messages: Ids,
    files: ProjectFiles,
}

/// Message ids, by the core's fast hasher (ids come from the team's own
/// counter, so SipHash's flood resistance buys nothing here).
type Ids = FastSet<MessageId>;

/// How many leading ids of `list` are `saved`'s.
fn common_prefix(saved: &[MessageId], list: &[MessageId]) -> usize {
    saved.iter().zip(list).take_while(|(a, b)| a == b).count()
}

/// `a == b`, the cheap differences first: the lists' lengths before
/// their contents (a role's buffer changes on every message it is sent,
/// while its memory, thousands of ids long, mostly does not).
fn same_role(a: &RoleSnapshot, b: &RoleSnapshot) -> bool {
    // Every field named: a new one must be compared here too.
    let RoleSnapshot { name, memory: _, working_memory: _, buffer: _, news: _, state, latest_observed, pending, progress, plan, journal } = a;
    let (la, lb) = (a.lists(), b.lists());
    la.iter().zip(&lb).all(|(x, y)| x.len() == y.len())
        && *state == b.state
        && *latest_observed == b.latest_observed
        && *pending == b.pending
        && *name == b.name
        && *progress == b.progress
        && *plan == b.plan
        && *journal == b.journal
        && la == lb
}

/// A batch, and what the tracker learns once it is committed.
#[derive(Debug)]
pub struct Changes {
    pub batch: Batch,
    pub pending: Pending,
}

/// What the store will hold once a batch is committed.
#[derive(Debug)]
pub struct Pending {
    meta: Option<MetaHead>,
    ledger: Option<LedgerRecord>,
    costs: (usize, Option<CostEntry>),
    history: Option<HistoryEdit>,
    roles: Vec<RoleSnapshot>,
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
        };
        let meta = (self.meta.as_ref() != Some(&meta)).then_some(meta);
        batch.meta = meta.clone();
        let ledger = LedgerRecord::of(frame.ledger);
        let ledger = (self.ledger.as_ref() != Some(&ledger)).then_some(ledger);
        batch.ledger = ledger.clone();

        batch.history = HistoryEdit::between(&self.history, frame.history.iter().map(|m| m.id));
        if let Some(edit) = &batch.history {
            add_new(&frame.history[edit.keep..], &mut batch);
        }

        let roles: Vec<RoleSnapshot> = frame.roles.iter().map(|r| r.snapshot()).collect();
        for (i, (role, live)) in roles.iter().zip(&frame.roles).enumerate() {
            if !self.roles.get(i).is_some_and(|saved| same_role(saved, role)) {
                batch.roles.push(RoleRecord { index: u32::try_from(i).unwrap_or(u32::MAX), role: role.clone() });
                // What the saved record already pointed to is saved: only
                // the lists' new ends are looked at (memories only grow).
                let saved = self.roles.get(i).filter(|r| r.name == role.name);
                let ids = role.lists();
                for (k, list) in live.lists().into_iter().enumerate() {
                    let from = saved.map_or(0, |saved| common_prefix(saved.lists()[k], ids[k]));
                    add_new(&list[from..], &mut batch);
                }
            }
        }
        batch.roles_removed = self
            .roles
            .iter()
            .filter(|saved| !roles.iter().any(|r| r.name == saved.name))
            .map(|r| r.name.clone())
            .collect();
        crate::core::sort::sort_by(&mut batch.roles_removed, Ord::cmp);
        crate::core::sort::sort_by_key(&mut batch.messages, |m| m.id);

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
            roles,
            messages: batch.messages.iter().map(|m| m.id).collect(),
            files,
        };
        Changes { batch, pending }
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
        self.roles = pending.roles;
        self.messages.extend(pending.messages);
        if let Some(files) = pending.files {
            self.files = files;
        }
    }
}
