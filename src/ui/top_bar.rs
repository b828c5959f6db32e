//! The bar along the top of the page: the name, the session switcher
//! (`sessions::SessionSwitcher`), the cost meter against the budget while a
//! run is shown, and the Settings button. It shows state; what the buttons
//! do is elsewhere (`sessions`, `settings_dialog`).

use leptos::prelude::*;

use super::sessions::SessionSwitcher;
use super::settings_dialog::SettingsButton;
use super::Shared;

#[component]
pub fn TopBar() -> impl IntoView {
    let shared = expect_context::<Shared>();
    view! {
        <header class="top-bar">
            <h1 class="brand"><span class="logo" aria-hidden="true"></span><span class="brand-name">"tabteam"</span></h1>
            <SessionSwitcher/>
            <span class="grow"></span>
            <Show when=move || shared.run_shown()>
                <CostMeter/>
            </Show>
            <SettingsButton/>
        </header>
    }
}

/// Spent so far against the budget (a replay spends nothing and says so).
#[component]
fn CostMeter() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let budget = move || shared.settings.with(|s| s.budget);
    let spent = move || shared.view.with(|v| v.total_dollars);
    view! {
        <div class="meter" data-testid="cost" title="Spent so far against the budget set in Settings">
            <meter min="0" max=budget value=spent aria-label="Spent of the budget"></meter>
            <span>{move || if shared.replay.get() {
                "replay: $0, no model is called".to_string()
            } else {
                format!("${:.4} of ${:.2}", spent(), budget())
            }}</span>
            <span class="note cache" data-testid="cache">{move || shared.view.with(|v| v.cache_note().map(|n| format!(" · {n}")).unwrap_or_default())}</span>
        </div>
    }
}
