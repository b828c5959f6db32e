//! What a running team tells the outside world: the UI renders these, the
//! store persists on them. Events are facts after the fact; nothing here
//! changes state.

use std::rc::Rc;

use super::commands::Command;
use super::cost::CostEntry;
use super::message::MessageRef;
use super::shared_str::SharedStr;
use super::versions::TestSummary;

pub use super::stop_reason::StopReason;

/// One thing that happened. Names are [`SharedStr`]s: a running team emits
/// several events per call, and copying a role's name into each is most of
/// what building them costs.
#[derive(Debug, Clone)]
pub enum TeamEvent {
    RoundStarted { round: u32 },
    /// A role starts a step: "thinking", "running WritePRD", ...
    RoleBusy { role: SharedStr, doing: SharedStr },
    /// A call starts; `quiet` calls (a classification) are not conversation.
    LlmStarted { role: SharedStr, model: SharedStr, quiet: bool },
    LlmDelta { role: SharedStr, text: String },
    /// A role's call pauses `seconds` before trying again (a rate limit,
    /// a busy provider); the next delta or the call's end clears it.
    Waiting { role: SharedStr, seconds: u64, reason: String },
    LlmFinished { role: SharedStr, entry: CostEntry },
    /// A message entered the environment (or a role's own buffer).
    Published { message: MessageRef },
    /// A message no role's addresses matched (MetaGPT logs a warning).
    Undelivered { message: MessageRef },
    /// A role's command ran: the command as the model wrote it, and its
    /// result (the text its model reads back) or its failure.
    CommandRan { role: SharedStr, command: Command, outcome: Result<String, String> },
    RoleFailed { role: SharedStr, error: String },
    /// A role waits for the user's answer to question `id`.
    AskHuman { id: u64, role: SharedStr, question: String },
    /// A role shows the user something (RoleZero's `reply_to_human`).
    ReplyToHuman { role: SharedStr, content: String },
    RoundFinished { round: u32 },
    Stopped { reason: StopReason },
    /// A role's older history was replaced by a summary its model wrote
    /// (kept in its memory, cause `rolezero::condense::CONDENSED`): the
    /// conversation shows it folded. Site only (the widget shows no
    /// summary; its size budget).
    #[cfg(feature = "site")]
    Condensed { message: MessageRef },
    /// The team stopped idle and the project's tests run in the sandbox
    /// (seconds, each file up to its time limit) before the request
    /// becomes version `number`; `VersionReady` follows. Only a project
    /// with test files and a build with a sandbox (the site) emits it.
    TestsRunning { number: u32 },
    /// The request the team worked on became version `number` of the
    /// project (after the run stopped and its tests ran); `tests`, when it
    /// has tests and they could run; `restored`, the version put back
    /// because this one broke the tests (`Session::auto_rollback`).
    VersionReady { number: u32, tests: Option<TestSummary>, restored: Option<u32> },
}

/// Where events go. The default drops them, and says so
/// ([`EventSink::is_listening`]), so nobody builds events for it.
#[derive(Clone, Default)]
pub struct EventSink(Option<Rc<Listener>>);

type Listener = dyn Fn(&TeamEvent);

impl EventSink {
    pub fn new(f: impl Fn(&TeamEvent) + 'static) -> Self {
        EventSink(Some(Rc::new(f)))
    }

    /// False for the default sink, which drops every event.
    pub fn is_listening(&self) -> bool {
        self.0.is_some()
    }

    pub fn emit(&self, event: TeamEvent) {
        self.emit_ref(&event)
    }

    /// Emit an event the caller keeps (to take its parts back).
    pub fn emit_ref(&self, event: &TeamEvent) {
        if let Some(f) = &self.0 {
            f(event)
        }
    }

    /// Emit the event `make` builds, building it only when someone listens
    /// (events clone names and texts; a team without a listener should not
    /// pay for them).
    pub fn emit_with(&self, make: impl FnOnce() -> TeamEvent) {
        if let Some(f) = &self.0 {
            f(&make())
        }
    }
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}
