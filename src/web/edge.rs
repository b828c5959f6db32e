//! The browser's ports for the session host (`core::host::Edge`): time,
//! tasks and waits on the event loop, the tab's lease holder id, the
//! provider over `fetch` (Stop aborting its requests in flight), the
//! sandbox frame (the site's, the team's port to it made by the site's
//! `sandbox_port`), the widget host page's tools, and the
//! page-hide rule's flag.
//!
//! Nothing here decides anything about a session: what may be sent when,
//! what is saved, what the page is told are all `core::host`'s.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use crate::core::commands::host::HostTools;
use crate::core::events::EventSink;
use crate::core::host::Edge;
use crate::core::llm::client::{HttpLlm, Transport};
use crate::core::llm::Llm;
use crate::core::sandbox::Sandbox;
use crate::core::session::{Models, Session};
use crate::core::settings::Settings;

use super::sandbox::WebSandbox;
use super::session::InFlight;
use super::transport::{sleep, FetchTransport, StoppableRuntime};

/// Each test file gets this long in the sandbox before its worker is stopped.
const TEST_TIME_LIMIT_MS: u32 = 5_000;

/// The tab, as the host sees it.
#[derive(Default)]
pub struct BrowserEdge {
    transport: FetchTransport,
    /// The model's requests go through this one when set (the widget's key
    /// asked of its host page per call); Stop still aborts `transport`'s.
    llm_transport: Option<Rc<dyn Transport>>,
    /// Each team gets a sandbox frame for its tests and preview (the site),
    /// its port made by this (the site's fetches the sandbox's work lazily).
    sandbox_port: Option<fn(WebSandbox) -> Rc<dyn Sandbox>>,
    /// The widget host page's tools and context.
    tools: Option<Rc<HostTools>>,
    /// Follows the answers streaming, for the page-hide save (the site).
    in_flight: Option<InFlight>,
    /// Set while the page goes away: the site's is `InFlight::leaving`, a
    /// widget sets its own on its `pagehide`.
    leaving: Rc<Cell<bool>>,
    /// The last team's sandbox, which the preview shows.
    sandbox: RefCell<Option<WebSandbox>>,
    /// Run too on Stop (a replay's model stops typing).
    also_stop: RefCell<Option<Rc<dyn Fn()>>>,
}

impl BrowserEdge {
    /// The site's: sandboxed teams (the team's port to its frame made by
    /// `sandbox_port`), answers followed for the page-hide save.
    pub fn site(sandbox_port: fn(WebSandbox) -> Rc<dyn Sandbox>) -> Self {
        let in_flight = InFlight::current();
        Self { sandbox_port: Some(sandbox_port), leaving: in_flight.leaving.clone(), in_flight: Some(in_flight), ..Self::default() }
    }

    /// A widget's: its tools; `leaving` set by its own `pagehide`.
    pub fn widget(tools: Option<Rc<HostTools>>, leaving: Rc<Cell<bool>>) -> Self {
        Self { tools, leaving, ..Self::default() }
    }

    /// The model's requests go through `way` (a wrapper around
    /// `transport()`, say one that asks the host page for the key per call).
    pub fn with_llm_transport(mut self, way: Rc<dyn Transport>) -> Self {
        self.llm_transport = Some(way);
        self
    }

    /// The transport Stop aborts (the widget's key transport wraps it).
    pub fn transport(&self) -> &FetchTransport {
        &self.transport
    }

    /// The sandbox of the team shown, if it has one.
    pub fn sandbox(&self) -> Option<WebSandbox> {
        self.sandbox.borrow().clone()
    }

    /// `session` with the page's Stop, sandbox and tools; `also_stop` is run
    /// on Stop too (a replay's typing).
    pub fn equip(&self, session: Session, also_stop: Option<Rc<dyn Fn()>>) -> Session {
        *self.also_stop.borrow_mut() = also_stop;
        let (switch, also) = (self.transport.stop.clone(), self.also_stop.borrow().clone());
        let session = session.with_stopper(Rc::new(move || {
            switch.stop();
            if let Some(f) = &also {
                f();
            }
        }));
        // Only a build with the `sandbox` feature (the site) makes frames:
        // the widget's build then carries none of the sandbox's code.
        let port = self.sandbox_port.filter(|_| cfg!(feature = "sandbox"));
        let sandbox = port.and_then(|port| WebSandbox::new(TEST_TIME_LIMIT_MS).ok().map(|sandbox| (port, sandbox)));
        if let Ok(mut team) = session.team().try_borrow_mut() {
            if let Some((port, sandbox)) = &sandbox {
                team.env.world.sandbox = port(sandbox.clone());
            }
            if let Some(tools) = &self.tools {
                team.env.world.host = Some(tools.clone());
            }
        }
        *self.sandbox.borrow_mut() = sandbox.map(|(_, sandbox)| sandbox);
        session
    }

    /// The events, followed for the page-hide save first (the site).
    pub fn follow(&self, events: EventSink) -> EventSink {
        match self.in_flight.clone() {
            Some(in_flight) => EventSink::new(move |event| {
                in_flight.follow(event);
                events.emit_ref(event);
            }),
            None => events,
        }
    }
}

impl Edge for BrowserEdge {
    fn now_ms(&self) -> u64 {
        super::session::now_ms()
    }

    fn holder(&self) -> LocalBoxFuture<'static, String> {
        // Only builds that keep sessions take leases: the plain widget's
        // host never asks, and carries none of the tab id's code.
        if !cfg!(any(feature = "site", feature = "widget-keep")) {
            return Box::pin(async { String::new() });
        }
        Box::pin(super::tab_id::tab_holder())
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(sleep(ms))
    }

    fn leaving(&self) -> bool {
        self.leaving.get()
    }

    /// The provider's models over `fetch` (Stop aborts their calls and cuts
    /// their retry pauses short); per-role models where the settings say.
    fn session(&self, settings: &Settings, key: &str, events: EventSink) -> Session {
        let (transport, llm_transport) = (self.transport.clone(), self.llm_transport.clone());
        let make = move |settings: &Settings, key: &str, model: &str| -> Rc<dyn Llm> {
            let origin = web_sys::window().and_then(|w| w.location().origin().ok());
            let config = settings.provider_config_for_model(model, key, origin.as_deref());
            let way: Rc<dyn Transport> = llm_transport.clone().unwrap_or_else(|| Rc::new(transport.clone()));
            Rc::new(HttpLlm::new(config, way, Rc::new(StoppableRuntime(transport.stop.clone()))))
        };
        let models = Models::Made { key: key.to_string(), make: Rc::new(make) };
        self.equip(Session::new(settings, models, self.follow(events)), None)
    }

    fn before_run(&self) {
        self.transport.stop.reset();
    }

    fn kept(&self, session_id: Option<&str>) {
        if let Some(in_flight) = &self.in_flight {
            *in_flight.session_id.borrow_mut() = session_id.map(str::to_string);
        }
    }

    fn abandoned(&self, session_id: &str) -> Vec<(String, String)> {
        match self.in_flight {
            Some(_) => InFlight::take_abandoned(session_id).into_iter().collect(),
            None => Vec::new(),
        }
    }
}
