//! The pure core of tabteam: roles, messages, environment, team, planner,
//! cost accounting and the LLM port.
//!
//! Architecture Invariant: nothing under `core` names `web_sys`, `js_sys`,
//! `wasm_bindgen`, `leptos` or `gloo`, reads a clock or does IO. Everything
//! from outside comes in through the ports (`llm::Llm`, the store, the clock
//! and id source passed in by the caller).

pub mod action;
pub mod addresses;
pub mod action_node;
pub mod checkpoint;
pub mod cost;
pub mod digest;
pub mod environment;
mod error_texts;
pub mod events;
pub mod gate;
pub mod host;
pub mod human;
/// Images in a request (site only).
#[cfg(feature = "images")]
pub mod image;
#[cfg(feature = "images")]
pub mod image_check;
mod join;
pub mod json_scan;
pub mod ordered_json;
pub mod keep_error;
pub mod llm;
pub mod memory;
#[cfg(feature = "markdown")]
pub mod markdown;
pub mod message;
pub mod mgx;
pub mod plan;
pub mod plan_edit;
pub mod post;
pub mod recipes;
pub mod role;
pub mod role_error;
pub mod row_groups;
pub mod sandbox;
pub mod session;
/// Share links (site only: the widget shares nothing).
#[cfg(feature = "site")]
pub mod share;
pub mod settings;
pub mod shared_str;
pub mod snapshot;
pub mod sorted_map;
pub mod stop_reason;
/// Issue #33's long project as a script, for its tests and the token bench.
#[cfg(any(test, feature = "bench-support"))]
#[doc(hidden)]
pub mod long_project_script;
#[cfg(test)]
mod long_project_tests;
#[cfg(test)]
mod reply_tests;
#[cfg(test)]
mod scenarios;
pub mod team;
pub mod versions;
pub mod view;
pub mod window;
pub mod world;
pub mod yield_now;
pub mod commands;
pub mod rolezero;
pub mod files;
pub mod experience;
#[cfg(feature = "fixed-sop")]
pub mod company;
pub mod store;
