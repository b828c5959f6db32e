//! The JSON schema of a RoleZero answer, generated from the command specs:
//! `{"thought": "...", "commands": [{"command_name": ..., "args": {...}}]}`,
//! each command's `args` with its parameters' types, required ones and
//! choices. Providers that constrain decoding (a grammar in the tab,
//! `response_format` `json_schema`) then produce answers that parse.
//!
//! The schema is derived from the same `CommandSpec`s as the prompt's
//! signatures and the validation, so the three cannot drift apart. It
//! deliberately stays in the subset llama.cpp's schema-to-grammar converter
//! and OpenAI's non-strict mode both take (`const`, `enum`, `anyOf`,
//! `required`, `additionalProperties: false`); it validates nothing itself
//! (`args.rs` does), and how a constrained answer is read back is
//! `rolezero::constrained`'s business.

use serde_json::{json, Map, Value};

use super::{CommandSpec, Param, ParamType};

/// The schema's name as providers are told it.
pub const ANSWER_SCHEMA_NAME: &str = "rolezero_answer";

/// The schema of an answer using any of `specs`: a thought, then the list
/// of commands (at least one).
pub fn answer_schema<'a>(specs: impl IntoIterator<Item = &'a CommandSpec>) -> Value {
    let commands: Vec<Value> = specs.into_iter().map(command_schema).collect();
    json!({
        "type": "object",
        "properties": {
            "thought": {"type": "string"},
            "commands": {"type": "array", "items": {"anyOf": commands}, "minItems": 1},
        },
        "required": ["thought", "commands"],
        "additionalProperties": false,
    })
}

/// One command: its name as a constant and its arguments.
pub fn command_schema(spec: &CommandSpec) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &spec.params {
        properties.insert(param.name.clone(), param_schema(param));
        if param.required {
            required.push(Value::String(param.name.clone()));
        }
    }
    json!({
        "type": "object",
        "properties": {
            "command_name": {"const": spec.name},
            "args": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
        },
        "required": ["command_name", "args"],
        "additionalProperties": false,
    })
}

/// A parameter's value: its type, narrowed to its choices when it has some.
fn param_schema(param: &Param) -> Value {
    let item = |ty: &str| {
        if param.choices.is_empty() {
            json!({"type": ty})
        } else {
            json!({"type": ty, "enum": param.choices})
        }
    };
    match param.ty {
        ParamType::Str => item("string"),
        ParamType::Int => item("integer"),
        ParamType::Float => item("number"),
        ParamType::Bool => item("boolean"),
        ParamType::StrList => json!({"type": "array", "items": item("string")}),
        ParamType::IntList => json!({"type": "array", "items": item("integer")}),
        ParamType::FloatList => json!({"type": "array", "items": item("number")}),
        ParamType::BoolList => json!({"type": "array", "items": item("boolean")}),
        // Any JSON value: an empty schema.
        ParamType::Json => json!({}),
    }
}
