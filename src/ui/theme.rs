//! The colour theme: follow the system, or light, or dark, as the person
//! chooses; remembered in localStorage. The choice is a `data-theme`
//! attribute on `<html>` (absent for "system"); `theme.css` holds the
//! colours. Nothing else here: no per-component colours.

use leptos::prelude::*;

const STORAGE_KEY: &str = "tabteam.theme.v1";
const CHOICES: [(&str, &str); 3] = [("system", "System"), ("light", "Light"), ("dark", "Dark")];

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The remembered choice ("system" when none or unknown).
fn saved() -> &'static str {
    let value = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten());
    CHOICES.iter().map(|(id, _)| *id).find(|id| Some(*id) == value.as_deref()).unwrap_or("system")
}

fn apply(choice: &str) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else { return };
    let _ = match choice {
        "light" | "dark" => root.set_attribute("data-theme", choice),
        _ => root.remove_attribute("data-theme"),
    };
}

/// Apply the remembered theme (called once, before the app mounts).
pub fn apply_saved() {
    apply(saved());
}

/// Three radio buttons in a group: arrow keys move between them.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let choice = RwSignal::new(saved());
    let choose = move |id: &'static str| {
        choice.set(id);
        apply(id);
        if let Some(s) = storage() {
            // A browser that refuses storage still switches for this visit.
            let _ = if id == "system" { s.remove_item(STORAGE_KEY) } else { s.set_item(STORAGE_KEY, id) };
        }
    };
    view! {
        <fieldset class="theme" data-testid="theme">
            <legend>"Theme"</legend>
            {CHOICES.into_iter().map(|(id, label)| view! {
                <label>
                    <input type="radio" name="theme" value=id data-testid=format!("theme-{id}")
                        prop:checked=move || choice.get() == id on:change=move |_| choose(id) />
                    <span>{label}</span>
                </label>
            }).collect_view()}
        </fieldset>
    }
}
