//! RoleZero's pure building blocks: reading the model's command answer and
//! its quick-think classification.
//!
//! Apart from `zero`, nothing here calls a model or runs a command: parsing ends where the
//! caller must ask the model to repair its JSON (`ParseOutcome::NeedsLlmRepair`)
//! and running is the command registry's job.
//!
//! Layout:
//! - `parse`: `parse_commands`, `ParseOutcome`, `repair_prompt`,
//!   `cut_after_exclusive`.
//! - `constrained`: a schema-constrained answer read back into MetaGPT's
//!   form (thought, then one ```json block).
//! - `repair`: the local JSON repairs (trailing commas, bad escapes, raw
//!   control characters, Python quoting).
//! - `quick_think`: `QuickThink` and `parse_quick_think`.
//! - `zero`: the RoleZero reactor (the loop itself); `config`: `ZeroConfig`;
//!   `commands`: `ZeroCx` and RoleZero's own commands (`end`, `ask_human`,
//!   `reply_to_human`, the team leader's `publish_team_message`);
//!   `prompt`: the prompts (texts in `prompts/`); `condense`: the history
//!   as turns, sized to the model's window, older parts summarized;
//!   `applicable` (site only): the commands that apply in a role's state,
//!   which the answer schema narrows to.

#[cfg(feature = "site")]
mod applicable;
mod commands;
pub mod condense;
mod config;
mod constrained;
mod parse;
mod prompt;
mod quick_think;
mod repair;
mod step;
pub mod zero;
#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod zero_tests;

#[cfg(test)]
mod tests;

pub use constrained::answer_text;
pub use parse::{cut_after_exclusive, parse_commands, repair_prompt, Cut, ParseOutcome};
pub use quick_think::{parse_quick_think, QuickThink};
