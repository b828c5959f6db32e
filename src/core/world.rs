//! `World`: everything a role shares with the rest of the team while it
//! runs (post office, ids, ledger, events, the team's model, files, the
//! person, the experience pool, the project log, write-through, sandbox and
//! host tools), handed to each role for the round.
//!
//! Roles never touch each other: they meet only here. The world owns
//! nothing a role keeps for itself (that is `RoleState`).

use std::cell::RefCell;
use std::rc::Rc;

use super::checkpoint::Checkpoints;
use super::commands::host::HostTools;
use super::cost::CostLedger;
use super::events::EventSink;
use super::experience::ExperiencePool;
use super::files::ProjectFiles;
use super::human::Human;
use super::llm::Llm;
use super::message::{IdSource, MessageId};
use super::post::PostOffice;
use super::sandbox::Sandbox;
use super::versions::ProjectLog;
use super::window::WindowTable;

/// Everything a role shares with the rest of the team while it runs.
pub struct World {
    pub post: Rc<RefCell<PostOffice>>,
    pub ids: Rc<RefCell<IdSource>>,
    pub ledger: Rc<RefCell<CostLedger>>,
    pub events: EventSink,
    /// The model roles use unless they have their own.
    pub llm: Rc<dyn Llm>,
    /// The environment's description, for role prefixes.
    pub env_desc: String,
    /// The project's files, written by the roles (the team's artifacts).
    pub files: Rc<RefCell<ProjectFiles>>,
    /// The user, for questions and replies.
    pub human: Rc<dyn Human>,
    /// Past runs' requests and the commands that worked (RoleZero's examples).
    pub experience: Rc<RefCell<ExperiencePool>>,
    /// The project's versions and what the person did between requests
    /// (kept by the run controller, `session`; saved with the team).
    pub project: Rc<RefCell<ProjectLog>>,
    /// Write-through, when the team is kept durable (see `checkpoint`).
    pub checkpoints: Option<Rc<Checkpoints>>,
    /// Where the project's code runs (tests, preview); `NoSandbox` unless
    /// the page provides one.
    pub sandbox: Rc<dyn Sandbox>,
    /// The tools and context of the page embedding the widget (`Host.*`
    /// commands); `None` elsewhere.
    pub host: Option<Rc<HostTools>>,
    /// Each model's context window and output limit (the known ones and
    /// the person's, from Settings): prompts are sized to fit them.
    pub windows: Rc<RefCell<WindowTable>>,
}

impl World {
    pub fn new_id(&self) -> MessageId {
        self.ids.borrow_mut().next_id()
    }
}
