//! Saving a team at any moment and restoring it to continue exactly where it
//! was.
//!
//! A snapshot holds every message once, in a table, and everything else
//! (history, each role's memory, working memory, buffer, news) as ids into
//! it: a message delivered to fifty roles is saved once. Role specs and
//! actions are code, not data: a snapshot is restored into a team built by
//! the same recipe, and roles are matched by name. MetaGPT saves only on a
//! crash, drops unconsumed buffers and the cost; this saves all of them.

use std::cell::{Ref, RefCell};
use std::collections::HashMap;

use litemap::LiteMap;
use std::ops::Deref;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::cost::CostLedger;
use super::experience::ExperiencePool;
use super::files::ProjectFiles;
use super::message::{IdSource, Message, MessageId, MessageRef};
use super::gate::{CallJournal, JournalEntry};
use super::plan::Plan;
use super::post::PostOffice;
use super::role::{ReactProgress, RoleState};
use super::versions::ProjectLog;

/// Bumped whenever the saved shape changes; `restore` migrates older ones.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamSnapshot {
    pub schema_version: u32,
    pub idea: String,
    pub round: u32,
    pub ids: IdSource,
    pub ledger: CostLedger,
    /// Every message referenced below, by id order.
    pub messages: Vec<Message>,
    pub history: Vec<MessageId>,
    pub roles: Vec<RoleSnapshot>,
    /// The project's files with their versions.
    #[serde(default)]
    pub files: ProjectFiles,
    /// What the team learnt this run (RoleZero's examples in later prompts).
    #[serde(default)]
    pub experience: ExperiencePool,
    /// The project's versions (absent in sessions saved before them).
    #[serde(default)]
    pub project: ProjectLog,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleSnapshot {
    pub name: String,
    pub memory: Vec<MessageId>,
    pub working_memory: Vec<MessageId>,
    pub buffer: Vec<MessageId>,
    pub news: Vec<MessageId>,
    pub state: i32,
    pub latest_observed: Option<MessageId>,
    pub pending: bool,
    pub progress: ReactProgress,
    pub plan: Plan,
    /// Answers of finished calls of the pending reaction (replayed on resume).
    #[serde(default)]
    pub journal: Vec<JournalEntry>,
}

impl RoleSnapshot {
    /// A role from its name, its head and its four lists (in
    /// [`RoleSnapshot::lists`]'s order).
    pub fn from_parts(name: String, head: RoleHead, lists: [Vec<MessageId>; 4]) -> Self {
        let RoleHead { state, latest_observed, pending, progress, plan, journal } = head;
        let [memory, working_memory, buffer, news] = lists;
        Self { name, memory, working_memory, buffer, news, state, latest_observed, pending, progress, plan, journal }
    }

    /// Every list of messages it points into, in [`RoleFrame::lists`]'s order.
    pub fn lists(&self) -> [&[MessageId]; 4] {
        [&self.memory, &self.working_memory, &self.buffer, &self.news]
    }

    /// The same lists, to change in place.
    pub fn lists_mut(&mut self) -> [&mut Vec<MessageId>; 4] {
        [&mut self.memory, &mut self.working_memory, &mut self.buffer, &mut self.news]
    }

    /// Everything but its name and its lists, borrowed.
    pub fn head(&self) -> HeadView<'_> {
        // Every field named: a new one must be placed in the head or the lists.
        let RoleSnapshot { name: _, memory: _, working_memory: _, buffer: _, news: _, state, latest_observed, pending, progress, plan, journal } =
            self;
        HeadView { state: *state, latest_observed: *latest_observed, pending: *pending, progress, plan, journal }
    }

    /// Replaces everything but its name and its lists.
    pub fn set_head(&mut self, head: RoleHead) {
        let RoleHead { state, latest_observed, pending, progress, plan, journal } = head;
        (self.state, self.latest_observed, self.pending, self.progress, self.plan, self.journal) =
            (state, latest_observed, pending, progress, plan, journal);
    }
}

/// A role's saved state but its name and its four lists: what a store
/// rewrites when it changes, while the lists change at their ends.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleHead {
    pub state: i32,
    pub latest_observed: Option<MessageId>,
    pub pending: bool,
    pub progress: ReactProgress,
    pub plan: Plan,
    pub journal: Vec<JournalEntry>,
}

/// A [`RoleHead`] borrowed (from a snapshot or a live role), so two are
/// compared without copying either; the cheap fields are compared first.
#[derive(Debug, PartialEq)]
pub struct HeadView<'a> {
    pub state: i32,
    pub latest_observed: Option<MessageId>,
    pub pending: bool,
    pub progress: &'a ReactProgress,
    pub plan: &'a Plan,
    pub journal: &'a [JournalEntry],
}

impl HeadView<'_> {
    pub fn to_head(&self) -> RoleHead {
        RoleHead {
            state: self.state,
            latest_observed: self.latest_observed,
            pending: self.pending,
            progress: self.progress.clone(),
            plan: self.plan.clone(),
            journal: self.journal.to_vec(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SnapshotError {
    #[error("this session was saved by a newer tabteam (schema {found}, this one reads up to {SCHEMA_VERSION})")]
    TooNew { found: u32 },
    #[error("the saved team has a role \"{0}\" that this team does not")]
    UnknownRole(String),
    #[error("the saved team refers to message {0}, which is not in the saved messages")]
    MissingMessage(MessageId),
}

/// The team as it stands, borrowed: the team-level parts and each role's
/// lists as the live `MessageRef`s. `compose` turns it into a snapshot;
/// the store's `Tracker` diffs it against what was saved without composing
/// one (a checkpoint's cost then follows the change, not the session).
pub struct Frame<'a> {
    pub idea: &'a str,
    pub round: u32,
    pub ids: &'a IdSource,
    pub ledger: &'a CostLedger,
    pub history: &'a [MessageRef],
    pub files: &'a ProjectFiles,
    pub experience: &'a ExperiencePool,
    pub project: &'a ProjectLog,
    pub roles: Vec<RoleFrame<'a>>,
}

/// One role in a [`Frame`], borrowed: nothing of it is copied until it
/// is saved.
pub struct RoleFrame<'a> {
    pub name: &'a str,
    pub memory: &'a [MessageRef],
    pub working_memory: &'a [MessageRef],
    pub buffer: &'a [MessageRef],
    pub news: &'a [MessageRef],
    pub state: i32,
    pub latest_observed: Option<MessageId>,
    pub pending: bool,
    pub progress: &'a ReactProgress,
    pub plan: Held<'a, Plan>,
    pub journal: Held<'a, [JournalEntry]>,
}

/// A part of a [`RoleFrame`] read in place: from a live role's cell
/// (borrowed while the frame lives) or from a snapshot.
pub enum Held<'a, T: ?Sized + 'a> {
    Cell(Ref<'a, T>),
    Plain(&'a T),
}

impl<T: ?Sized> Deref for Held<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Held::Cell(r) => r,
            Held::Plain(r) => r,
        }
    }
}

/// The parts a running team shares with its checkpoints (both read them
/// live when they make a [`Frame`]).
#[derive(Clone)]
pub(crate) struct TeamParts {
    pub post: Rc<RefCell<PostOffice>>,
    pub ids: Rc<RefCell<IdSource>>,
    pub ledger: Rc<RefCell<CostLedger>>,
    pub files: Rc<RefCell<ProjectFiles>>,
    pub experience: Rc<RefCell<ExperiencePool>>,
    pub project: Rc<RefCell<ProjectLog>>,
}

impl TeamParts {
    /// `f` over the frame of these parts with `idea`, `round` and `roles`
    /// (each role's name and state), borrowed: no snapshot is made.
    pub(crate) fn with_frame<'r, R>(
        &self,
        idea: &str,
        round: u32,
        roles: impl Iterator<Item = (&'r str, &'r RoleState)>,
        f: impl FnOnce(&Frame) -> R,
    ) -> R {
        let (ids, ledger, post, files, experience, project) = (
            self.ids.borrow(),
            self.ledger.borrow(),
            self.post.borrow(),
            self.files.borrow(),
            self.experience.borrow(),
            self.project.borrow(),
        );
        let frame = Frame {
            idea,
            round,
            ids: &ids,
            ledger: &ledger,
            history: post.history(),
            files: &files,
            experience: &experience,
            project: &project,
            roles: roles.map(|(name, state)| RoleFrame::of(name, state, &post)).collect(),
        };
        f(&frame)
    }
}

impl<'a> RoleFrame<'a> {
    /// A role's captured (or live) state, with its buffer from `post`.
    pub(crate) fn of(name: &'a str, state: &'a RoleState, post: &'a PostOffice) -> Self {
        Self {
            name,
            memory: state.memory.all(),
            working_memory: state.working_memory.all(),
            buffer: post.buffered_messages(name),
            news: &state.news,
            state: state.state,
            latest_observed: state.latest_observed,
            pending: state.pending,
            progress: &state.progress,
            plan: Held::Cell(state.plan.borrow()),
            journal: Held::Cell(Ref::map(state.journal.borrow(), CallJournal::entries)),
        }
    }

    /// The saved form: the lists as ids.
    pub fn snapshot(&self) -> RoleSnapshot {
        let ids = |list: &[MessageRef]| list.iter().map(|m| m.id).collect();
        RoleSnapshot::from_parts(self.name.to_string(), self.head().to_head(), self.lists().map(ids))
    }

    /// Everything but its name and its lists, borrowed.
    pub fn head(&self) -> HeadView<'_> {
        HeadView {
            state: self.state,
            latest_observed: self.latest_observed,
            pending: self.pending,
            progress: self.progress,
            plan: &self.plan,
            journal: &self.journal,
        }
    }

    /// Every list of messages it points into.
    pub fn lists(&self) -> [&'a [MessageRef]; 4] {
        [self.memory, self.working_memory, self.buffer, self.news]
    }
}

/// A snapshot's lists as shared messages again, so a [`Frame`] can borrow
/// them (for diffing a snapshot that was handed over whole).
pub struct OwnedFrame {
    history: Vec<MessageRef>,
    roles: Vec<[Vec<MessageRef>; 4]>,
}

impl OwnedFrame {
    /// `MissingMessage` if a list points past the snapshot's messages.
    pub fn of(snapshot: &TeamSnapshot) -> Result<Self, SnapshotError> {
        let table: HashMap<MessageId, MessageRef> = snapshot.messages.iter().map(|m| (m.id, Rc::new(m.clone()))).collect();
        let resolve = |ids: &[MessageId]| -> Result<Vec<MessageRef>, SnapshotError> {
            ids.iter().map(|id| table.get(id).cloned().ok_or(SnapshotError::MissingMessage(*id))).collect()
        };
        let history = resolve(&snapshot.history)?;
        let roles = snapshot
            .roles
            .iter()
            .map(|r| Ok([resolve(&r.memory)?, resolve(&r.working_memory)?, resolve(&r.buffer)?, resolve(&r.news)?]))
            .collect::<Result<_, SnapshotError>>()?;
        Ok(Self { history, roles })
    }

    pub fn frame<'a>(&'a self, snapshot: &'a TeamSnapshot) -> Frame<'a> {
        Frame {
            idea: &snapshot.idea,
            round: snapshot.round,
            ids: &snapshot.ids,
            ledger: &snapshot.ledger,
            history: &self.history,
            files: &snapshot.files,
            experience: &snapshot.experience,
            project: &snapshot.project,
            roles: snapshot
                .roles
                .iter()
                .zip(&self.roles)
                .map(|(r, [memory, working, buffer, news])| RoleFrame {
                    name: &r.name,
                    memory,
                    working_memory: working,
                    buffer,
                    news,
                    state: r.state,
                    latest_observed: r.latest_observed,
                    pending: r.pending,
                    progress: &r.progress,
                    plan: Held::Plain(&r.plan),
                    journal: Held::Plain(&r.journal),
                })
                .collect(),
        }
    }
}

/// A snapshot of a frame (the live parts and the roles' states, live or as
/// a checkpoint captured them). Every message is kept once.
pub(crate) fn compose(frame: &Frame) -> TeamSnapshot {
    let mut table: LiteMap<MessageId, Message> = LiteMap::new();
    let mut ids_of = |list: &[MessageRef]| {
        for m in list {
            table.entry(m.id).or_insert_with(|| (**m).clone());
        }
    };
    ids_of(frame.history);
    for r in &frame.roles {
        for list in r.lists() {
            ids_of(list);
        }
    }
    TeamSnapshot {
        schema_version: SCHEMA_VERSION,
        idea: frame.idea.to_string(),
        round: frame.round,
        ids: frame.ids.clone(),
        ledger: frame.ledger.clone(),
        messages: table.into_tuple_vec().into_iter().map(|(_, m)| m).collect(),
        history: frame.history.iter().map(|m| m.id).collect(),
        roles: frame.roles.iter().map(RoleFrame::snapshot).collect(),
        files: frame.files.clone(),
        experience: frame.experience.clone(),
        project: frame.project.clone(),
    }
}
