//! `OrderedJson`: a JSON value whose objects keep their keys in the order
//! they were written. `serde_json::Value` sorts keys, and for a schema that
//! a sampler follows the order is the order the model writes in: the
//! thought before the commands, `command_name` before `args`, an
//! ActionNode's fields in the order its prompt lists them.
//!
//! Build and serialize only: no parsing, no lookups beyond what tests need
//! (`to_value`).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum OrderedJson {
    /// A value without objects whose order matters (a type name, an enum).
    Plain(Value),
    Object(Vec<(String, OrderedJson)>),
    Array(Vec<OrderedJson>),
}

impl OrderedJson {
    /// An object from its entries, in order.
    pub fn object<K: Into<String>>(entries: impl IntoIterator<Item = (K, OrderedJson)>) -> Self {
        OrderedJson::Object(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The same value with sorted keys (for tests and lookups).
    pub fn to_value(&self) -> Value {
        match self {
            OrderedJson::Plain(value) => value.clone(),
            OrderedJson::Object(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_value())).collect()),
            OrderedJson::Array(items) => Value::Array(items.iter().map(OrderedJson::to_value).collect()),
        }
    }

    /// Compact JSON text, keys in order.
    pub fn text(&self) -> String {
        // Serializing strings, numbers and maps with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl From<Value> for OrderedJson {
    fn from(value: Value) -> Self {
        OrderedJson::Plain(value)
    }
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            OrderedJson::Plain(value) => value.serialize(serializer),
            OrderedJson::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            OrderedJson::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_keep_their_order() {
        let value = OrderedJson::object([
            ("thought", json!({"type": "string"}).into()),
            ("commands", OrderedJson::Array(vec![OrderedJson::object([("z", json!(1).into()), ("a", json!(2).into())])])),
        ]);
        assert_eq!(value.text(), r#"{"thought":{"type":"string"},"commands":[{"z":1,"a":2}]}"#);
        assert_eq!(value.to_value(), json!({"commands": [{"a": 2, "z": 1}], "thought": {"type": "string"}}));
    }
}
