//! The Leptos front end. It renders core values and calls core methods; it
//! holds no business logic (see ARCHITECTURE.md).

use leptos::prelude::*;

/// Mount the app into the page body (the site's entry point).
pub fn mount() {
    leptos::mount::mount_to_body(App);
}

/// The site's root component.
#[component]
pub fn App() -> impl IntoView {
    let (idea, set_idea) = signal(String::new());
    let idea_len = move || idea.with(|s| s.trim().chars().count());
    view! {
        <main class="app">
            <header>
                <h1>"tabteam"</h1>
                <p>"A software company of AI agents that runs entirely in this tab."</p>
            </header>
            <section class="card" aria-labelledby="what">
                <h2 id="what">"What it does"</h2>
                <p>
                    "Type one idea. A team leader, a product manager, an architect, a project manager, an engineer and a QA engineer "
                    "turn it into a PRD, a design with diagrams, a task list and code. The model is called from this browser with your own key; "
                    "the key goes only to the provider you choose."
                </p>
            </section>
            <section class="card idea">
                <label for="idea">"Your idea"</label>
                <textarea
                    id="idea"
                    placeholder="A 2048 game in HTML and JavaScript"
                    prop:value=idea
                    on:input=move |ev| set_idea.set(event_target_value(&ev))
                ></textarea>
                <p class="note" data-testid="idea-count">{move || format!("{} characters", idea_len())}</p>
            </section>
        </main>
    }
}
