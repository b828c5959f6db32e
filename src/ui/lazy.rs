//! Code splitting (issue #7): what the first render does not need is
//! behind the split points below. Built with the `split` feature (see
//! scripts/build-split.sh), each `split!` function goes, with everything
//! only it reaches, into the lazily fetched wasm module `run` (the team,
//! roles, providers, the store's commit path, the run panel with its
//! markdown, plan editing, sandbox, zip, import / export). The start-up
//! module keeps the page: the top bar, the first card, the Settings
//! dialog, the sessions list read from IndexedDB.
//!
//! The module is fetched in the browser's first idle moment after the
//! first render, so a click rarely waits; a click before that waits for
//! it. A failed fetch is said in words and the click can be tried again.
//!
//! Without the feature (`cargo test`, the browser tests) the same
//! functions are plain calls.

use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::core::settings::Settings;

use super::host::{self as sessions, SessionAction};
use super::Shared;

/// A split point in the module `run` (a plain function without `split`).
macro_rules! split {
    ($(#[$meta:meta])* fn $($rest:tt)*) => {
        $(#[$meta])*
        #[cfg_attr(feature = "split", leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split))]
        fn $($rest)*
    };
}

/// Calls a split function: with `split` it is async (it may fetch the module).
macro_rules! enter {
    ($f:ident($($arg:expr),* $(,)?)) => {{
        #[cfg(feature = "split")]
        let out = $f($($arg),*).await;
        #[cfg(not(feature = "split"))]
        let out = $f($($arg),*);
        out
    }};
}
pub(super) use enter;

/// Fetch the module at the first idle moment after the first render.
pub fn prefetch(shared: Shared) {
    request_idle_callback(move || {
        spawn_local(async move {
            // A failed prefetch is not shown: the click that needs it says so.
            let _ = load(shared, false).await;
        })
    });
}

/// Where the run panel goes (empty until the module is here: a line says
/// the team is being loaded).
#[component]
pub fn RunArea() -> impl IntoView {
    let shared = expect_context::<Shared>();
    move || match shared.run_panel.get() {
        Some(f) => f.run(),
        None => view! { <p class="note loading" role="status">"Loading the team…"</p> }.into_any(),
    }
}

/// Only for its preload, `load_run`: fetch the module, or say why not.
#[cfg(feature = "split")]
#[leptos::wasm_split::wasm_split(run, wasm_split_path = ::leptos::wasm_split, fallible, preload(load_run))]
fn loaded() -> Result<(), leptos::wasm_split::SplitLoaderError> {
    Ok(())
}

/// Said when the module cannot be fetched.
const LOAD_FAILED: &str = "The team's code could not be loaded (offline?). Try again.";

/// Fetch the module (once) and show the run panel; false, with a note
/// saying so, when it cannot be fetched.
async fn ensure(shared: Shared) -> bool {
    load(shared, true).await
}

async fn load(shared: Shared, say_failure: bool) -> bool {
    #[cfg(feature = "split")]
    if load_run().await.is_err() {
        if say_failure {
            shared.storage_note.set(Some(LOAD_FAILED.into()));
        }
        return false;
    }
    #[cfg(not(feature = "split"))]
    let _ = say_failure;
    if shared.storage_note.with_untracked(|n| n.as_deref() == Some(LOAD_FAILED)) {
        shared.storage_note.set(None);
    }
    if shared.run_panel.with_untracked(Option::is_none) {
        let panel = enter!(run_panel());
        shared.run_panel.set(Some(panel));
    }
    true
}

split! {
    fn read_images(attached: super::attach::Attached, files: Vec<wasm_bindgen::JsValue>) {
        super::attach::read(attached, files)
    }
}

/// Read the files of a paste, a drop or the file button into the
/// request's images (see `attach::read`).
pub fn attach(shared: Shared, files: Vec<wasm_bindgen::JsValue>) {
    spawn_local(async move {
        if ensure(shared).await {
            enter!(read_images(shared.attached, files));
        }
    });
}

split! {
    fn run_panel() -> ViewFn {
        ViewFn::from(|| view! { <super::run_view::RunPanel/> })
    }
}

split! {
    fn start_run(shared: Shared, settings: Settings, key: String, idea: String, images: Vec<String>) {
        sessions::start(shared, settings, key, idea, images)
    }
}

split! {
    fn open_session(shared: Shared, id: String) -> LocalBoxFuture<'static, ()> {
        Box::pin(sessions::open(shared, id))
    }
}

split! {
    fn play_replay(shared: Shared) {
        sessions::replay(shared)
    }
}

split! {
    fn apply_settings(shared: Shared) {
        sessions::settings_changed(shared)
    }
}

split! {
    fn dismiss_note(shared: Shared) {
        if let Some(host) = shared.host() {
            host.note(None);
        }
    }
}

/// The settings or key changed (the dialog closed): the host takes them
/// (a request waiting for the key goes). Nothing to do before a session.
pub fn settings_changed(shared: Shared) {
    if shared.host.with_value(Option::is_none) {
        return;
    }
    spawn_local(async move {
        if ensure(shared).await {
            enter!(apply_settings(shared));
        }
    });
}

/// The banner's note is dismissed.
pub fn dismiss(shared: Shared) {
    shared.storage_note.set(None);
    if shared.host.with_value(Option::is_none) {
        return;
    }
    spawn_local(async move {
        if ensure(shared).await {
            enter!(dismiss_note(shared));
        }
    });
}

split! {
    fn session_action(shared: Shared, action: SessionAction) -> LocalBoxFuture<'static, ()> {
        Box::pin(sessions::act(shared, action))
    }
}

split! {
    fn close_session(shared: Shared) -> LocalBoxFuture<'static, ()> {
        Box::pin(sessions::close(shared))
    }
}

/// Close the open session for a new one (see `sessions::close`).
pub async fn close(shared: Shared) {
    if ensure(shared).await {
        enter!(close_session(shared)).await;
    }
}

/// Rename, duplicate, export, delete or import a session (see `sessions::act`).
pub async fn act(shared: Shared, action: SessionAction) {
    if ensure(shared).await {
        enter!(session_action(shared, action)).await;
    }
}

/// Start a new run of `idea` (see `sessions::start`).
pub fn start(shared: Shared, settings: Settings, key: String, idea: String, images: Vec<String>) {
    spawn_local(async move {
        if ensure(shared).await {
            enter!(start_run(shared, settings, key, idea, images));
        }
    });
}

/// Open session `id` (see `sessions::open`).
pub async fn open(shared: Shared, id: String) {
    if ensure(shared).await {
        enter!(open_session(shared, id)).await;
    }
}

/// Play the sample run (see `replay::play`).
pub fn replay(shared: Shared) {
    spawn_local(async move {
        if ensure(shared).await {
            enter!(play_replay(shared));
        }
    });
}

/// Show the project of a share link (`#p=…`) in place of the page (see
/// `share::SharedPage`); the decompression and the checks load with the
/// module `project` (`lazy_project`), making a copy with this one.
pub fn open_share(shared: Shared, hash: String) {
    shared.share_view.set(Some(ViewFn::from(|| view! { <p class="note loading" role="status">"Opening the shared project…"</p> })));
    spawn_local(async move {
        if ensure(shared).await {
            match super::lazy_project::shared_page(hash).await {
                Some(page) => shared.share_view.set(Some(page)),
                None => shared.storage_note.set(Some(LOAD_FAILED.into())),
            }
        }
    });
}
