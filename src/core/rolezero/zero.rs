//! RoleZero's loop (MetaGPT's `roles/di/role_zero.py`): a role that works by
//! emitting JSON commands.
//!
//! On a new user requirement it first classifies the request (quick think):
//! QUICK and AMBIGUOUS get a direct answer to the human and end the turn.
//! Otherwise it loops: observe, think (the model writes thoughts and one
//! JSON list of commands), guard against repeating itself, act (parse with
//! the repair chain, run the commands in order; a failing command stops the
//! list and its error goes back to the model as text), until `end` or the
//! loop limit, where it asks the human whether to continue.
//!
//! Every step is recorded in the role's saved progress ([`ZeroProgress`]):
//! the answer being acted on, which commands already ran and their outputs.
//! A role restored mid-loop runs the next command, never one that already
//! ran (commands have effects: a plan change, a file write, a message).

use std::rc::Rc;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};

pub use super::commands::{register_team_leader_commands, ZeroCx, ASK_HUMAN, END, PUBLISH_TEAM_MESSAGE, REPLY_TO_HUMAN};
pub use super::config::ZeroConfig;
pub use super::step::Step;
use super::commands::register_special_commands;
use super::prompt::{page_context, with_system, COMMAND, QUICK_RESPONSE, QUICK_THINK, REGENERATE, REPORT_TO_HUMAN, SUMMARY};
use super::{answer_text, cut_after_exclusive, parse_commands, parse_quick_think, repair_prompt, ParseOutcome};
use crate::core::commands::host::HOST_PREFIX;
use crate::core::events::TeamEvent;
use crate::core::commands::{answer_schema, register_plan_commands, Command, Registry, ANSWER_SCHEMA_NAME};
use crate::core::experience::Experience;
use crate::core::files::register_editor_commands;
use crate::core::human::STOP_ANSWER;
use crate::core::llm::{ChatMessage, ResponseSchema};
use crate::core::message::{Message, MessageRef, MsgRole, USER_REQUIREMENT};
use crate::core::role::{ReactMode, Reactor, Role, RoleSpec};
use crate::core::role_error::RoleError;
use crate::core::world::World;
use crate::core::sandbox::RUN_TESTS;
use crate::core::digest;


/// The `cause_by` of command outputs fed back to the model.
pub const RUN_COMMAND: &str = "RunCommand";
/// The `cause_by` of a quick answer.
pub const QUICK_THINK_TAG: &str = "QuickThink";
/// How many recent answers the duplicate guard compares against.
const DUPLICATE_WINDOW: usize = 10;
/// The `cause_by` of an answer shown to the person but not acted on (a
/// repeat the model was asked to redo, a broken answer it was asked to
/// repair): kept so a reopened session shows what the live one showed,
/// left out of the model's history and of the duplicate guard's count.
pub const SHOWN_ONLY: &str = "RoleZero.shown_only";
/// How the duplicate guard's closing answer opens (it is the role's, not
/// the model's: the conversation does not show it as an answer).
pub const REPEAT_NOTE: &str = "I keep giving the same answer; I will stop repeating it.";
/// The metadata key of a batch's outputs: the digest of its commands and
/// of the error it met (`NO_ERROR` when none), as `commands-error` in hex.
pub const ATTEMPT: &str = "attempt";
const NO_ERROR: &str = "0";

/// A batch's marker for the same-error guard.
fn attempt_marker(commands: &[Command], error: &str) -> String {
    let commands = digest::digest(&Command::render_block(commands));
    if error.trim().is_empty() {
        format!("{commands:x}-{NO_ERROR}")
    } else {
        format!("{commands:x}-{:x}", digest::digest(error.trim()))
    }
}

/// The start of an error for the person: its first 160 characters.
fn excerpt(error: &str) -> String {
    let flat = error.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// Answers in a row outside the command format after which the team
/// pauses with a diagnosis instead of asking the model again.
pub const OFF_FORMAT_LIMIT: u32 = 4;

/// Where the loop stands. Saved with the role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ZeroProgress {
    pub quick_done: bool,
    pub actions_taken: u32,
    pub step: Step,
    /// Commands that worked in this reaction (kept as experience at `end`).
    pub worked: Vec<Command>,
    pub ended: bool,
    /// The reaction's response so far.
    pub response: Option<String>,
    /// The model's answers in a row that were not in the command format.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub off_format: u32,
    /// Errors the running batch's commands reported as results (failing
    /// tests), for the same-error guard.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The RoleZero reactor: a command registry and a config.
pub struct RoleZero {
    pub(super) registry: Registry<ZeroCx>,
    pub(super) config: ZeroConfig,
}

impl RoleZero {
    /// A RoleZero with the plan and editor commands, the special commands,
    /// and whatever `tools` registers.
    pub fn new(config: ZeroConfig, tools: impl FnOnce(&mut Registry<ZeroCx>)) -> Self {
        let mut registry = Registry::default();
        register_plan_commands(&mut registry);
        register_editor_commands(&mut registry);
        register_special_commands(&mut registry);
        tools(&mut registry);
        Self { registry, config }
    }

    pub fn registry(&self) -> &Registry<ZeroCx> {
        &self.registry
    }

    /// A role driven by this reactor: always REACT, observes everything,
    /// at most 50 steps before asking to continue.
    pub fn into_role(self, spec: RoleSpec) -> Role {
        let spec = spec.react_mode(ReactMode::React, 50).observe_all();
        Role::new(spec, vec![]).with_reactor(Rc::new(self))
    }
}


fn progress(role: &Role) -> ZeroProgress {
    serde_json::from_value(role.state.progress.extra.clone()).unwrap_or_default()
}

fn save(role: &mut Role, p: &ZeroProgress) {
    // Serializing plain data cannot fail; a null would restart the loop.
    role.state.progress.extra = serde_json::to_value(p).unwrap_or_default();
}

impl Reactor for RoleZero {
    fn react<'a>(&'a self, role: &'a mut Role, world: &'a World) -> LocalBoxFuture<'a, Result<MessageRef, RoleError>> {
        Box::pin(async move {
            let mut p = progress(role);
            if !p.quick_done {
                p.quick_done = true;
                if let Some(answer) = self.quick_think(role, world).await? {
                    save(role, &p);
                    return Ok(self.respond(role, world, answer, QUICK_THINK_TAG));
                }
                role.set_state(0);
                save(role, &p);
            }
            loop {
                // After `end`, the batch it was in is still recorded below.
                let batch_open = matches!(p.step, Step::Run { .. });
                if (p.ended || role.state.state < 0) && !batch_open {
                    break;
                }
                if !batch_open && p.actions_taken >= role.spec.max_react_loop {
                    if role.spec.max_react_loop < 10 {
                        break;
                    }
                    role.checkpoint(world).await?;
                    let answer = world
                        .human
                        .ask(&role.spec.name, "I have reached my limit of steps. Do you want me to continue? Yes or no.")
                        .await;
                    if !answer.to_ascii_lowercase().contains("yes") {
                        break;
                    }
                    p.actions_taken = 0;
                    save(role, &p);
                }
                match p.step.clone() {
                    Step::Think => {
                        self.observe_more(role, world);
                        let answer = self.think(role, world, &mut p).await?;
                        p.step = Step::Act { answer };
                    }
                    Step::Act { answer } => {
                        p.step = self.parse(role, world, answer, &mut p).await?;
                        if p.step == Step::Think {
                            p.actions_taken += 1;
                        }
                    }
                    Step::Run { commands, next, mut outputs, mut failed } => {
                        if next < commands.len() && !failed {
                            let command = &commands[next];
                            let outcome = self.run_one(role, world, command, &mut p).await?;
                            // The conversation says what the command did (`view::words`).
                            world.events.emit_with(|| TeamEvent::CommandRan {
                                role: role.shared_name(),
                                command: command.clone(),
                                outcome: outcome.clone(),
                            });
                            match outcome {
                                Ok(output) => {
                                    outputs.push(format!("Command {} executed: {output}", command.name));
                                    p.worked.push(command.clone());
                                }
                                Err(error) => {
                                    outputs.push(format!("Command {} failed: {error}", command.name));
                                    failed = true;
                                }
                            }
                            p.step = Step::Run { commands, next: next + 1, outputs, failed };
                        } else {
                            if failed && next < commands.len() {
                                let skipped: Vec<&str> = commands[next..].iter().map(|c| c.name.as_str()).collect();
                                outputs.push(format!("Not run because an earlier command failed: {}.", skipped.join(", ")));
                            }
                            let text = outputs.join("\n\n");
                            let failure = outputs.iter().rev().find(|o| failed && o.starts_with("Command ") && o.contains(" failed: "));
                            let error = failure.cloned().into_iter().chain(std::mem::take(&mut p.errors));
                            let error: Vec<String> = error.collect();
                            let attempt = attempt_marker(&commands, &error.join("\n"));
                            let repeated = self.repeats_last_attempt(role, &attempt);
                            self.remember_attempt(role, world, &text, attempt);
                            p.response = Some(format!("I have finished the task, please mark my task as finished. Outputs: {text}"));
                            p.actions_taken += 1;
                            p.step = Step::Think;
                            if repeated {
                                save(role, &p);
                                return Err(RoleError::SameErrorTwice { role: role.spec.name.to_string(), error: excerpt(&error.join(" ")) });
                            }
                        }
                    }
                }
                save(role, &p);
            }
            let response = p.response.clone().unwrap_or_else(|| "No actions taken yet".to_string());
            Ok(self.respond(role, world, response, RUN_COMMAND))
        })
    }
}

impl RoleZero {
    /// Classify a new user requirement; answer QUICK and AMBIGUOUS ones
    /// directly. Returns the answer when the turn is over.
    async fn quick_think(&self, role: &mut Role, world: &World) -> Result<Option<String>, RoleError> {
        let is_requirement = role.state.news.last().is_some_and(|m| m.cause_by.as_str() == USER_REQUIREMENT);
        if !self.config.quick_think || !is_requirement {
            return Ok(None);
        }
        let prefix = self.prefix(role, world);
        let system = QUICK_THINK.replace("{role_info}", &prefix);
        // The longer of the two system prompts sizes the history for both.
        let response = QUICK_RESPONSE.replace("{role_info}", &prefix);
        let longest = if response.len() > system.len() { &response } else { &system };
        let context = page_context(world);
        let fixed: Vec<ChatMessage> =
            [ChatMessage::system(longest.as_str())].into_iter().chain(context.clone().map(ChatMessage::user)).collect();
        let mut history = self.fitted_history(role, world, &fixed).await?;
        // Page context (`commands::host`): changes per call, so it goes last.
        if let Some(context) = context {
            history.push(ChatMessage::user(context));
        }
        let gate = role.gate_for(world);
        let intent = parse_quick_think(&gate.quietly().ask(with_system(&system, history.clone())).await?);
        if !intent.answers_directly() {
            return Ok(None);
        }
        let answer = gate.ask(with_system(&response, history)).await?;
        // A "quick" answer that writes commands was a task after all.
        if answer.contains("command_name") {
            return Ok(None);
        }
        world.human.reply(&role.spec.name, &answer);
        Ok(Some(answer))
    }

    /// RoleZero keeps observing inside its loop: news goes into memory.
    fn observe_more(&self, role: &mut Role, world: &World) {
        let buffered = world.post.borrow_mut().take(&role.spec.name);
        role.state.memory.add_batch(buffered);
    }

    /// One step's request, laid out for the providers' prompt caches: the
    /// system prompt (framework text and the commands every RoleZero has,
    /// then this role's own), the history (append-only), and last the one
    /// turn that changes from call to call (the example from experience,
    /// the plan, the current task, the rules).
    async fn think(&self, role: &mut Role, world: &World, p: &mut ZeroProgress) -> Result<String, RoleError> {
        let system = self.system_prompt(role, world);
        let plan = role.state.plan.borrow();
        let mut command = COMMAND
            .replace("{example}", &self.example(role, world))
            .replace("{plan_status}", &plan.status_text())
            .replace("{current_task}", &plan.current_task_text())
            .replace("{language}", &self.config.language);
        drop(plan);
        // Page context (`commands::host`): changes per call, so it rides in
        // the last turn, ahead of the plan.
        if let Some(context) = page_context(world) {
            command = format!("{context}\n\n{command}");
        }
        let system = ChatMessage::system(system);
        let command = ChatMessage::user(command);
        let history = self.fitted_history(role, world, &[system.clone(), command.clone()]).await?;
        let mut request = vec![system];
        request.extend(history);
        request.push(command);
        let gate = role.gate_for(world).with_schema(self.answer_schema(role, world, p));
        let answer = answer_text(gate.ask(request.clone()).await?);
        self.guard_duplicates(role, world, request, answer, p).await
    }

    /// The JSON schema of an answer: the role's commands (on the site,
    /// those that apply in its state: `applicable`), then the host page's
    /// tools.
    fn answer_schema(&self, role: &Role, world: &World, p: &ZeroProgress) -> Arc<ResponseSchema> {
        let host = world.host.as_ref().map(|host| host.specs()).unwrap_or_default();
        #[cfg(feature = "site")]
        let schema = {
            let plan = role.state.plan.borrow();
            let has_files = !world.files.borrow().is_empty();
            let state = super::applicable::RoleState { plan: &plan, me: &role.spec.name, has_files, worked: &p.worked };
            answer_schema(self.registry.specs().filter(|s| state.applies(&s.name)).chain(&host))
        };
        #[cfg(not(feature = "site"))]
        let schema = {
            let _ = (role, p);
            answer_schema(self.registry.specs().chain(&host))
        };
        Arc::new(ResponseSchema { name: ANSWER_SCHEMA_NAME.to_owned(), schema })
    }

    /// The same answer again means the model is going in circles: ask once
    /// more; on the third repeat end (if it keeps finishing a task), pause
    /// with a diagnosis (if it keeps answering outside the command format:
    /// the person can choose a stronger model), or ask the human for
    /// guidance.
    async fn guard_duplicates(
        &self,
        role: &mut Role,
        world: &World,
        request: Vec<ChatMessage>,
        answer: String,
        p: &mut ZeroProgress,
    ) -> Result<String, RoleError> {
        let recent: Vec<&str> = role
            .state
            .memory
            .all()
            .iter()
            .rev()
            .take(DUPLICATE_WINDOW)
            .filter(|m| m.sent_from == role.spec.name && m.cause_by.as_str() != SHOWN_ONLY)
            .map(|m| m.content.as_str())
            .collect();
        let repeats = recent.iter().filter(|r| **r == answer).count();
        if repeats == 0 || answer.contains("\"command_name\": \"end\"") {
            return Ok(answer);
        }
        let off_format = !matches!(parse_commands(&answer), ParseOutcome::Parsed { .. });
        // Shown while it streamed; not acted on.
        self.remember(role, world, &answer, MsgRole::Assistant, SHOWN_ONLY);
        if off_format {
            p.off_format += 1;
        }
        if repeats >= 2 && off_format {
            return Err(self.off_format_pause(role, p, 1));
        }
        if repeats >= 2 {
            let command = if answer.contains("Plan.finish_current_task") {
                Command::bare(END)
            } else {
                Command::new(
                    ASK_HUMAN,
                    serde_json::json!({"question": "I seem to be repeating myself and cannot make progress. How should I go on?"}),
                )
            };
            return Ok(format!("{REPEAT_NOTE}\n{}", Command::render_block(&[command])));
        }
        let mut request = request;
        request.push(ChatMessage::assistant(answer));
        request.push(ChatMessage::user(REGENERATE));
        let gate = role.gate_for(world).with_schema(self.answer_schema(role, world, p));
        Ok(answer_text(gate.ask(request).await?))
    }

    /// The team pauses: the model's answers are not in the format the
    /// loop needs, and asking again has not helped. Resume asks for a new
    /// answer: the step's `calls` leave the reaction's journal, or a
    /// resumed reaction would replay the refused answer instead of asking
    /// (the count goes on: the diagnosis stays true).
    fn off_format_pause(&self, role: &mut Role, p: &mut ZeroProgress, calls: usize) -> RoleError {
        role.state.journal.borrow_mut().forget_last(calls);
        p.step = Step::Think;
        save(role, p);
        RoleError::OffFormat { answers: p.off_format }
    }

    /// Parse an answer (with one repair round by the model if needed); the
    /// next step is running the commands, or thinking again with the error.
    async fn parse(&self, role: &mut Role, world: &World, answer: String, p: &mut ZeroProgress) -> Result<Step, RoleError> {
        let mut answer = answer;
        let mut outcome = parse_commands(&answer);
        let repaired = matches!(outcome, ParseOutcome::NeedsLlmRepair { .. });
        if let ParseOutcome::NeedsLlmRepair { text, error } = &outcome {
            let repaired = role.gate_for(world).aask("", &repair_prompt(text, error)).await?;
            // The broken answer was shown as it streamed: keep it for the
            // conversation of a reopened session, not for the model.
            self.remember(role, world, &answer, MsgRole::Assistant, SHOWN_ONLY);
            outcome = parse_commands(&repaired).without_llm_repair();
            answer = repaired;
        }
        self.remember(role, world, &answer, MsgRole::Assistant, "RoleZero");
        p.off_format = if matches!(outcome, ParseOutcome::Parsed { .. }) { 0 } else { p.off_format + 1 };
        match outcome {
            ParseOutcome::Parsed { commands, mut notes } => {
                let cut = cut_after_exclusive(commands, |name| self.registry.is_exclusive(name));
                notes.extend(cut.note());
                let outputs = if notes.is_empty() { Vec::new() } else { vec![format!("Note: {}", notes.join(" "))] };
                Ok(Step::Run { commands: cut.kept, next: 0, outputs, failed: false })
            }
            ParseOutcome::Invalid(error) | ParseOutcome::NeedsLlmRepair { error, .. } => {
                self.remember(role, world, &error, MsgRole::User, RUN_COMMAND);
                if p.off_format >= OFF_FORMAT_LIMIT {
                    return Err(self.off_format_pause(role, p, 1 + usize::from(repaired)));
                }
                Ok(Step::Think)
            }
        }
    }

    /// Run one command; special ones act on the loop. The outer `Err` is a
    /// failure of the model or the budget (the reaction stays pending and
    /// this command runs again on resume); the inner one is the command's
    /// own failure, text for the model.
    async fn run_one(
        &self,
        role: &mut Role,
        world: &World,
        command: &Command,
        p: &mut ZeroProgress,
    ) -> Result<Result<String, String>, RoleError> {
        // The host page's tools (`Host.*`, widget only). They may wait on the
        // person (approval) or the page: capture the role as it stands, as
        // for the registry's commands below.
        if let Some(tools) = world.host.as_ref().filter(|_| command.name.starts_with(HOST_PREFIX)) {
            if let Some(checkpoints) = &world.checkpoints {
                checkpoints.capture(role);
            }
            // The team waits on the person: the status says so, not "working".
            if tools.asks_approval(&command.name) {
                let tool = command.name[HOST_PREFIX.len()..].to_owned();
                world.events.emit_with(|| TeamEvent::RoleBusy { role: role.shared_name(), doing: format!("waiting for your approval to run {tool}").into() });
            }
            return Ok(tools.run(command).await.map_err(|e| e.to_string()));
        }
        Ok(match command.name.as_str() {
            END => Ok(self.end(role, world, p).await?),
            ASK_HUMAN => match self.registry.validate(command) {
                Err(e) => Err(e.to_string()),
                Ok(args) => {
                    let question = args.str("question").unwrap_or_default().to_string();
                    role.checkpoint(world).await?;
                    let answer = world.human.ask(&role.spec.name, &question).await;
                    let trimmed = answer.trim().to_ascii_lowercase();
                    if trimmed.ends_with("stop") || trimmed.ends_with(STOP_ANSWER) {
                        let note = format!("{answer} The user has asked me to stop.");
                        self.remember(role, world, &note, MsgRole::User, RUN_COMMAND);
                        let summary = self.end(role, world, p).await?;
                        Ok(format!("{answer}\nCommand end executed: {summary}"))
                    } else {
                        Ok(answer)
                    }
                }
            },
            REPLY_TO_HUMAN => match self.registry.validate(command) {
                Err(e) => Err(e.to_string()),
                Ok(args) => {
                    world.human.reply(&role.spec.name, args.str("content").unwrap_or_default());
                    Ok("the user has received your reply. Do not send it again; if nothing is left to do, use end.".into())
                }
            },
            _ => {
                let mut cx = ZeroCx {
                    plan: role.state.plan.clone(),
                    files: world.files.clone(),
                    outbox: Vec::new(),
                    team: world.post.borrow().role_names(),
                    sandbox: world.sandbox.clone(),
                    reports_sent: world.post.borrow().history().iter().filter(|m| m.cause_by.as_str() == RUN_TESTS).count(),
                    errors: Vec::new(),
                };
                // A command may wait (the sandbox runs tests): the role is
                // captured as it stands, for checkpoints others take meanwhile.
                if let Some(checkpoints) = &world.checkpoints {
                    checkpoints.capture(role);
                }
                let result = self.registry.run_command(&mut cx, command).await.map_err(|e| e.to_string());
                p.errors.append(&mut cx.errors);
                for (content, to) in cx.outbox {
                    let message = Message::new(world.new_id(), content)
                        .with_role(MsgRole::Assistant)
                        .caused_by(command.name.as_str())
                        .from_role(&role.spec.name)
                        .to(to);
                    role.publish(world, Rc::new(message));
                }
                result
            }
        })
    }

    /// `end`: stop the loop; make sure the human got a reply; summarize if asked.
    async fn end(&self, role: &mut Role, world: &World, p: &mut ZeroProgress) -> Result<String, RoleError> {
        let replied = role.state.memory.get(5).iter().any(|m| m.content.contains(REPLY_TO_HUMAN));
        if !replied && self.config.reply_on_end {
            let closing = ChatMessage::user(REPORT_TO_HUMAN.replace("{language}", &self.config.language));
            let mut request = self.fitted_history(role, world, std::slice::from_ref(&closing)).await?;
            request.push(closing);
            let reply = role.gate_for(world).ask(request).await?;
            world.human.reply(&role.spec.name, &reply);
            self.remember(role, world, &reply, MsgRole::Assistant, RUN_COMMAND);
        }
        if let Some(request) = role.state.memory.all().iter().rev().find(|m| m.cause_by.as_str() == USER_REQUIREMENT) {
            let worked = std::mem::take(&mut p.worked);
            if !worked.is_empty() {
                let experience = Experience::new(request.content.clone(), Command::render_block(&worked), "ended");
                world.experience.borrow_mut().add(experience.of_role(role.spec.kind.clone()));
            }
        }
        let summary = if self.config.use_summary {
            let closing = ChatMessage::user(SUMMARY);
            let mut request = self.fitted_history(role, world, std::slice::from_ref(&closing)).await?;
            request.push(closing);
            role.gate_for(world).ask(request).await?
        } else {
            String::new()
        };
        // Only now: a model failure above leaves `end` to be run again.
        p.ended = true;
        role.set_state(-1);
        Ok(summary)
    }
    /// Whether this role's previous run of the same commands (by their
    /// marker's first half) met the same, non-empty, error.
    fn repeats_last_attempt(&self, role: &Role, attempt: &str) -> bool {
        let Some((commands, error)) = attempt.split_once('-') else { return false };
        if error == NO_ERROR {
            return false;
        }
        role.state
            .memory
            .all()
            .iter()
            .rev()
            .filter(|m| m.sent_from == role.spec.name && m.cause_by.as_str() == RUN_COMMAND)
            .filter_map(|m| m.metadata.get(ATTEMPT))
            .find(|earlier| earlier.split_once('-').is_some_and(|(c, _)| c == commands))
            .is_some_and(|earlier| earlier == attempt)
    }

    /// A batch's outputs, kept with the marker of what ran and what failed.
    fn remember_attempt(&self, role: &mut Role, world: &World, content: &str, attempt: String) {
        let message = Message::new(world.new_id(), content)
            .with_role(MsgRole::User)
            .caused_by(RUN_COMMAND)
            .from_role(&role.spec.name)
            .with_meta(ATTEMPT, attempt);
        role.state.memory.add(Rc::new(message));
    }

    fn remember(&self, role: &mut Role, world: &World, content: &str, who: MsgRole, cause_by: &str) {
        let message = Message::new(world.new_id(), content).with_role(who).caused_by(cause_by).from_role(&role.spec.name);
        role.state.memory.add(Rc::new(message));
    }

    /// The reaction's response message, addressed to the team leader when
    /// there is one.
    fn respond(&self, role: &mut Role, world: &World, content: String, cause_by: &str) -> MessageRef {
        let mut message = Message::new(world.new_id(), content)
            .with_role(MsgRole::Assistant)
            .caused_by(cause_by)
            .from_role(&role.spec.name);
        if let Some(leader) = &self.config.report_to {
            message = message.to([leader.as_str()]);
        }
        let message = Rc::new(message);
        role.state.memory.add(message.clone());
        message
    }
}

