//! Reading a model's answer: find the JSON object (between the last
//! `[CONTENT]…[/CONTENT]` pair, else in a ```json fence, else the first `{…}`),
//! repair a few common slips, and check it against the node's fields.
//!
//! The repairs are deliberately few and only tried when the text does not
//! parse as it is: trailing commas, `//` line comments, and raw newlines or
//! tabs inside strings (models write multi-line mermaid that way). Nothing
//! guesses at missing quotes, brackets or Python literals; such answers go
//! back to the model with the parser's message.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::compile::{CLOSE_TAG, OPEN_TAG};
use super::{ActionNode, FieldType};
use crate::core::json_scan::outside_strings;

/// Why an answer could not be used.
///
/// Two texts: [`NodeParseError::for_model`] is sent back to the model on a
/// retry and says what to write (between which tags); `Display` is for the
/// person, who sees it when the last attempt fails, and says what was wrong
/// with the answer without instructions meant for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum NodeParseError {
    #[error("the answer had no JSON object in it")]
    NoJson,
    #[error("the answer's JSON was malformed ({0})")]
    BadJson(String),
    #[error("the answer's JSON was a {0}, not an object with the document's fields")]
    NotObject(String),
    /// The JSON parsed but some fields are missing or of the wrong type.
    #[error("the answer did not fill the document's fields as asked: {}", join_problems(.0))]
    Invalid(Vec<Problem>),
}

impl NodeParseError {
    /// The error as the model is told it on a retry.
    pub fn for_model(&self) -> String {
        match self {
            NodeParseError::NoJson => format!("found no JSON object in the answer; put one between {OPEN_TAG} and {CLOSE_TAG}"),
            NodeParseError::BadJson(error) => format!("the JSON does not parse: {error}"),
            NodeParseError::NotObject(kind) => format!("the JSON should be an object with the node keys but is {kind}"),
            NodeParseError::Invalid(problems) => join_problems(problems),
        }
    }
}

/// One thing wrong with a parsed answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Problem {
    /// A required key is absent. `similar` names an unknown key that looks
    /// like it (same letters and digits, ignoring case), as a hint.
    Missing { key: String, similar: Option<String> },
    /// A value has the wrong type. `at` locates the offending item inside a
    /// list (`[1][0]`), empty when the value itself is wrong.
    WrongType { key: String, expected: String, at: String, found: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing { key, similar: None } => write!(f, "missing key \"{key}\""),
            Problem::Missing { key, similar: Some(similar) } => {
                write!(f, "missing key \"{key}\" (found \"{similar}\")")
            }
            Problem::WrongType { key, expected, at, found } if at.is_empty() => {
                write!(f, "\"{key}\" should be {expected} but is {found}")
            }
            Problem::WrongType { key, expected, at, found } => {
                write!(f, "\"{key}\" should be {expected} but item {at} is {found}")
            }
        }
    }
}

impl ActionNode {
    /// Parses and checks an answer. On success the map holds one value per
    /// declared field that was present (integral floats in `int` fields
    /// become integers); optional fields that are absent or null are left
    /// out, and keys the node does not declare are dropped.
    pub fn parse(&self, answer: &str) -> Result<Map<String, Value>, NodeParseError> {
        let text = extract(answer).ok_or(NodeParseError::NoJson)?;
        let value = parse_json(text)?;
        let Value::Object(object) = value else {
            return Err(NodeParseError::NotObject(kind(&value).to_string()));
        };
        let mut values = Map::new();
        let mut problems = Vec::new();
        validate(self.fields(), &object, "", &mut values, &mut problems);
        if problems.is_empty() {
            Ok(values)
        } else {
            Err(NodeParseError::Invalid(problems))
        }
    }
}

fn join_problems(problems: &[Problem]) -> String {
    problems.iter().map(Problem::to_string).collect::<Vec<_>>().join("; ")
}

/// The text that should hold the JSON object, or `None` when there is none.
fn extract(answer: &str) -> Option<&str> {
    let candidate = tagged(answer).map(unfence).or_else(|| json_fence(answer)).or_else(|| first_object(answer))?.trim();
    if candidate.is_empty() {
        return None;
    }
    // Prose inside the tags ("Here it is: {...}"): keep only the object.
    if !candidate.starts_with('{') && !candidate.starts_with('[') {
        return first_object(candidate).or(Some(candidate));
    }
    Some(candidate)
}

/// The body of the last `[CONTENT]` that has a `[/CONTENT]` after it. Models
/// sometimes echo the format example before answering, so the last pair is
/// the answer; an opening tag merely mentioned in trailing prose is skipped.
/// With no closed pair, the text after the last opening tag (a truncated
/// answer still gets a precise JSON error).
fn tagged(answer: &str) -> Option<&str> {
    let openings: Vec<usize> = answer.match_indices(OPEN_TAG).map(|(at, _)| at).collect();
    let mut unclosed = None;
    for &at in openings.iter().rev() {
        let body = &answer[at + OPEN_TAG.len()..];
        if let Some(end) = body.find(CLOSE_TAG) {
            return Some(&body[..end]);
        }
        unclosed.get_or_insert(body);
    }
    unclosed
}

/// Strips a markdown fence around the text, if there is one.
fn unfence(text: &str) -> &str {
    let mut text = text.trim();
    if let Some(rest) = text.strip_prefix("```") {
        // Drop the info string (`json`) with the rest of the fence line.
        text = match rest.find('\n') {
            Some(newline) => &rest[newline + 1..],
            None => rest.trim_start_matches(|c: char| c.is_ascii_alphabetic()),
        };
    }
    text.trim_end().strip_suffix("```").unwrap_or(text).trim()
}

/// The body of the first ```json fence (to the end when it is not closed).
fn json_fence(answer: &str) -> Option<&str> {
    let start = answer.find("```json")? + "```json".len();
    let body = &answer[start..];
    let body = match body.find('\n') {
        Some(newline) => &body[newline + 1..],
        None => body,
    };
    Some(body.find("```").map_or(body, |end| &body[..end]))
}

/// The first balanced `{…}` (braces inside strings do not count), or from the
/// first `{` to the end when it never closes.
fn first_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    for (offset, c) in outside_strings(&text[start..]) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=start + offset]);
                }
            }
            _ => {}
        }
    }
    Some(&text[start..])
}

/// Parses the first JSON value of `text`, ignoring anything after it; tries
/// the repaired text when the original does not parse, and reports the
/// original's error when neither does (its positions match what the model
/// wrote).
fn parse_json(text: &str) -> Result<Value, NodeParseError> {
    let first = |text: &str| serde_json::Deserializer::from_str(text).into_iter::<Value>().next();
    match first(text) {
        None => Err(NodeParseError::NoJson),
        Some(Ok(value)) => Ok(value),
        Some(Err(error)) => match first(&repair(text)) {
            Some(Ok(value)) => Ok(value),
            _ => Err(NodeParseError::BadJson(error.to_string())),
        },
    }
}

/// Drops trailing commas and `//` comments outside strings, and escapes raw
/// newlines, carriage returns and tabs inside strings.
fn repair(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            ',' if matches!(next_significant(&chars, i + 1), Some('}' | ']')) => {}
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// The next character from `from` that is neither whitespace nor inside a
/// `//` comment.
fn next_significant(chars: &[char], from: usize) -> Option<char> {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            c if c.is_whitespace() => i += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            c => return Some(c),
        }
    }
    None
}

/// Checks `object` against `fields`, copying accepted values into `values`
/// and recording every problem. `prefix` names the enclosing group.
fn validate(
    fields: &[ActionNode],
    object: &Map<String, Value>,
    prefix: &str,
    values: &mut Map<String, Value>,
    problems: &mut Vec<Problem>,
) {
    for field in fields {
        let label = if prefix.is_empty() { field.key.clone() } else { format!("{prefix} > {}", field.key) };
        let value = match object.get(&field.key) {
            Some(Value::Null) | None if field.optional => continue,
            None => {
                let similar = similar_key(&field.key, fields, object);
                problems.push(Problem::Missing { key: label, similar });
                continue;
            }
            Some(value) => value,
        };
        if !field.children.is_empty() {
            match value {
                Value::Object(inner) => {
                    let mut inner_values = Map::new();
                    validate(&field.children, inner, &label, &mut inner_values, problems);
                    values.insert(field.key.clone(), Value::Object(inner_values));
                }
                other => problems.push(Problem::WrongType {
                    key: label,
                    expected: field.type_name(),
                    at: String::new(),
                    found: kind(other).to_string(),
                }),
            }
            continue;
        }
        match check(&field.expected_type, value, String::new()) {
            Ok(value) => {
                values.insert(field.key.clone(), value);
            }
            Err((at, found)) => problems.push(Problem::WrongType {
                key: label,
                expected: field.type_name(),
                at,
                found: found.to_string(),
            }),
        }
    }
}

/// An undeclared key of `object` that differs from `key` only in case or
/// punctuation (`product_goals` for `Product Goals`).
fn similar_key(key: &str, fields: &[ActionNode], object: &Map<String, Value>) -> Option<String> {
    let normal =
        |text: &str| -> String { text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect() };
    let wanted = normal(key);
    object
        .keys()
        .filter(|candidate| !fields.iter().any(|field| &field.key == *candidate))
        .find(|candidate| normal(candidate) == wanted)
        .cloned()
}

/// The value, normalised, when it has type `ty`; otherwise where inside it
/// the first wrong item is and what that item is.
///
/// Scalars are taken as pydantic v2's lax mode takes them from a Python dict
/// (MetaGPT validates the parsed answer that way), because real models copy
/// the format example's Python spelling and write `"True"` or `"3"`: see
/// [`lax_bool`], [`lax_int`] and [`lax_float`]. Nothing looser: a `str`
/// field takes strings only (pydantic does not turn numbers into strings),
/// a list must be a JSON array, and `"maybe"` is no bool.
fn check(ty: &FieldType, value: &Value, at: String) -> Result<Value, (String, &'static str)> {
    let coerced = match (ty, value) {
        (FieldType::Json, _)
        | (FieldType::Str, Value::String(_))
        | (FieldType::Object, Value::Object(_)) => Some(value.clone()),
        (FieldType::Bool, _) => lax_bool(value).map(Value::Bool),
        (FieldType::Int, _) => lax_int(value).map(Value::from),
        (FieldType::Float, Value::Number(_)) => Some(value.clone()),
        (FieldType::Float, _) => lax_float(value).and_then(|float| serde_json::Number::from_f64(float).map(Value::Number)),
        (FieldType::List(inner), Value::Array(items)) => {
            return items
                .iter()
                .enumerate()
                .map(|(index, item)| check(inner, item, format!("{at}[{index}]")))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array);
        }
        _ => None,
    };
    coerced.ok_or_else(|| (at, kind(value)))
}

/// pydantic's lax `bool`: a bool; the strings `0`, `1` and (any case) `f`,
/// `n`, `no`, `off`, `false`, `t`, `y`, `on`, `yes`, `true`; the numbers
/// 0 and 1 (`0.0` and `1.0` too). No trimming: `" true"` is refused, as
/// pydantic refuses it.
fn lax_bool(value: &Value) -> Option<bool> {
    const FALSE: [&str; 5] = ["f", "n", "no", "off", "false"];
    const TRUE: [&str; 5] = ["t", "y", "on", "yes", "true"];
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::String(text) if text == "0" || FALSE.iter().any(|word| text.eq_ignore_ascii_case(word)) => Some(false),
        Value::String(text) if text == "1" || TRUE.iter().any(|word| text.eq_ignore_ascii_case(word)) => Some(true),
        Value::Number(_) => match lax_int(value)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// pydantic's lax `int`: an integer; a float with no fraction (`3.0`); a
/// bool (as 0 or 1); a string of an integer, optionally signed, with a
/// fraction of zeros only (`"3"`, `"-3"`, `"3.0"`, `"3."`) or single
/// underscores between digits (`"1_000"`). Beyond `i64` is refused (pydantic
/// would take big integers; a document field never needs one).
fn lax_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number.as_i64().or_else(|| {
            let float = number.as_f64()?;
            // Inside the range where every integer is exact.
            (float.fract() == 0.0 && float.abs() < 9.0e15).then_some(float as i64)
        }),
        Value::Bool(flag) => Some(i64::from(*flag)),
        Value::String(text) => text
            .parse::<i64>()
            .ok()
            .or_else(|| {
                let (whole, fraction) = text.split_once('.')?;
                fraction.chars().all(|c| c == '0').then(|| whole.parse::<i64>().ok())?
            })
            .or_else(|| without_underscores(text)?.parse::<i64>().ok()),
        _ => None,
    }
}

/// pydantic's lax `float`: a number; a bool (0.0 or 1.0); a string Rust's
/// float parser reads (which is what pydantic-core uses: `"2.5"`, `"1e3"`,
/// `".5"`, `"+1"`), also with single underscores between digits. Infinity
/// and NaN are refused: JSON cannot hold them.
fn lax_float(value: &Value) -> Option<f64> {
    let float = match value {
        Value::Number(number) => number.as_f64()?,
        Value::Bool(flag) => f64::from(u8::from(*flag)),
        Value::String(text) => text.parse::<f64>().ok().or_else(|| without_underscores(text)?.parse::<f64>().ok())?,
        _ => return None,
    };
    float.is_finite().then_some(float)
}

/// `1_000` as `1000`, as Python's number syntax allows (no leading,
/// trailing or doubled underscore); `None` when there is nothing to strip
/// or the underscores are misplaced.
fn without_underscores(text: &str) -> Option<String> {
    if !text.contains('_') || text.starts_with('_') || text.ends_with('_') || text.contains("__") {
        return None;
    }
    Some(text.replace('_', ""))
}

/// A JSON value's kind in the prompt's Python vocabulary.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}
