//! `progressive`: how many rows of a long list to render now, growing a
//! chunk a frame, so a session of thousands of messages opens with no long
//! task (issue #21): one frame renders one chunk, and the page stays
//! responsive while the rest follows.
//!
//! Deliberately not a virtual list: every row ends up in the page (find in
//! page, screen readers and the tests see them all); what keeps scrolling
//! smooth is CSS (`content-visibility: auto` on the entries, style.css).

use leptos::prelude::*;

/// Rows rendered per frame: a few milliseconds of work each.
const CHUNK: usize = 100;

/// The number of rows of a list of `total()` rows to render now. It follows
/// the list while it grows a row at a time (a running team), and when rows
/// arrive in bulk (a session opened) it catches up a chunk a frame.
pub fn progressive(total: impl Fn() -> usize + 'static) -> Signal<usize> {
    let shown = RwSignal::new(0usize);
    Effect::new(move |_| {
        let total = total();
        let now = shown.get();
        if now > total {
            // The list was replaced by a shorter one.
            shown.set(total);
        } else if now < total {
            if now == 0 || total - now <= CHUNK {
                // The first chunk, or what a running team adds: at once.
                shown.set((now + CHUNK).min(total));
            } else {
                // (A shorter list by then is caught by the line above.)
                request_animation_frame(move || shown.update(|n| *n = (*n + CHUNK).min(total)));
            }
        }
    });
    shown.into()
}
