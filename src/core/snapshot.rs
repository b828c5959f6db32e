//! Saving a team at any moment and restoring it to continue exactly where it
//! was.
//!
//! A snapshot holds every message once, in a table, and everything else
//! (history, each role's memory, working memory, buffer, news) as ids into
//! it: a message delivered to fifty roles is saved once. Role specs and
//! actions are code, not data: a snapshot is restored into a team built by
//! the same recipe, and roles are matched by name. MetaGPT saves only on a
//! crash, drops unconsumed buffers and the cost; this saves all of them.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::cost::CostLedger;
use super::experience::ExperiencePool;
use super::files::ProjectFiles;
use super::memory::Memory;
use super::message::{IdSource, Message, MessageId, MessageRef};
use super::gate::{CallJournal, JournalEntry};
use super::plan::Plan;
use super::post::PostOffice;
use super::role::{ReactProgress, RoleState};
use super::team::Team;

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

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SnapshotError {
    #[error("this session was saved by a newer tabteam (schema {found}, this one reads up to {SCHEMA_VERSION})")]
    TooNew { found: u32 },
    #[error("the saved team has a role \"{0}\" that this team does not")]
    UnknownRole(String),
    #[error("the saved team refers to message {0}, which is not in the saved messages")]
    MissingMessage(MessageId),
}

/// A snapshot of the team-level parts and the roles' states (the live ones,
/// or the ones a checkpoint captured). Every message is kept once.
pub(crate) fn compose<'a>(
    idea: &str,
    round: u32,
    ids: &IdSource,
    ledger: &CostLedger,
    post: &PostOffice,
    files: &ProjectFiles,
    experience: &ExperiencePool,
    roles: impl Iterator<Item = (&'a str, &'a RoleState)>,
) -> TeamSnapshot {
    let mut table: BTreeMap<MessageId, Message> = BTreeMap::new();
    let mut ids_of = |list: &[MessageRef]| -> Vec<MessageId> {
        list.iter()
            .map(|m| {
                table.entry(m.id).or_insert_with(|| (**m).clone());
                m.id
            })
            .collect()
    };
    let history = ids_of(post.history());
    let roles = roles
        .map(|(name, state)| RoleSnapshot {
            name: name.to_string(),
            memory: ids_of(state.memory.all()),
            working_memory: ids_of(state.working_memory.all()),
            buffer: ids_of(&post.peek(name)),
            news: ids_of(&state.news),
            state: state.state,
            latest_observed: state.latest_observed,
            pending: state.pending,
            progress: state.progress.clone(),
            plan: state.plan.borrow().clone(),
            journal: state.journal.borrow().entries().to_vec(),
        })
        .collect();
    TeamSnapshot {
        schema_version: SCHEMA_VERSION,
        idea: idea.to_string(),
        round,
        ids: ids.clone(),
        ledger: ledger.clone(),
        messages: table.into_values().collect(),
        history,
        roles,
        files: files.clone(),
        experience: experience.clone(),
    }
}

impl Team {
    /// Everything needed to continue this team later.
    pub fn snapshot(&self) -> TeamSnapshot {
        let world = &self.env.world;
        compose(
            &self.idea,
            self.round,
            &world.ids.borrow(),
            &self.ledger.borrow(),
            &world.post.borrow(),
            &world.files.borrow(),
            &world.experience.borrow(),
            self.env.roles().iter().map(|r| (r.name(), &r.state)),
        )
    }

    /// Continue from `snapshot`. The team must have been built by the same
    /// recipe (same role names); its state is replaced wholesale.
    pub fn restore(&mut self, snapshot: TeamSnapshot) -> Result<(), SnapshotError> {
        if snapshot.schema_version > SCHEMA_VERSION {
            return Err(SnapshotError::TooNew { found: snapshot.schema_version });
        }
        for r in &snapshot.roles {
            if self.env.role(&r.name).is_none() {
                return Err(SnapshotError::UnknownRole(r.name.clone()));
            }
        }
        let table: HashMap<MessageId, MessageRef> = snapshot.messages.into_iter().map(|m| (m.id, Rc::new(m))).collect();
        let resolve = |ids: &[MessageId]| -> Result<Vec<MessageRef>, SnapshotError> {
            ids.iter().map(|id| table.get(id).cloned().ok_or(SnapshotError::MissingMessage(*id))).collect()
        };
        let history = resolve(&snapshot.history)?;
        let mut buffers = Vec::new();
        for r in snapshot.roles {
            let mut memory = Memory::default();
            memory.add_batch(resolve(&r.memory)?);
            let mut working_memory = Memory::default();
            working_memory.add_batch(resolve(&r.working_memory)?);
            let news = resolve(&r.news)?;
            buffers.push((r.name.clone(), resolve(&r.buffer)?));
            let role = self.env.role_mut(&r.name).ok_or_else(|| SnapshotError::UnknownRole(r.name.clone()))?;
            role.state.memory = memory;
            role.state.working_memory = working_memory;
            role.state.news = news;
            role.state.state = r.state;
            role.state.latest_observed = r.latest_observed;
            role.state.pending = r.pending;
            role.state.progress = r.progress;
            *role.state.plan.borrow_mut() = r.plan;
            role.state.journal = Rc::new(std::cell::RefCell::new(CallJournal::from_entries(r.journal)));
        }
        self.env.world.post.borrow_mut().restore(history, buffers);
        *self.env.world.ids.borrow_mut() = snapshot.ids;
        *self.env.world.files.borrow_mut() = snapshot.files;
        *self.env.world.experience.borrow_mut() = snapshot.experience;
        *self.ledger.borrow_mut() = snapshot.ledger;
        self.idea = snapshot.idea;
        self.round = snapshot.round;
        if let Some(checkpoints) = &self.env.world.checkpoints {
            checkpoints.capture_all(self.env.roles());
            checkpoints.set_team(&self.idea, self.round);
        }
        Ok(())
    }
}
