//! The Settings dialog: a `<dialog>` opened with `showModal` from the top
//! bar (or from a note that needs a setting). Escape or "Done" closes it
//! and focus goes back to what opened it. It holds every setting: provider,
//! model and key (also in the first card: rendered in one place at a time,
//! so each field exists once), the rest of `settings_panel`, the theme.
//!
//! Nothing is applied on close: the fields edit the settings as they are
//! typed, as they did on the page, and Start saves them.

use leptos::html::Dialog;
use leptos::prelude::*;

use super::settings_panel::{ProviderFields, SettingsFields};
use super::theme::ThemeToggle;

/// Whether the dialog is open, shared with whoever opens it.
#[derive(Clone, Copy)]
pub struct SettingsDialogState {
    pub open: RwSignal<bool>,
}

impl SettingsDialogState {
    /// Open the dialog (it takes focus; closing gives it back).
    pub fn show(self) {
        self.open.set(true);
    }
}

/// Make the dialog's state available to the page (call once, in `App`).
pub fn provide() -> SettingsDialogState {
    let state = SettingsDialogState { open: RwSignal::new(false) };
    provide_context(state);
    state
}

/// The "Settings" button of the top bar.
#[component]
pub fn SettingsButton() -> impl IntoView {
    let state = expect_context::<SettingsDialogState>();
    view! {
        <button class="ghost" data-testid="open-settings" aria-haspopup="dialog" aria-label="Settings" on:click=move |_| state.show()>
            <span aria-hidden="true">"⚙"</span><span class="label">" Settings"</span>
        </button>
    }
}

#[component]
pub fn SettingsDialog() -> impl IntoView {
    let state = expect_context::<SettingsDialogState>();
    let dialog = NodeRef::<Dialog>::new();
    // What had focus when the dialog opened, to give it back on close.
    let opener = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move |_| {
        let open = state.open.get();
        let Some(el) = dialog.get() else { return };
        if open && !el.open() {
            let active = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
            opener.set_value(active);
            let _ = el.show_modal();
        } else if !open && el.open() {
            el.close();
        }
    });
    // Escape (the browser's cancel) and `close()` both end here.
    let shared = expect_context::<super::Shared>();
    let on_close = move |_| {
        state.open.set(false);
        // A request waiting for the key (or a setting) goes now.
        super::lazy::settings_changed(shared);
        if let Some(el) = opener.get_value() {
            let _ = el.focus();
        }
    };
    view! {
        <dialog class="settings-dialog" data-testid="settings" aria-labelledby="settings-title" node_ref=dialog on:close=on_close>
            <Show when=move || state.open.get()>
                // A <div>, not a <header>: a header outside a sectioning
                // element is a second banner landmark beside the top bar's.
                <div class="dialog-head">
                    <h2 id="settings-title">"Settings"</h2>
                    <button class="primary" data-testid="close-settings" on:click=move |_| state.open.set(false)>"Done"</button>
                </div>
                <div class="dialog-body">
                    <section aria-labelledby="s-model">
                        <h3 id="s-model">"Model"</h3>
                        <ProviderFields/>
                    </section>
                    <section aria-labelledby="s-run">
                        <h3 id="s-run">"Provider details, spending and team"</h3>
                        <SettingsFields/>
                    </section>
                    <section aria-labelledby="s-look">
                        <h3 id="s-look">"Appearance"</h3>
                        <ThemeToggle/>
                    </section>
                </div>
            </Show>
        </dialog>
    }
}
