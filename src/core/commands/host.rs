//! Host tools: functions the page that embeds the widget gives its agents,
//! each a command `Host.<name>` validated by a `Registry` like every other
//! command, and the page's readable context (short texts the agents see in
//! their next prompt).
//!
//! Pure: the page's JSON Schema subset becomes a `CommandSpec`; a call is
//! validated, approved by the person when the tool asks for it, run through
//! the `HostPort` (the widget implements it with the page's own functions),
//! and its outcome written as text for the model. This file runs no
//! JavaScript, keeps no clock (the port enforces the time limit and says
//! when it ran out) and decides nothing about how the approval looks.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{Map, Value};
use thiserror::Error;

use super::{Args, Command, CommandError, CommandHandler, CommandSpec, Param, ParamType, Registry};

/// What every host command's name starts with.
pub const HOST_PREFIX: &str = "Host.";
/// A tool's result is cut to this many characters for the model.
pub const RESULT_LIMIT: usize = 4_000;
/// A context text is cut to this many characters.
pub const CONTEXT_LIMIT: usize = 2_000;
/// Tool names: letters, digits and `_`, at most this long.
const NAME_LIMIT: usize = 64;

/// What the model is told when the person declined a call. It is the
/// command's result, not a failure: the model did nothing wrong.
pub const DECLINED: &str =
    "the user declined, so it was not run. Do not call it again unless the user asks; tell them what you would have done.";

/// Why the page's description of a tool cannot be used; for the page's
/// developer, each saying what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SchemaError {
    #[error("tool name \"{0}\": use 1 to 64 letters, digits or _, starting with a letter (it becomes the command Host.{0})")]
    BadName(String),
    #[error("tool {tool}: parameters must be a JSON Schema object: {{\"type\": \"object\", \"properties\": {{...}}, \"required\": [...]}}")]
    NotObject { tool: String },
    #[error("tool {tool}: parameter \"{param}\" has {found}; use type string, number, integer or boolean, an enum, or an array of those")]
    Unsupported { tool: String, param: String, found: String },
    #[error("tool {tool}: the enum of parameter \"{param}\" must be a non-empty list of strings or numbers")]
    BadEnum { tool: String, param: String },
    #[error("tool {tool}: \"required\" names \"{param}\", which is not one of its properties")]
    UnknownRequired { tool: String, param: String },
}

/// One tool as the page describes it, made into a command.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTool {
    /// `Host.<name>`, its parameters and its description for the prompt.
    pub spec: CommandSpec,
    /// The person approves each call before it runs.
    pub confirm: bool,
}

impl HostTool {
    /// The tool `name` with `parameters` in the JSON Schema subset: an
    /// object whose properties are string / number / integer / boolean, an
    /// enum, or an array of those, with `required` and `description`s.
    /// Parameter descriptions go under the command's description, one line
    /// each, so the model reads them where it reads the signature.
    pub fn from_schema(name: &str, description: &str, parameters: &Value, confirm: bool) -> Result<Self, SchemaError> {
        let valid_name = name.len() <= NAME_LIMIT
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name {
            return Err(SchemaError::BadName(name.to_owned()));
        }
        let tool = || name.to_owned();
        let empty = Map::new();
        let (properties, required) = match parameters {
            Value::Null => (&empty, Vec::new()),
            Value::Object(schema) => {
                if schema.get("type").is_some_and(|t| t != "object") {
                    return Err(SchemaError::NotObject { tool: tool() });
                }
                let properties = match schema.get("properties") {
                    None => &empty,
                    Some(Value::Object(p)) => p,
                    Some(_) => return Err(SchemaError::NotObject { tool: tool() }),
                };
                let required = match schema.get("required") {
                    None => Vec::new(),
                    Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
                    Some(_) => return Err(SchemaError::NotObject { tool: tool() }),
                };
                (properties, required)
            }
            _ => return Err(SchemaError::NotObject { tool: tool() }),
        };
        if let Some(stray) = required.iter().find(|r| !properties.contains_key(**r)) {
            return Err(SchemaError::UnknownRequired { tool: tool(), param: (*stray).to_owned() });
        }

        let mut text = description.trim().to_owned();
        if confirm {
            text.push_str(" The user is asked to approve each call before it runs.");
        }
        let mut spec = CommandSpec::new(format!("{HOST_PREFIX}{name}"), String::new());
        // Required parameters first, in `required`'s order, then the others
        // by name: a signature as Python writes it, and the same whatever
        // order the page's object had (JSON objects are read unordered).
        let optional = properties.iter().filter(|(p, _)| !required.contains(&p.as_str()));
        let ordered = required.iter().filter_map(|r| properties.get_key_value(*r)).chain(optional);
        for (param, schema) in ordered {
            let mut built = param_from_schema(name, param, schema)?;
            if !required.contains(&param.as_str()) {
                built = built.optional();
            }
            if let Some(about) = schema.get("description").and_then(Value::as_str) {
                text.push_str(&format!("\n- {param}: {}", about.trim()));
            }
            spec = spec.param(built);
        }
        spec.description = text;
        Ok(Self { spec, confirm })
    }
}

/// One property of the schema as a parameter (required until told).
fn param_from_schema(tool: &str, name: &str, schema: &Value) -> Result<Param, SchemaError> {
    let unsupported = |found: String| SchemaError::Unsupported { tool: tool.to_owned(), param: name.to_owned(), found };
    let ty_of = |schema: &Value| schema.get("type").and_then(Value::as_str).map(str::to_owned);
    let (ty, item_schema) = match ty_of(schema).as_deref() {
        Some("array") => {
            let items = schema.get("items").ok_or_else(|| unsupported("an array without items".into()))?;
            let ty = match plain_type(items)? {
                Some(ParamType::Str) => ParamType::StrList,
                Some(ParamType::Int) => ParamType::IntList,
                Some(ParamType::Float) => ParamType::FloatList,
                Some(ParamType::Bool) => ParamType::BoolList,
                _ => return Err(unsupported(format!("an array of {}", type_words(items)))),
            };
            (ty, items)
        }
        _ => match plain_type(schema)? {
            Some(ty) => (ty, schema),
            None => return Err(unsupported(type_words(schema))),
        },
    };
    let mut param = Param::new(name, ty);
    if let Some(choices) = item_schema.get("enum") {
        let ok = choices.as_array().filter(|c| !c.is_empty() && c.iter().all(|v| v.is_string() || v.is_number()));
        let Some(choices) = ok else { return Err(SchemaError::BadEnum { tool: tool.to_owned(), param: name.to_owned() }) };
        param = param.one_of(choices.clone());
    }
    Ok(param)
}

/// The plain type a schema names; an enum without a type takes its
/// values' type. `None` for anything else.
fn plain_type(schema: &Value) -> Result<Option<ParamType>, SchemaError> {
    let named = schema.get("type").and_then(Value::as_str);
    let from_enum = || {
        let values = schema.get("enum")?.as_array()?;
        if values.iter().all(Value::is_string) {
            Some("string")
        } else if values.iter().all(Value::is_number) {
            Some("number")
        } else {
            None
        }
    };
    Ok(match named.or_else(from_enum) {
        Some("string") => Some(ParamType::Str),
        Some("integer") => Some(ParamType::Int),
        Some("number") => Some(ParamType::Float),
        Some("boolean") => Some(ParamType::Bool),
        _ => None,
    })
}

/// "type object", "no type": what a schema said, for an error.
fn type_words(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => format!("type {t}"),
        Some(other) => format!("type {other}"),
        None => "no type".to_owned(),
    }
}

/// One call of a host tool, as the page's function receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// Counts the calls of one widget, so the page can pair its events.
    pub id: u64,
    /// The tool's own name, without `Host.`.
    pub tool: String,
    /// The validated arguments (defaults filled in).
    pub args: Value,
    pub confirm: bool,
}

/// How the page's function ended.
#[derive(Debug, Clone, PartialEq)]
pub enum HostOutcome {
    /// What it returned (or its Promise resolved to); `Null` for nothing.
    Returned(Value),
    /// It threw (or its Promise rejected) with this message.
    Threw(String),
    /// It did not finish within its time limit.
    TimedOut { after_ms: u64 },
}

/// The page's side of host tools: the widget asks the person and calls the
/// page's functions. A port never fails: whatever goes wrong is an outcome.
pub trait HostPort {
    /// Ask the person whether `call` may run; true when they approve.
    fn approve(&self, call: &HostCall) -> LocalBoxFuture<'static, bool>;
    /// Run the page's function for `call`, within its time limit.
    fn run(&self, call: &HostCall) -> LocalBoxFuture<'static, HostOutcome>;
}

/// The outcome as the model sees it: the command's result, or why it
/// failed.
pub fn outcome_text(outcome: HostOutcome) -> Result<String, String> {
    match outcome {
        HostOutcome::Returned(Value::Null) => Ok("done".to_owned()),
        HostOutcome::Returned(Value::String(text)) => Ok(cut(&text, RESULT_LIMIT)),
        HostOutcome::Returned(value) => Ok(cut(&value.to_string(), RESULT_LIMIT)),
        HostOutcome::Threw(message) => Err(format!("the page's function threw an error: {}", cut(&message, RESULT_LIMIT))),
        HostOutcome::TimedOut { after_ms } => Err(format!(
            "the page's function did not finish within {} s. It may still have had an effect: check before calling it again.",
            after_ms.div_ceil(1000)
        )),
    }
}

/// `text` cut to `limit` characters, saying how much was left out.
fn cut(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}… [cut: {} more characters]", &text[..at], text[at..].chars().count()),
    }
}

/// What a host command's handler works with.
pub struct HostCx {
    port: Rc<dyn HostPort>,
    id: u64,
}

/// Runs one tool: approval first when it asks for it, then the page.
struct HostHandler {
    tool: String,
    confirm: bool,
}

impl CommandHandler<HostCx> for HostHandler {
    fn call<'a>(&'a self, cx: &'a mut HostCx, args: Args) -> LocalBoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let call = HostCall { id: cx.id, tool: self.tool.clone(), args: Value::Object(args.into_map()), confirm: self.confirm };
            if self.confirm && !cx.port.approve(&call).await {
                return Ok(DECLINED.to_owned());
            }
            outcome_text(cx.port.run(&call).await)
        })
    }
}

/// The page's tools and context, shared by every agent of a widget (the
/// team's `World` holds it). Tools may change at any time; a call already
/// running keeps the registry it started with.
pub struct HostTools {
    port: Rc<dyn HostPort>,
    registry: RefCell<Rc<Registry<HostCx>>>,
    /// (key, text) in the order the page first set them.
    context: RefCell<Vec<(String, String)>>,
    calls: Cell<u64>,
    /// The tools (`Host.<name>`) the person approves before each call.
    approved_first: RefCell<Vec<String>>,
}

impl HostTools {
    pub fn new(port: Rc<dyn HostPort>) -> Self {
        Self { port, registry: RefCell::default(), context: RefCell::default(), calls: Cell::new(0), approved_first: RefCell::default() }
    }

    /// Replace the tools (the page's whole list, in its order).
    pub fn set_tools(&self, tools: Vec<HostTool>) {
        let mut registry = Registry::default();
        let mut approved_first = Vec::new();
        for tool in tools {
            let name = tool.spec.name[HOST_PREFIX.len()..].to_owned();
            if tool.confirm {
                approved_first.push(tool.spec.name.clone());
            }
            registry.register(tool.spec, HostHandler { tool: name, confirm: tool.confirm });
        }
        *self.registry.borrow_mut() = Rc::new(registry);
        *self.approved_first.borrow_mut() = approved_first;
    }

    /// `command` waits for the person's approval before it runs.
    pub fn asks_approval(&self, command: &str) -> bool {
        self.approved_first.borrow().iter().any(|n| n == command)
    }

    /// The tools' numbered entries for the prompt, numbered from `first`
    /// (they follow the role's own commands); empty without tools.
    pub fn command_prompt(&self, first: usize) -> String {
        let registry = self.registry.borrow();
        if registry.is_empty() {
            return String::new();
        }
        format!("\n{}", registry.prepare_command_prompt_from(first))
    }

    /// The tools' command specs, in the page's order (for the answer's
    /// JSON schema).
    pub fn specs(&self) -> Vec<CommandSpec> {
        self.registry.borrow().specs().cloned().collect()
    }

    /// Validate and run `command` (a `Host.` one): its result text, or why
    /// it did not run or failed, as every command reports it.
    pub async fn run(&self, command: &Command) -> Result<String, CommandError> {
        let registry = self.registry.borrow().clone();
        let id = self.calls.get() + 1;
        self.calls.set(id);
        let mut cx = HostCx { port: self.port.clone(), id };
        registry.run_command(&mut cx, command).await
    }

    /// Set the text the agents see under `key` (cut to `CONTEXT_LIMIT`);
    /// an empty text removes it.
    pub fn set_context(&self, key: &str, text: &str) {
        let text = cut(text.trim(), CONTEXT_LIMIT);
        if text.is_empty() {
            self.remove_context(key);
            return;
        }
        let mut context = self.context.borrow_mut();
        match context.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = text,
            None => context.push((key.to_owned(), text)),
        }
    }

    pub fn remove_context(&self, key: &str) {
        self.context.borrow_mut().retain(|(k, _)| k != key);
    }

    /// The page context as a prompt section, or `None` when there is none.
    pub fn context_block(&self) -> Option<String> {
        let context = self.context.borrow();
        if context.is_empty() {
            return None;
        }
        let mut block = String::from("# Page context\nWhat the page you are embedded in shows now (kept current by the page):");
        for (key, text) in context.iter() {
            block.push_str(&format!("\n## {key}\n{text}"));
        }
        Some(block)
    }
}
