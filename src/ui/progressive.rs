//! `progressive`: which rows of a long list to render now, so a session of
//! thousands of messages opens with no long task (issue #21). The newest
//! rows come first (the conversation opens scrolled to its end, so they are
//! what a person sees), then the older ones above them, a few groups a
//! frame, until the whole list is in the page; the list's scroll box keeps
//! its place meanwhile (here; when a group drawn near the view turns out
//! taller or shorter than its stand-in, the browser's scroll anchoring).
//! The groups (`core::row_groups`) are what style.css skips out of view
//! (`content-visibility: auto`): one placeholder box a group instead of a
//! box a row keeps each frame's layout small however long the list.
//!
//! Deliberately not a virtual list: every row ends up in the page (screen
//! readers, keyboard focus and the tests reach them all; skipped content
//! stays in the accessibility tree).

use leptos::html::Section;
use leptos::prelude::*;

use crate::core::row_groups::{arrived_in_bulk, opening_from, GROUP};

/// Older groups rendered per frame while a list opens: a few milliseconds.
const GROUPS_PER_FRAME: usize = 2;

/// The index of the first row to render of a list of `total` rows (a
/// group's first row): rows from there to the end are in the page. Rows
/// the list gains at its end (a running team) are rendered at once; rows
/// that arrive in bulk (a session opened) are rendered from the end
/// backwards, `GROUPS_PER_FRAME` groups a frame, while `pane` (the list's
/// scroll box) keeps what it shows in place.
pub fn progressive_from_end(total: Memo<usize>, pane: NodeRef<Section>) -> Signal<usize> {
    // Frames gone by while rows were still to render.
    let frames = RwSignal::new(0usize);
    // (first row to render, the list's length, `frames`) when last computed.
    // Derived from the list rather than set by an effect, so rows that
    // arrive in bulk are cut at the end in the very update that renders
    // them (an effect would run after the whole list was rendered).
    let from = Memo::new(move |last: Option<&(usize, usize, usize)>| {
        let (total, frames) = (total.get(), frames.get());
        match last {
            Some(&(from, seen, at)) if !arrived_in_bulk(seen, total) => {
                (from.saturating_sub((frames - at) * GROUP * GROUPS_PER_FRAME), total, frames)
            }
            _ => (opening_from(total), total, frames),
        }
    });
    // One frame's request at a time, however often the list changes.
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        if from.with(|f| f.0) == 0 || pending.get_value() {
            return;
        }
        pending.set_value(true);
        request_animation_frame(move || {
            // `try_`: the list may be gone by the next frame (another
            // session opened): its values are disposed then.
            let _ = pending.try_set_value(false);
            // The rows go in above what the person sees: keep its distance
            // from the end of the list, or, when they read at the end (as
            // `workspace` judges it: within 48 px), the end itself, which
            // rows drawn since may have moved (a diagram). Once the new rows
            // are in the page: a task queued now runs after the list's own update.
            let below = pane.try_get_untracked().flatten().map(|p| {
                let below = p.scroll_height() - p.scroll_top();
                if below <= p.client_height() + 48 { None } else { Some(below) }
            });
            if frames.try_update(|n| *n += 1).is_none() {
                return;
            }
            leptos::task::spawn_local(async move {
                if let (Some(below), Some(p)) = (below, pane.try_get_untracked().flatten()) {
                    p.set_scroll_top(p.scroll_height() - below.unwrap_or(0));
                }
            });
        });
    });
    Signal::derive(move || from.with(|f| f.0))
}
