//! Runs a team in the tab: builds it from the settings with the real
//! provider, drives `Team::run` on the browser's event loop, and gives the
//! UI Stop, Resume and answers to questions.
//!
//! The UI never borrows the team while it runs: it reads the shared handles
//! (files, the planning role's plan) and folds events into its view.
//!
//! With a `Keeper`, the team writes through to IndexedDB: a checkpoint
//! before every model call and question (see `core::checkpoint`), and the
//! session's status when a run ends.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::core::events::{EventSink, TeamEvent};
use crate::core::files::ProjectFiles;
use crate::core::human::HumanDesk;
use crate::core::llm::client::{HttpLlm, Transport};
use crate::core::llm::Llm;
use futures::future::LocalBoxFuture;
use crate::core::plan::Plan;
use crate::core::plan_edit::PlanEdit;
use crate::core::recipes::{assign_models, build_team};
use crate::core::settings::Settings;
use crate::core::snapshot::TeamSnapshot;
use crate::core::store::{SessionStatus, StoreError};
use crate::core::team::Team;

use super::sandbox::WebSandbox;
use super::session::{InFlight, Keeper};
use super::transport::{FetchTransport, StoppableRuntime};

/// Each test file gets this long in the sandbox before its worker is stopped.
const TEST_TIME_LIMIT_MS: u32 = 5_000;

/// A team at work (or paused) in this tab.
pub struct Runner {
    team: Rc<RefCell<Team>>,
    desk: Rc<HumanDesk>,
    transport: FetchTransport,
    running: Rc<Cell<bool>>,
    rounds: Cell<u32>,
    pub files: Rc<RefCell<ProjectFiles>>,
    /// The plan of the role that plans (the team leader, the assistant).
    pub plan: Option<Rc<RefCell<Plan>>>,
    /// The name of that role: told of the person's plan edits.
    planner: Option<String>,
    /// Also run on Stop (a replay's model stops typing).
    on_stop: Option<Rc<dyn Fn()>>,
    /// The model was given (a replay): settings never replace it.
    given_model: bool,
    /// The requests' way out, when not `transport` itself (the widget's
    /// host may supply the key per call); Stop still aborts `transport`.
    llm_transport: Option<Rc<dyn Transport>>,
    /// Follows the answers streaming, for the page-hide save (sessions only).
    in_flight: Rc<RefCell<Option<InFlight>>>,
    /// Where the session is kept, if it is.
    keeper: Rc<RefCell<Option<Rc<Keeper>>>>,
    /// Why saving stopped working, shown by the UI.
    pub storage_error: Rc<RefCell<Option<StoreError>>>,
    /// Saves how a run ended (set by `keep_in`: pages without sessions,
    /// like the widget, never link the store in).
    on_end: Rc<RefCell<Option<EndHook>>>,
    /// Where the project's tests and preview run (set by `attach_sandbox`).
    pub sandbox: Option<WebSandbox>,
}

type EndHook = Rc<dyn Fn(TeamSnapshot, SessionStatus) -> LocalBoxFuture<'static, ()>>;

impl Runner {
    /// Build the team for `settings` and publish the idea; `on_event`
    /// sees every event. Call `resume` to start working. Roles with a
    /// per-role model in the settings call that model (same provider, key).
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
        let runner = Self::build(settings, key, None, transport, llm_transport, on_event);
        runner.team.borrow_mut().run_project(idea);
        runner
    }

    /// Build the team for `settings` with the given model (a replay, say)
    /// and publish the idea.
    pub fn with_llm(settings: &Settings, llm: Rc<dyn Llm>, idea: &str, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
        let runner = Self::build(settings, "", Some(llm), FetchTransport::default(), None, on_event);
        runner.team.borrow_mut().run_project(idea);
        runner
    }

    /// A team for `settings`, restored from `snapshot` (a saved session),
    /// paused. Fails when the snapshot does not fit the team.
    pub fn restored(
        settings: &Settings,
        key: &str,
        snapshot: TeamSnapshot,
        on_event: impl Fn(&TeamEvent) + 'static,
    ) -> Result<Self, String> {
        let runner = Self::build(settings, key, None, FetchTransport::default(), None, on_event);
        runner.team.borrow_mut().restore(snapshot).map_err(|e| e.to_string())?;
        Ok(runner)
    }

    /// Run `f` too when the person presses Stop.
    pub fn on_stop(mut self, f: impl Fn() + 'static) -> Self {
        self.on_stop = Some(Rc::new(f));
        self
    }

    /// The provider's model `model`, over this runner's transport (Stop
    /// aborts its calls and cuts its retry pauses short).
    fn model(settings: &Settings, key: &str, transport: &FetchTransport, llm_transport: &Option<Rc<dyn Transport>>, model: &str) -> Rc<dyn Llm> {
        let origin = web_sys::window().and_then(|w| w.location().origin().ok());
        let config = settings.provider_config_for_model(model, key, origin.as_deref());
        let way: Rc<dyn Transport> = llm_transport.clone().unwrap_or_else(|| Rc::new(transport.clone()));
        Rc::new(HttpLlm::new(config, way, Rc::new(StoppableRuntime(transport.stop.clone()))))
    }

    /// Take new settings and key for the next `resume` (a key typed after
    /// a session was reopened, a price entered, more rounds). Not while
    /// the team runs; a replay keeps its model.
    pub fn reconfigure(&self, settings: &Settings, key: &str) {
        let Ok(mut team) = self.team.try_borrow_mut() else { return };
        if !self.given_model {
            let make = |model: &str| Self::model(settings, key, &self.transport, &self.llm_transport, model);
            team.env.world.llm = make(&settings.model);
            for role in team.env.roles_mut() {
                role.clear_llm();
            }
            assign_models(&mut team, settings, make);
            team.ledger.borrow_mut().prices.merge(&settings.prices());
        }
        self.rounds.set(settings.rounds);
    }

    fn build(
        settings: &Settings,
        key: &str,
        given: Option<Rc<dyn Llm>>,
        transport: FetchTransport,
        llm_transport: Option<Rc<dyn Transport>>,
        on_event: impl Fn(&TeamEvent) + 'static,
    ) -> Self {
        let given_model = given.is_some();
        let llm = given.unwrap_or_else(|| Self::model(settings, key, &transport, &llm_transport, &settings.model));
        // Followed once the run is kept (`keep_in`): a page without
        // sessions (the widget) installs no page-hide handler.
        let in_flight: Rc<RefCell<Option<InFlight>>> = Rc::default();
        let follower = in_flight.clone();
        let events = EventSink::new(move |event| {
            if let Some(in_flight) = &*follower.borrow() {
                in_flight.follow(event);
            }
            on_event(event);
        });
        let mut team = build_team(settings.team, llm, events.clone());
        if !given_model {
            assign_models(&mut team, settings, |model| Self::model(settings, key, &transport, &llm_transport, model));
        }
        team.ledger.borrow_mut().prices = settings.prices();
        team.invest(settings.budget);
        let desk = Rc::new(HumanDesk::new(events));
        team.env.world.human = desk.clone();
        let files = team.env.world.files.clone();
        // The role that hears everything plans; a lone role (the assistant) too.
        let roles = team.env.roles();
        let planner = roles.iter().find(|r| r.spec.observe_all).or(if roles.len() == 1 { roles.first() } else { None });
        let plan = planner.map(|r| r.state.plan.clone());
        let planner = planner.map(|r| r.name().to_string());
        Self {
            team: Rc::new(RefCell::new(team)),
            desk,
            transport,
            running: Rc::new(Cell::new(false)),
            rounds: Cell::new(settings.rounds),
            files,
            plan,
            planner,
            on_stop: None,
            given_model,
            llm_transport,
            in_flight,
            keeper: Rc::default(),
            storage_error: Rc::default(),
            on_end: Rc::default(),
            sandbox: None,
        }
    }

    /// Give the team a sandbox to run the project's tests and preview in
    /// (the site does; a page that cannot make one runs without).
    pub fn attach_sandbox(mut self) -> Self {
        self.sandbox = WebSandbox::new(TEST_TIME_LIMIT_MS).ok();
        if let (Some(sandbox), Ok(mut team)) = (&self.sandbox, self.team.try_borrow_mut()) {
            team.env.world.sandbox = Rc::new(sandbox.clone());
        }
        self
    }

    /// Give the team's agents the host page's tools and context (the
    /// widget's `Host.*` commands).
    pub fn attach_host(self, host: Rc<crate::core::commands::host::HostTools>) -> Self {
        if let Ok(mut team) = self.team.try_borrow_mut() {
            team.env.world.host = Some(host);
        }
        self
    }

    /// Keep the team in `keeper`'s session from now on; saves it as it
    /// stands first (the idea, or the restored state) with `status`.
    pub async fn keep_in(&self, keeper: Keeper, status: SessionStatus) -> Result<(), StoreError> {
        let keeper = Rc::new(keeper);
        let snapshot = {
            let mut team = self.team.borrow_mut();
            team.keep_durable(Rc::new(keeper.sink()));
            team.snapshot()
        };
        let in_flight = InFlight::current();
        *in_flight.session_id.borrow_mut() = Some(keeper.session_id.clone());
        *self.in_flight.borrow_mut() = Some(in_flight);
        *self.keeper.borrow_mut() = Some(keeper.clone());
        let (end_keeper, error) = (keeper.clone(), self.storage_error.clone());
        *self.on_end.borrow_mut() = Some(Rc::new(move |snapshot, status| {
            let (keeper, error) = (end_keeper.clone(), error.clone());
            Box::pin(async move {
                *error.borrow_mut() = keeper.save(snapshot, status).await.err();
            })
        }));
        keeper.save(snapshot, status).await
    }

    /// Call `f` whenever a run's end has been saved (after `keep_in`).
    pub fn on_saved(&self, f: impl Fn() + 'static) {
        let Some(save) = self.on_end.borrow().clone() else { return };
        let f: Rc<dyn Fn()> = Rc::new(f);
        *self.on_end.borrow_mut() = Some(Rc::new(move |snapshot, status| {
            let (save, f) = (save.clone(), f.clone());
            Box::pin(async move {
                save(snapshot, status).await;
                f();
            })
        }));
    }

    /// The session this run is kept in.
    pub fn session_id(&self) -> Option<String> {
        self.keeper.borrow().as_ref().map(|k| k.session_id.clone())
    }

    /// Stop keeping the session (another one is opened); releases the lease.
    pub async fn release(&self) {
        let keeper = self.keeper.borrow_mut().take();
        if let Some(keeper) = keeper {
            keeper.release().await;
        }
    }

    /// Nothing left to do: no role has news or a pending reaction.
    pub fn team_is_idle(&self) -> bool {
        self.team.try_borrow().is_ok_and(|team| team.env.is_idle())
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
        let rounds = self.rounds.get();
        let on_end = self.on_end.borrow().clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Only this task borrows the team while it runs.
            let ended = match team.try_borrow_mut() {
                Ok(mut team) => {
                    if let Some(budget) = budget {
                        team.invest(budget);
                    }
                    let outcome = team.run(rounds).await;
                    on_end.map(|save| (save, team.snapshot(), SessionStatus::after(&outcome.stop)))
                }
                Err(_) => None,
            };
            if let Some((save, snapshot, status)) = ended {
                save(snapshot, status).await;
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
