//! The framework-overhead scenarios of `shared/bench/SCENARIOS.md` (S1–S6),
//! shared by the native runner (`benches/overhead.rs`) and the browser
//! runner (`benches/web/overhead.rs`).
//!
//! Each scenario drives the real core with a zero-latency scripted model
//! that suspends once per call, reads time only through the clock the
//! runner hands in, asserts the shape SCENARIOS.md promises (a broken
//! scenario must be loud, not fast) and returns figures. Nothing here
//! prints, spawns or names a platform: the runners own the clock, S6's
//! process or page start, and the output.
//!
//! The runners call S1 to S5 in order (S1, S2 and S5 are async: a round
//! awaits its roles) and measure S6 themselves, since only they know how
//! they started.
//!
//! Layout:
//! - `measure`: medians, batched timing, the clock type.
//! - `heap`: the counting global allocator (live and peak heap bytes,
//!   allocations).
//! - `team`: the priced scripted team every scenario builds on.
//! - `pipeline` (S1), `broadcast` (S2), `memory` (S3), `plan` (S4),
//!   `react` (S5), `startup` (S6's figures; the runners measure).
//! - `drive`: untimed passes for instruction counts.
//! - `table`: MetaGPT 0.8.2's figures and the printed table.

pub mod heap;
pub mod measure;
pub mod table;
pub mod team;

mod broadcast;
// Native only: the browser runner has no process to hand a variable to.
#[cfg(not(target_arch = "wasm32"))]
pub mod drive;
mod memory;
mod pipeline;
mod plan;
mod react;
mod startup;

pub use broadcast::run as s2_broadcast;
pub use memory::run as s3_memory;
pub use pipeline::run as s1_pipeline;
pub use plan::run as s4_plan;
pub use react::run as s5_react;
pub use startup::{startup_figures, Startup};
pub use team::build_pipeline;

/// What a figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds (printed as s, ms, µs or ns).
    Ms,
    Bytes,
    Count,
}

/// One measured figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// "S1" .. "S6".
    pub scenario: &'static str,
    pub name: String,
    pub value: f64,
    pub unit: Unit,
    /// MetaGPT 0.8.2's figure from SCENARIOS.md, when it has one.
    pub metagpt: Option<table::Reference>,
}

impl Figure {
    pub fn ms(scenario: &'static str, name: impl Into<String>, value: f64) -> Self {
        Self { scenario, name: name.into(), value, unit: Unit::Ms, metagpt: None }
    }

    pub fn bytes(scenario: &'static str, name: impl Into<String>, value: f64) -> Self {
        Self { scenario, name: name.into(), value, unit: Unit::Bytes, metagpt: None }
    }

    pub fn count(scenario: &'static str, name: impl Into<String>, value: f64) -> Self {
        Self { scenario, name: name.into(), value, unit: Unit::Count, metagpt: None }
    }

    /// Attach MetaGPT's figure: `text` as SCENARIOS.md gives it, `value` in
    /// this figure's unit for the ratio (None: nothing to divide by).
    pub fn vs(mut self, text: &'static str, value: Option<f64>) -> Self {
        self.metagpt = Some(table::Reference { text, value });
        self
    }
}
