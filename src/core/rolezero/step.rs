//! `Step`: where a RoleZero reaction stands, saved with the role as
//! `{"at": "think" | "act" | "run", ...}`.
//!
//! Serialized as an internally tagged enum; read back through a flat
//! struct instead of serde's tagged-enum path, which buffers the input in
//! its own `Content` tree and cost ~20 KB of wasm for this one type. The
//! saved form is the same either way (pinned by the tests below).

use serde::{de, Deserialize, Deserializer, Serialize};

use crate::core::commands::Command;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Step {
    /// Ask the model for the next commands.
    #[default]
    Think,
    /// The model answered; parse it.
    Act { answer: String },
    /// Run `commands[next..]`; `outputs` holds the finished ones'.
    Run { commands: Vec<Command>, next: usize, outputs: Vec<String>, failed: bool },
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum At {
    Think,
    Act,
    Run,
}

/// Every field any step has; which ones must be there depends on `at`.
#[derive(Deserialize)]
struct Fields {
    at: At,
    answer: Option<String>,
    commands: Option<Vec<Command>>,
    next: Option<usize>,
    outputs: Option<Vec<String>>,
    failed: Option<bool>,
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fn need<T, E: de::Error>(value: Option<T>, name: &'static str) -> Result<T, E> {
            value.ok_or_else(|| E::missing_field(name))
        }
        let f = Fields::deserialize(deserializer)?;
        Ok(match f.at {
            At::Think => Step::Think,
            At::Act => Step::Act { answer: need(f.answer, "answer")? },
            At::Run => Step::Run {
                commands: need(f.commands, "commands")?,
                next: need(f.next, "next")?,
                outputs: need(f.outputs, "outputs")?,
                failed: need(f.failed, "failed")?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Step;
    use crate::core::commands::Command;

    #[test]
    fn saved_form_reads_back() {
        let steps = [
            Step::Think,
            Step::Act { answer: "[{\"command_name\": \"end\"}]".into() },
            Step::Run {
                commands: vec![Command::new("Plan.finish_current_task", json!({})), Command::new("end", json!({"x": 1}))],
                next: 1,
                outputs: vec!["Command Plan.finish_current_task executed".into()],
                failed: true,
            },
        ];
        let saved = serde_json::to_value(&steps).unwrap();
        assert_eq!(
            saved,
            json!([
                {"at": "think"},
                {"at": "act", "answer": "[{\"command_name\": \"end\"}]"},
                {"at": "run", "commands": [
                    {"command_name": "Plan.finish_current_task", "args": {}},
                    {"command_name": "end", "args": {"x": 1}}
                ], "next": 1, "outputs": ["Command Plan.finish_current_task executed"], "failed": true}
            ])
        );
        assert_eq!(serde_json::from_value::<Vec<Step>>(saved).unwrap(), steps);
    }

    #[test]
    fn tag_anywhere_and_unknown_fields_ignored() {
        let step: Step = serde_json::from_value(json!({"answer": "hi", "extra": [1], "at": "act"})).unwrap();
        assert_eq!(step, Step::Act { answer: "hi".into() });
        let step: Step = serde_json::from_value(json!({"at": "think", "answer": "left over"})).unwrap();
        assert_eq!(step, Step::Think);
    }

    #[test]
    fn missing_or_unknown_parts_are_errors() {
        for (bad, says) in [
            (json!({"at": "act"}), "missing field `answer`"),
            (json!({"at": "run", "commands": [], "next": 0, "outputs": []}), "missing field `failed`"),
            (json!({"answer": "x"}), "missing field `at`"),
            (json!({"at": "dance"}), "unknown variant `dance`"),
            (json!({"at": "act", "answer": 3}), "invalid type"),
        ] {
            let err = serde_json::from_value::<Step>(bad.clone()).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
