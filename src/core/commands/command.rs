//! `Command`: one call the model asked for, `{"command_name": ..., "args": {...}}`.
//!
//! Plain data with MetaGPT's JSON field names. It is not validated: whether
//! the name exists and the arguments fit is the registry's business, and
//! reading it out of a model's answer is `rolezero::parse`'s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A command name and its arguments as the model wrote them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    #[serde(rename = "command_name")]
    pub name: String,
    /// Normally an object of named arguments; anything else is refused by
    /// the registry with a message, not here.
    #[serde(default = "no_args")]
    pub args: Value,
}

impl Command {
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        Self { name: name.into(), args }
    }

    /// A command without arguments, such as `end`.
    pub fn bare(name: impl Into<String>) -> Self {
        Self::new(name, no_args())
    }

    /// The list as one ```` ```json ```` block, the way a model is asked to
    /// write it (used to record a corrected answer in memory, as MetaGPT
    /// does after cutting a list).
    pub fn render_block(commands: &[Command]) -> String {
        // Serializing plain strings and JSON values cannot fail; an empty
        // list is the harmless fallback all the same.
        let json = serde_json::to_string_pretty(commands).unwrap_or_else(|_| "[]".to_owned());
        format!("```json\n{json}\n```")
    }
}

fn no_args() -> Value {
    Value::Object(Map::new())
}
