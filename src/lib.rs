//! tabteam: a software company of AI agents (MetaGPT's core) that runs
//! entirely inside a browser tab.
//!
//! # Layout
//!
//! - `core`: the pure, IO-free runtime (messages, memory, roles, environment,
//!   team, planner, cost ledger, LLM port, provider codecs). Builds and tests
//!   natively.
//! - `web`: the thin browser edge (fetch transport, IndexedDB, clock). wasm only.
//! - `ui`: the Leptos front end. wasm only, feature `site` (the default).
//! - `widget`: the engine of the embeddable `<tabteam-agent>` (`pkg/`): one
//!   team per widget, its events as JSON for the JS renderer and the host
//!   page. wasm only, feature `widget` (built without `site`: no Leptos).

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(all(target_arch = "wasm32", feature = "site"))]
pub mod ui;

#[cfg(all(target_arch = "wasm32", feature = "widget"))]
pub mod widget;

/// Write an async test once; it runs natively under `cargo test` (on
/// `futures`' `block_on`) and in headless Chromium under wasm-bindgen-test.
#[cfg(test)]
macro_rules! cross_test {
    ($(#[$meta:meta])* async fn $name:ident() $body:block) => {
        #[cfg(not(target_arch = "wasm32"))]
        #[test]
        $(#[$meta])*
        fn $name() {
            futures::executor::block_on(async $body)
        }

        #[cfg(target_arch = "wasm32")]
        #[wasm_bindgen_test::wasm_bindgen_test]
        $(#[$meta])*
        async fn $name() $body
    };
}
#[cfg(test)]
pub(crate) use cross_test;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
