//! `CommandSpec`: what one command is called, what it takes and what it is
//! for, rendered into the prompt as MetaGPT's numbered command list.
//!
//! The signature text is derived from the parameters, never written by
//! hand, so what the model is shown and what validation accepts cannot
//! drift apart. This file neither validates (`args.rs`) nor runs anything.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The type of one parameter, named in the signature the Python way
/// (`str`, `int`, `bool`, `list[str]`), since that is how MetaGPT's tool
/// schemas read and what models have seen most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamType {
    /// Text. An integer is accepted and becomes its decimal text (ids).
    Str,
    /// A whole number; an integral float such as `2.0` is accepted.
    Int,
    /// Any number (a host tool's JSON Schema `number`).
    Float,
    Bool,
    /// A list of texts; integer items become their decimal text.
    StrList,
    /// Lists of the other plain types, for host tools' JSON Schema arrays.
    IntList,
    FloatList,
    BoolList,
    /// Any JSON value, passed through unchecked.
    Json,
}

impl ParamType {
    /// The type as the signature shows it.
    pub fn name(self) -> &'static str {
        match self {
            ParamType::Str => "str",
            ParamType::Int => "int",
            ParamType::Float => "float",
            ParamType::Bool => "bool",
            ParamType::StrList => "list[str]",
            ParamType::IntList => "list[int]",
            ParamType::FloatList => "list[float]",
            ParamType::BoolList => "list[bool]",
            ParamType::Json => "json",
        }
    }
}

/// One named parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: ParamType,
    /// When false the argument may be left out (or be `null`); then
    /// `default` is used if there is one, and otherwise it is absent.
    pub required: bool,
    pub default: Option<Value>,
    /// The only values allowed (each item's, for a list), when not empty:
    /// a JSON Schema `enum`. Shown as `Literal['a', 'b']`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Value>,
}

impl Param {
    /// A required parameter.
    pub fn new(name: impl Into<String>, ty: ParamType) -> Self {
        Self { name: name.into(), ty, required: true, default: None, choices: Vec::new() }
    }

    /// Only these values are allowed.
    pub fn one_of(mut self, choices: Vec<Value>) -> Self {
        self.choices = choices;
        self
    }

    /// Not required; filled with `default` when left out.
    pub fn with_default(mut self, default: Value) -> Self {
        self.required = false;
        self.default = Some(default);
        self
    }

    /// Not required and without a default (shown as `= None`).
    pub fn optional(mut self) -> Self {
        self.required = false;
        self.default = None;
        self
    }

    /// `task_type: str = ''`.
    fn render(&self) -> String {
        let ty = self.type_text();
        match (&self.default, self.required) {
            (_, true) => format!("{}: {ty}", self.name),
            (Some(default), false) => format!("{}: {ty} = {}", self.name, python_literal(default)),
            (None, false) => format!("{}: {ty} = None", self.name),
        }
    }
}

impl Param {
    /// `str`, or with choices `Literal['low', 'high']` (in a list:
    /// `list[Literal[...]]`).
    pub fn type_text(&self) -> String {
        if self.choices.is_empty() {
            return self.ty.name().to_owned();
        }
        let literal = format!("Literal[{}]", self.choices_text());
        match self.ty {
            ParamType::StrList | ParamType::IntList | ParamType::FloatList | ParamType::BoolList => format!("list[{literal}]"),
            _ => literal,
        }
    }
}

impl Param {
    /// The choices as Python literals: `'low', 'high'`.
    pub fn choices_text(&self) -> String {
        let literals: Vec<String> = self.choices.iter().map(python_literal).collect();
        literals.join(", ")
    }
}

/// A command the model may use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// `Plan.append_task`: tool and method, as MetaGPT names them.
    pub name: String,
    /// What it does and when to use it; shown under the signature.
    pub description: String,
    pub params: Vec<Param>,
    /// An exclusive command ends the list it appears in: whatever the model
    /// wrote after it is not run (`end`, `RoleZero.ask_human`).
    pub exclusive: bool,
}

impl CommandSpec {
    /// A command without parameters; add them with `param`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self { name: name.into(), description: description.into(), params: Vec::new(), exclusive: false }
    }

    pub fn param(mut self, param: Param) -> Self {
        self.params.push(param);
        self
    }

    pub fn exclusive(mut self) -> Self {
        self.exclusive = true;
        self
    }

    /// `(task_id: str, dependent_task_ids: list[str], task_type: str = '')`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self.params.iter().map(Param::render).collect();
        format!("({})", params.join(", "))
    }

    /// `Plan.append_task(task_id: str, ...)`.
    pub fn call_signature(&self) -> String {
        format!("{}{}", self.name, self.signature())
    }

    pub(crate) fn param_named(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// A JSON default written as Python would write it in a signature.
fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        other => other.to_string(),
    }
}
