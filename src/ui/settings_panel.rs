//! The settings form: provider preset, base URL, model (with its price
//! shown, or asked for), key (with "remember on this device", off by
//! default; unticking it forgets the stored key at once), budget, rounds,
//! team. It edits `Settings`; checking them is `Settings::problems`.

use leptos::prelude::*;

use crate::core::cost::Price;
use crate::core::llm::presets::PRESETS;
use crate::core::settings::TeamKind;

use super::role_models::RoleModels;
use super::Shared;

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let price_text = move || match settings.with(|s| s.model_price()) {
        Some(p) => format!("${:.2} / ${:.2} per million tokens (in / out)", p.input_per_mtok, p.output_per_mtok),
        None => "no known price: enter it below".into(),
    };
    let hint = move || settings.with(|s| s.preset().map(|p| p.cors_hint.to_string()).unwrap_or_default());
    let set_price = move |input: bool, text: String| {
        let value = super::parse_number(&text).filter(|v| *v >= 0.0);
        settings.update(|s| {
            let current = s.custom_price.or(s.model_price()).unwrap_or(Price::new(0.0, 0.0));
            s.custom_price = value.map(|v| if input { Price::new(v, current.output_per_mtok) } else { Price::new(current.input_per_mtok, v) });
        });
    };
    view! {
        <details class="card settings" open=move || shared.key.with_untracked(String::is_empty)>
            <summary><h2>"Settings"</h2><span class="note">{move || settings.with(|s| format!("{} · {} · budget ${:.2}", s.preset().map(|p| p.label).unwrap_or("custom"), s.model, s.budget))}</span></summary>
            <div class="grid">
                <label>"Provider"
                    <select
                        data-testid="preset"
                        on:change=move |ev| settings.update(|s| s.choose_preset(&event_target_value(&ev)))
                        prop:value=move || settings.with(|s| s.preset.clone())
                    >
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Base URL"
                    <input type="url" data-testid="base-url"
                        prop:value=move || settings.with(|s| s.base_url.clone())
                        on:input=move |ev| settings.update(|s| s.base_url = event_target_value(&ev)) />
                </label>
                <label>"Model"
                    <input type="text" data-testid="model"
                        prop:value=move || settings.with(|s| s.model.clone())
                        on:input=move |ev| settings.update(|s| { s.model = event_target_value(&ev); s.custom_price = None; }) />
                    <span class="note" data-testid="price">{price_text}</span>
                </label>
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
                <label>"API key"
                    <input type="password" autocomplete="off" data-testid="key"
                        class:needs-attention=move || shared.resume_note.with(Option::is_some) && shared.key.with(|k| k.trim().is_empty())
                        aria-invalid=move || (shared.resume_note.with(Option::is_some) && shared.key.with(|k| k.trim().is_empty())).to_string()
                        placeholder=move || if settings.with(|s| s.preset().is_some_and(|p| !p.needs_key)) { "not needed" } else { "sk-…" }
                        prop:value=shared.key
                        on:input=move |ev| {
                            shared.key.set(event_target_value(&ev));
                            shared.resume_note.set(None);
                        } />
                    <span class="check">
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
                        <label for="remember">"Remember the key on this device"</label>
                    </span>
                </label>
                <label>"Budget, $"
                    <input type="number" min="0.01" step="0.5" data-testid="budget"
                        prop:value=move || settings.with(|s| s.budget.to_string())
                        on:change=move |ev| settings.update(|s| s.budget = super::parse_number(&event_target_value(&ev)).unwrap_or(0.0)) />
                </label>
                <label>"Rounds"
                    <input type="number" min="1" step="1" data-testid="rounds"
                        prop:value=move || settings.with(|s| s.rounds.to_string())
                        on:change=move |ev| settings.update(|s| s.rounds = event_target_value(&ev).parse().unwrap_or(0)) />
                </label>
                <label>"Team"
                    <select data-testid="team"
                        prop:value=move || settings.with(|s| s.team.id())
                        on:change=move |ev| settings.update(|s| s.team = TeamKind::from_id(&event_target_value(&ev)).unwrap_or_default())>
                        {TeamKind::ALL.into_iter().map(|k| view! { <option value=k.id()>{k.label()}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            <RoleModels/>
            <p class="note">{hint}</p>
        </details>
    }
}
