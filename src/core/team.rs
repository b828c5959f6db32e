//! The team: hires roles into an environment, holds the budget, publishes
//! the idea and runs rounds until the work is done (MetaGPT's `Team`).
//!
//! It stops early and cleanly when every role is idle, when the budget would
//! be overrun by the next call (checked before every call, not only between
//! rounds as MetaGPT does), when a model has no price, when the user stops
//! it, or when every role that ran failed (or failed while the others have
//! nothing left to do). In each case nothing is lost: a
//! role whose reaction was cut short continues it on the next `run`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::checkpoint::{Checkpoints, Durable};
use super::cost::{BudgetError, CostLedger};
use super::environment::{Environment, RoundReport};
use super::gate::CallJournal;
use super::events::{EventSink, StopReason, TeamEvent};
use super::llm::{Llm, LlmError};
use super::memory::Memory;
use super::message::{Message, MessageId, MessageRef};
use super::role::Role;
use super::role_error::RoleError;
use super::snapshot::{compose, Frame, SnapshotError, TeamParts, TeamSnapshot, SCHEMA_VERSION};

/// MetaGPT's CLI default number of rounds.
pub const DEFAULT_ROUNDS: u32 = 5;

/// How a `run` ended.
#[derive(Debug)]
pub struct RunOutcome {
    pub rounds_run: u32,
    pub stop: StopReason,
    /// Every role failure of the run, by round.
    pub failures: Vec<(u32, String, RoleError)>,
}

pub struct Team {
    pub env: Environment,
    pub ledger: Rc<RefCell<CostLedger>>,
    pub idea: String,
    /// Rounds run so far, over every `run`.
    pub round: u32,
}

impl Team {
    /// A team in an environment described by `desc` (e.g. "a software
    /// company"), whose roles use `llm` unless they have their own.
    pub fn new(desc: &str, llm: Rc<dyn Llm>, events: EventSink) -> Self {
        let ledger = Rc::new(RefCell::new(CostLedger::default()));
        Self { env: Environment::new(desc, llm, ledger.clone(), events), ledger, idea: String::new(), round: 0 }
    }

    pub fn hire(&mut self, roles: impl IntoIterator<Item = Role>) {
        for role in roles {
            self.env.add_role(role);
        }
    }

    /// Keep the team durable from now on: before every model call and every
    /// question to the user, the team as it stands is handed to `durable`
    /// and the call waits until it is kept (see `checkpoint`). Call it once
    /// the roles are hired.
    pub fn keep_durable(&mut self, durable: Rc<dyn Durable>) {
        let checkpoints = Rc::new(Checkpoints::new(durable, self.parts()));
        checkpoints.capture_all(self.env.roles());
        checkpoints.set_team(&self.idea, self.round);
        self.env.world.checkpoints = Some(checkpoints);
    }

    /// Tell the checkpoints about a new idea or round.
    fn team_changed(&self) {
        if let Some(checkpoints) = &self.env.world.checkpoints {
            checkpoints.set_team(&self.idea, self.round);
        }
    }

    /// Set the budget in dollars.
    pub fn invest(&mut self, budget: f64) {
        self.ledger.borrow_mut().budget = budget;
    }

    /// Publish the idea as the user's requirement, to everyone.
    pub fn run_project(&mut self, idea: &str) -> MessageRef {
        self.run_project_message(Message::new(self.env.world.new_id(), idea))
    }

    /// As [`run_project`](Self::run_project), with the idea's message made
    /// by the caller (one with images in its metadata).
    pub fn run_project_message(&mut self, message: Message) -> MessageRef {
        self.idea = message.content.clone();
        self.team_changed();
        let message = Rc::new(message);
        self.env.publish(message.clone());
        message
    }

    /// Publish a message from the user (a follow-up, an answer).
    pub fn publish_user_message(&mut self, content: &str, send_to: &[&str]) -> MessageRef {
        let mut message = Message::new(self.env.world.new_id(), content);
        if !send_to.is_empty() {
            message = message.to(send_to.iter().copied());
        }
        let message = Rc::new(message);
        self.env.publish(message.clone());
        message
    }

    /// As [`publish_user_message`](Self::publish_user_message), written
    /// for the model on the person's behalf: their bubble says `shown`
    /// (nothing when it is empty).
    pub fn publish_user_message_shown(&mut self, content: &str, send_to: &[&str], shown: &str) -> MessageRef {
        self.publish_user_message_with(content, send_to, &[(super::message::SHOWN, shown)])
    }

    /// As [`publish_user_message`](Self::publish_user_message), with
    /// metadata (what the bubble says, images).
    pub fn publish_user_message_with(&mut self, content: &str, send_to: &[&str], meta: &[(&str, &str)]) -> MessageRef {
        let mut message = Message::new(self.env.world.new_id(), content);
        for (key, value) in meta {
            message = message.with_meta(*key, *value);
        }
        if !send_to.is_empty() {
            message = message.to(send_to.iter().copied());
        }
        let message = Rc::new(message);
        self.env.publish(message.clone());
        message
    }

    /// Run up to `n_round` rounds, stopping early as described above.
    pub async fn run(&mut self, n_round: u32) -> RunOutcome {
        let mut outcome = RunOutcome { rounds_run: 0, stop: StopReason::RoundsDone, failures: Vec::new() };
        let events = self.env.world.events.clone();
        for _ in 0..n_round {
            if self.env.is_idle() {
                outcome.stop = StopReason::Idle;
                break;
            }
            {
                let ledger = self.ledger.borrow();
                if ledger.is_exhausted() {
                    outcome.stop = StopReason::BudgetExhausted { spent: ledger.total().cost, budget: ledger.budget };
                    break;
                }
            }
            self.round += 1;
            self.team_changed();
            events.emit(TeamEvent::RoundStarted { round: self.round });
            let report = self.env.run_round().await;
            outcome.rounds_run += 1;
            events.emit(TeamEvent::RoundFinished { round: self.round });
            let stop = stop_after(&report).or_else(|| self.only_failed_left(&report));
            for (name, e) in report.failures {
                outcome.failures.push((self.round, name, e));
            }
            if let Some(stop) = stop {
                outcome.stop = stop;
                break;
            }
        }
        if outcome.stop == StopReason::RoundsDone && self.env.is_idle() {
            outcome.stop = StopReason::Idle;
        }
        events.emit(TeamEvent::Stopped { reason: outcome.stop.clone() });
        outcome
    }
}

impl Team {
    /// A round where a role failed and every other role is now idle ends
    /// the run: the next round would only make the failed call again at
    /// once (the same bubble twice, a round counted for nothing). A role
    /// that failed while others still work is tried again beside them.
    fn only_failed_left(&self, report: &RoundReport) -> Option<StopReason> {
        if report.failures.is_empty() {
            return None;
        }
        let post = self.env.world.post.borrow();
        let failed = |name: &str| report.failures.iter().any(|(n, _)| n == name);
        let others_idle = self.env.roles().iter().all(|r| failed(r.name()) || r.is_idle(&post));
        others_idle.then(|| StopReason::Failed { errors: report.failures.iter().map(|(n, e)| (n.clone(), e.to_string())).collect() })
    }
}

/// Whether a round's failures end the run, and why.
fn stop_after(report: &RoundReport) -> Option<StopReason> {
    for (name, e) in &report.failures {
        match e {
            // Nothing more may run while changes cannot be saved.
            RoleError::Storage(_) => return Some(StopReason::Failed { errors: vec![(name.clone(), e.to_string())] }),
            // Only the person can change the model: pause at once.
            RoleError::OffFormat { .. } | RoleError::SameErrorTwice { .. } => {
                return Some(StopReason::Failed { errors: vec![(name.clone(), e.to_string())] })
            }
            RoleError::Budget(BudgetError::Exhausted { spent, budget }) => {
                return Some(StopReason::BudgetExhausted { spent: *spent, budget: *budget })
            }
            RoleError::Budget(BudgetError::UnknownPrice { model }) => {
                return Some(StopReason::UnknownPrice { model: model.clone() })
            }
            #[cfg(feature = "site")]
            RoleError::Budget(BudgetError::CallLimit { calls }) => return Some(StopReason::CallLimit { calls: *calls }),
            RoleError::Llm(LlmError::Cancelled) => return Some(StopReason::Cancelled),
            _ => {}
        }
    }
    if !report.failures.is_empty() && report.failures.len() == report.ran.len() {
        return Some(StopReason::Failed {
            errors: report.failures.iter().map(|(n, e)| (n.clone(), e.to_string())).collect(),
        });
    }
    None
}

/// Saving and restoring the team (the snapshot's shape is in `snapshot`).
impl Team {
    /// Everything needed to continue this team later.
    pub fn snapshot(&self) -> TeamSnapshot {
        self.with_frame(compose)
    }

    /// `f` over the team as it stands, borrowed.
    pub fn with_frame<R>(&self, f: impl FnOnce(&Frame) -> R) -> R {
        let roles = self.env.roles().iter().map(|r| (r.name(), &r.state));
        self.parts().with_frame(&self.idea, self.round, roles, f)
    }

    /// The parts the team shares with its checkpoints.
    fn parts(&self) -> TeamParts {
        let world = &self.env.world;
        TeamParts {
            post: world.post.clone(),
            ids: world.ids.clone(),
            ledger: self.ledger.clone(),
            files: world.files.clone(),
            experience: world.experience.clone(),
            project: world.project.clone(),
        }
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
            role.state.journal = Rc::new(RefCell::new(CallJournal::from_entries(r.journal)));
        }
        self.env.world.post.borrow_mut().restore(history, buffers);
        *self.env.world.ids.borrow_mut() = snapshot.ids;
        *self.env.world.files.borrow_mut() = snapshot.files;
        *self.env.world.experience.borrow_mut() = snapshot.experience;
        *self.env.world.project.borrow_mut() = snapshot.project;
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
