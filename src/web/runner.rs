//! Runs a team in the tab: builds it from the settings with the real
//! provider, drives `Team::run` on the browser's event loop, and gives the
//! UI Stop, Resume and answers to questions.
//!
//! The UI never borrows the team while it runs: it reads the shared handles
//! (files, the planning role's plan) and folds events into its view.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::core::events::{EventSink, TeamEvent};
use crate::core::files::ProjectFiles;
use crate::core::human::HumanDesk;
use crate::core::llm::client::HttpLlm;
use crate::core::llm::Llm;
use crate::core::plan::Plan;
use crate::core::plan_edit::PlanEdit;
use crate::core::recipes::{assign_models, build_team};
use crate::core::settings::Settings;
use crate::core::team::Team;

use super::transport::{FetchTransport, StoppableRuntime};

/// A team at work (or paused) in this tab.
pub struct Runner {
    team: Rc<RefCell<Team>>,
    desk: Rc<HumanDesk>,
    transport: FetchTransport,
    running: Rc<Cell<bool>>,
    rounds: u32,
    pub files: Rc<RefCell<ProjectFiles>>,
    /// The plan of the role that plans (the team leader, the assistant).
    pub plan: Option<Rc<RefCell<Plan>>>,
    /// The name of that role: told of the person's plan edits.
    planner: Option<String>,
    /// Also run on Stop (a replay's model stops typing).
    on_stop: Option<Rc<dyn Fn()>>,
}

impl Runner {
    /// Build the team for `settings` and publish the idea; `on_event`
    /// sees every event. Call `resume` to start working. Roles with a
    /// per-role model in the settings call that model (same provider, key).
    pub fn new(settings: &Settings, key: &str, idea: &str, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
        let origin = web_sys::window().and_then(|w| w.location().origin().ok());
        let transport = FetchTransport::default();
        let make = |model: &str| -> Rc<dyn Llm> {
            let config = settings.provider_config_for_model(model, key, origin.as_deref());
            Rc::new(HttpLlm::new(config, Rc::new(transport.clone()), Rc::new(StoppableRuntime(transport.stop.clone()))))
        };
        let mut runner = Self::with_llm(settings, make(&settings.model), idea, on_event);
        assign_models(&mut runner.team.borrow_mut(), settings, make);
        runner.transport = transport;
        runner
    }

    /// Build the team for `settings` with the given model (a replay, say)
    /// and publish the idea.
    pub fn with_llm(settings: &Settings, llm: Rc<dyn Llm>, idea: &str, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
        let events = EventSink::new(on_event);
        let mut team = build_team(settings.team, llm, events.clone());
        team.ledger.borrow_mut().prices = settings.prices();
        team.invest(settings.budget);
        let desk = Rc::new(HumanDesk::new(events));
        team.env.world.human = desk.clone();
        let files = team.env.world.files.clone();
        let planner = team.env.roles().iter().find(|r| r.spec.observe_all);
        let plan = planner.map(|r| r.state.plan.clone());
        let planner = planner.map(|r| r.name().to_string());
        team.run_project(idea);
        Self {
            team: Rc::new(RefCell::new(team)),
            desk,
            transport: FetchTransport::default(),
            running: Rc::new(Cell::new(false)),
            rounds: settings.rounds,
            files,
            plan,
            planner,
            on_stop: None,
        }
    }

    /// Run `f` too when the person presses Stop.
    pub fn on_stop(mut self, f: impl Fn() + 'static) -> Self {
        self.on_stop = Some(Rc::new(f));
        self
    }

    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    /// Run up to the configured number of rounds (again, after a stop).
    pub fn resume(&self, budget: Option<f64>) {
        if self.running.replace(true) {
            return;
        }
        self.transport.stop.reset();
        let team = self.team.clone();
        let running = self.running.clone();
        let rounds = self.rounds;
        wasm_bindgen_futures::spawn_local(async move {
            // Only this task borrows the team while it runs.
            if let Ok(mut team) = team.try_borrow_mut() {
                if let Some(budget) = budget {
                    team.invest(budget);
                }
                team.run(rounds).await;
            }
            running.set(false);
        });
    }

    /// Abort the calls in flight and cancel waiting questions; the team
    /// stops at once with its work kept, ready to resume.
    pub fn stop(&self) {
        self.transport.stop.stop();
        if let Some(f) = &self.on_stop {
            f();
        }
        self.desk.cancel_all();
    }

    /// The person edits the plan with the leader's `Plan.*` commands.
    /// Only while the team is paused: a running leader would be planning
    /// from a plan that changes under it. On success the planning role is
    /// told (a message from the user), so it acts on the change when the
    /// team resumes. Returns the command's result or why it was refused.
    pub fn edit_plan(&self, edit: &PlanEdit) -> Result<String, String> {
        if self.running.get() {
            return Err("The team is at work: stop it first, then edit the plan.".into());
        }
        let (Some(plan), Some(planner)) = (&self.plan, &self.planner) else {
            return Err("This team has no plan to edit.".into());
        };
        let result = edit.apply(plan)?;
        let mut team = self.team.try_borrow_mut().map_err(|_| "The team is busy; try again in a moment.".to_string())?;
        team.publish_user_message(&edit.note(&result), &[planner.as_str()]);
        Ok(result)
    }

    /// The user answered question `id`.
    pub fn answer(&self, id: u64, text: &str) -> bool {
        self.desk.answer(id, text)
    }
}
