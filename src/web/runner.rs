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
use crate::core::llm::client::{HttpLlm, Transport};
use crate::core::plan::Plan;
use crate::core::recipes::build_team;
use crate::core::settings::Settings;
use crate::core::team::Team;

use super::transport::{BrowserRuntime, FetchTransport};

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
}

impl Runner {
    /// Build the team for `settings` and publish the idea; `on_event`
    /// sees every event. Call `resume` to start working.
    pub fn new(settings: &Settings, key: &str, idea: &str, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
        Self::with_transport(settings, key, idea, FetchTransport::default(), None, on_event)
    }

    /// As [`Runner::new`], but the model's requests go through `llm_transport`
    /// (a wrapper around `transport`, say one that asks the host page for the
    /// key per call); Stop still aborts `transport`'s requests.
    pub fn with_transport(
        settings: &Settings,
        key: &str,
        idea: &str,
        transport: FetchTransport,
        llm_transport: Option<Rc<dyn Transport>>,
        on_event: impl Fn(&TeamEvent) + 'static,
    ) -> Self {
        let origin = web_sys::window().and_then(|w| w.location().origin().ok());
        let llm_transport = llm_transport.unwrap_or_else(|| Rc::new(transport.clone()));
        let llm = HttpLlm::new(settings.provider_config(key, origin.as_deref()), llm_transport, Rc::new(BrowserRuntime));
        let events = EventSink::new(on_event);
        let mut team = build_team(settings.team, Rc::new(llm), events.clone());
        team.ledger.borrow_mut().prices = settings.prices();
        team.invest(settings.budget);
        let desk = Rc::new(HumanDesk::new(events));
        team.env.world.human = desk.clone();
        let files = team.env.world.files.clone();
        // A lone role (the assistant) is the one that plans.
        let roles = team.env.roles();
        let plan = roles.iter().find(|r| r.spec.observe_all).or(if roles.len() == 1 { roles.first() } else { None }).map(|r| r.state.plan.clone());
        team.run_project(idea);
        Self { team: Rc::new(RefCell::new(team)), desk, transport, running: Rc::new(Cell::new(false)), rounds: settings.rounds, files, plan }
    }

    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    /// Run up to the configured number of rounds (again, after a stop).
    pub fn resume(&self, budget: Option<f64>) {
        if self.running.replace(true) {
            return;
        }
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
        self.desk.cancel_all();
    }

    /// A follow-up message from the user; false (and nothing sent) while
    /// the team is running. Call `resume` to have the team answer it.
    pub fn send(&self, text: &str) -> bool {
        if self.running.get() {
            return false;
        }
        match self.team.try_borrow_mut() {
            Ok(mut team) => {
                team.publish_user_message(text, &[]);
                true
            }
            Err(_) => false,
        }
    }

    /// The user answered question `id`.
    pub fn answer(&self, id: u64, text: &str) -> bool {
        self.desk.answer(id, text)
    }
}
