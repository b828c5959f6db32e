//! tabteam: a software company of AI agents (MetaGPT's core) that runs
//! entirely inside a browser tab.
//!
//! # Layout
//!
//! - `core`: the pure, IO-free runtime (messages, memory, roles, environment,
//!   team, planner, cost ledger, LLM port, provider codecs). Builds and tests
//!   natively.
//! - `web`: the thin browser edge (fetch transport, IndexedDB, clock). wasm only.
//! - `ui`: the Leptos front end. wasm only.

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(target_arch = "wasm32")]
pub mod ui;
