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
use super::role_error::RoleError;

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

    /// For an action that is exactly one call, the role's prefix as its
    /// system turn and this as its user turn, whose answer is its whole
    /// output (text, no structured content): that prompt. The role then
    /// asks the model itself (absorbed, as for [`Action::answers_at_once`])
    /// instead of running `run`: the same request, the same output,
    /// without a boxed future per step. `None` (the default): the role
    /// runs `run`.
    fn one_call_prompt(&self, _cx: &ActionContext<'_>) -> Option<String> {
        None
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
        let prompt = self.prompt(&cx);
        Box::pin(async move {
            let answer = cx.llm.aask_owned(cx.prefix, prompt).await?;
            Ok(ActionOutput::text(answer))
        })
    }

    /// One call, returned as it comes.
    fn answers_at_once(&self) -> bool {
        true
    }

    fn one_call_prompt(&self, cx: &ActionContext<'_>) -> Option<String> {
        Some(self.prompt(cx))
    }
}

impl AskAction {
    /// The user turn: the task (in plan-and-act), the history, the instruction.
    fn prompt(&self, cx: &ActionContext<'_>) -> String {
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
        prompt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::EventSink;
    use crate::core::llm::scripted::ScriptedLlm;
    use crate::core::role::{ReactMode, Role, RoleSpec};
    use crate::core::team::Team;

    /// An [`AskAction`] seen only through `run` (no one-call prompt, not
    /// answering at once): the role must go through its boxed future.
    struct RunOnly(AskAction);

    impl Action for RunOnly {
        fn kind(&self) -> ActionKind {
            self.0.kind()
        }
        fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
            self.0.run(cx)
        }
    }

    /// What a team of one REACT role with actions A and B sends and keeps
    /// over three steps (the model picks B, A, then stops).
    fn react_run(wrap: fn(AskAction) -> Rc<dyn Action>) -> (Vec<crate::core::llm::ChatRequest>, Vec<(String, String)>, usize) {
        let llm = ScriptedLlm::from_texts("gpt-4o", ["1", "b done", "0", "a done", "-1"]);
        let mut team = Team::new("a test", Rc::new(llm.clone()), EventSink::default());
        team.hire([
            Role::new(
                RoleSpec::new("Ann", "Writer").goal("write").react_mode(ReactMode::React, 5),
                vec![wrap(AskAction::new("A", "Do A.")), wrap(AskAction::new("B", "Do B."))],
            ),
            Role::new(RoleSpec::new("Bob", "Reader"), vec![]),
        ]);
        team.run_project("start");
        futures::executor::block_on(team.run(1));
        let memory = team.env.role("Ann").expect("Ann").state.memory.all().iter().map(|m| (m.cause_by.to_string(), m.history_line())).collect();
        let entries = team.ledger.borrow().entries().len();
        (llm.requests(), memory, entries)
    }

    /// The role asks a one-call action's request itself: the same turns,
    /// messages and costs as running the action.
    #[test]
    fn one_call_prompt_makes_the_run_the_action_would() {
        let asked = react_run(|a| Rc::new(a));
        let run = react_run(|a| Rc::new(RunOnly(a)));
        assert_eq!(asked, run);
        let (requests, memory, entries) = asked;
        assert_eq!(requests.len(), 5);
        assert_eq!(requests[1].messages.len(), 2, "the prefix as the system turn, then the prompt");
        assert!(requests[1].messages[0].content.starts_with("You are a Writer, named Ann"));
        assert!(requests[1].messages[1].content.ends_with("## Instruction\nDo B."));
        assert_eq!(memory[1..], [("B".into(), "Ann: b done".into()), ("A".into(), "Ann: a done".into())]);
        assert_eq!(entries, 5);
    }
}
