//! Settings, advanced: a model per role (the engineer on a bigger model,
//! say), with a price when the table does not know the model. Same
//! provider and key as the team's model. It edits `Settings::overrides`;
//! checking them is `Settings::problems`.

use leptos::prelude::*;

use crate::core::cost::Price;
use crate::core::recipes::role_names;

use super::Shared;

#[component]
pub fn RoleModels() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    // Rows are rebuilt only when the team changes, not on every keystroke.
    let team = Memo::new(move |_| settings.with(|s| s.team));
    let roles = move || role_names(team.get());
    let count = move || settings.with(|s| s.overrides.iter().filter(|o| !o.model.trim().is_empty()).count());
    view! {
        <details class="advanced" data-testid="role-models">
            <summary>"Per-role models (advanced)"
                <span class="note">{move || match count() { 0 => String::new(), n => format!(" · {n} set") }}</span>
            </summary>
            <p class="note">"Give a role another model of the same provider. Leave blank to use the team's model."</p>
            <table class="role-models">
                <thead><tr><th>"Role"</th><th>"Model"</th><th>"$ in / out per million"</th></tr></thead>
                <tbody>
                    {move || roles().into_iter().map(|(name, profile)| view! { <RoleModelRow name profile/> }).collect_view()}
                </tbody>
            </table>
        </details>
    }
}

#[component]
fn RoleModelRow(name: String, profile: String) -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let role = StoredValue::new(name.clone());
    let model = move || settings.with(|s| role.with_value(|r| s.override_for(r).map(|o| o.model.clone()).unwrap_or_default()));
    let price = move || {
        settings.with(|s| role.with_value(|r| s.override_for(r).and_then(|o| s.prices().price(&o.model))))
    };
    let set_model = move |text: String| {
        settings.update(|s| role.with_value(|r| s.set_override(r, &text, None)));
    };
    let set_price = move |input: bool, text: String| {
        let value = super::parse_number(&text).filter(|v| *v >= 0.0);
        // Read before the update: a signal cannot be read inside its own update.
        let current = price().unwrap_or(Price::new(0.0, 0.0));
        settings.update(|s| {
            role.with_value(|r| {
                let Some(o) = s.override_for(r).cloned() else { return };
                let price = value.map(|v| if input { Price::new(v, current.output_per_mtok) } else { Price::new(current.input_per_mtok, v) });
                s.set_override(r, &o.model, price);
            })
        });
    };
    let placeholder = move || settings.with(|s| s.model.clone());
    view! {
        <tr>
            <td>{name.clone()}<span class="note">{format!(" ({profile})")}</span></td>
            <td><input type="text" data-testid=format!("role-model-{name}") aria-label=format!("Model for {name}")
                placeholder=placeholder prop:value=model on:change=move |ev| set_model(event_target_value(&ev)) /></td>
            <td>
                <Show when=move || !model().trim().is_empty()>
                    <input type="number" min="0" step="0.01" class="price" data-testid=format!("role-price-in-{}", role.get_value())
                        aria-label="Price in, $ per million tokens"
                        prop:value=move || price().map(|p| p.input_per_mtok.to_string()).unwrap_or_default()
                        on:change=move |ev| set_price(true, event_target_value(&ev)) />
                    " / "
                    <input type="number" min="0" step="0.01" class="price" data-testid=format!("role-price-out-{}", role.get_value())
                        aria-label="Price out, $ per million tokens"
                        prop:value=move || price().map(|p| p.output_per_mtok.to_string()).unwrap_or_default()
                        on:change=move |ev| set_price(false, event_target_value(&ev)) />
                </Show>
            </td>
        </tr>
    }
}
