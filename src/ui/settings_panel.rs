//! The settings' fields. `ProviderFields` (provider preset, model, key,
//! with one sentence on what happens to the key) sit in the first card and
//! in the Settings dialog; `SettingsFields` (base URL, price, the model's
//! window and answer limit, remember the key, budget, rounds, model calls
//! per run, team, per-role models) only in the dialog. They
//! edit `Settings`; checking them is `Settings::problems`. With the "In
//! this tab" provider, `in_tab_model` replaces the model and key fields. Where they are
//! shown is `first_card` and `settings_dialog`'s business, not this file's.

use leptos::prelude::*;

use crate::core::cost::Price;
use crate::core::llm::presets::PRESETS;
use crate::core::settings::TeamKind;

use super::in_tab_model::InTabModel;
use super::role_models::RoleModels;
use super::Shared;

/// What the key field says it is for: a preset whose server may or may
/// not demand a key (LiteLLM with a master key does) says "optional".
fn key_placeholder(needs_key: bool) -> &'static str {
    if needs_key { "sk-…" } else { "optional" }
}

/// A window field's placeholder: the figure in use when it is left empty.
fn window_placeholder(tokens: u64) -> String {
    tokens.to_string()
}

/// A whole number of tokens typed in a field; empty or not a number: none.
fn whole_number(text: &str) -> Option<u64> {
    super::parse_number(text).filter(|v| *v >= 0.0).map(|v| v.round() as u64)
}

/// Provider, model and key: what the first run needs.
#[component]
pub fn ProviderFields() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let needs_key = move || settings.with(|s| s.preset().is_none_or(|p| p.needs_key));
    let provider = move || settings.with(|s| s.preset().map(|p| p.label).unwrap_or("the provider").to_string());
    // The model in the tab needs no key: its own fields replace these.
    let in_tab = move || settings.with(|s| s.in_tab());
    let attention = move || shared.state.with(|s| s.needs_key()) && shared.key.with(|k| k.trim().is_empty());
    view! {
        <div class="fields provider-fields">
            <label>"Provider"
                <select
                    data-testid="preset"
                    on:change=move |ev| settings.update(|s| s.choose_preset(&event_target_value(&ev)))
                    prop:value=move || settings.with(|s| s.preset.clone())
                >
                    {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                </select>
            </label>
            <Show when=move || !in_tab() fallback=|| view! { <InTabModel/> }>
            <label>"Model"
                <input type="text" data-testid="model"
                    prop:value=move || settings.with(|s| s.model.clone())
                    on:input=move |ev| settings.update(|s| { s.model = event_target_value(&ev); s.custom_price = None; s.custom_window = None; }) />
            </label>
            <label class="key">{move || if needs_key() { "API key" } else { "API key (optional)" }}
                <input type="password" autocomplete="off" data-testid="key"
                    class:needs-attention=attention
                    aria-invalid=move || attention().to_string()
                    aria-describedby="key-note"
                    placeholder=move || key_placeholder(needs_key())
                    prop:value=shared.key
                    on:input=move |ev| shared.key.set(event_target_value(&ev)) />
            </label>
            <p class="note key-note" id="key-note">{move || if needs_key() {
                format!("Your key goes only from this browser to {}; it stays in this tab's memory unless you tick \u{201c}Remember the key\u{201d} in Settings.", provider())
            } else {
                format!("Leave it empty unless your server asks for one (a LiteLLM proxy with a master key does); a key goes only from this browser to {}.", provider())
            }}</p>
            </Show>
        </div>
    }
}

/// Everything else: base URL, price, remembering the key, budget, rounds, team, per-role models.
#[component]
pub fn SettingsFields() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let price_text = move || match settings.with(|s| s.model_price()) {
        Some(p) => format!("Price: ${:.2} / ${:.2} per million tokens (in / out)", p.input_per_mtok, p.output_per_mtok),
        None => "No known price for this model: enter it here.".into(),
    };
    let hint = move || settings.with(|s| s.preset().map(|p| p.cors_hint.to_string()).unwrap_or_default());
    // In this tab there is no address, key or price to give: the model
    // runs on this computer, for $0.
    let in_tab = move || settings.with(|s| s.in_tab());
    // Ticked, the key is kept at once (and again when it is typed), as
    // unticking forgets it at once: not only at the next Start.
    let remember = Memo::new(move |_| settings.with(|s| s.remember_key));
    Effect::new(move |_| {
        let key = shared.key.get();
        if remember.get() {
            if let Err(e) = crate::web::settings_store::remember_key(&key) {
                web_sys::console::warn_1(&e.into());
            }
        }
    });
    let set_price = move |input: bool, text: String| {
        let value = super::parse_number(&text).filter(|v| *v >= 0.0);
        settings.update(|s| {
            let current = s.custom_price.or(s.model_price()).unwrap_or(Price::new(0.0, 0.0));
            s.custom_price = value.map(|v| if input { Price::new(v, current.output_per_mtok) } else { Price::new(current.input_per_mtok, v) });
        });
    };
    view! {
        <div class="fields">
            <Show when=move || !in_tab() fallback=move || view! { <p class="note wide">{hint}</p> }>
            <label class="wide">"Base URL"
                <input type="url" data-testid="base-url"
                    prop:value=move || settings.with(|s| s.base_url.clone())
                    on:input=move |ev| settings.update(|s| s.base_url = event_target_value(&ev)) />
                <span class="note">{hint}</span>
            </label>
            <span class="check wide">
                <input type="checkbox" id="remember" data-testid="remember"
                    prop:checked=move || settings.with(|s| s.remember_key)
                    on:change=move |ev| {
                        let remember = event_target_checked(&ev);
                        settings.update(|s| s.remember_key = remember);
                        // Unticking forgets at once, not on the next
                        // Start: the key stays in this tab's memory
                        // (the field keeps it) and nowhere else.
                        if !remember {
                            if let Err(e) = crate::web::settings_store::forget_key() {
                                web_sys::console::warn_1(&e.into());
                            }
                        }
                    } />
                <label for="remember">"Remember the key on this device (kept in this browser's storage until you untick it)"</label>
            </span>
            </Show>
            <p class="note wide" data-testid="price">{price_text}</p>
            <Show when=move || !in_tab()>
            <label>"Price in, $ per million tokens"
                <input type="number" min="0" step="0.01" data-testid="price-in"
                    prop:value=move || settings.with(|s| s.model_price().map(|p| p.input_per_mtok.to_string()).unwrap_or_default())
                    on:change=move |ev| set_price(true, event_target_value(&ev)) />
            </label>
            <label>"Price out, $ per million tokens"
                <input type="number" min="0" step="0.01" data-testid="price-out"
                    prop:value=move || settings.with(|s| s.model_price().map(|p| p.output_per_mtok.to_string()).unwrap_or_default())
                    on:change=move |ev| set_price(false, event_target_value(&ev)) />
            </label>
            <label>"Context window, tokens"
                <input type="number" min="2048" step="1024" data-testid="window-context" aria-describedby="window-note"
                    placeholder=move || window_placeholder(settings.with(|s| s.windows().window(s.model.trim()).context))
                    prop:value=move || settings.with(|s| s.custom_window.map(|w| w.context.to_string()).unwrap_or_default())
                    on:change=move |ev| { let v = whole_number(&event_target_value(&ev)); settings.update(|s| { let output = s.custom_window.map(|w| w.output); s.set_window(v, if v.is_none() { None } else { output }) }) } />
            </label>
            <label>"Answer limit, tokens"
                <input type="number" min="1" step="256" data-testid="window-output" aria-describedby="window-note"
                    placeholder=move || window_placeholder(settings.with(|s| s.windows().window(s.model.trim()).output))
                    prop:value=move || settings.with(|s| s.custom_window.map(|w| w.output.to_string()).unwrap_or_default())
                    on:change=move |ev| { let v = whole_number(&event_target_value(&ev)); settings.update(|s| { let context = s.custom_window.map(|w| w.context); s.set_window(if v.is_none() { None } else { context }, v) }) } />
            </label>
            <p class="note wide" id="window-note" data-testid="window-note">{move || settings.with(|s| s.window_note())}</p>
            {move || settings.with(|s| s.window_problem()).map(|p| view! { <p class="error wide" role="alert" data-testid="window-error">{p}</p> })}
            </Show>
            <label>"Budget, $"
                <input type="number" min="0.01" step="0.5" data-testid="budget" aria-describedby="budget-note"
                    prop:value=move || settings.with(|s| s.budget.to_string())
                    on:change=move |ev| settings.update(|s| s.budget = super::parse_number(&event_target_value(&ev)).unwrap_or(0.0)) />
                <span class="note" id="budget-note">"The team stops before it spends more."</span>
            </label>
            <label>"Rounds"
                <input type="number" min="1" step="1" data-testid="rounds" aria-describedby="rounds-note"
                    prop:value=move || settings.with(|s| s.rounds.to_string())
                    on:change=move |ev| settings.update(|s| s.rounds = event_target_value(&ev).parse().unwrap_or(0)) />
                <span class="note" id="rounds-note">"In a round, every role with mail reads it and acts once. The team pauses after this many; Resume gives it as many again."</span>
            </label>
            <label>"Model calls per run"
                <input type="number" min="0" step="1" data-testid="call-limit" aria-describedby="call-limit-note"
                    prop:value=move || settings.with(|s| s.call_limit.to_string())
                    on:change=move |ev| settings.update(|s| s.call_limit = event_target_value(&ev).trim().parse().unwrap_or(0)) />
                <span class="note" id="call-limit-note">"0: no limit. For a small model, which may never say it is done: after this many calls the team pauses, what it wrote so far is a version, and Resume gives it as many again."</span>
            </label>
            <label class="wide">"Team"
                <select data-testid="team"
                    prop:value=move || settings.with(|s| s.team.id())
                    on:change=move |ev| settings.update(|s| s.team = TeamKind::from_id(&event_target_value(&ev)).unwrap_or_default())>
                    {TeamKind::ALL.into_iter().map(|k| view! { <option value=k.id()>{k.label()}</option> }).collect_view()}
                </select>
            </label>
            <label class="wide">"Package CDN"
                <input type="url" data-testid="package-cdn" aria-describedby="package-cdn-note"
                    prop:value=move || settings.with(|s| s.package_cdn.clone())
                    on:change=move |ev| settings.update(|s| s.package_cdn = event_target_value(&ev).trim().to_owned()) />
                <span class="note" id="package-cdn-note">"Where the preview and the tests get the npm packages a project imports (esm.sh's URL scheme). Fetched once by this page, then kept in this browser for offline use."</span>
            </label>
        </div>
        <RoleModels/>
    }
}
