//! A role: observes messages, thinks about what to do, acts (MetaGPT's
//! `Role`).
//!
//! The loop is MetaGPT's: `run` observes the role's buffer, and on news
//! reacts in one of three modes (REACT, BY_ORDER, PLAN_AND_ACT), then
//! publishes the response. Unlike MetaGPT, a reaction that fails (a provider
//! error, the budget) leaves the role *pending* with its news and progress
//! intact, so the next run continues it instead of losing the messages; and
//! the progress of a reaction (which step, which state) is plain data saved
//! with the role, so a restored role resumes mid-reaction without repeating
//! a finished step.
//!
//! Roles never touch each other: they share only the [`World`] (post office,
//! ids, ledger, events) handed to them for the round.
//!
//! Layout: `spec.rs` (what a role is), `state.rs` (what it carries),
//! `prefix.rs` (the "You are ..." prefix, cached), `react.rs` (run, react,
//! think, act, the write-through capture), `plan_and_act.rs` (the plan
//! mode), `prompt.rs` (the state prompt and its parser); here, the `Role`
//! itself: its parts, observing and publishing.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use crate::core::action::Action;
use crate::core::events::TeamEvent;
use crate::core::llm::Llm;
use crate::core::message::{MessageId, MessageRef, ALL, SELF};
use crate::core::post::PostOffice;
use crate::core::shared_str::SharedStr;
use crate::core::world::World;

#[cfg(feature = "plan-and-act")]
mod plan_and_act;
mod prefix;
mod prompt;
mod react;
mod spec;
mod state;
#[cfg(test)]
mod tests;

#[cfg(feature = "plan-and-act")]
pub use plan_and_act::{plan_and_act, MAX_PLAN_ATTEMPTS, MAX_REPLANS, MAX_TASKS};
pub use prompt::{parse_state, state_prompt};
pub use react::Reactor;
pub use spec::{ReactMode, RoleSpec};
pub use state::{ReactProgress, RoleState};

use prefix::PrefixCache;
use prompt::list_states;

/// A role: its spec, its actions, its state.
pub struct Role {
    pub spec: RoleSpec,
    actions: Vec<Rc<dyn Action>>,
    reactor: Option<Rc<dyn Reactor>>,
    /// This role's own model, when it differs from the team's.
    llm: Option<Rc<dyn Llm>>,
    pub state: RoleState,
    /// The last prefix made by [`Role::prefix_in`], with what it was made of.
    prefix_cache: RefCell<Option<PrefixCache>>,
    /// [`Role::states`], made on first use: the actions never change.
    states: OnceCell<Vec<String>>,
    /// The name as the gate shares it (see [`Role::shared_name`]).
    shared_name: RefCell<Option<SharedStr>>,
    /// What the role says it is doing: "thinking", then "running {kind}"
    /// for each action (see [`Role::busy_label`]).
    busy_labels: OnceCell<Vec<SharedStr>>,
    /// Where the post office last found this role's buffer (a hint it
    /// checks: asked on every idle check and observe).
    post_slot: Cell<usize>,
}

impl Role {
    pub fn new(spec: RoleSpec, actions: Vec<Rc<dyn Action>>) -> Self {
        Self {
            spec,
            actions,
            reactor: None,
            llm: None,
            state: RoleState { state: -1, ..Default::default() },
            prefix_cache: RefCell::new(None),
            states: OnceCell::new(),
            shared_name: RefCell::new(None),
            busy_labels: OnceCell::new(),
            post_slot: Cell::new(0),
        }
    }

    /// Replace the react modes with a reactor of its own.
    pub fn with_reactor(mut self, reactor: Rc<dyn Reactor>) -> Self {
        self.reactor = Some(reactor);
        self
    }

    pub fn with_llm(mut self, llm: Rc<dyn Llm>) -> Self {
        self.llm = Some(llm);
        self
    }

    /// Give a hired role its own model (a per-role override).
    pub fn set_llm(&mut self, llm: Rc<dyn Llm>) {
        self.llm = Some(llm);
    }

    /// Back to the team's model.
    pub fn clear_llm(&mut self) {
        self.llm = None;
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn actions(&self) -> &[Rc<dyn Action>] {
        &self.actions
    }

    /// The states the model chooses between: "i. action". Made once (a
    /// react role asks on every think; its actions never change).
    pub fn states(&self) -> &[String] {
        self.states.get_or_init(|| list_states(&self.actions))
    }

    /// The action the role is about to run, if any.
    pub fn todo(&self) -> Option<&Rc<dyn Action>> {
        usize::try_from(self.state.state).ok().and_then(|i| self.actions.get(i))
    }

    /// No news, nothing to do, nothing buffered, nothing pending.
    pub fn is_idle(&self, post: &PostOffice) -> bool {
        !self.state.pending && self.state.news.is_empty() && self.todo().is_none() && post.buffered_at(&self.spec.name, &self.post_slot) == 0
    }



    /// The role's name as a shared string, made again only if the name
    /// changed: the gate of every call carries it into the ledger and events.
    pub(crate) fn shared_name(&self) -> SharedStr {
        let mut cached = self.shared_name.borrow_mut();
        match &*cached {
            Some(name) if *name == self.spec.name => name.clone(),
            _ => cached.insert(SharedStr::from(self.spec.name.as_str())).clone(),
        }
    }

    /// "thinking" (`None`) or "running {kind}" for the action at `action`,
    /// made once per role (a react role says it on every step).
    fn busy_label(&self, action: Option<usize>) -> SharedStr {
        let labels = self.busy_labels.get_or_init(|| {
            std::iter::once(SharedStr::from("thinking"))
                .chain(self.actions.iter().map(|a| SharedStr::from(format!("running {}", a.kind()))))
                .collect()
        });
        labels[action.map_or(0, |i| i + 1)].clone()
    }


    /// Take the buffer; keep the news (watched actions or addressed to this
    /// role by name, not already remembered). Returns how many.
    pub fn observe(&mut self, world: &World) -> usize {
        let (spec, memory) = (&self.spec, &mut self.state.memory);
        let is_news = |m: &MessageRef| (spec.watch.contains(&m.cause_by) || m.send_to.contains(&spec.name)) && !memory.contains(m.id);
        let mut post = world.post.borrow_mut();
        // News is chosen against the memory as it was before this observation.
        let news: Vec<MessageRef> = if spec.observe_all {
            let buffered = post.take(&spec.name);
            let news = buffered.iter().filter(|m| is_news(m)).cloned().collect();
            memory.add_batch(buffered);
            news
        } else {
            // Drained in place: the buffer keeps its room for the next round.
            let news: Vec<MessageRef> = post.drain_at(&spec.name, &self.post_slot).filter(is_news).collect();
            memory.add_batch(news.iter().cloned());
            news
        };
        drop(post);
        self.state.latest_observed = news.last().map(|m| m.id);
        self.state.news = news;
        self.state.news.len()
    }

    /// Put a message straight into this role's buffer.
    pub fn put_message(&self, world: &World, message: MessageRef) {
        world.post.borrow_mut().deliver_to(&self.spec.name, message);
    }

    /// Observe; on news, react and publish the response. A failed reaction


    pub fn set_state(&mut self, state: i32) {
        self.state.state = state;
    }


    fn find_in_memory(&self, id: MessageId) -> Option<MessageRef> {
        self.state.memory.all().iter().rev().find(|m| m.id == id).cloned()
    }


    /// Send a message: `<self>` becomes this role; a message only for this
    /// role goes straight to its own buffer; anything else to the environment.
    pub fn publish(&self, world: &World, message: MessageRef) {
        // Copied only when something in it must change.
        let unsigned = message.sent_from.is_empty() || message.sent_from == SELF;
        let message = if unsigned || message.send_to.contains(SELF) {
            let mut message = (*message).clone();
            if message.send_to.remove(SELF) {
                message.send_to.insert(self.spec.name.clone());
            }
            if unsigned {
                message.sent_from = self.shared_name();
            }
            Rc::new(message)
        } else {
            message
        };
        world.events.emit_with(|| TeamEvent::Published { message: message.clone() });
        if !message.send_to.is_empty() && !message.send_to.contains(ALL) && message.send_to.iter().all(|a| self.spec.is_address(a)) {
            self.put_message(world, message);
        } else if world.post.borrow_mut().publish(message.clone()) == 0 {
            world.events.emit_with(|| TeamEvent::Undelivered { message });
        }
    }
}
