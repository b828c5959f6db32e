//! Sessions: every run is kept in IndexedDB as it goes (see
//! `web::session`), listed in the top bar's switcher (`SessionSwitcher`)
//! to open, rename, duplicate, export or delete, imported back from an
//! exported file, or closed for a new one ("New session"). On load, a session
//! that was running when the tab closed is opened again as "interrupted"
//! and continues with one click (or at once, with "continue interrupted
//! runs automatically").
//!
//! Storage that fails never costs the run: without IndexedDB the team runs
//! unsaved, with a note saying so; a failed save pauses the run with the
//! reason (see `core::checkpoint`).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::events::StopReason;
use crate::core::settings::Settings;
use crate::core::store::{file_stem, NewSession, SessionRecord, SessionSettings, SessionStatus, Store, StoreError};
use crate::core::view::{RunState, RunView};
use crate::web::download;
use crate::web::idb_store::IdbStore;
use crate::web::runner::Runner;
use crate::web::session::{now_ms, InFlight, Keeper};

use super::Shared;

/// How long a session title may be (taken from the idea).
const TITLE_CHARS: usize = 60;

/// Open the store, list the sessions, and reopen one that was running when
/// the tab closed.
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
        shared.store.set_value(Some(store.clone()));
        shared.store_ready.set(true);
        refresh(shared).await;
        let interrupted = shared.sessions.with_untracked(|list| {
            list.iter().find(|s| matches!(s.status, SessionStatus::Running | SessionStatus::Interrupted)).map(|s| s.id.clone())
        });
        if let Some(id) = interrupted {
            super::lazy::open(shared, id).await;
            if shared.settings.with_untracked(|s| s.auto_resume) && shared.view.with_untracked(|v| v.state == RunState::Stopped(StopReason::Interrupted)) {
                super::lazy::resume(shared);
            }
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

/// Start a new run of `idea`, kept as a new session when storage works.
pub fn start(shared: Shared, settings: Settings, key: String, idea: String) {
    spawn_local(async move {
        release_current(shared).await;
        shared.view.set(RunView::default());
        shared.plan.set(Default::default());
        shared.files.set(Vec::new());
        shared.versions.set(Vec::new());
        let runner = Rc::new(Runner::new(&settings, &key, &idea, move |e| shared.on_event(e)).attach_sandbox());
        watch_runs(shared, &runner);
        shared.runner.set_value(Some(runner.clone()));
        if let Some(store) = shared.store.get_value() {
            let new = NewSession {
                title: title_of(&idea),
                idea: idea.clone(),
                team_kind: settings.team.id().to_string(),
                settings: SessionSettings::of(&settings),
                now_ms: now_ms(),
            };
            let kept = match Keeper::create(store, new).await {
                Ok(keeper) => runner.keep_in(keeper, SessionStatus::Running).await,
                Err(e) => Err(e),
            };
            watch_saves(shared, &runner);
            if let Err(e) = kept {
                // Nothing is lost yet: say so and do not start.
                shared.storage_note.set(Some(format!("The run was not started. {e}")));
                shared.running.set(false);
                return;
            }
            shared.session_id.set(runner.session_id());
            refresh(shared).await;
        }
        shared.running.set(true);
        runner.resume(None);
    });
}

/// Open session `id`: its team restored and paused, its conversation,
/// plan and files shown.
pub async fn open(shared: Shared, id: String) {
    let Some(store) = shared.store.get_value() else { return };
    if shared.running.get_untracked() {
        shared.storage_note.set(Some("Stop the team before opening another session.".into()));
        return;
    }
    release_current(shared).await;
    let (keeper, data) = match Keeper::open(store, &id).await {
        Ok(opened) => opened,
        Err(e) => {
            shared.storage_note.set(Some(e.to_string()));
            return;
        }
    };
    let snapshot = match data.snapshot() {
        Ok(Some(snapshot)) => snapshot,
        Ok(None) => {
            shared.storage_note.set(Some("This session has nothing saved yet.".into()));
            keeper.release().await;
            return;
        }
        Err(e) => {
            shared.storage_note.set(Some(e.to_string()));
            keeper.release().await;
            return;
        }
    };
    let session = &data.session;
    let settings = session.settings.apply_to(&shared.settings.get_untracked(), &session.team_kind, &snapshot.ledger.prices);
    let key = shared.key.get_untracked();
    let runner = match Runner::restored(&settings, &key, snapshot.clone(), move |e| shared.on_event(e)) {
        Ok(runner) => {
            watch_runs(shared, &runner);
            Rc::new(runner.attach_sandbox())
        }
        Err(e) => {
            shared.storage_note.set(Some(format!("This session cannot be opened: {e}")));
            keeper.release().await;
            return;
        }
    };
    let (reason, status) = runner.session.reopened(session.status);
    let mut view = RunView::restored(&snapshot, reason);
    for (role, text) in InFlight::take_abandoned(&id) {
        view.add_abandoned(&role, &text);
    }
    if let Err(e) = runner.keep_in(keeper, status).await {
        shared.storage_note.set(Some(e.to_string()));
    }
    watch_saves(shared, &runner);
    shared.runner.set_value(Some(runner));
    shared.settings.set(settings);
    shared.view.set(view);
    shared.session_id.set(Some(id));
    shared.storage_note.set(None);
    shared.refresh();
    refresh(shared).await;
}

/// Continue the open session.
pub fn resume(shared: Shared) {
    let (settings, key) = (shared.settings.get_untracked(), shared.key.get_untracked());
    // A reopened session may lack what a run needs (the key, when it was
    // not remembered): say so instead of sending a request bound to fail.
    let replay = shared.replay.get_untracked();
    let problems = if replay { Vec::new() } else { settings.problems(&key) };
    if !problems.is_empty() {
        let needs_key = key.trim().is_empty() && settings.preset().is_none_or(|p| p.needs_key);
        let what = if needs_key { "Enter your API key in Settings to resume.".to_string() } else { format!("To resume: {}", problems.join(" ")) };
        shared.resume_note.set(Some(what));
        return;
    }
    shared.resume_note.set(None);
    shared.runner.with_value(|r| {
        if let Some(r) = r {
            // The list says "running" at once, not "interrupted" until the
            // run ends (saved before the run takes the team).
            let saving = r.clone();
            spawn_local(async move {
                saving.save_now(SessionStatus::Running).await;
                refresh(shared).await;
            });
            // The key, prices or budget may have been fixed meanwhile.
            r.reconfigure(&settings, &key);
            r.resume(Some(settings.budget));
        }
    });
    shared.running.set(true);
}

/// Show the version each run ends in, and that the team is at rest.
fn watch_runs(shared: Shared, runner: &Runner) {
    runner.on_run_end(move |_| {
        shared.run_ends.update(|n| *n += 1);
        shared.refresh();
    });
}

/// Refresh the list when a run's end is saved; show a failed save.
fn watch_saves(shared: Shared, runner: &Rc<Runner>) {
    let error = runner.storage_error.clone();
    runner.on_saved(move || {
        if let Some(e) = error.borrow().as_ref() {
            shared.storage_note.set(Some(e.to_string()));
        }
        spawn_local(refresh(shared));
    });
}

async fn release_current(shared: Shared) {
    if let Some(runner) = shared.runner.get_value() {
        runner.release().await;
    }
    shared.runner.set_value(None);
    shared.session_id.set(None);
}

/// Close the open session (kept as it is) and show the first card again.
pub async fn close(shared: Shared) {
    if shared.running.get_untracked() {
        shared.storage_note.set(Some("Stop the team before starting a new session.".into()));
        return;
    }
    release_current(shared).await;
    shared.replay.set(false);
    shared.resume_note.set(None);
    shared.view.set(RunView::default());
    shared.plan.set(Default::default());
    shared.files.set(Vec::new());
    shared.versions.set(Vec::new());
}

fn title_of(idea: &str) -> String {
    let line = idea.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

fn report<T>(shared: Shared, result: Result<T, StoreError>) -> Option<T> {
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
            if shared.session_id.get_untracked().as_deref() == Some(id.as_str()) {
                release_current(shared).await;
                shared.view.set(RunView::default());
                shared.plan.set(Default::default());
                shared.files.set(Vec::new());
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

/// What the top bar calls the page: the open session's title.
fn current_title(shared: Shared) -> String {
    if shared.replay.get() {
        return "Sample run (replay)".into();
    }
    let id = shared.session_id.get();
    let title = shared.sessions.with(|list| list.iter().find(|s| Some(&s.id) == id.as_ref()).map(|s| s.title.clone()));
    match title {
        Some(t) => t,
        None if shared.run_shown() => "Unsaved session".into(),
        None => "New session".into(),
    }
}

/// The session's title in the top bar; a click opens the list of the
/// others (a disclosure: Escape closes it and focus goes back).
#[component]
pub fn SessionSwitcher() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let open = RwSignal::new(false);
    let button = NodeRef::<leptos::html::Button>::new();
    let close_menu = move || {
        open.set(false);
        if let Some(b) = button.get_untracked() {
            let _ = b.focus();
        }
    };
    provide_context(SwitcherState { open });
    view! {
        <div class="switcher" on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" && open.get_untracked() { ev.prevent_default(); close_menu(); }>
            <button class="switcher-button" data-testid="switcher" node_ref=button
                aria-expanded=move || open.get().to_string() aria-controls="sessions-menu"
                on:click=move |_| open.update(|o| *o = !*o)>
                <span class="switcher-title" data-testid="current-title">{move || current_title(shared)}</span>
                <span class="chevron" aria-hidden="true">"▾"</span>
                <span class="visually-hidden">" — switch session"</span>
            </button>
            <div id="sessions-menu" class="switcher-menu" hidden=move || !open.get()>
                <SessionsPanel/>
            </div>
        </div>
    }
}

/// The switcher's open state, for the rows (opening a session closes it).
#[derive(Clone, Copy)]
struct SwitcherState {
    open: RwSignal<bool>,
}

#[component]
pub fn SessionsPanel() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let switcher = expect_context::<SwitcherState>();
    let import_input = NodeRef::<leptos::html::Input>::new();
    let import = move |_| {
        let Some(input) = import_input.get_untracked() else { return };
        if shared.store.with_value(Option::is_none) {
            return;
        }
        spawn_local(async move {
            let text = match download::picked_text(&input).await {
                Ok(text) => text,
                Err(e) => return shared.storage_note.set(Some(e)),
            };
            input.set_value("");
            super::lazy::act(shared, SessionAction::Import { text }).await;
        });
    };
    let new_session = move |_| {
        switcher.open.set(false);
        spawn_local(super::lazy::close(shared));
    };
    view! {
        <section class="sessions" aria-labelledby="sessions-title" data-testid="sessions">
            <div class="menu-head">
                <h2 id="sessions-title">"Sessions"</h2>
                <button class="primary small" data-testid="new-session" disabled=move || shared.running.get() || !shared.run_shown() on:click=new_session>"+ New session"</button>
            </div>
            <Show when=move || shared.store_ready.get() fallback=|| view! { <p class="note">"Sessions cannot be kept in this browser."</p> }>
                <Show when=move || shared.sessions.with(|l| !l.is_empty()) fallback=|| view! { <p class="note">"Runs are saved here as they go."</p> }>
                    <ul class="session-list">
                        <For each=move || shared.sessions.get() key=|s| (s.id.clone(), s.title.clone(), s.status, s.updated_ms) let:session>
                            <SessionRow session=session/>
                        </For>
                    </ul>
                </Show>
                <div class="row">
                    <label class="button">
                        "Import a session…"
                        <input type="file" accept=".json,application/json" class="visually-hidden" data-testid="import" node_ref=import_input on:change=import/>
                    </label>
                    <label class="check">
                        <input type="checkbox" data-testid="auto-resume"
                            prop:checked=move || shared.settings.with(|s| s.auto_resume)
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                shared.settings.update(|s| s.auto_resume = on);
                                let (settings, key) = (shared.settings.get_untracked(), shared.key.get_untracked());
                                let _ = crate::web::settings_store::save(&settings, &key);
                            }/>
                        "Continue interrupted runs automatically"
                    </label>
                </div>
            </Show>
        </section>
    }
}

#[component]
fn SessionRow(session: SessionRecord) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let id = session.id.clone();
    let current = {
        let id = id.clone();
        move || shared.session_id.with(|s| s.as_deref() == Some(id.as_str()))
    };
    let busy = move || shared.running.get();
    let switcher = expect_context::<SwitcherState>();
    let on_open = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            switcher.open.set(false);
            spawn_local(async move { super::lazy::open(shared, id).await })
        }
    };
    // Renaming happens in place: the title becomes a text field (Enter
    // saves, Escape cancels; an empty or unchanged name changes nothing).
    let renaming = RwSignal::new(false);
    let name_input = NodeRef::<leptos::html::Input>::new();
    let rename_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(input) = name_input.get() {
            let _ = input.focus();
            input.select();
        }
    });
    let end_rename = move || {
        renaming.set(false);
        if let Some(button) = rename_button.get_untracked() {
            let _ = button.focus();
        }
    };
    let save_rename = {
        let (id, title) = (id.clone(), session.title.clone());
        move || {
            let Some(input) = name_input.get_untracked() else { return };
            let new = input.value().trim().to_string();
            end_rename();
            if new.is_empty() || new == title {
                return;
            }
            let action = SessionAction::Rename { id: id.clone(), title: new };
            spawn_local(super::lazy::act(shared, action));
        }
    };
    let on_name_key = {
        let save_rename = save_rename.clone();
        move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                save_rename();
            }
            "Escape" => {
                // Cancels the rename only; the switcher stays open.
                ev.prevent_default();
                ev.stop_propagation();
                end_rename();
            }
            _ => {}
        }
    };
    let on_duplicate = {
        let (id, title) = (id.clone(), session.title.clone());
        move |_| {
            let action = SessionAction::Duplicate { id: id.clone(), title: format!("{title} (copy)") };
            spawn_local(super::lazy::act(shared, action));
        }
    };
    let on_export = {
        let (id, title) = (id.clone(), session.title.clone());
        move |_| {
            let action = SessionAction::Export { id: id.clone(), title: title.clone() };
            spawn_local(super::lazy::act(shared, action));
        }
    };
    let on_delete = {
        let (id, title) = (id.clone(), session.title.clone());
        move |_| {
            let sure = web_sys::window()
                .and_then(|w| w.confirm_with_message(&format!("Delete \u{201c}{title}\u{201d} and everything in it?")).ok())
                .unwrap_or(false);
            if !sure {
                return;
            }
            spawn_local(super::lazy::act(shared, SessionAction::Delete { id: id.clone() }));
        }
    };
    let current_class = current.clone();
    let name_label = format!("New name for \u{201c}{}\u{201d} (Enter saves, Escape cancels)", session.title);
    let field_title = session.title.clone();
    view! {
        <li class:current=current_class data-testid="session" data-status=session.status.label() data-updated=session.updated_ms.to_string()>
            // The badge follows the name, field or title, on its line (as
            // in a row not being renamed); Save and Cancel wrap below.
            <div class="session-title">
                <Show when=move || renaming.get() fallback={
                    let title = session.title.clone();
                    move || view! { <b data-testid="session-title">{title.clone()}</b> }
                }>
                    <input type="text" class="rename-field" data-testid="session-name" node_ref=name_input maxlength="200"
                        aria-label=name_label.clone() prop:value=field_title.clone() on:keydown=on_name_key.clone()/>
                </Show>
                <span class=format!("badge status-{}", session.status.label())>{session.status.label()}</span>
                <Show when=move || renaming.get()>
                    <span class="rename-actions">
                        <button class="small" data-testid="session-name-save" on:click={
                            let save_rename = save_rename.clone();
                            move |_| save_rename()
                        }>"Save"</button>
                        <button class="small" data-testid="session-name-cancel" on:click=move |_| end_rename()>"Cancel"</button>
                    </span>
                </Show>
            </div>
            <div class="row session-actions">
                <button data-testid="session-open" disabled=move || busy() || current() on:click=on_open>"Open"</button>
                <button data-testid="session-rename" node_ref=rename_button on:click=move |_| renaming.set(true)>"Rename"</button>
                <button data-testid="session-duplicate" on:click=on_duplicate>"Duplicate"</button>
                <button data-testid="session-export" on:click=on_export>"Export"</button>
                <button data-testid="session-delete" disabled=busy on:click=on_delete>"Delete"</button>
            </div>
        </li>
    }
}
