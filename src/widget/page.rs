//! What the widget hands its page: the team's events folded into the view
//! (`Heard`, the host's listener), and the JSON the renderer puts on
//! screen (`render`): the entries that changed, the status (the core's
//! words: `HostState::status`, or the host's refusal a run waits on), the
//! cost, the question waiting, whether Stop and an empty Send do anything.
//! Not here: the widget's API (`mod.rs`) or its DOM (`tabteam-widget.js`).

use std::rc::Weak;

use serde_json::{json, Value};
use wasm_bindgen::JsValue;

use crate::core::events::{StopReason, TeamEvent};
use crate::core::host::{HostState, Listener, Phase};
use crate::core::view::{EntryKind, RunState, RunView};

use super::{host_events, Inner};

/// The widget, as its host's listener.
pub(super) struct Heard(pub(super) Weak<Inner>);

impl Listener for Heard {
    fn event(&self, event: &TeamEvent) {
        let Some(inner) = self.0.upgrade() else { return };
        if inner.disposed.get() {
            return;
        }
        inner.view.borrow_mut().apply(event);
        let total = inner.view.borrow().total_dollars;
        if let Some((name, detail)) = host_events::for_team_event(event, total, inner.settings.budget) {
            inner.emit(name, &detail);
        }
        inner.render();
    }

    fn view(&self, view: RunView) {
        let Some(inner) = self.0.upgrade() else { return };
        *inner.view.borrow_mut() = view;
        inner.rendered.borrow_mut().clear();
        inner.render();
    }

    fn state(&self, state: &HostState) {
        let Some(inner) = self.0.upgrade() else { return };
        let plan_changed = inner.state.borrow().plan.tasks() != state.plan.tasks();
        *inner.state.borrow_mut() = state.clone();
        if plan_changed && state.has_plan {
            inner.emit("plan-updated", &host_events::plan_updated(&state.plan));
        }
        inner.render();
    }
}

impl Inner {
    /// Say what is wrong: in the status line and as an `error` event.
    pub(super) fn problem(&self, text: &str) -> bool {
        self.emit("render", &json!({ "entries": [], "status": text, "problem": true }));
        let (name, detail) = host_events::error(None, text);
        self.emit(name, &detail);
        false
    }

    pub(super) fn emit(&self, name: &str, detail: &Value) {
        if self.disposed.get() {
            return;
        }
        let _ = self.update.call2(&JsValue::NULL, &JsValue::from_str(name), &JsValue::from_str(&detail.to_string()));
    }

    /// Tell the page what changed: the entries that are new or changed,
    /// the status line, the cost, and the question waiting, if any.
    pub(super) fn render(&self) {
        let (Ok(view), Ok(state), Ok(mut rendered)) =
            (self.view.try_borrow(), self.state.try_borrow(), self.rendered.try_borrow_mut())
        else {
            return;
        };
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
        let (status, problem) = match (&state.phase, &view.state) {
            _ if self.waiting_for_lease.get() => {
                ("This conversation is open in another tab (or one closed a moment ago): it opens here once that tab lets it go.".into(), false)
            }
            _ if self.loading.get() && view.entries.is_empty() => ("Loading the conversation…".into(), false),
            // What the run waits for (the key after a reload), in the host's words.
            (Phase::Waiting(why), _) => (why.to_string(), false),
            // Before the first message there is no team to speak of.
            (Phase::Empty, _) => (String::new(), false),
            // The team's status is the site's (`HostState::status`); a stop
            // other than finishing shows as a problem.
            (_, run) => (state.status(&view), matches!(run, RunState::Stopped(reason) if !matches!(reason, StopReason::Idle))),
        };
        let cost = if view.cost.is_empty() {
            String::new()
        } else {
            format!("${:.4} of ${:.2}", view.total_dollars, self.settings.budget)
        };
        // Stop stops the team at work, or drops a message waiting for the key.
        let (running, resumable) = (state.can_stop(), resumable(&state));
        drop(rendered);
        drop(view);
        drop(state);
        self.emit(
            "render",
            &json!({ "entries": changed, "status": status, "problem": problem, "cost": cost, "question": question, "running": running, "resumable": resumable }),
        );
    }
}

/// An empty Send carries the run on: it waits for the key, or a reload cut it off.
pub(super) fn resumable(state: &HostState) -> bool {
    matches!(state.phase, Phase::Waiting(_) | Phase::Paused(StopReason::Interrupted))
}
