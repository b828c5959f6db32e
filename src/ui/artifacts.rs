//! Rendered artifacts: model markdown (through `core::markdown::to_safe_html`)
//! with its mermaid diagrams drawn as SVG, and code with syntax highlighting.
//!
//! The drawing and highlighting live in `artifacts.js`: mermaid lays out
//! diagrams in an opaque-origin sandboxed frame (a `srcdoc` document in the
//! host frame `www/sandbox/host.html`, made when the first diagram needs it) and the SVG it hands back enters
//! the page only after the allowlist in `artifacts.js` has cleaned it;
//! highlight.js loads lazily from the site's own `lazy/` folder. This file
//! only marks where: it renders the safe HTML or the escaped code, then
//! hands the element to `enhance` once it is in the page. It never builds
//! HTML from model text.

use leptos::html::{Div, Pre};
use leptos::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::core::markdown::to_safe_html;

#[wasm_bindgen(module = "/src/ui/artifacts.js")]
extern "C" {
    /// Draw the diagrams and highlight the code inside `root` (once each;
    /// asynchronous, errors shown in place).
    fn enhance(root: &web_sys::Element);
}

/// Markdown from the model, rendered safely; diagrams and code blocks are
/// drawn once `finished` (a streaming answer is left as text until then).
#[component]
pub fn Markdown(text: String, #[prop(default = true)] finished: bool, #[prop(optional)] testid: &'static str) -> impl IntoView {
    let node = NodeRef::<Div>::new();
    if finished {
        Effect::new(move |_| {
            if let Some(el) = node.get() {
                enhance(&el);
            }
        });
    }
    let class = if testid.is_empty() { "md" } else { "viewer md" };
    view! { <div class=class data-testid=(!testid.is_empty()).then_some(testid) node_ref=node inner_html=to_safe_html(&text)></div> }
}

/// A code file as escaped text, highlighted by its extension when the
/// highlighter knows the language.
#[component]
pub fn CodeFile(path: String, text: String) -> impl IntoView {
    let node = NodeRef::<Pre>::new();
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            enhance(&el);
        }
    });
    let language = path.rsplit_once('.').map(|(_, ext)| format!("language-{}", ext.to_ascii_lowercase())).unwrap_or_default();
    // Focusable: a long line scrolls it sideways, and a keyboard must reach that.
    view! { <pre class="viewer" data-testid="viewer" tabindex="0" node_ref=node><code class=language>{text}</code></pre> }
}
