//! The embeddable widget's engine: one team per widget, its events folded
//! into a `RunView`, and what changed handed to the page as JSON.
//! `pkg/tabteam-widget.js` (hand-written) is the rest: `<tabteam-agent>`,
//! `mount(element, options)` and the shadow DOM it renders from these
//! updates. With `storageKey` the team is kept in IndexedDB as the site
//! keeps its sessions (`keep`), and a reload resumes it.
//!
//! Why the DOM lives in JS: the package must stay under 250 KB gzip, and
//! the same rendering written over web-sys cost ~25 KB gzip of wasm and
//! glue, against ~3 KB of JS. The split keeps the rule that the UI holds
//! no logic: what an entry is, says, and whether it is done is decided
//! here (`RunView`); JS only puts text on screen.
//!
//! Layout: `options` (what the host configures), `host_events` (the
//! payloads the host hears), `host_key` (the key from the host per call),
//! `host_port` (the page's tools and the approvals, over one JS function),
//! `keep` (where a widget with `storageKey` keeps its team).

mod host_events;
mod host_key;
mod host_port;
#[cfg(feature = "widget-keep")]
mod keep;
mod options;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::core::commands::host::{HostTool, HostTools};
use crate::core::events::{StopReason, TeamEvent};
use crate::core::plan::Task;
use crate::core::llm::client::Transport;
use crate::core::settings::Settings;
#[cfg(feature = "widget-keep")]
use crate::core::store::{SessionData, SessionStatus};
use crate::core::view::{EntryKind, RunState, RunView};
#[cfg(feature = "widget-keep")]
use crate::web::idb_store::IdbStore;
use crate::web::runner::Runner;
#[cfg(feature = "widget-keep")]
use crate::web::session::Keeper;
use crate::web::transport::FetchTransport;

use host_key::{HostKeyTransport, PLACEHOLDER_KEY};
use host_port::PagePort;
use options::{KeySource, WidgetOptions};

/// One widget's team. JS owns it; `update(name, json)` hears everything.
#[wasm_bindgen]
pub struct Agent {
    inner: Rc<Inner>,
}

struct Inner {
    settings: Settings,
    key_source: KeySource,
    get_key: Option<Rc<js_sys::Function>>,
    /// The page's tools and context, given to the team when it starts.
    host: Option<Rc<HostTools>>,
    /// `update(name, json)`: "render" with what changed, or a host event.
    update: js_sys::Function,
    runner: RefCell<Option<Rc<Runner>>>,
    view: RefCell<RunView>,
    /// Per entry id: (text length, live, kind) as last rendered.
    rendered: RefCell<Vec<(u64, usize, bool, EntryKind)>>,
    plan_seen: RefCell<Vec<Task>>,
    disposed: Cell<bool>,
    /// Where the team is kept (`storageKey`), once the store is open.
    #[cfg(feature = "widget-keep")]
    store: RefCell<Option<Rc<IdbStore>>>,
    /// The kept conversation is loading, or its session being made:
    /// messages wait.
    loading: Cell<bool>,
    /// The team was restored without a key (one the person types): the
    /// next message or resume takes the typed key first.
    needs_key: Cell<bool>,
    /// A run cut off by a reload, waiting for the typed key to continue.
    interrupted: Cell<bool>,
    /// The kept conversation is leased to another tab (or one just closed).
    #[cfg(feature = "widget-keep")]
    waiting_for_lease: Cell<bool>,
    /// The page is going away (the JS sets it on `pagehide`): the kept run
    /// it cuts off is not saved as ended (`Runner::keep_in_quietly`).
    #[cfg(feature = "widget-keep")]
    leaving: Rc<Cell<bool>>,
}

/// How often a widget retries a conversation another tab holds.
#[cfg(feature = "widget-keep")]
const LEASE_RETRY_MS: u64 = 1_000;

#[wasm_bindgen]
impl Agent {
    /// `options`: a plain object (see `options::WidgetOptions`); `get_key`:
    /// the host's key function when `keySource` is "host".
    /// `host`: `host(kind, callJson)`, the page's tools and approvals (see
    /// `host_port`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        options: &JsValue,
        get_key: Option<js_sys::Function>,
        update: js_sys::Function,
        host: Option<js_sys::Function>,
    ) -> Result<Agent, JsError> {
        let options = WidgetOptions::from_object(options).map_err(|e| JsError::new(&e))?;
        let settings = options.settings().map_err(|e| JsError::new(&e))?;
        if options.key_source == KeySource::Host && get_key.is_none() {
            return Err(JsError::new("keySource \"host\" needs a getKey function"));
        }
        let inner = Rc::new(Inner {
            settings,
            key_source: options.key_source,
            get_key: get_key.map(Rc::new),
            host: host.map(|host| Rc::new(HostTools::new(Rc::new(PagePort { host })))),
            update,
            runner: RefCell::new(None),
            view: RefCell::new(RunView::default()),
            rendered: RefCell::new(Vec::new()),
            plan_seen: RefCell::new(Vec::new()),
            disposed: Cell::new(false),
            #[cfg(feature = "widget-keep")]
            store: RefCell::new(None),
            loading: Cell::new(options.storage_key.is_some()),
            needs_key: Cell::new(false),
            interrupted: Cell::new(false),
            #[cfg(feature = "widget-keep")]
            waiting_for_lease: Cell::new(false),
            #[cfg(feature = "widget-keep")]
            leaving: Rc::default(),
        });
        inner.render();
        if let Some(storage_key) = options.storage_key {
            // The store is ~146 KB gzip of wasm: built only into the
            // package's second module (`widget-keep`), which the JS loads
            // for a widget with `storageKey`.
            #[cfg(feature = "widget-keep")]
            wasm_bindgen_futures::spawn_local(inner.clone().restore(storage_key));
            #[cfg(not(feature = "widget-keep"))]
            return Err(JsError::new(&format!("tabteam: storageKey \"{storage_key}\" needs the package's tabteam_keep module (load the widget through tabteam-widget.js)")));
        }
        Ok(Agent { inner })
    }

    /// Send a message (the first starts the team); `key` is what the
    /// person typed, used only when `keySource` is "user". False, with an
    /// `error` event saying why, when it cannot be sent.
    pub fn send(&self, text: &str, key: &str) -> bool {
        self.inner.send(text, key)
    }

    /// Answer question `question_id` (from an `ask-human` event).
    pub fn answer(&self, question_id: f64, text: &str) -> bool {
        self.inner.answer(question_id as u64, text)
    }

    /// Stop the team; its work is kept and the next message resumes it.
    pub fn stop(&self) {
        self.inner.stop();
    }

    /// Stop the team and hear nothing more from it (a kept session is
    /// let go, so another tab may open it at once).
    pub fn dispose(&self) {
        self.inner.stop();
        self.inner.disposed.set(true);
        let runner = self.inner.runner.borrow_mut().take();
        #[cfg(feature = "widget-keep")]
        if let Some(runner) = runner {
            wasm_bindgen_futures::spawn_local(async move { runner.release().await });
        }
        #[cfg(not(feature = "widget-keep"))]
        drop(runner);
    }

    /// Replace the page's tools: `json` is a list of `{name, description,
    /// parameters, confirm}` (`parameters` in the JSON Schema subset). An
    /// error says which tool is wrong and how; the old tools then stay.
    #[wasm_bindgen(js_name = setTools)]
    pub fn set_tools(&self, json: &str) -> Result<(), JsError> {
        let Some(host) = &self.inner.host else { return Ok(()) };
        let list: Vec<Value> = serde_json::from_str(json).map_err(|e| JsError::new(&format!("tabteam tools: {e}")))?;
        let mut tools: Vec<HostTool> = Vec::with_capacity(list.len());
        for tool in &list {
            let text = |field: &str| tool.get(field).and_then(Value::as_str).unwrap_or_default();
            let confirm = tool.get("confirm").and_then(Value::as_bool).unwrap_or(false);
            let made = HostTool::from_schema(text("name"), text("description"), tool.get("parameters").unwrap_or(&Value::Null), confirm)
                .map_err(|e| JsError::new(&format!("tabteam {e}")))?;
            if tools.iter().any(|t| t.spec.name == made.spec.name) {
                return Err(JsError::new(&format!("tabteam tools: two tools are named {}", text("name"))));
            }
            tools.push(made);
        }
        host.set_tools(tools);
        Ok(())
    }

    /// Show the agents `text` under `key` in their next prompts (an empty
    /// text removes it).
    #[wasm_bindgen(js_name = setContext)]
    pub fn set_context(&self, key: &str, text: &str) {
        if let Some(host) = &self.inner.host {
            host.set_context(key, text);
        }
    }

    #[wasm_bindgen(js_name = removeContext)]
    pub fn remove_context(&self, key: &str) {
        if let Some(host) = &self.inner.host {
            host.remove_context(key);
        }
    }

    /// The page is going away (`pagehide`: true) or back from the
    /// back/forward cache (`pageshow`: false). Only a kept team cares.
    #[wasm_bindgen(js_name = pageLeaving)]
    pub fn page_leaving(&self, leaving: bool) {
        #[cfg(feature = "widget-keep")]
        self.inner.leaving.set(leaving);
        #[cfg(not(feature = "widget-keep"))]
        let _ = leaving;
    }

    /// Whether the team is working.
    #[wasm_bindgen(getter)]
    pub fn running(&self) -> bool {
        self.inner.runner.borrow().as_ref().is_some_and(|r| r.is_running())
    }
}

impl Inner {
    fn send(self: &Rc<Self>, text: &str, typed_key: &str) -> bool {
        let text = text.trim();
        if self.disposed.get() {
            return false;
        }
        if self.loading.get() {
            return self.problem("One moment: the saved conversation is still loading.");
        }
        let typed_key = typed_key.trim();
        // An interrupted run with a typed key continues on an empty Send.
        if text.is_empty() && !self.interrupted.get() {
            return self.problem("Type a message first.");
        }
        if let Some(runner) = self.runner.borrow().clone() {
            if runner.is_running() {
                return self.problem("The team is still working: wait for it, or press Stop.");
            }
            // Only a restored team lacks its key.
            #[cfg(feature = "widget-keep")]
            if self.needs_key.get() {
                let problems = self.settings.problems(typed_key);
                if !problems.is_empty() {
                    return self.problem(&problems.join(" "));
                }
                runner.reconfigure(&self.settings, typed_key);
                self.needs_key.set(false);
            }
            if !text.is_empty() {
                if let Err(e) = runner.send(text) {
                    return self.problem(&e.to_string());
                }
            }
            self.interrupted.set(false);
            self.continue_run(&runner);
            self.render();
            return true;
        }
        let key = self.start_key(typed_key);
        let problems = self.settings.problems(key);
        if !problems.is_empty() {
            return self.problem(&problems.join(" "));
        }
        #[cfg(not(feature = "widget-keep"))]
        self.start(key, text).resume(None);
        #[cfg(feature = "widget-keep")]
        self.start_kept(key, text);
        true
    }

    /// Start a new team, kept in the store when there is one.
    #[cfg(feature = "widget-keep")]
    fn start_kept(self: &Rc<Self>, key: &str, text: &str) {
        let store = self.store.borrow().clone();
        let Some(store) = store else {
            self.start(key, text).resume(None);
            return;
        };
        // Kept: the session is made first, so a run that cannot be saved
        // never starts (as on the site).
        self.loading.set(true);
        let (this, key, text) = (self.clone(), key.to_string(), text.to_string());
        wasm_bindgen_futures::spawn_local(async move {
            let made = keep::create(&store, &this.settings, &text).await;
            this.loading.set(false);
            match made {
                Ok(keeper) if !this.disposed.get() => {
                    let runner = this.start(&key, &text);
                    match runner.keep_in_quietly(keeper, SessionStatus::Running, this.leaving.clone()).await {
                        Ok(()) => runner.resume(None),
                        Err(e) => {
                            this.problem(&format!("The team did not start: the conversation could not be saved ({e})."));
                        }
                    }
                    this.render();
                }
                Ok(keeper) => keeper.release().await,
                Err(e) => {
                    this.problem(&format!("Your message was not sent: the conversation could not be saved ({e})."));
                }
            }
        });
    }

    /// The key a new team starts with.
    fn start_key<'a>(&self, typed_key: &'a str) -> &'a str {
        match self.key_source {
            KeySource::User => typed_key,
            KeySource::Host => PLACEHOLDER_KEY,
            KeySource::None => "",
        }
    }

    /// The transport a team's requests go through, and the one that asks
    /// the host for the key per call (`keySource` "host").
    fn transports(&self) -> (FetchTransport, Option<Rc<dyn Transport>>) {
        let transport = FetchTransport::default();
        let host_transport = match (&self.get_key, self.key_source) {
            (Some(get_key), KeySource::Host) => Some(Rc::new(HostKeyTransport { inner: transport.clone(), get_key: get_key.clone() }) as Rc<dyn Transport>),
            _ => None,
        };
        (transport, host_transport)
    }

    /// What the team's events go to (nothing once the widget is gone).
    fn event_hook(self: &Rc<Self>) -> impl Fn(&TeamEvent) + 'static {
        let weak: Weak<Inner> = Rc::downgrade(self);
        move |event: &TeamEvent| {
            if let Some(inner) = weak.upgrade() {
                inner.on_event(event);
            }
        }
    }

    /// A new team on `text`, shown; the caller starts it.
    fn start(self: &Rc<Self>, key: &str, text: &str) -> Rc<Runner> {
        let (transport, host_transport) = self.transports();
        let mut runner = Runner::with_transport(&self.settings, key, text, transport, host_transport, self.event_hook());
        if let Some(host) = &self.host {
            runner = runner.attach_host(host.clone());
        }
        let runner = Rc::new(runner);
        *self.runner.borrow_mut() = Some(runner.clone());
        self.render();
        runner
    }

    /// Run the team again (a follow-up, an answer to a reload): saved as
    /// running first when it is kept, so a reload before its first
    /// checkpoint still finds it interrupted.
    fn continue_run(&self, runner: &Rc<Runner>) {
        #[cfg(feature = "widget-keep")]
        {
            let saving = runner.clone();
            wasm_bindgen_futures::spawn_local(async move { saving.save_now(SessionStatus::Running).await });
        }
        runner.resume(Some(self.settings.budget));
    }

    /// Open the conversation kept under `storage_key`, then tell the JS
    /// ("opened"): `mount` resolves then, so a `send` after it is not
    /// refused for a conversation still loading. A run the reload cut off
    /// carries on a task later: the page's code after `await mount(...)`
    /// (its tools, its context) comes first, so the call made again sees them.
    #[cfg(feature = "widget-keep")]
    async fn restore(self: Rc<Self>, storage_key: String) {
        self.clone().open_kept(storage_key).await;
        self.emit("opened", &Value::Null);
        crate::web::transport::sleep(0).await;
        let Some(runner) = self.runner.borrow().clone() else { return };
        // Not when the page has sent something meanwhile (that carried on).
        if self.interrupted.get() && !self.needs_key.get() && !self.disposed.get() {
            self.interrupted.set(false);
            self.continue_run(&runner);
            self.render();
        }
    }

    #[cfg(feature = "widget-keep")]
    /// Open the conversation kept under `storage_key` (if any): its team
    /// restored as the site restores a session and its entries shown (a run
    /// the reload cut off is marked `interrupted`).
    async fn open_kept(self: Rc<Self>, storage_key: String) {
        let store = match keep::open(&storage_key).await {
            Ok(store) => store,
            Err(e) => {
                self.loading.set(false);
                self.problem(&format!("This conversation will not be kept over a reload: {e}"));
                return;
            }
        };
        *self.store.borrow_mut() = Some(store.clone());
        // A tab closed a moment ago may still hold the lease (the site's
        // rule: `LEASE_MS` after its last renewal): wait for it to run out.
        let mut waited = 0;
        let opened = loop {
            match keep::latest(&store).await {
                Err(crate::core::store::StoreError::Locked { .. }) if waited <= crate::web::session::LEASE_MS && !self.disposed.get() => {
                    self.waiting_for_lease.set(true);
                    self.render();
                    crate::web::transport::sleep(LEASE_RETRY_MS).await;
                    waited += LEASE_RETRY_MS;
                }
                other => break other,
            }
        };
        self.waiting_for_lease.set(false);
        let reopened = match opened {
            Ok(Some((keeper, data))) => self.reopen(keeper, data).await,
            Ok(None) => Ok(()),
            Err(e) => Err(e.to_string()),
        };
        self.loading.set(false);
        if let Err(e) = reopened {
            self.problem(&format!("The saved conversation could not be opened: {e}"));
            return;
        }
        self.check_plan();
        self.render();
    }

    #[cfg(feature = "widget-keep")]
    async fn reopen(self: &Rc<Self>, keeper: Keeper, data: SessionData) -> Result<(), String> {
        let snapshot = match data.snapshot() {
            Ok(Some(snapshot)) => snapshot,
            Ok(None) => {
                keeper.release().await;
                return Ok(());
            }
            Err(e) => {
                keeper.release().await;
                return Err(e.to_string());
            }
        };
        if self.disposed.get() {
            keeper.release().await;
            return Ok(());
        }
        // The page's options now, not the saved ones: the host configures
        // its widget (a key from the host is asked for per call anyway).
        let (transport, host_transport) = self.transports();
        let key = self.start_key("");
        let restored = Runner::restored_with_transport(&self.settings, key, snapshot.clone(), transport, host_transport, self.event_hook());
        let mut runner = match restored {
            Ok(runner) => runner,
            Err(e) => {
                keeper.release().await;
                return Err(e.to_string());
            }
        };
        if let Some(host) = &self.host {
            runner = runner.attach_host(host.clone());
        }
        let (reason, status) = runner.session.reopened(data.session.status);
        *self.view.borrow_mut() = RunView::restored(&snapshot, reason);
        let runner = Rc::new(runner);
        let kept = runner.keep_in_quietly(keeper, status, self.leaving.clone()).await;
        *self.runner.borrow_mut() = Some(runner);
        self.needs_key.set(self.key_source == KeySource::User);
        self.interrupted.set(status == SessionStatus::Interrupted);
        kept.map_err(|e| e.to_string())
    }

    fn answer(&self, question_id: u64, text: &str) -> bool {
        let Some(runner) = self.runner.borrow().clone() else { return self.problem("No question is waiting.") };
        if !runner.answer(question_id, text) {
            return self.problem("That question is no longer waiting for an answer.");
        }
        self.view.borrow_mut().answered(question_id, text);
        self.render();
        true
    }

    fn stop(&self) {
        if let Some(runner) = self.runner.borrow().as_ref() {
            runner.stop();
        }
    }

    /// Say what is wrong: in the status line and as an `error` event.
    fn problem(&self, text: &str) -> bool {
        self.emit("render", &json!({ "entries": [], "status": text, "problem": true }));
        let (name, detail) = host_events::error(None, text);
        self.emit(name, &detail);
        false
    }

    fn on_event(&self, event: &TeamEvent) {
        if self.disposed.get() {
            return;
        }
        self.view.borrow_mut().apply(event);
        let total = self.view.borrow().total_dollars;
        if let Some((name, detail)) = host_events::for_team_event(event, total, self.settings.budget) {
            self.emit(name, &detail);
        }
        if !matches!(event, TeamEvent::LlmDelta { .. }) {
            self.check_plan();
        }
        self.render();
    }

    fn check_plan(&self) {
        let Some(runner) = self.runner.borrow().clone() else { return };
        let Some(plan) = &runner.plan else { return };
        let Ok(plan) = plan.try_borrow() else { return };
        if self.plan_seen.borrow().as_slice() != plan.tasks() {
            *self.plan_seen.borrow_mut() = plan.tasks().to_vec();
            self.emit("plan-updated", &host_events::plan_updated(&plan));
        }
    }

    fn emit(&self, name: &str, detail: &Value) {
        if self.disposed.get() {
            return;
        }
        let _ = self.update.call2(&JsValue::NULL, &JsValue::from_str(name), &JsValue::from_str(&detail.to_string()));
    }

    /// Tell the page what changed: the entries that are new or changed,
    /// the status line, the cost, and the question waiting, if any.
    fn render(&self) {
        let view = self.view.borrow();
        let mut rendered = self.rendered.borrow_mut();
        let mut changed = Vec::new();
        for entry in &view.entries {
            let now = (entry.id, entry.text.len(), entry.live, entry.kind);
            match rendered.iter_mut().find(|r| r.0 == entry.id) {
                Some(r) if *r == now => continue,
                Some(r) => *r = now,
                None => rendered.push(now),
            }
            changed.push(json!({
                "id": entry.id,
                "role": entry.role,
                "kind": entry.kind.class(),
                "text": entry.text,
                "live": entry.live,
            }));
        }
        let question = view.open_questions().first().and_then(|e| match e.kind {
            EntryKind::Question { question_id, .. } => Some(question_id),
            _ => None,
        });
        let waiting_for_key = self.interrupted.get() && self.needs_key.get();
        let (status, problem) = match &view.state {
            #[cfg(feature = "widget-keep")]
            _ if self.waiting_for_lease.get() => {
                ("This conversation is open in another tab (or one closed a moment ago): it opens here once that tab lets it go.".into(), false)
            }
            #[cfg(feature = "widget-keep")]
            _ if self.loading.get() && view.entries.is_empty() => ("Loading the conversation…".into(), false),
            #[cfg(feature = "widget-keep")]
            _ if waiting_for_key => ("The page was reloaded while the team was working. Enter your key and press Send to carry on.".into(), false),
            // Before the first message there is no team to speak of.
            RunState::NotStarted if self.runner.borrow().is_none() => (String::new(), false),
            // The team's status is the site's (`RunView::status`); a stop
            // other than finishing shows as a problem.
            state => (view.status(), matches!(state, RunState::Stopped(reason) if !matches!(reason, StopReason::Idle))),
        };
        let cost = if view.cost.is_empty() { String::new() } else { format!("${:.4} of ${:.2}", view.total_dollars, self.settings.budget) };
        let running = self.runner.borrow().as_ref().is_some_and(|r| r.is_running()) && !matches!(view.state, RunState::Stopped(_));
        drop(rendered);
        drop(view);
        self.emit(
            "render",
            &json!({ "entries": changed, "status": status, "problem": problem, "cost": cost, "question": question, "running": running, "resumable": waiting_for_key }),
        );
    }
}

