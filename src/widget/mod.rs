//! The embeddable widget's engine: one session host per widget
//! (`core::host::Host`, the site's), its events folded into a `RunView`,
//! and what changed handed to the page as JSON.
//! `pkg/tabteam-widget.js` (hand-written) is the rest: `<tabteam-agent>`,
//! `mount(element, options)` and the shadow DOM it renders from these
//! updates. With `storageKey` the team is kept in IndexedDB as the site
//! keeps its sessions (`keep`), and a reload resumes it.
//!
//! Why the DOM lives in JS: the package must stay under 250 KB gzip, and
//! the same rendering written over web-sys cost ~25 KB gzip of wasm and
//! glue, against ~3 KB of JS. The split keeps the rule that the UI holds
//! no logic: what an entry is, says, and whether it is done is decided
//! here (`RunView`, the host's state); JS only puts text on screen.
//!
//! Layout: `options` (what the host configures), `host_events` (the
//! payloads the host hears), `host_key` (the key from the host per call),
//! `host_port` (the page's tools and the approvals, over one JS function),
//! `keep` (where a widget with `storageKey` keeps its team), `page` (the
//! listener and the JSON it renders), `send` (what a message does).

mod host_events;
mod host_key;
mod host_port;
#[cfg(feature = "widget-keep")]
mod keep;
mod options;
mod page;
mod send;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::core::commands::host::HostTools;
use crate::core::host::{Host, HostState};
use crate::core::llm::client::Transport;
use crate::core::settings::Settings;
#[cfg(not(feature = "widget-keep"))]
use crate::core::store::NoStore;
#[cfg(feature = "widget-keep")]
use crate::core::store::Store;
use crate::core::view::{EntryKind, RunView};
use crate::web::edge::BrowserEdge;

use host_key::HostKeyTransport;
use host_port::PagePort;
use options::{KeySource, WidgetOptions};

/// The store a widget's host may keep its conversation in: the keeping
/// engine's IndexedDB store; none at all in the plain engine, whose host
/// is then built without any saving code (its size budget).
#[cfg(feature = "widget-keep")]
type Kept = dyn Store;
#[cfg(not(feature = "widget-keep"))]
type Kept = NoStore;

/// One widget's team. JS owns it; `update(name, json)` hears everything.
#[wasm_bindgen]
pub struct Agent {
    inner: Rc<Inner>,
}

struct Inner {
    settings: Settings,
    key_source: KeySource,
    /// `update(name, json)`: "render" with what changed, or a host event.
    update: js_sys::Function,
    /// The page's tools and context, given to each team.
    tools: Option<Rc<HostTools>>,
    /// The session host (made once the store, if any, is open).
    host: RefCell<Option<Host<Kept>>>,
    edge: Rc<BrowserEdge>,
    view: RefCell<RunView>,
    state: RefCell<HostState>,
    /// Per entry id: (text length, live, kind) as last rendered.
    rendered: RefCell<Vec<(u64, usize, bool, EntryKind)>>,
    disposed: Cell<bool>,
    /// The kept conversation is loading, or its session being made:
    /// messages wait.
    loading: Cell<bool>,
    /// The kept conversation is leased to another tab (or one just closed).
    waiting_for_lease: Cell<bool>,
    /// The page is going away (the JS sets it on `pagehide`): the kept run
    /// it cuts off is not saved as ended.
    leaving: Rc<Cell<bool>>,
}

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
        let mut settings = options.settings().map_err(|e| JsError::new(&e))?;
        // A run a reload cut off carries on by itself (when the key is there).
        settings.auto_resume = true;
        if options.key_source == KeySource::Host && get_key.is_none() {
            return Err(JsError::new("keySource \"host\" needs a getKey function"));
        }
        let tools = host.map(|host| Rc::new(HostTools::new(Rc::new(PagePort { host }))));
        let leaving: Rc<Cell<bool>> = Rc::default();
        let key_transport = |inner: &crate::web::transport::FetchTransport| match (&get_key, options.key_source) {
            (Some(get_key), KeySource::Host) => Some(Rc::new(HostKeyTransport { inner: inner.clone(), get_key: Rc::new(get_key.clone()) }) as Rc<dyn Transport>),
            _ => None,
        };
        let edge = BrowserEdge::widget(tools.clone(), leaving.clone());
        let edge = Rc::new(match key_transport(edge.transport()) {
            Some(way) => edge.with_llm_transport(way),
            None => edge,
        });
        let inner = Rc::new(Inner {
            settings,
            key_source: options.key_source,
            update,
            tools,
            host: RefCell::new(None),
            edge,
            view: RefCell::new(RunView::default()),
            state: RefCell::new(HostState::default()),
            rendered: RefCell::new(Vec::new()),
            disposed: Cell::new(false),
            loading: Cell::new(options.storage_key.is_some()),
            waiting_for_lease: Cell::new(false),
            leaving,
        });
        match options.storage_key {
            None => {
                inner.make_host(None);
            }
            // The store is ~146 KB gzip of wasm: built only into the
            // package's second module (`widget-keep`), which the JS loads
            // for a widget with `storageKey`.
            #[cfg(feature = "widget-keep")]
            Some(storage_key) => wasm_bindgen_futures::spawn_local(inner.clone().restore(storage_key)),
            #[cfg(not(feature = "widget-keep"))]
            Some(storage_key) => {
                return Err(JsError::new(&format!("tabteam: storageKey \"{storage_key}\" needs the package's tabteam_keep module (load the widget through tabteam-widget.js)")))
            }
        }
        inner.render();
        Ok(Agent { inner })
    }

    /// Send a message (the first starts the team; an empty one carries on
    /// a run that waits); `key` is what the person typed, used only when
    /// `keySource` is "user". False, with an `error` event saying why,
    /// when it cannot be sent.
    pub fn send(&self, text: &str, key: &str) -> bool {
        self.inner.send(text, key)
    }

    /// Answer question `question_id` (from an `ask-human` event).
    pub fn answer(&self, question_id: f64, text: &str) -> bool {
        let inner = &self.inner;
        let Some(host) = inner.host() else { return inner.problem("No question is waiting.") };
        if let Err(e) = host.answer(question_id as u64, text) {
            return inner.problem(&e.to_string());
        }
        inner.view.borrow_mut().answered(question_id as u64, text);
        inner.render();
        true
    }

    /// Stop the team; its work is kept and the next message resumes it.
    pub fn stop(&self) {
        if let Some(host) = self.inner.host() {
            host.stop();
        }
    }

    /// Stop the team and hear nothing more from it (a kept session is
    /// let go, so another tab may open it at once).
    pub fn dispose(&self) {
        self.stop();
        self.inner.disposed.set(true);
        if let Some(host) = self.inner.host.borrow_mut().take() {
            wasm_bindgen_futures::spawn_local(async move { host.leave().await });
        }
    }

    /// Replace the page's tools: `json` is a list of `{name, description,
    /// parameters, confirm}` (`parameters` in the JSON Schema subset). An
    /// error says which tool is wrong and how; the old tools then stay.
    #[wasm_bindgen(js_name = setTools)]
    pub fn set_tools(&self, json: &str) -> Result<(), JsError> {
        let Some(host) = &self.inner.tools else { return Ok(()) };
        let tools = host_port::parse_tools(json).map_err(|e| JsError::new(&e))?;
        host.set_tools(tools);
        Ok(())
    }

    /// Show the agents `text` under `key` in their next prompts (an empty
    /// text removes it).
    #[wasm_bindgen(js_name = setContext)]
    pub fn set_context(&self, key: &str, text: &str) {
        if let Some(host) = &self.inner.tools {
            host.set_context(key, text);
        }
    }

    #[wasm_bindgen(js_name = removeContext)]
    pub fn remove_context(&self, key: &str) {
        if let Some(host) = &self.inner.tools {
            host.remove_context(key);
        }
    }

    /// The page is going away (`pagehide`: true) or back from the
    /// back/forward cache (`pageshow`: false). Only a kept team cares.
    #[wasm_bindgen(js_name = pageLeaving)]
    pub fn page_leaving(&self, leaving: bool) {
        self.inner.leaving.set(leaving);
    }

    /// Whether the team is working.
    #[wasm_bindgen(getter)]
    pub fn running(&self) -> bool {
        self.inner.state.borrow().running()
    }
}
