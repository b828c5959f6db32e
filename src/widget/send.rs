//! What a message does in the widget: makes the session (the first one),
//! carries on a run that waits (an empty one), or goes to the team as a
//! follow-up; and the key each of these hands the host. The host decides
//! whether it may go; a refusal becomes the widget's `error` event.
//! Not here: the widget's API (`mod.rs`) or what it renders (`page.rs`).

use std::rc::Rc;

use crate::core::host::{Edge, Host, Request};

use super::host_key::PLACEHOLDER_KEY;
use super::options::KeySource;
use super::page::{resumable, Heard};
use super::{Inner, Kept};

impl Inner {
    pub(super) fn host(&self) -> Option<Host<Kept>> {
        self.host.borrow().clone()
    }

    pub(super) fn make_host(self: &Rc<Self>, store: Option<Rc<Kept>>) -> Host<Kept> {
        let edge: Rc<dyn Edge> = self.edge.clone();
        let host = Host::new(edge, store, Rc::new(Heard(Rc::downgrade(self))), self.settings.clone(), self.start_key("").to_string());
        *self.host.borrow_mut() = Some(host.clone());
        host
    }

    pub(super) fn send(self: &Rc<Self>, text: &str, typed_key: &str) -> bool {
        let text = text.trim();
        if self.disposed.get() {
            return false;
        }
        let Some(host) = self.host().filter(|_| !self.loading.get()) else {
            return self.problem("One moment: the saved conversation is still loading.");
        };
        let key = self.start_key(typed_key.trim()).to_string();
        let state = host.state();
        if !state.is_open() {
            if text.is_empty() {
                return self.problem("Type a message first.");
            }
            // Kept: the session is made first, so a run that cannot be
            // saved never starts (as on the site).
            self.loading.set(host.keeps_sessions());
            let (this, text) = (self.clone(), text.to_string());
            wasm_bindgen_futures::spawn_local(async move {
                let made = host.create(&text, this.settings.clone(), key).await;
                this.loading.set(false);
                if let Err(note) = made {
                    this.problem(&note.to_string());
                }
                this.render();
            });
            return true;
        }
        if text.is_empty() {
            // An empty Send carries on a run that waits (for the key, after a reload).
            if !resumable(&state) {
                return self.problem("Type a message first.");
            }
            host.configure(self.settings.clone(), key);
            if host.state().can_resume() {
                if let Err(e) = host.resume() {
                    return self.problem(&e.to_string());
                }
            }
            return true;
        }
        // Sent first: while the key is missing, it waits in the host, and
        // the key typed with it lets it go.
        if let Err(e) = host.send(Request::Text(text.to_string())) {
            return self.problem(&e.to_string());
        }
        host.configure(self.settings.clone(), key);
        true
    }

    /// The key a team takes.
    pub(super) fn start_key<'a>(&self, typed_key: &'a str) -> &'a str {
        match self.key_source {
            KeySource::User => typed_key,
            KeySource::Host => PLACEHOLDER_KEY,
            KeySource::None => "",
        }
    }
}
