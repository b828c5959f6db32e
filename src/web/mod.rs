//! The browser edge: the only place that touches `web_sys`, `js_sys`,
//! `wasm_bindgen` and IndexedDB. It adapts browser APIs to the core's ports
//! and holds no business logic.

pub mod download;
pub mod edge;
pub mod fetch;
pub mod idb;
/// Images attached to a request (site only).
#[cfg(feature = "images")]
pub mod images;
pub mod idb_store;
#[cfg(feature = "site")]
pub mod in_tab;
pub mod replay;
pub mod session;
pub mod sandbox;
pub mod settings_store;
/// Share links' compression (site only).
#[cfg(feature = "site")]
pub mod share;
pub mod tab_id;
pub mod transport;

#[cfg(test)]
mod team_run_tests;
