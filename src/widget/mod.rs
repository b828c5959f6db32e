//! The embeddable widget's engine: one team per widget, its events folded
//! into a `RunView`, and what changed handed to the page as JSON.
//! `pkg/tabteam-widget.js` (hand-written) is the rest: `<tabteam-agent>`,
//! `mount(element, options)`, the shadow DOM it renders from these updates,
//! and the conversation in IndexedDB.
//!
//! Why the DOM lives in JS: the package must stay under 250 KB gzip, and
//! the same rendering written over web-sys cost ~25 KB gzip of wasm and
//! glue, against ~3 KB of JS. The split keeps the rule that the UI holds
//! no logic: what an entry is, says, and whether it is done is decided
//! here (`RunView`); JS only puts text on screen.
//!
//! Layout: `options` (what the host configures), `host_events` (the
//! payloads the host hears), `host_key` (the key from the host per call),
//! `host_port` (the page's tools and the approvals, over one JS function).

mod host_events;
mod host_key;
mod host_port;
mod options;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::core::commands::host::{HostTool, HostTools};
use crate::core::events::{StopReason, TeamEvent};
use crate::core::plan::Task;
use crate::core::settings::Settings;
use crate::core::view::{stop_text, EntryKind, RunState, RunView};
use crate::web::runner::Runner;
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
        });
        inner.render();
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

    /// Stop the team and hear nothing more from it.
    pub fn dispose(&self) {
        self.inner.stop();
        self.inner.disposed.set(true);
        self.inner.runner.borrow_mut().take();
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
        if text.is_empty() {
            return self.problem("Type a message first.");
        }
        if let Some(runner) = self.runner.borrow().clone() {
            if runner.is_running() {
                return self.problem("The team is still working: wait for it, or press Stop.");
            }
            if let Err(e) = runner.send(text) {
                return self.problem(&e.to_string());
            }
            runner.resume(None);
            self.render();
            return true;
        }
        let key = match self.key_source {
            KeySource::User => typed_key.trim(),
            KeySource::Host => PLACEHOLDER_KEY,
            KeySource::None => "",
        };
        let problems = self.settings.problems(key);
        if !problems.is_empty() {
            return self.problem(&problems.join(" "));
        }
        let weak: Weak<Inner> = Rc::downgrade(self);
        let on_event = move |event: &TeamEvent| {
            if let Some(inner) = weak.upgrade() {
                inner.on_event(event);
            }
        };
        let transport = FetchTransport::default();
        let host_transport = match (&self.get_key, self.key_source) {
            (Some(get_key), KeySource::Host) => {
                Some(Rc::new(HostKeyTransport { inner: transport.clone(), get_key: get_key.clone() }) as Rc<dyn crate::core::llm::client::Transport>)
            }
            _ => None,
        };
        let mut runner = Runner::with_transport(&self.settings, key, text, transport, host_transport, on_event);
        if let Some(host) = &self.host {
            runner = runner.attach_host(host.clone());
        }
        let runner = Rc::new(runner);
        *self.runner.borrow_mut() = Some(runner.clone());
        runner.resume(None);
        self.render();
        true
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
                "kind": kind_name(entry.kind),
                "text": entry.text,
                "live": entry.live,
            }));
        }
        let question = view.open_questions().first().and_then(|e| match e.kind {
            EntryKind::Question { question_id, .. } => Some(question_id),
            _ => None,
        });
        let (status, problem) = match &view.state {
            RunState::NotStarted => (String::new(), false),
            RunState::Running if question.is_some() => ("Waiting for your answer.".into(), false),
            RunState::Running => {
                let busy: Vec<String> = view.busy.iter().map(|(role, doing)| format!("{role} is {doing}")).collect();
                (if busy.is_empty() { "Working…".into() } else { busy.join(", ") }, false)
            }
            RunState::Stopped(reason) => (stop_text(reason), !matches!(reason, StopReason::Idle)),
        };
        let cost = if view.cost.is_empty() { String::new() } else { format!("${:.4} of ${:.2}", view.total_dollars, self.settings.budget) };
        let running = self.runner.borrow().as_ref().is_some_and(|r| r.is_running()) && !matches!(view.state, RunState::Stopped(_));
        drop(rendered);
        drop(view);
        self.emit(
            "render",
            &json!({ "entries": changed, "status": status, "problem": problem, "cost": cost, "question": question, "running": running }),
        );
    }
}

/// The class and saved name of an entry kind.
fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::User => "user",
        EntryKind::Answer => "answer",
        EntryKind::Message { .. } => "message",
        EntryKind::Reply => "reply",
        EntryKind::Question { .. } => "question",
        EntryKind::Error => "error",
    }
}
