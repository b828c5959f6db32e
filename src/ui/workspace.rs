//! The workspace: the conversation with its composer on the left, the
//! project on the right in tabs (Preview, Code, Docs, Plan, Versions). The
//! tabs follow the ARIA tabs pattern: a tablist whose arrow keys, Home and
//! End move between tabs (focus follows selection), and one tabpanel each,
//! all kept in the page and hidden when not chosen, so the preview's frame
//! and an open editor survive a switch. At phone width the two sides are
//! two views with a switch ("Conversation" / "Project"; see style.css).
//!
//! It places what `run_view`, `preview`, `docs` and `versions` render; it
//! renders nothing of a run itself.

use leptos::prelude::*;

use super::Shared;

/// The right side's tabs, in order: (id, label).
const TABS: [(&str, &str); 5] = [
    ("preview", "Preview"),
    ("code", "Code"),
    ("docs", "Docs"),
    ("plan", "Plan"),
    ("versions", "Versions"),
];

/// The tab after (or before) `current`, wrapping at the ends.
fn neighbour(current: &str, forward: bool) -> &'static str {
    let i = TABS.iter().position(|(id, _)| *id == current).unwrap_or(0);
    let n = TABS.len();
    TABS[if forward { (i + 1) % n } else { (i + n - 1) % n }].0
}

fn focus_tab(id: &str) {
    let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&format!("tab-{id}")));
    if let Some(el) = el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok()) {
        let _ = el.focus();
    }
}

fn conversation_pane() -> Option<web_sys::Element> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=conversation]").ok().flatten())
}

/// Keep the conversation scrolled to its newest entry while the person
/// reads at the bottom; leave it where they scrolled it otherwise. Returns
/// the "at the bottom" flag, which the person's own scrolling (wheel,
/// touch, keys, the scroll bar) sets again through `recheck_bottom`.
fn follow_conversation(shared: Shared) -> StoredValue<bool> {
    let stick = StoredValue::new(true);
    // Another session opens at its newest entry.
    Effect::new(move |_| {
        shared.session_id.track();
        stick.set_value(true);
    });
    Effect::new(move |_| {
        shared.view.with(|v| (v.entries.len(), v.entries.last().map(|e| e.text.len())));
        request_animation_frame(move || {
            // `try_`: the workspace may be gone by the next frame (New session).
            if let (Some(true), Some(pane)) = (stick.try_get_value(), conversation_pane()) {
                pane.set_scroll_top(pane.scroll_height());
            }
        });
    });
    stick
}

/// After the person scrolled: are they at the bottom? (Read once the
/// scroll, possibly smooth, has settled.)
fn recheck_bottom(stick: StoredValue<bool>) {
    set_timeout(
        move || {
            if let Some(pane) = conversation_pane() {
                let _ = stick.try_set_value(pane.scroll_top() + pane.client_height() >= pane.scroll_height() - 48);
            }
        },
        std::time::Duration::from_millis(200),
    );
}

#[component]
pub fn Workspace(talk: ViewFn, preview: ViewFn, code: ViewFn, docs: ViewFn, plan: ViewFn, versions: ViewFn) -> impl IntoView {
    let tab = RwSignal::new("preview");
    // Which side a phone shows; both show on a wider screen.
    let side = RwSignal::new("talk");
    let choose = move |id: &'static str| {
        tab.set(id);
        focus_tab(id);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let next = match ev.key().as_str() {
            "ArrowRight" => neighbour(tab.get_untracked(), true),
            "ArrowLeft" => neighbour(tab.get_untracked(), false),
            "Home" => TABS[0].0,
            "End" => TABS[TABS.len() - 1].0,
            _ => return,
        };
        ev.prevent_default();
        choose(next);
    };
    let panels = [preview, code, docs, plan, versions];
    let stick = follow_conversation(expect_context::<Shared>());
    view! {
        <div class="workspace" data-side=move || side.get()>
            <div class="side-switch" role="group" aria-label="Show">
                <button data-testid="show-talk" aria-pressed=move || (side.get() == "talk").to_string() on:click=move |_| side.set("talk")>"Conversation"</button>
                <button data-testid="show-project" aria-pressed=move || (side.get() == "project").to_string() on:click=move |_| side.set("project")>"Project"</button>
            </div>
            <div class="talk" data-testid="talk-side"
                on:wheel=move |_| recheck_bottom(stick) on:touchend=move |_| recheck_bottom(stick)
                on:keyup=move |_| recheck_bottom(stick) on:pointerup=move |_| recheck_bottom(stick)>
                {talk.run()}
            </div>
            <div class="project" data-testid="project-side">
                <div class="tabs" role="tablist" aria-label="Project" on:keydown=on_key>
                    {TABS.into_iter().map(|(id, label)| view! {
                        <button role="tab" id=format!("tab-{id}") data-testid=format!("tab-{id}")
                            aria-controls=format!("panel-{id}")
                            aria-selected=move || (tab.get() == id).to_string()
                            tabindex=move || if tab.get() == id { "0" } else { "-1" }
                            on:click=move |_| tab.set(id)>{label}</button>
                    }).collect_view()}
                </div>
                {TABS.into_iter().zip(panels).map(|((id, _), panel)| view! {
                    <div class="tab-panel" role="tabpanel" id=format!("panel-{id}") aria-labelledby=format!("tab-{id}")
                        tabindex="0" hidden=move || tab.get() != id>
                        {panel.run()}
                    </div>
                }).collect_view()}
            </div>
        </div>
    }
}
