//! The JSON schema of an ActionNode's answer: an object with the node's
//! fields (nested groups as nested objects), each of its declared type,
//! the optional ones allowed to be missing or null.
//!
//! For providers that constrain decoding to a schema; the answer still goes
//! through `parse` (pydantic-lax checks), which this does not replace. It
//! is stricter than `parse` (a `str` field takes only a string), which is
//! what the model is asked for anyway.

use serde_json::{json, Value};

use super::{ActionNode, FieldType};
use crate::core::ordered_json::OrderedJson;

impl ActionNode {
    /// The schema of the object the model is asked to write.
    pub fn json_schema(&self) -> OrderedJson {
        object_schema(self.fields())
    }

    /// The schema's name as providers are told it: the node's key, cut to
    /// the characters and length OpenAI accepts.
    pub fn schema_name(&self) -> String {
        let name: String =
            self.key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).take(64).collect();
        if name.is_empty() { "answer".to_owned() } else { name }
    }
}

/// The fields in the order the prompt lists them.
fn object_schema(fields: &[ActionNode]) -> OrderedJson {
    let mut properties = Vec::with_capacity(fields.len());
    let mut required = Vec::new();
    for field in fields {
        let schema =
            if field.children.is_empty() { type_schema(&field.expected_type).into() } else { object_schema(&field.children) };
        let schema = if field.optional {
            OrderedJson::object([("anyOf", OrderedJson::Array(vec![schema, json!({"type": "null"}).into()]))])
        } else {
            schema
        };
        properties.push((field.key.clone(), schema));
        if !field.optional {
            required.push(field.key.as_str());
        }
    }
    OrderedJson::object([
        ("type", json!("object").into()),
        ("properties", OrderedJson::Object(properties)),
        ("required", json!(required).into()),
        ("additionalProperties", json!(false).into()),
    ])
}

fn type_schema(ty: &FieldType) -> Value {
    match ty {
        FieldType::Str => json!({"type": "string"}),
        FieldType::Int => json!({"type": "integer"}),
        FieldType::Float => json!({"type": "number"}),
        FieldType::Bool => json!({"type": "boolean"}),
        FieldType::List(inner) => json!({"type": "array", "items": type_schema(inner)}),
        FieldType::Object => json!({"type": "object"}),
        FieldType::Json => json!({}),
    }
}
