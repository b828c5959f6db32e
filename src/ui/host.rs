//! The page's side of the session host (`core::host::Host`): the host made
//! with the run module, the page as its listener (events folded into the
//! view, the state held as pushed), and the calls a click makes (start,
//! open, resume, close, the replay, the switcher's store actions). On
//! load, the session this tab last had open is opened again (a reload
//! keeps the person where they were), else one that was running when its
//! tab closed, as "interrupted", which continues with one click (or at
//! once, with "continue interrupted runs automatically": the host's rule).
//!
//! Not here: any rule of a session (what may go when, what is saved: the
//! host's), or a component (the switcher is `sessions`).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::events::TeamEvent;
use crate::core::host::{Host, HostState, Listener};
use crate::core::settings::Settings;
use crate::core::store::{file_stem, session_to_reopen, Arrival, Store};
use crate::core::view::RunView;
use crate::web::download;
use crate::web::edge::BrowserEdge;
use crate::web::idb_store::IdbStore;
use crate::web::session::now_ms;

use super::Shared;
use crate::web::settings_store;

/// Open the store, list the sessions, and reopen the one this tab last had
/// open, or one that was running when its tab closed.
pub fn boot(shared: Shared) {
    // Claim the tab's holder id beside the store's opening (see `tab_id`).
    crate::web::tab_id::start_claim();
    spawn_local(async move {
        let store = match IdbStore::open_default().await {
            Ok(store) => Rc::new(store),
            Err(e) => {
                shared.storage_note.set(Some(e.to_string()));
                return;
            }
        };
        // Read before anything is opened (opening notes it again).
        let last = settings_store::last_open();
        shared.store.set_value(Some(store.clone()));
        shared.store_ready.set(true);
        refresh(shared).await;
        // The rule is the core's: this tab's last session, else one a
        // closed tab cut off; none for a share link or `#new`.
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        let arrival = Arrival::of(&hash, crate::core::share::is_share(&hash), last.as_deref());
        if arrival == Arrival::NewSession {
            // Asked once: the fragment leaves the address bar, and the tab
            // remembers no session until one is opened or started.
            crate::web::share::forget();
            settings_store::set_last_open(None);
        }
        let reopen = shared.sessions.with_untracked(|list| session_to_reopen(list, arrival).map(str::to_string));
        if let Some(id) = reopen {
            super::lazy::open(shared, id).await;
        }
    });
}

/// Re-read the sessions list.
pub async fn refresh(shared: Shared) {
    let Some(store) = shared.store.get_value() else { return };
    match store.list_sessions().await {
        Ok(list) => shared.sessions.set(list),
        Err(e) => shared.storage_note.set(Some(e.to_string())),
    }
}

/// The page, as the host's listener: events fold into the view, the state
/// is held as pushed; the list is read again when a session's standing
/// changes (it was saved).
struct Page(Shared);

impl Listener for Page {
    fn event(&self, event: &TeamEvent) {
        self.0.view.update(|v| v.apply(event));
    }

    fn view(&self, view: RunView) {
        self.0.view.set(view);
    }

    fn state(&self, state: &HostState) {
        let standing = |s: &HostState| (s.session_id.clone(), s.running(), std::mem::discriminant(&s.phase), s.saves);
        let changed = self.0.state.with_untracked(|old| standing(old) != standing(state));
        if self.0.state.with_untracked(|old| old.session_id != state.session_id) {
            settings_store::set_last_open(state.session_id.as_deref());
        }
        self.0.state.set(state.clone());
        if changed {
            spawn_local(refresh(self.0));
        }
    }
}

/// The page's host, made the first time it is needed.
pub(crate) fn host(shared: Shared) -> Host {
    if let Some(host) = shared.host() {
        return host;
    }
    // Requests for the in-tab preset go to the model in the page.
    let site = BrowserEdge::site(super::lazy_project::lazy_sandbox);
    let way = Rc::new(crate::web::in_tab::InTabTransport::new(site.transport().clone()));
    let edge = Rc::new(site.with_llm_transport(way));
    let store = shared.store.get_value().map(|s| s as Rc<dyn Store>);
    let host = Host::new(edge.clone(), store, Rc::new(Page(shared)), shared.settings.get_untracked(), shared.key.get_untracked());
    shared.edge.set_value(Some(edge));
    shared.host.set_value(Some(host.clone()));
    host
}

/// The host, with the settings and key as the page has them now (a
/// request waiting for them goes).
pub(crate) fn configured(shared: Shared) -> Host {
    let host = host(shared);
    host.configure(shared.settings.get_untracked(), shared.key.get_untracked());
    host
}

/// Start a new run of `idea`, kept as a new session when storage works.
pub fn start(shared: Shared, settings: Settings, key: String, idea: String, images: Vec<String>) {
    spawn_local(async move {
        if host(shared).create_with_images(&idea, &images, settings, key).await.is_ok() {
            shared.attached.clear();
        }
        refresh(shared).await;
    });
}

/// Open session `id`: its team restored and paused, its conversation,
/// plan and files shown.
pub async fn open(shared: Shared, id: String) {
    let host = configured(shared);
    if host.open(&id).await.is_ok() {
        shared.storage_note.set(None);
        shared.settings.set(host.settings());
    }
    refresh(shared).await;
}

/// Continue the open session (it waits for a key the tab lacks).
pub fn resume(shared: Shared) {
    if let Err(e) = configured(shared).resume() {
        shared.storage_note.set(Some(e.to_string()));
    }
}

/// The settings or key changed (Settings closed): a request waiting for
/// them goes.
pub fn settings_changed(shared: Shared) {
    if shared.host.with_value(Option::is_some) {
        configured(shared);
    }
}

/// Close the open session (kept as it is) and show the first card again.
pub async fn close(shared: Shared) {
    let _ = host(shared).close().await;
}

/// Play the sample replay in place of a session.
pub fn replay(shared: Shared) {
    let host = host(shared);
    let Some(edge) = shared.edge.get_value() else { return };
    spawn_local(async move {
        let idea = crate::web::replay::sample_idea();
        let _ = host.play(|events| crate::web::replay::sample_session(&edge, events), &idea).await;
    });
}

fn report<T>(shared: Shared, result: Result<T, crate::core::store::StoreError>) -> Option<T> {
    result.map_err(|e| shared.storage_note.set(Some(e.to_string()))).ok()
}

/// What a click on a session (or on "Import") asks of the store. Done by
/// `act`, behind a split point (`lazy::act`): the store's write paths and
/// the export format are not needed to list the sessions.
pub enum SessionAction {
    Rename { id: String, title: String },
    Duplicate { id: String, title: String },
    Export { id: String, title: String },
    Delete { id: String },
    Import { text: String },
}

/// Do `action`, then re-read the list; failures go to the storage note.
pub async fn act(shared: Shared, action: SessionAction) {
    let Some(store) = shared.store.get_value() else { return };
    match action {
        SessionAction::Rename { id, title } => {
            report(shared, store.rename_session(&id, &title, now_ms()).await);
        }
        SessionAction::Duplicate { id, title } => {
            report(shared, store.duplicate_session(&id, &title, now_ms()).await);
        }
        SessionAction::Export { id, title } => {
            if let Some(json) = report(shared, store.export_session(&id).await) {
                if let Err(e) = download::save(&format!("{}.tabteam.json", file_stem(&title)), "application/json", json.as_bytes()) {
                    shared.storage_note.set(Some(e));
                }
            }
            return;
        }
        SessionAction::Delete { id } => {
            if let Some(host) = shared.host() {
                host.forget(&id).await;
            }
            report(shared, store.delete_session(&id, now_ms()).await);
        }
        SessionAction::Import { text } => {
            if report(shared, store.import_session(&text, now_ms()).await).is_some() {
                shared.storage_note.set(None);
            }
        }
    }
    refresh(shared).await;
}

