//! The session switcher: the open session's title in the top bar, and the
//! list of kept sessions to open, rename, duplicate, export or delete,
//! import back from an exported file, or close for a new one ("New
//! session"). Its clicks go through `lazy` to `host`.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::store::SessionRecord;
use crate::web::download;

use super::host::SessionAction;
use super::Shared;

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
