//! Structured output (MetaGPT's `ActionNode`): a tree of typed fields that
//! compiles into a prompt, parses the model's `[CONTENT]…[/CONTENT]` answer
//! into checked JSON values, retries with the parse error when the answer does
//! not fit, and renders the filled fields as a markdown document.
//!
//! Deliberately absent: no LLM port, no transport retries and no clock (the
//! caller passes an `ask` closure, and retrying a failed call is its business),
//! no pydantic-like generated classes (values stay `serde_json::Value`), and
//! none of MetaGPT's XML, code-fill, review or revise modes.
//!
//! Layout:
//! - `mod.rs`: `FieldType`, `ActionNode`, `Filled`, `FillError` and `fill`.
//! - `compile`: the prompt and its format example.
//! - `parse`: finding the JSON in an answer, conservative repairs, validation,
//!   `NodeParseError` and `Problem`.
//! - `markdown`: `ActionNode::to_markdown`.
//! - `schema`: `ActionNode::json_schema`, for constrained answers.

mod compile;
mod markdown;
mod parse;
mod schema;

#[cfg(test)]
mod tests;

use std::fmt;
use std::future::Future;

use serde_json::{Map, Value};

use crate::core::llm::ChatMessage;

pub use parse::{NodeParseError, Problem};

/// The type a node's value must have, shown to the model with Python names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    /// `str`: a JSON string. A number or a list is not accepted (pydantic's
    /// lax mode does not turn numbers into strings either).
    Str,
    /// `int`: a JSON integer, or what pydantic's lax mode turns into one
    /// (`3.0`, `"3"`, `"3.0"`, `true`); stored as an integer.
    Int,
    /// `float`: any JSON number, or a numeric string (`"2.5"`) or a bool,
    /// as pydantic's lax mode takes them.
    Float,
    /// `bool`: `true` or `false`, or what pydantic's lax mode reads as one
    /// (`"True"`, `"no"`, `0`, `1`, ...); stored as a JSON bool.
    Bool,
    /// `list[T]`: a JSON array whose every item is a `T`.
    List(Box<FieldType>),
    /// `dict`: any JSON object, unchecked inside.
    Object,
    /// `Any`: any JSON value, null included.
    Json,
}

impl FieldType {
    /// `list[inner]`.
    pub fn list(inner: FieldType) -> Self {
        FieldType::List(Box::new(inner))
    }

    /// `list[str]`, the most common field type of MetaGPT's documents.
    pub fn str_list() -> Self {
        FieldType::list(FieldType::Str)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::Str => f.write_str("str"),
            FieldType::Int => f.write_str("int"),
            FieldType::Float => f.write_str("float"),
            FieldType::Bool => f.write_str("bool"),
            FieldType::List(inner) => write!(f, "list[{inner}]"),
            FieldType::Object => f.write_str("dict"),
            FieldType::Json => f.write_str("Any"),
        }
    }
}

/// One field of a structured answer, or a group of fields.
///
/// A node with children asks for its children (MetaGPT's "children" mode); a
/// node without children asks for itself alone (MetaGPT's "root" mode). A
/// child that has children of its own is a nested JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionNode {
    pub key: String,
    pub expected_type: FieldType,
    pub instruction: String,
    pub example: Value,
    pub children: Vec<ActionNode>,
    /// May be absent or null in the answer.
    pub optional: bool,
}

impl ActionNode {
    /// A leaf field.
    pub fn new(
        key: impl Into<String>,
        expected_type: FieldType,
        instruction: impl Into<String>,
        example: impl Into<Value>,
    ) -> Self {
        Self {
            key: key.into(),
            expected_type,
            instruction: instruction.into(),
            example: example.into(),
            children: Vec::new(),
            optional: false,
        }
    }

    /// A group of fields answered together as one JSON object.
    pub fn group(key: impl Into<String>, children: Vec<ActionNode>) -> Self {
        Self {
            key: key.into(),
            expected_type: FieldType::Object,
            instruction: String::new(),
            example: Value::Null,
            children,
            optional: false,
        }
    }

    /// The same node, allowed to be missing or null.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// The type as the prompt shows it: `Optional[list[str]]` for an optional
    /// `list[str]`, `dict` for a group.
    pub fn type_name(&self) -> String {
        if self.optional {
            format!("Optional[{}]", self.expected_type)
        } else {
            self.expected_type.to_string()
        }
    }

    /// The fields the model is asked to fill: the children, or the node
    /// itself when it has none.
    pub fn fields(&self) -> &[ActionNode] {
        if self.children.is_empty() {
            std::slice::from_ref(self)
        } else {
            &self.children
        }
    }

    /// Asks the model through `ask` until the answer parses, at most
    /// `max_attempts` times (at least once).
    ///
    /// The first prompt is the compiled node as one user message. After an
    /// answer that does not parse, the next prompt repeats it, adds that
    /// answer as the assistant's turn and the parse error as a new user turn.
    /// Only the latest failed answer is kept, so the prompt does not grow with
    /// each retry. An `Err` from `ask` ends the fill at once: transport
    /// retries belong to the caller. A caller that wants a system prompt adds
    /// it inside `ask`.
    pub async fn fill<F, Fut, E>(
        &self,
        context: &str,
        language: &str,
        max_attempts: u32,
        mut ask: F,
    ) -> Result<Filled, FillError<E>>
    where
        F: FnMut(Vec<ChatMessage>) -> Fut,
        Fut: Future<Output = Result<String, E>>,
    {
        let prompt = self.compile(context, language);
        let max_attempts = max_attempts.max(1);
        let mut messages = vec![ChatMessage::user(prompt.clone())];
        let mut attempts = 0;
        loop {
            attempts += 1;
            let answer = ask(messages).await.map_err(FillError::Ask)?;
            match self.parse(&answer) {
                Ok(instruct_content) => {
                    return Ok(Filled { content: answer, instruct_content, attempts });
                }
                Err(error) if attempts >= max_attempts => {
                    return Err(FillError::Invalid { attempts, last_error: error, last_answer: answer });
                }
                Err(error) => {
                    let correction = compile::correction(&error);
                    messages = vec![
                        ChatMessage::user(prompt.clone()),
                        ChatMessage::assistant(answer),
                        ChatMessage::user(correction),
                    ];
                }
            }
        }
    }
}

/// A successful fill.
#[derive(Debug, Clone, PartialEq)]
pub struct Filled {
    /// The model's answer as it came, for the message history.
    pub content: String,
    /// The checked values, one per declared field that was present; unknown
    /// keys the model added are dropped.
    pub instruct_content: Map<String, Value>,
    /// How many answers it took (1 when the first one parsed).
    pub attempts: u32,
}

/// Why a fill gave up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FillError<E> {
    /// The model call itself failed; not retried here.
    #[error("the model call failed: {0}")]
    Ask(E),
    /// Every answer failed to parse; the last one and its error are kept.
    #[error("no usable answer after {attempts} attempts: {last_error}")]
    Invalid { attempts: u32, last_error: NodeParseError, last_answer: String },
}
