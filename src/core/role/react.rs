//! The react loop: `run` observes and reacts, `react` picks the mode
//! (a custom `Reactor`, REACT / BY_ORDER, or plan-and-act), `think` asks the
//! model for the next state, `act` runs an action through the role's gate;
//! and the write-through capture at each suspension point.
//!
//! A reaction that fails stays pending with its progress; nothing here
//! builds the prompts' words (`prompt.rs`, `prefix.rs`).

use litemap::LiteMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::prompt::{list_states, parse_state, state_prompt};
#[cfg(feature = "plan-and-act")]
use super::plan_and_act;
use super::{ReactMode, ReactProgress, Role};
use crate::core::action::{ActionContext, ActionOutput};
use crate::core::events::TeamEvent;
use crate::core::gate::LlmGate;
use crate::core::message::{Addresses, Message, MessageRef, MsgRole};
use crate::core::plan::Task;
use crate::core::role_error::RoleError;
use crate::core::shared_str::SharedStr;
use crate::core::world::World;

/// A reaction of its own, replacing the react modes (RoleZero's loop).
/// It keeps its progress in `role.state.progress.extra` so a restored role
/// resumes it.
pub trait Reactor {
    fn react<'a>(&'a self, role: &'a mut Role, world: &'a World) -> LocalBoxFuture<'a, Result<MessageRef, RoleError>>;
}

/// What every think and act of one reaction shares, made once when it
/// starts: while a role reacts nothing these are made of can change (the
/// reaction holds the role; the team, its description and the team's
/// model are the world's, fixed for the round), so neither can its name,
/// its prefix or its door to the model. The write-through capture stays
/// per call.
struct Reacting {
    name: SharedStr,
    prefix: Rc<str>,
    gate: LlmGate,
}

impl Role {
    /// This role's door to its model. With write-through on, the role's
    /// state is captured here: it does not change until the gate's calls
    /// are answered (see `checkpoint`).
    pub(crate) fn gate_for(&self, world: &World) -> LlmGate {
        self.capture(world);
        self.door(world, self.shared_name())
    }

    /// [`Role::gate_for`] without the capture: the caller captures before
    /// each call it makes through it.
    fn door(&self, world: &World, name: SharedStr) -> LlmGate {
        let llm = self.llm.clone().unwrap_or_else(|| world.llm.clone());
        let gate = LlmGate::new(llm, world.ledger.clone(), name, world.events.clone(), self.state.journal.clone());
        match &world.checkpoints {
            Some(checkpoints) => gate.keeping(checkpoints.clone()),
            None => gate,
        }
    }

    /// With write-through on, capture this role as it stands (before a call).
    fn capture(&self, world: &World) {
        if let Some(checkpoints) = &world.checkpoints {
            checkpoints.capture(self);
        }
    }

    /// What the steps of one reaction share (see [`Reacting`]).
    fn reacting(&self, world: &World) -> Reacting {
        let name = self.shared_name();
        Reacting { prefix: self.prefix_in(world), gate: self.door(world, name.clone()), name }
    }

    /// With write-through on: capture this role and wait until the team as
    /// it stands is kept (before the role waits on the user).
    pub async fn checkpoint(&self, world: &World) -> Result<(), RoleError> {
        if let Some(checkpoints) = &world.checkpoints {
            checkpoints.capture(self);
            checkpoints.keep().await.map_err(RoleError::Storage)?;
        }
        Ok(())
    }

    /// Run one reaction and capture the role as it stands after it (write-
    /// through on). A reaction that fails leaves the role with its news: it
    /// stays pending and is continued by the next run.
    pub async fn run(&mut self, world: &World) -> Result<Option<MessageRef>, RoleError> {
        let result = self.run_reaction(world).await;
        if let Some(checkpoints) = &world.checkpoints {
            checkpoints.capture(self);
        }
        result
    }

    async fn run_reaction(&mut self, world: &World) -> Result<Option<MessageRef>, RoleError> {
        if !self.state.pending {
            if self.observe(world) == 0 {
                return Ok(None);
            }
            self.state.pending = true;
            self.state.progress = ReactProgress::default();
            self.state.journal.borrow_mut().clear();
        }
        self.state.journal.borrow_mut().rewind();
        let response = self.react(world).await?;
        self.state.journal.borrow_mut().clear();
        self.state.pending = false;
        self.state.progress = ReactProgress::default();
        self.set_state(-1);
        self.publish(world, response.clone());
        Ok(Some(response))
    }

    /// React in the role's mode; returns the response message.
    pub async fn react(&mut self, world: &World) -> Result<MessageRef, RoleError> {
        let response = match (self.reactor.clone(), self.spec.react_mode) {
            (Some(reactor), _) => reactor.react(self, world).await?,
            (None, ReactMode::React | ReactMode::ByOrder) => self.react_loop(world).await?,
            #[cfg(feature = "plan-and-act")]
            (None, ReactMode::PlanAndAct) => plan_and_act(self, world).await?,
            // No team this build makes plans this way (see Cargo.toml).
            #[cfg(not(feature = "plan-and-act"))]
            (None, ReactMode::PlanAndAct) => return Err(RoleError::PlanAndActLeftOut),
        };
        self.set_state(-1);
        Ok(response)
    }


    async fn react_loop(&mut self, world: &World) -> Result<MessageRef, RoleError> {
        let limit = match self.spec.react_mode {
            ReactMode::ByOrder => self.actions.len() as u32,
            _ => self.spec.max_react_loop,
        };
        let reacting = self.reacting(world);
        while self.state.progress.actions_taken < limit {
            let state = match self.state.progress.chosen {
                Some(state) => state,
                None => {
                    let state = self.think(world, &reacting).await?;
                    self.state.progress.chosen = Some(state);
                    self.state.journal.borrow_mut().clear();
                    state
                }
            };
            if state < 0 {
                break;
            }
            self.set_state(state);
            let message = self.act_in(world, None, &reacting).await?;
            self.state.progress.last_response = Some(message.id);
            self.state.progress.actions_taken += 1;
            self.state.progress.chosen = None;
        }
        self.state.progress.chosen = None;
        match self.state.progress.last_response.and_then(|id| self.find_in_memory(id)) {
            Some(m) => Ok(m),
            None => {
                // MetaGPT answers "No actions taken yet" when the model stops at once.
                let m = Message::new(world.new_id(), "No actions taken yet")
                    .with_role(MsgRole::Assistant)
                    .caused_by("Action")
                    .from_role(&self.spec.name);
                Ok(Rc::new(m))
            }
        }
    }

    /// Decide the next state: -1 to stop.
    async fn think(&mut self, world: &World, reacting: &Reacting) -> Result<i32, RoleError> {
        let n = self.actions.len() as i32;
        if n == 0 {
            return Ok(-1);
        }
        if n == 1 {
            // One action: always that one (the loop limit ends the reaction).
            return Ok(0);
        }
        if self.spec.react_mode == ReactMode::ByOrder {
            let next = self.state.progress.actions_taken as i32;
            return Ok(if next < n { next } else { -1 });
        }
        world.events.emit_with(|| TeamEvent::RoleBusy { role: reacting.name.clone(), doing: self.busy_label(None) });
        let prefix = &reacting.prefix;
        let previous = self.state.state;
        let states = self.states.get_or_init(|| list_states(&self.actions));
        let history = self.state.memory.history_text();
        let prompt = [&**prefix, state_prompt(history, states, previous).as_str()].concat();
        self.capture(world);
        // The choice is kept in `progress.chosen` (and the journal cleared)
        // as soon as this returns, before anything else awaits.
        let answer = reacting.gate.ask_absorbed(None, prompt).await?;
        Ok(parse_state(&answer, n))
    }

    /// Run the current action on the history; its output becomes an
    /// assistant message in memory.
    pub async fn act(&mut self, world: &World, task: Option<&Task>) -> Result<MessageRef, RoleError> {
        let reacting = self.reacting(world);
        self.act_in(world, task, &reacting).await
    }

    /// [`Role::act`] as a step of a reaction.
    async fn act_in(&mut self, world: &World, task: Option<&Task>, reacting: &Reacting) -> Result<MessageRef, RoleError> {
        let action = self.todo().cloned().ok_or_else(|| RoleError::Action {
            action: "act".into(),
            message: format!("{} has no action for state {}", self.spec.name, self.state.state),
        })?;
        let index = self.state.state as usize;
        world.events.emit_with(|| TeamEvent::RoleBusy { role: reacting.name.clone(), doing: self.busy_label(Some(index)) });
        self.capture(world);
        let (prefix, gate) = (&reacting.prefix, &reacting.gate);
        let (history, history_text) = self.state.memory.history_with_text();
        let cx = ActionContext { history, history_text, prefix, llm: gate, task, files: &world.files };
        // An action answering at once is absorbed (the message kept, the
        // journal cleared below) before anything awaits.
        let output: ActionOutput = match action.one_call_prompt(&cx) {
            Some(prompt) => ActionOutput::text(gate.ask_absorbed(Some(&**prefix), prompt).await?),
            None if action.answers_at_once() => action.run(ActionContext { llm: &gate.clone().absorbed(), ..cx }).await?,
            None => action.run(cx).await?,
        };
        // The sender is `sent_from`; MetaGPT's "agent" metadata, which only
        // repeated it, is not kept. Made in place: each builder call would
        // move the whole message.
        let message = Rc::new(Message {
            id: world.new_id(),
            content: output.content,
            instruct_content: output.instruct_content,
            role: MsgRole::Assistant,
            cause_by: action.kind(),
            sent_from: reacting.name.clone(),
            send_to: Addresses::all(),
            metadata: {
                // `insert`, not `from_iter`: the latter brings in a stable sort.
                let mut metadata = LiteMap::new();
                if output.failed {
                    metadata.insert("is_success".into(), "false".into());
                }
                metadata
            },
        });
        self.state.memory.add(message.clone());
        self.state.journal.borrow_mut().clear();
        Ok(message)
    }

}
