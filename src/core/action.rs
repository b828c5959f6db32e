//! Actions: what a role can do in one step (MetaGPT's `Action`).
//!
//! An action reads the role's history and may ask the model through the
//! role's [`LlmGate`]; it returns text and, for structured actions, the
//! parsed fields. It does not publish: the role wraps the output into a
//! message and decides where it goes.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::files::ProjectFiles;
use super::gate::LlmGate;
use super::message::{ActionKind, MessageRef};
use super::plan::Task;
use super::role::RoleError;

/// What an action produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionOutput {
    pub content: String,
    pub instruct_content: Option<serde_json::Value>,
    /// The action ran but did not achieve its task (plan-and-act re-plans).
    pub failed: bool,
}

impl ActionOutput {
    pub fn text(content: impl Into<String>) -> Self {
        Self { content: content.into(), ..Default::default() }
    }
}

/// Everything an action may read while it runs.
pub struct ActionContext<'a> {
    /// The role's memory, oldest first.
    pub history: &'a [MessageRef],
    /// The same, as text: each message's history line, joined by newlines
    /// (`Memory::history_text`, rendered once per message).
    pub history_text: &'a str,
    /// The role's system-prompt prefix ("You are a ..., named ..."),
    /// shared: a request can carry it without a copy.
    pub prefix: &'a Rc<str>,
    pub llm: &'a LlmGate,
    /// In plan-and-act mode, the task being worked on.
    pub task: Option<&'a Task>,
    /// The project's files: actions that produce documents or code write them here.
    pub files: &'a Rc<RefCell<ProjectFiles>>,
}

/// One step a role can take.
pub trait Action {
    /// The kind this action gives the messages it produces (`cause_by`).
    fn kind(&self) -> ActionKind;

    /// How the action is listed among a role's states.
    fn describe(&self) -> String {
        self.kind().to_string()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>>;

    /// True when `run` makes at most one call through `cx.llm` and returns
    /// as soon as it is answered, with nothing else to await. The role then
    /// stores the answer as its message before anything else awaits, so the
    /// call needs no journal entry (see `gate`): it is neither digested nor
    /// copied into the journal. False unless an action says so.
    fn answers_at_once(&self) -> bool {
        false
    }
}

/// An action that asks the model once: the role prefix as the system prompt,
/// the history and an instruction as the user prompt. Enough for simple
/// roles and for the benchmarks.
pub struct AskAction {
    kind: ActionKind,
    instruction: String,
}

impl AskAction {
    pub fn new(kind: &str, instruction: impl Into<String>) -> Self {
        Self { kind: ActionKind::new(kind), instruction: instruction.into() }
    }
}

impl Action for AskAction {
    fn kind(&self) -> ActionKind {
        self.kind.clone()
    }

    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let mut prompt = String::new();
            if let Some(task) = cx.task {
                prompt.push_str(&format!("## Current task\n{}\n\n", task.instruction));
            }
            prompt.reserve(cx.history_text.len() + self.instruction.len() + 32);
            prompt.push_str("## History\n");
            // One line per message, each ending with a newline.
            if !cx.history_text.is_empty() {
                prompt.push_str(cx.history_text);
                prompt.push('\n');
            }
            prompt.push_str("\n## Instruction\n");
            prompt.push_str(&self.instruction);
            let answer = cx.llm.aask_shared(cx.prefix, prompt).await?;
            Ok(ActionOutput::text(answer))
        })
    }

    /// One call, returned as it comes.
    fn answers_at_once(&self) -> bool {
        true
    }
}
