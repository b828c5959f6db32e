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

use serde_json::{json, Value};

use super::{CommandSpec, Param, ParamType};
use crate::core::ordered_json::OrderedJson;

/// The schema's name as providers are told it.
pub const ANSWER_SCHEMA_NAME: &str = "rolezero_answer";

/// The most commands one answer may hold: enough for a plan and its first
/// steps (MetaGPT's examples hold one to four), and a bound on a small
/// model that would repeat one command until its tokens run out.
pub const MAX_COMMANDS: u64 = 8;

/// The longest thought, in characters: "a few sentences", as the prompt
/// asks. A small model otherwise spends its tokens on the thought and is
/// cut before its commands.
pub const MAX_THOUGHT_CHARS: u64 = 500;

/// The longest task id, in characters. A plan's ids are short numbers
/// ("1", "2"); a small model otherwise writes digits until its tokens run
/// out, and the answer is cut before its commands end.
pub const MAX_TASK_ID_CHARS: u64 = 8;

/// The schema of an answer using any of `specs`: a thought, then the list
/// of commands (one to `MAX_COMMANDS`), keys in the order they are written.
pub fn answer_schema<'a>(specs: impl IntoIterator<Item = &'a CommandSpec>) -> OrderedJson {
    let commands = OrderedJson::Array(specs.into_iter().map(command_schema).collect());
    let list = OrderedJson::object([
        ("type", json!("array").into()),
        ("items", OrderedJson::object([("anyOf", commands)])),
        ("minItems", json!(1).into()),
        ("maxItems", json!(MAX_COMMANDS).into()),
    ]);
    OrderedJson::object([
        ("type", json!("object").into()),
        ("properties", OrderedJson::object([("thought", json!({"type": "string", "maxLength": MAX_THOUGHT_CHARS}).into()), ("commands", list)])),
        ("required", json!(["thought", "commands"]).into()),
        ("additionalProperties", json!(false).into()),
    ])
}

/// One command: its name as a constant, then its arguments in signature
/// order.
pub fn command_schema(spec: &CommandSpec) -> OrderedJson {
    let properties = OrderedJson::object(spec.params.iter().map(|p| (p.name.clone(), param_schema(p).into())));
    let required: Vec<&str> = spec.params.iter().filter(|p| p.required).map(|p| p.name.as_str()).collect();
    let args = OrderedJson::object([
        ("type", json!("object").into()),
        ("properties", properties),
        ("required", json!(required).into()),
        ("additionalProperties", json!(false).into()),
    ]);
    OrderedJson::object([
        ("type", json!("object").into()),
        ("properties", OrderedJson::object([("command_name", json!({"const": spec.name}).into()), ("args", args)])),
        ("required", json!(["command_name", "args"]).into()),
        ("additionalProperties", json!(false).into()),
    ])
}

/// A parameter's value: its type, narrowed to its choices when it has some.
fn param_schema(param: &Param) -> Value {
    let item = |ty: &str| {
        if !param.choices.is_empty() {
            json!({"type": ty, "enum": param.choices})
        } else if matches!(param.name.as_str(), "task_id" | "dependent_task_ids") {
            json!({"type": ty, "maxLength": MAX_TASK_ID_CHARS})
        } else {
            json!({"type": ty})
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
