//! The tab's side of a kept session: the clock the host's leases and saved
//! times read, and the in-flight answers saved when the page goes away
//! (shown after the reload as abandoned; their calls are made again).
//!
//! The keeper itself (writer, lease, `Durable` sink) is the core's
//! (`core::host::Keeper`); the lease holder is this tab's id (`tab_id.rs`).

use std::cell::{Cell, RefCell};
use litemap::LiteMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const IN_FLIGHT: &str = "tabteam.inflight.";

/// Milliseconds since the epoch.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// The text of answers still streaming, by role, for the session that is
/// running; written to `localStorage` when the page goes away so the next
/// load can show them as abandoned (their calls are made again).
#[derive(Clone, Default)]
pub struct InFlight {
    pub session_id: Rc<RefCell<Option<String>>>,
    pub partial: Rc<RefCell<LiteMap<String, String>>>,
    /// The page is going away (`pagehide` seen, no `pageshow` since): the
    /// requests it aborts are not the run's failures, so the run's end is
    /// not saved (the session stays "running" and reopens interrupted).
    pub leaving: Rc<Cell<bool>>,
}

thread_local! {
    static CURRENT: InFlight = {
        let in_flight = InFlight::default();
        in_flight.save_on_page_hide();
        in_flight
    };
}

impl InFlight {
    /// The tab's one tracker (its `pagehide` handler is installed once).
    pub fn current() -> InFlight {
        CURRENT.with(InFlight::clone)
    }

    /// Follow what `event` says about answers streaming.
    pub fn follow(&self, event: &crate::core::events::TeamEvent) {
        use crate::core::events::TeamEvent;
        match event {
            TeamEvent::LlmStarted { role, quiet: false, .. } => self.started(role),
            TeamEvent::LlmDelta { role, text } => self.delta(role, text),
            TeamEvent::LlmFinished { role, .. } | TeamEvent::RoleFailed { role, .. } => self.finished(role),
            TeamEvent::Stopped { .. } => self.clear(),
            _ => {}
        }
    }

    pub fn started(&self, role: &str) {
        self.partial.borrow_mut().insert(role.to_string(), String::new());
    }

    pub fn delta(&self, role: &str, text: &str) {
        if let Some(t) = self.partial.borrow_mut().get_mut(role) {
            t.push_str(text);
        }
    }

    pub fn finished(&self, role: &str) {
        self.partial.borrow_mut().remove(role);
    }

    pub fn clear(&self) {
        self.partial.borrow_mut().clear();
    }

    /// Save on `pagehide` (synchronous storage: the page is going away).
    fn save_on_page_hide(&self) {
        let this = self.clone();
        let on_hide = Closure::<dyn FnMut()>::new(move || {
            this.leaving.set(true);
            let Some(id) = this.session_id.borrow().clone() else { return };
            let partial: LiteMap<String, String> =
                this.partial.borrow().iter().filter(|(_, t)| !t.is_empty()).map(|(r, t)| (r.clone(), t.clone())).collect();
            if partial.is_empty() {
                return;
            }
            if let (Some(storage), Ok(json)) = (local_storage(), serde_json::to_string(&Abandoned(partial))) {
                let _ = storage.set_item(&format!("{IN_FLIGHT}{id}"), &json);
            }
        });
        // Back from the back/forward cache: the page lives on.
        let leaving = self.leaving.clone();
        let on_show = Closure::<dyn FnMut()>::new(move || leaving.set(false));
        if let Some(window) = web_sys::window() {
            let _ = window.add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref());
            let _ = window.add_event_listener_with_callback("pageshow", on_show.as_ref().unchecked_ref());
        }
        on_hide.forget();
        on_show.forget();
    }

    /// What was streaming in session `id` when the page went away (taken:
    /// shown once).
    pub fn take_abandoned(id: &str) -> LiteMap<String, String> {
        let Some(storage) = local_storage() else { return LiteMap::new() };
        let key = format!("{IN_FLIGHT}{id}");
        let found = storage.get_item(&key).ok().flatten().and_then(|json| serde_json::from_str::<Abandoned>(&json).ok());
        let _ = storage.remove_item(&key);
        found.map(|a| a.0).unwrap_or_default()
    }
}

/// What was streaming when the page went away, as it is kept in
/// `localStorage`: a JSON object, role → the text that had streamed.
/// Written and read through this one type, so both sides agree.
#[derive(serde::Serialize, serde::Deserialize)]
struct Abandoned(#[serde(with = "crate::core::sorted_map::map")] LiteMap<String, String>);

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}
