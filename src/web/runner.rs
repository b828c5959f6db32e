//! The browser's adapter over the core's run controller
//! (`core::session::Session`): the real provider over `fetch`, the run
//! driven on the browser's event loop, Stop reaching the requests in
//! flight, the sandbox frame, and the session kept in IndexedDB.
//!
//! Every rule of a run (what may be sent when, versions, restores, hand
//! edits, preview errors) is the controller's; this file only connects it
//! to the tab. The UI never borrows the team while it runs: it reads the
//! shared handles (files, the plan, the versions) and folds events into
//! its view.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::core::events::{EventSink, TeamEvent};
use crate::core::files::ProjectFiles;
use crate::core::llm::client::{HttpLlm, Transport};
use crate::core::llm::Llm;
use futures::future::LocalBoxFuture;
use crate::core::plan::Plan;
use crate::core::plan_edit::PlanEdit;
use crate::core::session::{Models, RunEnd, Session, SessionError};
use crate::core::settings::Settings;
use crate::core::snapshot::TeamSnapshot;
use crate::core::store::{SessionStatus, StoreError};
use crate::core::versions::ProjectLog;

use super::sandbox::WebSandbox;
use super::session::{InFlight, Keeper};
use super::transport::{FetchTransport, StoppableRuntime};

/// Each test file gets this long in the sandbox before its worker is stopped.
const TEST_TIME_LIMIT_MS: u32 = 5_000;

/// A team at work (or paused) in this tab.
pub struct Runner {
    /// The run controller: every rule of the run lives there.
    pub session: Rc<Session>,
    transport: FetchTransport,
    pub files: Rc<RefCell<ProjectFiles>>,
    /// The plan of the role that plans (the team leader, the assistant).
    pub plan: Option<Rc<RefCell<Plan>>>,
    /// The project's versions.
    pub project: Rc<RefCell<ProjectLog>>,
    /// Also run on Stop (a replay's model stops typing).
    on_stop: Rc<RefCell<Option<Rc<dyn Fn()>>>>,
    /// Follows the answers streaming, for the page-hide save (sessions only).
    in_flight: Rc<RefCell<Option<InFlight>>>,
    /// Set while the page goes away (`pagehide`), once the run is kept:
    /// the end of a run the page itself cut off is then not saved. The
    /// site's is `InFlight::leaving`; a widget gives its own.
    leaving: RefCell<Option<Rc<Cell<bool>>>>,
    /// Where the session is kept, if it is.
    keeper: Rc<RefCell<Option<Rc<Keeper>>>>,
    /// Why saving stopped working, shown by the UI.
    pub storage_error: Rc<RefCell<Option<StoreError>>>,
    /// Saves how a run ended (set by `keep_in`: pages without sessions,
    /// like a widget without `storageKey`, never reach the store).
    on_end: Rc<RefCell<Option<EndHook>>>,
    /// Hears each run's end (the version it made), after it is saved.
    on_run_end: Rc<RefCell<Option<Rc<dyn Fn(&RunEnd)>>>>,
    /// Where the project's tests and preview run (set by `attach_sandbox`).
    pub sandbox: Option<WebSandbox>,
}

type EndHook = Rc<dyn Fn(TeamSnapshot, SessionStatus) -> LocalBoxFuture<'static, ()>>;

impl Runner {
    /// Build the team for `settings` and send the idea; `on_event` sees
    /// every event. Call `resume` to start working. Roles with a per-role
    /// model in the settings call that model (same provider, key).
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
        let models = Self::models(key, &transport, llm_transport);
        let runner = Self::build(settings, models, transport, on_event);
        // A fresh team is idle and the idea is not empty: it is taken.
        let _ = runner.session.send(idea);
        runner
    }

    /// Build the team for `settings` with the given model (a replay, say)
    /// and send the idea.
    pub fn with_llm(settings: &Settings, llm: Rc<dyn Llm>, idea: &str, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
        let runner = Self::build(settings, Models::Given(llm), FetchTransport::default(), on_event);
        let _ = runner.session.send(idea);
        runner
    }

    /// A team for `settings`, restored from `snapshot` (a saved session),
    /// paused. Fails when the snapshot does not fit the team.
    pub fn restored(
        settings: &Settings,
        key: &str,
        snapshot: TeamSnapshot,
        on_event: impl Fn(&TeamEvent) + 'static,
    ) -> Result<Self, SessionError> {
        Self::restored_with_transport(settings, key, snapshot, FetchTransport::default(), None, on_event)
    }

    /// As [`Runner::restored`], with the model's requests going through
    /// `llm_transport` as in [`Runner::with_transport`] (the widget's
    /// host-supplied key).
    pub fn restored_with_transport(
        settings: &Settings,
        key: &str,
        snapshot: TeamSnapshot,
        transport: FetchTransport,
        llm_transport: Option<Rc<dyn Transport>>,
        on_event: impl Fn(&TeamEvent) + 'static,
    ) -> Result<Self, SessionError> {
        let models = Self::models(key, &transport, llm_transport);
        let runner = Self::build(settings, models, transport, on_event);
        runner.session.restore(snapshot)?;
        Ok(runner)
    }

    /// Run `f` too when the person presses Stop.
    pub fn on_stop(self, f: impl Fn() + 'static) -> Self {
        *self.on_stop.borrow_mut() = Some(Rc::new(f));
        self
    }

    /// The provider's models, over `transport` (Stop aborts their calls
    /// and cuts their retry pauses short).
    fn models(key: &str, transport: &FetchTransport, llm_transport: Option<Rc<dyn Transport>>) -> Models {
        let transport = transport.clone();
        let make = move |settings: &Settings, key: &str, model: &str| -> Rc<dyn Llm> {
            let origin = web_sys::window().and_then(|w| w.location().origin().ok());
            let config = settings.provider_config_for_model(model, key, origin.as_deref());
            let way: Rc<dyn Transport> = llm_transport.clone().unwrap_or_else(|| Rc::new(transport.clone()));
            Rc::new(HttpLlm::new(config, way, Rc::new(StoppableRuntime(transport.stop.clone()))))
        };
        Models::Made { key: key.to_string(), make: Rc::new(make) }
    }

    /// Take new settings and key for the next `resume` (a key typed after
    /// a session was reopened, a price entered, more rounds). Not while
    /// the team runs; a replay keeps its model.
    pub fn reconfigure(&self, settings: &Settings, key: &str) {
        let _ = self.session.reconfigure(settings, key);
    }

    fn build(settings: &Settings, models: Models, transport: FetchTransport, on_event: impl Fn(&TeamEvent) + 'static) -> Self {
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
        let on_stop: Rc<RefCell<Option<Rc<dyn Fn()>>>> = Rc::default();
        let (stop_switch, also) = (transport.stop.clone(), on_stop.clone());
        let stopper = Rc::new(move || {
            stop_switch.stop();
            let also = also.borrow().clone();
            if let Some(f) = also {
                f();
            }
        });
        let session = Session::new(settings, models, events).with_stopper(stopper);
        Self {
            files: session.files.clone(),
            plan: session.plan.clone(),
            project: session.project.clone(),
            session: Rc::new(session),
            transport,
            on_stop,
            in_flight,
            leaving: RefCell::default(),
            keeper: Rc::default(),
            storage_error: Rc::default(),
            on_end: Rc::default(),
            on_run_end: Rc::default(),
            sandbox: None,
        }
    }

    /// Give the team a sandbox to run the project's tests and preview in
    /// (the site does; a page that cannot make one runs without).
    pub fn attach_sandbox(mut self) -> Self {
        self.sandbox = WebSandbox::new(TEST_TIME_LIMIT_MS).ok();
        if let (Some(sandbox), Ok(mut team)) = (&self.sandbox, self.session.team().try_borrow_mut()) {
            team.env.world.sandbox = Rc::new(sandbox.clone());
        }
        self
    }

    /// Give the team's agents the host page's tools and context (the
    /// widget's `Host.*` commands).
    pub fn attach_host(self, host: Rc<crate::core::commands::host::HostTools>) -> Self {
        if let Ok(mut team) = self.session.team().try_borrow_mut() {
            team.env.world.host = Some(host);
        }
        self
    }

    /// Keep the team in `keeper`'s session from now on; saves it as it
    /// stands first (the idea, or the restored state) with `status`.
    pub async fn keep_in(&self, keeper: Keeper, status: SessionStatus) -> Result<(), StoreError> {
        self.keep(keeper, status, None).await
    }

    /// As [`Runner::keep_in`], but without following the answers as they
    /// stream (the widget: its sessions' ids are only unique in their own
    /// database, and it leaves the tab's page-hide handler alone). A call
    /// cut off by a reload is made again all the same; only its partial
    /// text is not shown. `leaving` says the page is going away, as
    /// `InFlight::leaving` does for the site (the widget sets it on its
    /// own `pagehide`, a listener it removes with itself).
    pub async fn keep_in_quietly(&self, keeper: Keeper, status: SessionStatus, leaving: Rc<Cell<bool>>) -> Result<(), StoreError> {
        self.keep(keeper, status, Some(leaving)).await
    }

    /// `leaving`: `None` follows the answers streaming and takes the tab's
    /// flag (`InFlight::current`).
    async fn keep(&self, keeper: Keeper, status: SessionStatus, leaving: Option<Rc<Cell<bool>>>) -> Result<(), StoreError> {
        let keeper = Rc::new(keeper);
        let snapshot = {
            let mut team = self.session.team().borrow_mut();
            team.keep_durable(Rc::new(keeper.sink()));
            team.snapshot()
        };
        let leaving = leaving.unwrap_or_else(|| {
            let in_flight = InFlight::current();
            *in_flight.session_id.borrow_mut() = Some(keeper.session_id.clone());
            let leaving = in_flight.leaving.clone();
            *self.in_flight.borrow_mut() = Some(in_flight);
            leaving
        });
        *self.leaving.borrow_mut() = Some(leaving);
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

    /// Save the team as it stands now (after a follow-up, a restore, a hand
    /// edit), with `status`. Nothing to do for a run that is not kept.
    pub async fn save_now(&self, status: SessionStatus) {
        let save = self.on_end.borrow().clone();
        let Some(save) = save else { return };
        let snapshot = match self.session.team().try_borrow() {
            Ok(team) => team.snapshot(),
            Err(_) => return,
        };
        save(snapshot, status).await;
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

    /// Call `f` with each run's end (the version it made, a rollback).
    pub fn on_run_end(&self, f: impl Fn(&RunEnd) + 'static) {
        *self.on_run_end.borrow_mut() = Some(Rc::new(f));
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
        self.session.is_idle()
    }

    pub fn is_running(&self) -> bool {
        self.session.is_running()
    }

    /// Run up to the configured number of rounds (again, after a stop).
    pub fn resume(&self, budget: Option<f64>) {
        if self.session.is_running() {
            return;
        }
        self.transport.stop.reset();
        if let Some(budget) = budget {
            self.session.set_budget(budget);
        }
        let session = self.session.clone();
        let on_end = self.on_end.borrow().clone();
        let on_run_end = self.on_run_end.clone();
        let leaving = self.leaving.borrow().clone();
        wasm_bindgen_futures::spawn_local(async move {
            let Some(end) = session.run().await else { return };
            // A reload or a closed tab aborts the requests in flight: that
            // is no failure of the run, so its end is not saved (the next
            // load finds the session running and reopens it interrupted).
            if leaving.is_some_and(|l| l.get()) {
                return;
            }
            let snapshot = session.team().try_borrow().ok().map(|team| team.snapshot());
            if let (Some(save), Some(snapshot)) = (on_end, snapshot) {
                save(snapshot, end.status).await;
            }
            let hear = on_run_end.borrow().clone();
            if let Some(f) = hear {
                f(&end);
            }
        });
    }

    /// Abort the calls in flight and cancel waiting questions; the team
    /// stops at once with its work kept, ready to resume.
    pub fn stop(&self) {
        self.session.stop();
    }

    /// The person edits the plan with the leader's `Plan.*` commands (see
    /// `Session::edit_plan`). Returns the command's result or why not.
    pub fn edit_plan(&self, edit: &PlanEdit) -> Result<String, SessionError> {
        self.session.edit_plan(edit)
    }

    /// A request from the person (a follow-up, or the idea of a team that
    /// has none). Call `resume` to have the team work on it.
    pub fn send(&self, text: &str) -> Result<(), SessionError> {
        self.session.send(text)
    }

    /// The user answered question `id`.
    pub fn answer(&self, id: u64, text: &str) -> bool {
        self.session.answer(id, text)
    }
}
