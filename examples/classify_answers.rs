//! Reads model answers (one JSON object a line: `{"mode", "answer"}`) on
//! stdin and says how the single assistant's loop would take each one:
//! parsed as it came, parsed after repairs (the local JSON repairs, or a
//! repair round by the model), or refused (no command list, or commands
//! the registry rejects). Prints one JSON line of counts per mode.
//!
//! The bench's reading half (`scripts/bench-local-llm.sh`); it calls no
//! model and reads no clock. The same parser and registry as the team.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde_json::{json, Value};
use tabteam::core::rolezero::zero::{RoleZero, ZeroConfig};
use tabteam::core::rolezero::{answer_text, parse_commands, ParseOutcome};

fn main() {
    let zero = RoleZero::new(ZeroConfig::default(), |_| {});
    let mut counts: BTreeMap<String, BTreeMap<&str, u64>> = BTreeMap::new();
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let Ok(record) = serde_json::from_str::<Value>(&line) else { continue };
        let mode = record["mode"].as_str().unwrap_or("?").to_owned();
        let answer = answer_text(record["answer"].as_str().unwrap_or_default().to_owned());
        let verdict = match parse_commands(&answer) {
            ParseOutcome::Parsed { commands, notes } => {
                if commands.iter().any(|c| zero.registry().validate(c).is_err()) {
                    "refused"
                } else if notes.iter().any(|n| n.starts_with("Repaired") || n.contains("missing '['") || n.contains("Wrapped")) {
                    "repaired"
                } else {
                    "parsed"
                }
            }
            ParseOutcome::NeedsLlmRepair { .. } => "needs_model_repair",
            ParseOutcome::Invalid(_) => "refused",
        };
        *counts.entry(mode).or_default().entry(verdict).or_default() += 1;
    }
    for (mode, verdicts) in counts {
        println!("{}", json!({"mode": mode, "verdicts": verdicts}));
    }
}
