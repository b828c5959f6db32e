//! "Replay a sample run": a button that plays the recorded sample run
//! through the real team (no key, no provider, nothing spent), and the
//! banner that says, for the whole run, that it is a replay.

use leptos::prelude::*;

use super::Shared;

/// Starts the replay in place of a run.
#[component]
pub fn ReplayButton() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let play = move |_| {
        if !shared.running.get_untracked() {
            super::lazy::replay(shared);
        }
    };
    view! {
        <button data-testid="replay" disabled=move || shared.running.get() on:click=play
            title="Plays a recorded run of the software company: no key needed, no model is called">
            "Replay a sample run"
        </button>
    }
}

/// Shown above the run while it is a replay.
#[component]
pub fn ReplayBanner() -> impl IntoView {
    let shared = expect_context::<Shared>();
    view! {
        <Show when=move || shared.replay.get()>
            <p class="card replay-banner" data-testid="replay-banner" role="note">
                <b>"Replay of a recorded run. "</b>
                "The team below is real, but its model's answers come from a recording shipped with this site: "
                "no provider is called, no key is used, nothing is spent."
            </p>
        </Show>
    }
}
