//! `Args`: a command's arguments after validation against its spec, with
//! typed getters for the handler; and `validate`, which produces them.
//!
//! Validation reports every problem at once (missing, wrong type,
//! unexpected), fills defaults, and normalizes the one leniency we allow:
//! an integer where text is expected becomes its decimal text, because
//! models write `"task_id": 1` and `"dependent_task_ids": [1, 2]` for ids,
//! and refusing that would cost a whole round for no gain. Floats, booleans,
//! a single string for a list and text for a number are still refused:
//! guessing there could change meaning. `null` counts as left out. This
//! file knows nothing about what a command does.

use serde_json::{Map, Value};

use super::{closest, ArgError, ArgProblem, CommandError, CommandSpec, Param, ParamType};

/// Validated arguments: every required parameter is present with its
/// declared type, defaults are filled in, and nothing undeclared is left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    values: Map<String, Value>,
}

impl Args {
    /// A required text argument.
    pub fn str(&self, name: &str) -> Result<&str, ArgError> {
        self.opt_str(name).ok_or_else(|| missing(name, "str"))
    }

    /// An optional text argument; `None` when it was left out and has no
    /// default.
    pub fn opt_str(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(Value::as_str)
    }

    pub fn str_list(&self, name: &str) -> Result<Vec<String>, ArgError> {
        let items = self.values.get(name).and_then(Value::as_array).ok_or_else(|| missing(name, "list[str]"))?;
        items.iter().map(|item| item.as_str().map(str::to_owned).ok_or_else(|| missing(name, "list[str]"))).collect()
    }

    pub fn int(&self, name: &str) -> Result<i64, ArgError> {
        self.values.get(name).and_then(Value::as_i64).ok_or_else(|| missing(name, "int"))
    }

    pub fn bool(&self, name: &str) -> Result<bool, ArgError> {
        self.values.get(name).and_then(Value::as_bool).ok_or_else(|| missing(name, "bool"))
    }

    /// Any argument as JSON, for `Json` parameters.
    pub fn json(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    pub fn into_map(self) -> Map<String, Value> {
        self.values
    }
}

fn missing(name: &str, expected: &'static str) -> ArgError {
    ArgError { name: name.to_owned(), expected }
}

/// Checks `args` against `spec`: an object whose keys are the declared
/// parameters, each of its type, every required one present.
pub(super) fn validate(spec: &CommandSpec, args: &Value) -> Result<Args, CommandError> {
    let empty = Map::new();
    let given = match args {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => {
            return Err(CommandError::ArgsNotObject { found: describe(other), signature: spec.call_signature() });
        }
    };

    let mut problems = Vec::new();
    for key in given.keys() {
        if spec.param_named(key).is_none() {
            let suggestion = closest(key, spec.params.iter().map(|p| p.name.as_str()), '.')
                .filter(|s| !given.contains_key(*s))
                .map(str::to_owned);
            problems.push(ArgProblem::Unexpected { arg: key.clone(), suggestion });
        }
    }

    let mut values = Map::new();
    for param in &spec.params {
        match given.get(&param.name).filter(|v| !v.is_null()) {
            Some(value) => match conform(param.ty, value) {
                Some(value) => match refused(param, &value) {
                    Some(item) => problems.push(ArgProblem::NotAllowed {
                        param: param.name.clone(),
                        allowed: param.choices_text(),
                        list: value.is_array(),
                        found: describe(item),
                    }),
                    None => {
                        values.insert(param.name.clone(), value);
                    }
                },
                None => problems.push(ArgProblem::WrongType {
                    param: param.name.clone(),
                    expected: param.ty,
                    found: describe(value),
                }),
            },
            None if param.required => problems.push(ArgProblem::Missing { param: param.name.clone() }),
            None => {
                if let Some(default) = &param.default {
                    values.insert(param.name.clone(), default.clone());
                }
            }
        }
    }

    if problems.is_empty() {
        Ok(Args { values })
    } else {
        // Missing first, then wrong types, then strays: the order a model
        // would fix them in. A stable grouping by kind, without a sort
        // (each slice sort is ~1.5 KB of wasm).
        let rank = |p: &ArgProblem| match p {
            ArgProblem::Missing { .. } => 0,
            ArgProblem::WrongType { .. } | ArgProblem::NotAllowed { .. } => 1,
            ArgProblem::Unexpected { .. } => 2,
        };
        let mut grouped = Vec::with_capacity(problems.len());
        for kind in 0..3 {
            grouped.extend(problems.extract_if(.., |p| rank(p) == kind));
        }
        let problems = grouped;
        Err(CommandError::InvalidArgs { signature: spec.call_signature(), problems })
    }
}

/// The value in its validated form, or `None` when it does not fit.
fn conform(ty: ParamType, value: &Value) -> Option<Value> {
    match ty {
        ParamType::Str => as_text(value),
        ParamType::Int => match value {
            Value::Number(n) if n.is_i64() => Some(value.clone()),
            // 2.0 is 2; anything with a fraction is not an int.
            Value::Number(n) => {
                n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| Value::from(f as i64))
            }
            _ => None,
        },
        ParamType::Float => value.is_number().then(|| value.clone()),
        ParamType::Bool => value.is_boolean().then(|| value.clone()),
        ParamType::StrList => list(value, ParamType::Str),
        ParamType::IntList => list(value, ParamType::Int),
        ParamType::FloatList => list(value, ParamType::Float),
        ParamType::BoolList => list(value, ParamType::Bool),
        ParamType::Json => Some(value.clone()),
    }
}

/// A list whose every item conforms to `item`.
fn list(value: &Value, item: ParamType) -> Option<Value> {
    let items = value.as_array()?;
    items.iter().map(|v| conform(item, v)).collect::<Option<Vec<_>>>().map(Value::Array)
}

/// The first value (the item, for a list) that is not one of the
/// parameter's choices; `None` when all are, or any value goes. Numbers
/// compare by value, so `2` matches a choice `2.0`.
fn refused<'a>(param: &Param, value: &'a Value) -> Option<&'a Value> {
    if param.choices.is_empty() {
        return None;
    }
    let one = |v: &Value| {
        param.choices.iter().any(|c| match (c.as_f64(), v.as_f64()) {
            (Some(a), Some(b)) => a == b,
            _ => c == v,
        })
    };
    match value {
        Value::Array(items) => items.iter().find(|v| !one(v)),
        other => (!one(other)).then_some(other),
    }
}

/// A string, or an integer as its decimal text.
fn as_text(value: &Value) -> Option<Value> {
    match value {
        Value::String(_) => Some(value.clone()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(Value::String(n.to_string())),
        _ => None,
    }
}

/// "a string (\"1\")", "a number (1.5)", "a list", "an object", "true".
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => {
            let shown: String = s.chars().take(40).collect();
            let dots = if s.chars().count() > 40 { "..." } else { "" };
            format!("a string (\"{shown}{dots}\")")
        }
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}
