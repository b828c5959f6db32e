//! What RoleZero's commands work on (`ZeroCx`: the plan, the files, an
//! outbox, the sandbox) and the commands of its own: `end`, `ask_human`,
//! `reply_to_human` (listed like any command, run by the loop) and the team
//! leader's `publish_team_message`.
//!
//! The plan, editor and sandbox commands are registered from their own
//! modules; the loop that runs commands is `zero.rs`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::commands::{CommandSpec, HasPlan, Param, ParamType, Registry};
use crate::core::files::{HasFiles, ProjectFiles};
use crate::core::plan::Plan;
use crate::core::sandbox::{HasSandbox, Sandbox};

/// The command that ends the loop.
pub const END: &str = "end";
pub const ASK_HUMAN: &str = "RoleZero.ask_human";
pub const REPLY_TO_HUMAN: &str = "RoleZero.reply_to_human";
pub const PUBLISH_TEAM_MESSAGE: &str = "TeamLeader.publish_team_message";

/// What the commands may touch while they run: owned handles only, so a
/// snapshot taken while a command waits (on the human, say) still sees the
/// plan and the files.
pub struct ZeroCx {
    pub plan: Rc<RefCell<Plan>>,
    pub files: Rc<RefCell<ProjectFiles>>,
    /// Messages the commands asked to publish: (content, recipients).
    pub outbox: Vec<(String, Vec<String>)>,
    /// The team's role names (for validating recipients).
    pub team: Vec<String>,
    /// Where tests and the preview run.
    pub sandbox: Rc<dyn Sandbox>,
    /// Test failure reports already sent to a member this session.
    pub reports_sent: usize,
    /// Errors a command reported while it succeeded as a command (a test
    /// run with failures): the loop compares them between attempts.
    pub errors: Vec<String>,
}

impl HasSandbox for ZeroCx {
    fn sandbox(&self) -> Rc<dyn Sandbox> {
        self.sandbox.clone()
    }

    fn reports_sent(&self) -> usize {
        self.reports_sent
    }

    fn send(&mut self, to: &str, content: String) {
        self.outbox.push((content, vec![to.to_owned()]));
    }

    fn note_error(&mut self, text: String) {
        self.errors.push(text);
    }
}

impl HasPlan for ZeroCx {
    fn plan(&mut self) -> impl std::ops::DerefMut<Target = Plan> + '_ {
        self.plan.borrow_mut()
    }
}

impl HasFiles for ZeroCx {
    fn files(&mut self) -> impl std::ops::DerefMut<Target = ProjectFiles> + '_ {
        self.files.borrow_mut()
    }
}

/// `end`, `RoleZero.ask_human`, `RoleZero.reply_to_human`: listed in the
/// prompt like any command, run by the loop itself (they act on the loop).
pub(super) fn register_special_commands(registry: &mut Registry<ZeroCx>) {
    let loop_only = |_: &mut ZeroCx, _| Err("this command is run by the role's loop".to_string());
    registry.register_fn(
        CommandSpec::new(END, "End your work for now: when every task is finished and the user has what they asked for.").exclusive(),
        loop_only,
    );
    registry.register_fn(
        CommandSpec::new(ASK_HUMAN, "Ask the user a question and wait for the answer. Use it only when you cannot go on without it.")
            .param(Param::new("question", ParamType::Str))
            .exclusive(),
        loop_only,
    );
    registry.register_fn(
        CommandSpec::new(REPLY_TO_HUMAN, "Show the user a reply: an answer, the result of the work, where to find it.")
            .param(Param::new("content", ParamType::Str)),
        loop_only,
    );
}

/// `TeamLeader.publish_team_message`: the team leader's way to hand work to a member.
pub fn register_team_leader_commands(registry: &mut Registry<ZeroCx>) {
    registry.register_fn(
        CommandSpec::new(
            PUBLISH_TEAM_MESSAGE,
            "Send a message to a team member: what to do, with everything they need to know. \
             send_to is the member's name. Send one message per member per step.",
        )
        .param(Param::new("content", ParamType::Str))
        .param(Param::new("send_to", ParamType::Str)),
        |cx: &mut ZeroCx, args| {
            let to = args.str("send_to")?.trim().to_string();
            if !cx.team.iter().any(|n| *n == to) {
                return Err(format!("there is no team member named \"{to}\"; the team is: {}", cx.team.join(", ")));
            }
            cx.outbox.push((args.str("content")?.to_string(), vec![to.clone()]));
            Ok(format!("message sent to {to}"))
        },
    );
}

