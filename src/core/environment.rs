//! The environment: the roles by name, the post office that routes between
//! them, and the round that runs every busy role at once (MetaGPT's
//! `Environment`).
//!
//! A round polls all non-idle roles concurrently on the one thread of the
//! tab (`join_all`, no executor of its own). Unlike MetaGPT, one role's
//! failure does not abort the round: the others finish, and the failure is
//! reported in the [`RoundReport`] and as an event.

use std::cell::RefCell;
use std::rc::Rc;

use super::cost::CostLedger;
use super::events::{EventSink, TeamEvent};
use super::experience::ExperiencePool;
use super::files::ProjectFiles;
use super::human::HumanDesk;
use super::join::join_every;
use super::llm::Llm;
use super::message::{IdSource, MessageRef};
use super::post::PostOffice;
use super::role::Role;
use super::role_error::RoleError;
use super::world::World;
use super::shared_str::SharedStr;

/// What one round did.
#[derive(Debug, Default)]
pub struct RoundReport {
    /// Roles that ran (were not idle), in hiring order.
    pub ran: Vec<SharedStr>,
    pub responses: Vec<MessageRef>,
    pub failures: Vec<(String, RoleError)>,
}

pub struct Environment {
    roles: Vec<Role>,
    pub world: World,
}

impl Environment {
    pub fn new(desc: &str, llm: Rc<dyn Llm>, ledger: Rc<RefCell<CostLedger>>, events: EventSink) -> Self {
        Self {
            roles: Vec::new(),
            world: World {
                post: Rc::new(RefCell::new(PostOffice::default())),
                ids: Rc::new(RefCell::new(IdSource::default())),
                ledger,
                events: events.clone(),
                llm,
                env_desc: desc.to_string(),
                files: Rc::new(RefCell::new(ProjectFiles::default())),
                human: Rc::new(HumanDesk::new(events.clone())),
                experience: Rc::new(RefCell::new(ExperiencePool::default())),
                project: Rc::default(),
                checkpoints: None,
                sandbox: Rc::new(crate::core::sandbox::NoSandbox),
                host: None,
                windows: Rc::default(),
            },
        }
    }

    /// Add a role (replacing one with the same name) and register its addresses.
    pub fn add_role(&mut self, role: Role) {
        self.world.post.borrow_mut().register(role.name(), role.spec.addresses());
        match self.roles.iter_mut().find(|r| r.name() == role.name()) {
            Some(slot) => *slot = role,
            None => self.roles.push(role),
        }
    }

    pub fn roles(&self) -> &[Role] {
        &self.roles
    }

    pub fn roles_mut(&mut self) -> &mut [Role] {
        &mut self.roles
    }

    pub fn role(&self, name: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.name() == name)
    }

    pub fn role_mut(&mut self, name: &str) -> Option<&mut Role> {
        self.roles.iter_mut().find(|r| r.name() == name)
    }

    /// The roles, mutably, beside the world they share.
    pub fn split_mut(&mut self) -> (&mut [Role], &World) {
        (&mut self.roles, &self.world)
    }

    /// Route a message from outside (the user's requirement, a human reply).
    pub fn publish(&self, message: MessageRef) {
        self.world.events.emit_with(|| TeamEvent::Published { message: message.clone() });
        if self.world.post.borrow_mut().publish(message.clone()) == 0 {
            self.world.events.emit_with(|| TeamEvent::Undelivered { message });
        }
    }

    pub fn history(&self) -> Vec<MessageRef> {
        self.world.post.borrow().history().to_vec()
    }

    pub fn is_idle(&self) -> bool {
        let post = self.world.post.borrow();
        self.roles.iter().all(|r| r.is_idle(&post))
    }

    /// Run every non-idle role concurrently, once.
    pub async fn run_round(&mut self) -> RoundReport {
        let world = &self.world;
        let busy: Vec<&mut Role> = {
            let post = world.post.borrow();
            self.roles.iter_mut().filter(|r| !r.is_idle(&post)).collect()
        };
        let ran: Vec<SharedStr> = busy.iter().map(|r| r.shared_name()).collect();
        let results = join_every(busy.into_iter().map(|role| role.run(world))).await;
        let mut report = RoundReport { ran, ..Default::default() };
        for (name, result) in report.ran.iter().zip(results) {
            match result {
                Ok(Some(m)) => report.responses.push(m),
                Ok(None) => {}
                // A pause the person chose is no error: the run stops
                // after this round and the status line says why, once.
                Err(e) if e.is_chosen_pause() => report.failures.push((name.to_string(), e)),
                Err(e) => {
                    let error = e.to_string();
                    // Kept with the session: a reopened one shows it too.
                    if let Ok(mut project) = world.project.try_borrow_mut() {
                        project.shown_error(world.ids.borrow().peek(), name, &error, e.partial_text());
                    }
                    world.events.emit(TeamEvent::RoleFailed { role: name.clone(), error });
                    report.failures.push((name.to_string(), e));
                }
            }
        }
        report
    }
}
