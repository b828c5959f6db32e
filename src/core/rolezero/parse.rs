//! Reading the command list out of a RoleZero answer: MetaGPT's
//! `parse_commands` repair chain, with the model call taken out.
//!
//! The chain: take the first ```` ```json ```` block (or, with no fence,
//! the first `[{…}]` list, or the first object); add a missing `[` or wrap
//! bare objects in a list; parse; on failure try the local repairs in
//! `repair.rs`; if it still fails, hand back `NeedsLlmRepair` with the text
//! and the parser's error so the caller can ask the model (`repair_prompt`)
//! and parse its answer again. Each command must be an object with a string
//! `command_name` and an object `args` (absent or `null` means `{}`).
//!
//! Deliberately not checked here: whether the command exists and whether
//! its arguments have the right names and types. That is the registry's
//! job (`commands::Registry::validate`), which knows the signatures.

use serde_json::{Map, Value};

use super::repair::{python_to_json, repair_json, Repairs};
use crate::core::commands::Command;
use crate::core::json_scan::outside_strings;

/// What the answer gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseOutcome {
    /// The commands, in order, and notes on what had to be fixed or was
    /// ignored (worth telling the model, never a reason to refuse).
    Parsed { commands: Vec<Command>, notes: Vec<String> },
    /// The JSON does not parse even after the local repairs: ask the model
    /// to repair `text` (see `repair_prompt`), then parse its answer with
    /// `parse_commands(..).without_llm_repair()`.
    NeedsLlmRepair { text: String, error: String },
    /// The answer cannot be used; the text says why, for the model.
    Invalid(String),
}

impl ParseOutcome {
    /// For the answer to a repair request: no second repair round, the
    /// JSON error goes to the model instead.
    pub fn without_llm_repair(self) -> Self {
        match self {
            ParseOutcome::NeedsLlmRepair { error, .. } => {
                ParseOutcome::Invalid(format!("The command list is not valid JSON: {error}. {FORMAT}"))
            }
            other => other,
        }
    }
}

/// A command list cut after its first exclusive command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cut {
    pub kept: Vec<Command>,
    /// The commands after the exclusive one, not to be run.
    pub dropped: Vec<Command>,
}

impl Cut {
    /// What to tell the model when something was dropped.
    pub fn note(&self) -> Option<String> {
        let exclusive = self.kept.last()?;
        if self.dropped.is_empty() {
            return None;
        }
        let dropped: Vec<&str> = self.dropped.iter().map(|c| c.name.as_str()).collect();
        Some(format!(
            "{} must be the last command of a list, so the commands after it were not run: {}.",
            exclusive.name,
            dropped.join(", ")
        ))
    }
}

/// How an answer should look; appended to the texts sent back.
const FORMAT: &str = "Answer with your thoughts, then one ```json block holding a list of commands: \
                      [{\"command_name\": \"...\", \"args\": {...}}].";

/// Reads the commands of `answer`.
pub fn parse_commands(answer: &str) -> ParseOutcome {
    let Some(extracted) = extract(answer) else {
        return ParseOutcome::Invalid(format!("Found no JSON command list in the answer. {FORMAT}"));
    };
    let text = extracted.text.trim();
    if text.is_empty() {
        return ParseOutcome::Invalid(format!("The ```json block is empty. {FORMAT}"));
    }
    let mut notes = Vec::new();
    if extracted.blocks > 1 {
        notes.push(format!(
            "The answer held {} separate JSON command lists; only the first was used. Put every command in one list.",
            extracted.blocks
        ));
    }

    let mut first_failure = None;
    let mut value = None;
    for (candidate, change) in candidates(text) {
        match parse_repaired(&candidate) {
            Ok((parsed, repairs)) => {
                notes.extend(change.map(str::to_owned));
                let done = repairs.describe();
                if !done.is_empty() {
                    notes.push(format!("Repaired the JSON: {}.", done.join("; ")));
                }
                value = Some(parsed);
                break;
            }
            Err(failure) => {
                first_failure.get_or_insert(failure);
            }
        }
    }
    let Some(value) = value else {
        let (text, error) = first_failure.unwrap_or_default();
        return ParseOutcome::NeedsLlmRepair { text, error };
    };

    match commands_of(value, &mut notes) {
        Ok(commands) => ParseOutcome::Parsed { commands, notes },
        Err(why) => ParseOutcome::Invalid(why),
    }
}

/// The prompt asking the model to repair JSON that did not parse (the
/// answer is read with `parse_commands(..).without_llm_repair()`).
pub fn repair_prompt(text: &str, error: &str) -> String {
    format!(
        "## JSON data\n{text}\n\n## JSON decode error\n{error}\n\n## Output format\n```json\n\n```\n\
         Check the JSON data above for formatting problems and fix them, so that it parses as strict JSON: \
         double quotes, escaped line breaks and backslashes inside strings, no trailing commas, \
         every bracket closed. Do not use escape characters that JSON does not know, particularly within \
         file paths. If no issues are detected, return the data unchanged. Do not omit any information. \
         Output only the repaired JSON, in one ```json block."
    )
}

/// Keeps the commands up to and including the first exclusive one
/// (`end`, `RoleZero.ask_human`): what follows it would run after the
/// turn should have ended or before the human answered.
pub fn cut_after_exclusive(commands: Vec<Command>, is_exclusive: impl Fn(&str) -> bool) -> Cut {
    let mut kept = commands;
    let dropped = match kept.iter().position(|c| is_exclusive(&c.name)) {
        Some(at) => kept.split_off(at + 1),
        None => Vec::new(),
    };
    Cut { kept, dropped }
}

/// The JSON-ish text chosen from the answer and how many candidate blocks
/// the answer held.
struct Extracted<'a> {
    text: &'a str,
    blocks: usize,
}

fn extract(answer: &str) -> Option<Extracted<'_>> {
    let fenced: Vec<&str> = fences(answer)
        .into_iter()
        .filter(|(info, body)| {
            info.eq_ignore_ascii_case("json") || (info.is_empty() && body.trim_start().starts_with(['[', '{']))
        })
        .map(|(_, body)| body)
        .collect();
    if let Some(first) = fenced.first() {
        return Some(Extracted { text: first, blocks: fenced.len() });
    }

    // No fence: the first list of objects, else the first object.
    if let Some(start) = list_start(answer, 0) {
        let text = balanced(answer, start).unwrap_or(&answer[start..]);
        let after = start + text.len();
        let more = usize::from(list_start(answer, after).is_some());
        return Some(Extracted { text, blocks: 1 + more });
    }
    let start = answer.find('{')?;
    let object = balanced(answer, start).unwrap_or(&answer[start..]);
    let rest = answer[start + object.len()..].trim_start();
    // `{…}, {…}]` or `{…}]`: several objects whose `[` was forgotten.
    if rest.starts_with([',', ']']) {
        let end = answer.rfind([']', '}']).map_or(answer.len(), |e| e + 1);
        return Some(Extracted { text: &answer[start..end.max(start + object.len())], blocks: 1 });
    }
    Some(Extracted { text: object, blocks: 1 })
}

/// Every fenced block: (info string, body). A body runs to the closing
/// fence, or to the end of the answer when the fence is never closed (a
/// truncated answer still gets a precise JSON error). In a JSON-looking
/// body the closing fence is looked for outside strings, so a file's
/// content with its own ``` fences does not cut the list short.
fn fences(answer: &str) -> Vec<(&str, &str)> {
    let mut blocks = Vec::new();
    let mut pos = 0;
    while let Some(found) = answer[pos..].find("```") {
        let open = pos + found + 3;
        let line_end = answer[open..].find('\n').map_or(answer.len(), |n| open + n);
        let line = &answer[open..line_end];
        // "```json [{...}]```" on one line: the info is the leading word.
        let lead = line.len() - line.trim_start().len();
        let word = &line[lead..];
        let info_len = word.find(|c: char| !c.is_alphanumeric() && c != '_' && c != '-').unwrap_or(word.len());
        let (info, body_start) = if word[info_len..].trim().is_empty() {
            (word.trim(), (line_end + 1).min(answer.len()))
        } else {
            (&word[..info_len], open + lead + info_len)
        };
        let body_region = &answer[body_start..];
        let end = if body_region.trim_start().starts_with(['[', '{']) {
            fence_end_outside_strings(body_region).or_else(|| body_region.find("```"))
        } else {
            body_region.find("```")
        };
        match end {
            Some(end) => {
                blocks.push((info, &body_region[..end]));
                pos = body_start + end + 3;
            }
            None => {
                blocks.push((info, body_region));
                break;
            }
        }
    }
    blocks
}

/// The first "```" that is not inside a JSON string.
fn fence_end_outside_strings(text: &str) -> Option<usize> {
    outside_strings(text).map(|(at, _)| at).find(|&at| text[at..].starts_with("```"))
}

/// The position of the first `[` at or after `from` that opens a list of
/// objects (or an empty list), so that "[TASK]" or "[1]" in prose is not
/// taken for the command list.
fn list_start(text: &str, from: usize) -> Option<usize> {
    text.get(from..)?
        .match_indices('[')
        .map(|(at, _)| from + at)
        .find(|&at| matches!(text[at + 1..].trim_start().chars().next(), Some('{' | ']')))
}

/// The balanced `[…]` or `{…}` starting at `start` (brackets inside strings
/// do not count), or `None` when it never closes.
fn balanced(text: &str, start: usize) -> Option<&str> {
    let mut depth = 0usize;
    for (offset, c) in outside_strings(&text[start..]) {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&text[start..=start + offset]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The texts to try, with what was changed to get each.
fn candidates(text: &str) -> Vec<(String, Option<&'static str>)> {
    if text.starts_with('{') && text.ends_with(']') {
        // MetaGPT's "repair missing [".
        vec![(format!("[{text}"), Some("Added the missing '[' at the start of the command list."))]
    } else if text.starts_with('{') {
        vec![(text.to_owned(), None), (format!("[{text}]"), Some("Wrapped the command objects in a list."))]
    } else {
        vec![(text.to_owned(), None)]
    }
}

/// Parses `text` as it is, then with the JSON repairs, then also with
/// Python quoting converted. On failure: the most repaired text and its
/// error.
fn parse_repaired(text: &str) -> Result<(Value, Repairs), (String, String)> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok((value, Repairs::default()));
    }
    let mut repairs = Repairs::default();
    let repaired = repair_json(text, &mut repairs);
    let error = match serde_json::from_str(&repaired) {
        Ok(value) => return Ok((value, repairs)),
        Err(error) => error.to_string(),
    };
    let mut python = Repairs::default();
    let converted = python_to_json(text, &mut python);
    if python.python {
        let converted = repair_json(&converted, &mut python);
        if let Ok(value) = serde_json::from_str(&converted) {
            return Ok((value, python));
        }
    }
    Err((repaired, error))
}

/// The commands in a parsed value, or why it is not a command list.
fn commands_of(value: Value, notes: &mut Vec<String>) -> Result<Vec<Command>, String> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut object) => match object.remove("commands") {
            Some(Value::Array(items)) => {
                notes.push("Took the list under \"commands\"; write the list itself next time.".to_owned());
                items
            }
            Some(other) => {
                object.insert("commands".to_owned(), other);
                vec![Value::Object(object)]
            }
            None => vec![Value::Object(object)],
        },
        other => {
            return Err(format!("The JSON should be a list of commands but is {}. {FORMAT}", kind(&other)));
        }
    };

    let mut commands = Vec::with_capacity(items.len());
    let mut problems = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match command_of(item) {
            Ok(command) => commands.push(command),
            Err(problem) => problems.push(format!("item {} {problem}", i + 1)),
        }
    }
    if problems.is_empty() {
        Ok(commands)
    } else {
        Err(format!("The command list cannot be used: {}. {FORMAT}", problems.join("; ")))
    }
}

fn command_of(item: Value) -> Result<Command, String> {
    let Value::Object(mut object) = item else {
        return Err(format!("should be an object {{\"command_name\": ..., \"args\": {{...}}}} but is {}", kind(&item)));
    };
    let name = match object.remove("command_name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) => return Err("has an empty \"command_name\"".to_owned()),
        Some(other) => return Err(format!("has a \"command_name\" that is {}, not a string", kind(&other))),
        None => {
            let keys: Vec<&str> = object.keys().map(String::as_str).collect();
            let found = if keys.is_empty() { String::new() } else { format!(" (it has {})", keys.join(", ")) };
            return Err(format!("has no \"command_name\"{found}"));
        }
    };
    let args = match object.remove("args") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args,
        Some(other) => {
            return Err(format!(
                "({name}) has \"args\" that are {}; they should be an object of named arguments",
                kind(&other)
            ))
        }
    };
    Ok(Command { name, args })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
