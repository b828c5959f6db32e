//! The first card: what the page shows while no run is open, where the
//! composer will be. Provider, model and key (`ProviderFields`), the idea,
//! Start, and "Replay a sample run" beside it; the recent sessions, each a
//! click from open (the full list, with its actions, is the switcher's).
//! Everything else is in the Settings dialog; this card links to it.
//!
//! Starting hands the idea to `lazy::start`; checking what is missing is
//! `Settings::problems`, shown here in words.

use leptos::prelude::*;

use super::attach::AttachedImages;
use super::replay::ReplayButton;
use super::settings_dialog::SettingsDialogState;
use super::settings_panel::ProviderFields;
use super::{lazy, Shared, MAX_IDEA_CHARS};
use crate::web::settings_store;

/// How many sessions the card lists.
const RECENT: usize = 5;

/// `idea` is the page's, not the card's: a start that fails (the team's
/// code could not be loaded) brings the card back with the idea in it.
#[component]
pub fn FirstCard(idea: RwSignal<String>) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let dialog = expect_context::<SettingsDialogState>();
    let notice = RwSignal::new(None::<String>);
    let problems = move || {
        let mut p = shared.settings.with(|s| shared.key.with(|k| s.problems(k)));
        if let Some(e) = shared.settings.with(|s| shared.attached.refusal(s)) {
            p.push(e);
        }
        let chars = idea.with(|i| i.trim().chars().count());
        if chars == 0 {
            p.insert(0, "Type your idea.".into());
        } else if chars > MAX_IDEA_CHARS {
            p.insert(0, format!("The idea is {chars} characters; keep it under {MAX_IDEA_CHARS}."));
        }
        p
    };
    // The list comes newest first (`sort_sessions`); a few: the switcher has them all.
    let recent = move || shared.sessions.with(|list| list.iter().take(RECENT).cloned().collect::<Vec<_>>());
    let start = move || {
        if !problems().is_empty() || shared.running.get_untracked() {
            return;
        }
        let settings = shared.settings.get_untracked();
        let key = shared.key.get_untracked();
        if let Err(e) = settings_store::save(&settings, &key) {
            notice.set(Some(e));
        }
        lazy::start(shared, settings, key, idea.get_untracked().trim().to_string(), shared.attached.images.get_untracked());
    };
    view! {
        <section class="first-card card" aria-labelledby="first-title" data-testid="first-card">
            <h2 id="first-title">"What should the team build?"</h2>
            <p class="note">
                "A team leader, a product manager, an architect, a project manager, an engineer and a QA engineer "
                "turn your idea into a PRD, a design, a plan and working code, here in your browser. There is no tabteam server."
            </p>
            // One copy of the fields at a time: the open dialog has them.
            <Show when=move || !dialog.open.get()>
                <ProviderFields/>
            </Show>
            <label class="idea-label" for="idea">"Your idea"</label>
            <textarea
                id="idea"
                class="idea"
                rows="4"
                placeholder="A 2048 game in HTML and JavaScript"
                aria-describedby="idea-help"
                prop:value=idea
                on:input=move |ev| idea.set(event_target_value(&ev))
                on:paste=move |ev| { super::attach::Attached::take(shared, &ev); }
                on:dragover=move |ev| ev.prevent_default()
                on:drop=move |ev| { super::attach::Attached::take(shared, &ev); }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        start();
                    }
                }
            ></textarea>
            <AttachedImages disabled=Signal::derive(move || shared.running.get())/>
            <div class="row">
                <button
                    class="primary"
                    data-testid="start"
                    disabled=move || !problems().is_empty() || shared.running.get()
                    on:click=move |_| start()
                >"Start the team"</button>
                <ReplayButton/>
                <span class="note grow" id="idea-help">"Enter starts, Shift+Enter breaks the line."</span>
                <span class="note" data-testid="idea-count">{move || format!("{} characters", idea.with(|i| i.trim().chars().count()))}</span>
            </div>
            <ul class="problems" data-testid="problems">
                {move || problems().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
            </ul>
            {move || notice.get().map(|n| view! { <p class="error">{n}</p> })}
            <Show when=move || shared.sessions.with(|l| !l.is_empty())>
                <nav class="recent" aria-labelledby="recent-title" data-testid="recent-sessions">
                    <h3 id="recent-title">"Recent sessions"</h3>
                    <ul>
                        {move || recent().into_iter().map(|s| {
                            let id = s.id.clone();
                            let open = move |_| {
                                let id = id.clone();
                                leptos::task::spawn_local(async move { lazy::open(shared, id).await });
                            };
                            view! { <li><button class="link" data-testid="recent-session" on:click=open>{s.title.clone()}</button></li> }
                        }).collect_view()}
                    </ul>
                </nav>
            </Show>
            <p class="note">
                "Base URL, prices, budget, rounds, the team and a model per role are in "
                <button class="link" data-testid="more-settings" on:click=move |_| dialog.show()>"Settings"</button>"."
            </p>
        </section>
    }
}
