//! What the run view shows, folded from the team's events: the
//! conversation (streaming answers, messages between roles, replies to the
//! user, questions waiting for an answer, errors), who is busy doing what,
//! the cost, and why the run stopped.
//!
//! It is plain data with one method, [`RunView::apply`], so the UI renders
//! it and holds no logic, and every rule here is tested natively. It does
//! not render, sanitize or format for HTML: text stays text. Its parts:
//! `entry` (a line of the conversation and its kind), `status` (the status
//! line and the stop texts), `words` (what commands did, in words),
//! `restore` (the view rebuilt from a snapshot).

mod entry;
mod restore;
mod status;
#[cfg(all(test, feature = "site"))]
mod summary_tests;
pub mod words;

use crate::core::sorted_map::SortedSet;
use litemap::LiteMap;

use super::cost::CostEntry;
use super::events::{StopReason, TeamEvent};
use super::message::{SHOWN, USER_REQUIREMENT};
use super::session::shown_of_legacy;
use super::rolezero::zero::{QUICK_THINK_TAG, RUN_COMMAND};
use status::VersionNote;
use words::{deed, report_text};

pub use entry::{split_commands, Entry, EntryKind};
#[cfg(feature = "site")]
pub use entry::summary_label;
pub use status::{done_text, stop_text};

/// The run as a whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RunState {
    #[default]
    NotStarted,
    Running,
    Stopped(StopReason),
}

/// Tokens and dollars per role.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostLine {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub dollars: f64,
    pub estimated: bool,
    /// Of `prompt_tokens`, served from the provider's prompt cache.
    pub cached_tokens: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    pub entries: Vec<Entry>,
    pub state: RunState,
    pub round: u32,
    /// Role → what it is doing now ("thinking", "running WritePRD", …).
    pub busy: LiteMap<String, String>,
    pub cost: LiteMap<String, CostLine>,
    pub total_dollars: f64,
    next_id: u64,
    /// Role → index of its entry still streaming.
    pub(crate) live: LiteMap<String, usize>,
    /// Roles whose current call is quiet.
    quiet: SortedSet<String>,
    /// Roles whose call is pausing before a retry.
    waiting: SortedSet<String>,
    /// Role → index of its latest answer (where its commands' words go).
    pub(crate) last_answer: LiteMap<String, usize>,
    /// The version the last request became, once it is ready.
    pub(crate) version: Option<VersionNote>,
    /// The version whose tests run now, between the stop and `version`.
    pub(crate) testing: Option<u32>,
}

impl RunView {
    /// One paid call in the cost meter: its role's line and the total.
    pub(crate) fn count_cost(&mut self, entry: &CostEntry) {
        let line = self.cost.entry(entry.role.to_string()).or_default();
        line.calls += 1;
        line.prompt_tokens += entry.prompt_tokens;
        line.completion_tokens += entry.completion_tokens;
        line.dollars += entry.cost;
        line.estimated |= entry.estimated;
        line.cached_tokens += entry.cached_tokens;
        self.total_dollars += entry.cost;
    }

    /// What the cost meter says of the prompt cache: how many input tokens
    /// the provider served from it, of how many; `None` while it served
    /// none (most runs on a provider or model without caching).
    pub fn cache_note(&self) -> Option<String> {
        let cached: u64 = self.cost.values().map(|c| c.cached_tokens).sum();
        let input: u64 = self.cost.values().map(|c| c.prompt_tokens).sum();
        (cached > 0).then(|| format!("{cached} of {input} input tokens cached ({:.0}%)", 100.0 * cached as f64 / input.max(1) as f64))
    }

    /// Fold one event in.
    pub fn apply(&mut self, event: &TeamEvent) {
        match event {
            TeamEvent::RoundStarted { round } => {
                self.round = *round;
                self.state = RunState::Running;
                self.version = None;
                self.testing = None;
            }
            TeamEvent::RoleBusy { role, doing } => {
                self.busy.insert(role.to_string(), doing.to_string());
            }
            TeamEvent::LlmStarted { role, quiet, .. } => {
                self.busy.insert(role.to_string(), "thinking".into());
                if *quiet {
                    self.quiet.insert(role.to_string());
                } else {
                    self.quiet.remove(role.as_str());
                    let i = self.push(role, EntryKind::Answer, String::new());
                    self.entries[i].live = true;
                    self.live.insert(role.to_string(), i);
                    self.last_answer.insert(role.to_string(), i);
                }
            }
            TeamEvent::Waiting { role, seconds, reason } => {
                self.waiting.insert(role.to_string());
                self.busy.insert(role.to_string(), format!("waiting {seconds} s: {reason}"));
            }
            TeamEvent::LlmDelta { role, text } => {
                // The call proceeds: the wait is over.
                if self.waiting.remove(role.as_str()) {
                    self.busy.insert(role.to_string(), "thinking".into());
                }
                if !self.quiet.contains(role.as_str()) {
                    self.append_delta(role, text);
                }
            }
            TeamEvent::LlmFinished { role, entry } => {
                self.quiet.remove(role.as_str());
                self.waiting.remove(role.as_str());
                if let Some(i) = self.live.remove(role.as_str()) {
                    // A schema-constrained answer streamed as one JSON
                    // object: shown as its thought and folded commands.
                    let text = crate::core::rolezero::answer_text(std::mem::take(&mut self.entries[i].text));
                    let (thoughts, commands) = split_commands(&text);
                    let e = &mut self.entries[i];
                    e.live = false;
                    e.text = thoughts;
                    e.commands = commands;
                }
                self.busy.remove(role.as_str());
                self.count_cost(entry);
            }
            // A role's closing bookkeeping to everyone ("I have finished…")
            // says nothing the conversation has not shown.
            TeamEvent::Published { message }
                if matches!(message.cause_by.as_str(), RUN_COMMAND | QUICK_THINK_TAG)
                    && message.send_to.iter().any(|a| a == super::message::ALL) => {}
            TeamEvent::Published { message } => {
                if message.sent_from.is_empty() || message.cause_by.as_str() == USER_REQUIREMENT {
                    // What the person wrote, not what the model was told.
                    let text = match message.metadata.get(SHOWN) {
                        Some(shown) => shown.as_str(),
                        None => shown_of_legacy(&message.content).unwrap_or(&message.content),
                    };
                    if !text.is_empty() {
                        let _i = self.push("You", EntryKind::User, text.to_string());
                        #[cfg(feature = "images")]
                        {
                            self.entries[_i].images = message.images();
                        }
                    }
                } else {
                    let to_all = message.send_to.iter().any(|a| a == super::message::ALL);
                    let to: Vec<&str> = message.send_to.iter().map(String::as_str).collect();
                    let label = if to_all { message.sent_from.to_string() } else { format!("{} → {}", message.sent_from, to.join(", ")) };
                    // A member's report to its leader lists its commands'
                    // outputs for the leader's model; the person has seen
                    // them in words under the member's answer.
                    let text = if message.cause_by.as_str() == RUN_COMMAND { report_text(&message.content) } else { message.content.clone() };
                    self.push(&label, EntryKind::Message { to_all }, text);
                }
            }
            TeamEvent::Undelivered { .. } | TeamEvent::RoundFinished { .. } => {}
            TeamEvent::CommandRan { role, command, outcome } => {
                if let (Some(words), Some(&i)) = (deed(role, command, Some(outcome)), self.last_answer.get(role.as_str())) {
                    self.entries[i].deeds.push(words);
                }
            }
            TeamEvent::TestsRunning { number } => self.testing = Some(*number),
            TeamEvent::VersionReady { number, tests, restored } => {
                self.testing = None;
                self.version = Some(VersionNote { number: *number, tests: *tests, restored: *restored });
            }
            TeamEvent::RoleFailed { role, error } => {
                self.waiting.remove(role.as_str());
                self.end_stream(role);
                self.busy.remove(role.as_str());
                self.push(role, EntryKind::Error, error.clone());
            }
            TeamEvent::AskHuman { id, role, question } => {
                self.push(role, EntryKind::Question { question_id: *id, answered: false }, question.clone());
            }
            TeamEvent::ReplyToHuman { role, content } => {
                // A quick answer streams in, then is sent as the reply:
                // highlight the streamed entry rather than repeat it.
                let streamed = self.entries.iter().rposition(|e| e.role == *role && e.kind == EntryKind::Answer);
                match streamed {
                    Some(i) if self.entries[i].text.trim() == content.trim() => self.entries[i].kind = EntryKind::Reply,
                    _ => {
                        self.push(role, EntryKind::Reply, content.clone());
                    }
                }
            }
            #[cfg(feature = "site")]
            TeamEvent::Condensed { message } => self.show_summary(message),
            TeamEvent::Stopped { reason } => {
                for role in self.live.keys().cloned().collect::<Vec<_>>() {
                    self.end_stream(&role);
                }
                self.busy.clear();
                self.waiting.clear();
                self.state = RunState::Stopped(reason.clone());
            }
        }
    }

    /// The user answered question `question_id`: mark it and show the answer.
    pub fn answered(&mut self, question_id: u64, answer: &str) {
        for e in &mut self.entries {
            if let EntryKind::Question { question_id: q, answered } = &mut e.kind {
                if *q == question_id {
                    *answered = true;
                }
            }
        }
        self.push("You", EntryKind::User, answer.to_string());
    }

    /// Questions still waiting for the user.
    pub fn open_questions(&self) -> Vec<&Entry> {
        self.entries.iter().filter(|e| matches!(e.kind, EntryKind::Question { answered: false, .. })).collect()
    }

    fn append_delta(&mut self, role: &str, text: &str) {
        let i = match self.live.get(role) {
            Some(&i) => i,
            None => {
                let i = self.push(role, EntryKind::Answer, String::new());
                self.live.insert(role.to_string(), i);
                i
            }
        };
        let entry = &mut self.entries[i];
        entry.live = true;
        entry.text.push_str(text);
    }

    /// A stream ended by an error or a stop: what arrived stays, marked.
    fn end_stream(&mut self, role: &str) {
        if let Some(i) = self.live.remove(role) {
            self.entries[i].live = false;
            if !self.entries[i].text.is_empty() {
                let (text, commands) = cut_off(&self.entries[i].text);
                self.entries[i].text = text;
                self.entries[i].commands = commands;
            }
        }
    }

    /// An answer an error cut off, as saved with the error (`ShownError::
    /// partial`): shown as the live stream ended (`end_stream`).
    pub(crate) fn push_cut_off(&mut self, role: &str, partial: &str) {
        let (text, commands) = cut_off(partial);
        let i = self.push(role, EntryKind::Answer, text);
        self.entries[i].commands = commands;
    }

    /// A role's summary of its earlier work, folded: never the prompt
    /// that asked for it, only what the model wrote.
    #[cfg(feature = "site")]
    pub(crate) fn show_summary(&mut self, message: &super::message::Message) {
        use super::rolezero::condense::SUMMARISES;
        let covered = message.metadata.get(SUMMARISES).and_then(|n| n.parse().ok()).unwrap_or(0);
        self.push(&message.sent_from, EntryKind::Summary { covered }, message.content.clone());
    }

    pub(crate) fn push(&mut self, role: &str, kind: EntryKind, text: String) -> usize {
        self.next_id += 1;
        self.entries.push(Entry {
            id: self.next_id,
            role: role.to_string(),
            kind,
            text,
            commands: None,
            deeds: Vec::new(),
            live: false,
            #[cfg(feature = "images")]
            images: Vec::new(),
        });
        self.entries.len() - 1
    }
}

/// How the conversation marks an answer whose stream broke off.
pub const CUT_OFF: &str = "…(cut off before the end)";

/// What arrived of a broken-off answer, read as a finished one is (its
/// thoughts, its commands folded), marked as cut off: the same live and
/// reopened.
fn cut_off(text: &str) -> (String, Option<String>) {
    let (thoughts, commands) = split_commands(text);
    let thoughts = thoughts.trim_end();
    (if thoughts.is_empty() { CUT_OFF.to_string() } else { format!("{thoughts} {CUT_OFF}") }, commands)
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use serde_json::json;

    use super::*;
    use crate::core::commands::Command;
    use crate::core::cost::CostEntry;
    use crate::core::message::{Message, MessageId, MsgRole};

    /// The meter's cache note sums every role's cached input tokens.
    #[test]
    fn the_meter_shows_the_cached_share() {
        let mut v = RunView::default();
        let cached = |role: &str, prompt: u64, cached: u64| TeamEvent::LlmFinished {
            role: role.into(),
            entry: CostEntry { seq: 1, role: role.into(), model: "m".into(), prompt_tokens: prompt, completion_tokens: 5, cost: 0.01, estimated: false, cached_tokens: cached, cache_write_tokens: 0 },
        };
        v.apply(&cached("Mike", 2000, 0));
        assert_eq!(v.cache_note(), None, "nothing cached yet");
        v.apply(&cached("Mike", 2000, 1500));
        v.apply(&cached("Alice", 1000, 500));
        assert_eq!(v.cost.get("Mike").unwrap().cached_tokens, 1500);
        assert_eq!(v.cache_note().as_deref(), Some("2000 of 5000 input tokens cached (40%)"));
    }

    fn cost(role: &str, dollars: f64) -> TeamEvent {
        TeamEvent::LlmFinished {
            role: role.into(),
            entry: CostEntry { seq: 1, role: role.into(), model: "m".into(), prompt_tokens: 10, completion_tokens: 5, cost: dollars, estimated: false, cached_tokens: 0, cache_write_tokens: 0 },
        }
    }

    #[test]
    fn streams_fold_into_one_entry_per_answer() {
        let mut v = RunView::default();
        v.apply(&TeamEvent::RoundStarted { round: 1 });
        v.apply(&TeamEvent::LlmStarted { role: "Alice".into(), model: "m".into(), quiet: false });
        v.apply(&TeamEvent::LlmStarted { role: "Bob".into(), model: "m".into(), quiet: false });
        for (role, text) in [("Alice", "Writing "), ("Bob", "Designing"), ("Alice", "the PRD.\n```json\n[{\"command_name\":\"end\"}]\n```")] {
            v.apply(&TeamEvent::LlmDelta { role: role.into(), text: text.into() });
        }
        assert_eq!(v.entries.len(), 2);
        assert!(v.entries[0].live);
        assert_eq!(v.busy.get("Alice").unwrap(), "thinking");
        assert_eq!(v.cache_note(), None);
        v.apply(&cost("Alice", 0.25));
        assert_eq!(v.entries[0].text, "Writing the PRD.");
        assert_eq!(v.entries[0].commands.as_deref(), Some("[{\"command_name\":\"end\"}]"));
        assert!(!v.entries[0].live);
        assert!(!v.busy.contains_key("Alice"));
        assert_eq!(v.cost.get("Alice").unwrap().calls, 1);
        assert!((v.total_dollars - 0.25).abs() < 1e-9);
        // Bob's stream is cut by a stop: what arrived stays, marked as cut off, not as done.
        v.apply(&TeamEvent::Stopped { reason: StopReason::Cancelled });
        assert_eq!(v.entries[1].text, "Designing …(cut off before the end)");
        assert_eq!(v.state, RunState::Stopped(StopReason::Cancelled));
    }

    #[test]
    fn a_wait_shows_in_the_status_until_the_call_proceeds() {
        let mut v = RunView::default();
        v.apply(&TeamEvent::RoundStarted { round: 1 });
        v.apply(&TeamEvent::LlmStarted { role: "Alice".into(), model: "m".into(), quiet: false });
        v.apply(&TeamEvent::Waiting { role: "Alice".into(), seconds: 3, reason: "rate limited by the provider".into() });
        assert_eq!(v.busy.get("Alice").unwrap(), "waiting 3 s: rate limited by the provider");
        assert_eq!(v.status(), "Alice is waiting 3 s: rate limited by the provider");
        assert!(v.entries.iter().all(|e| e.text.is_empty()), "a wait is status, not conversation");
        v.apply(&TeamEvent::LlmDelta { role: "Alice".into(), text: "PRD".into() });
        assert_eq!(v.busy.get("Alice").unwrap(), "thinking");
        assert_eq!(v.entries[0].text, "PRD");
        // A wait that ends in failure or a stop is cleared too.
        v.apply(&TeamEvent::Waiting { role: "Bob".into(), seconds: 1, reason: "x".into() });
        v.apply(&TeamEvent::RoleFailed { role: "Bob".into(), error: "rate limited".into() });
        assert!(!v.busy.contains_key("Bob"));
        v.apply(&TeamEvent::Waiting { role: "Eve".into(), seconds: 1, reason: "x".into() });
        v.apply(&TeamEvent::Stopped { reason: StopReason::Cancelled });
        assert!(v.busy.is_empty());
    }

    #[test]
    fn quiet_calls_and_closing_bookkeeping_stay_out_of_the_conversation() {
        let mut v = RunView::default();
        v.apply(&TeamEvent::LlmStarted { role: "Mike".into(), model: "m".into(), quiet: true });
        v.apply(&TeamEvent::LlmDelta { role: "Mike".into(), text: "TASK".into() });
        v.apply(&cost("Mike", 0.01));
        let done = Rc::new(Message::new(MessageId(9), "I have finished the task").with_role(MsgRole::Assistant).caused_by(RUN_COMMAND).from_role("Mike"));
        v.apply(&TeamEvent::Published { message: done });
        assert!(v.entries.is_empty(), "{:?}", v.entries);
        assert_eq!(v.cost.get("Mike").unwrap().calls, 1, "still metered");
        // A member's report to its leader is shown.
        let report = Rc::new(Message::new(MessageId(10), "PRD written").with_role(MsgRole::Assistant).caused_by(RUN_COMMAND).from_role("Alice").to(["Mike"]));
        v.apply(&TeamEvent::Published { message: report });
        assert_eq!(v.entries[0].role, "Alice → Mike");
    }

    #[test]
    fn a_quick_answer_is_shown_once_highlighted() {
        let mut v = RunView::default();
        v.apply(&TeamEvent::LlmStarted { role: "Tabby".into(), model: "m".into(), quiet: false });
        v.apply(&TeamEvent::LlmDelta { role: "Tabby".into(), text: "Hello! ".into() });
        v.apply(&cost("Tabby", 0.0));
        v.apply(&TeamEvent::ReplyToHuman { role: "Tabby".into(), content: "Hello!".into() });
        let quick = Rc::new(Message::new(MessageId(3), "Hello!").with_role(MsgRole::Assistant).caused_by(QUICK_THINK_TAG).from_role("Tabby"));
        v.apply(&TeamEvent::Published { message: quick });
        assert_eq!(v.entries.len(), 1, "{:?}", v.entries);
        assert_eq!(v.entries[0].kind, EntryKind::Reply);
        // A reply that says something new is its own entry.
        v.apply(&TeamEvent::ReplyToHuman { role: "Tabby".into(), content: "Anything else?".into() });
        assert_eq!(v.entries.len(), 2);
    }

    #[test]
    fn messages_replies_questions_and_errors() {
        let mut v = RunView::default();
        let idea = Rc::new(Message::new(MessageId(1), "a 2048 game"));
        v.apply(&TeamEvent::Published { message: idea });
        let brief = Rc::new(Message::new(MessageId(2), "write the PRD").with_role(MsgRole::Assistant).caused_by("X").from_role("Mike").to(["Alice"]));
        v.apply(&TeamEvent::Published { message: brief });
        v.apply(&TeamEvent::ReplyToHuman { role: "Mike".into(), content: "Alice is on it".into() });
        v.apply(&TeamEvent::AskHuman { id: 7, role: "Mike".into(), question: "Which colour?".into() });
        v.apply(&TeamEvent::RoleFailed { role: "Bob".into(), error: "rate limited; wait 3 s".into() });
        let kinds: Vec<(&str, EntryKind)> = v.entries.iter().map(|e| (e.role.as_str(), e.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("You", EntryKind::User),
                ("Mike → Alice", EntryKind::Message { to_all: false }),
                ("Mike", EntryKind::Reply),
                ("Mike", EntryKind::Question { question_id: 7, answered: false }),
                ("Bob", EntryKind::Error),
            ]
        );
        assert_eq!(v.open_questions().len(), 1);
        v.answered(7, "blue");
        assert!(v.open_questions().is_empty());
        assert_eq!(v.entries.last().map(|e| e.text.as_str()), Some("blue"));
    }

    fn started(role: &str) -> TeamEvent {
        TeamEvent::LlmStarted { role: role.into(), model: "m".into(), quiet: false }
    }

    fn delta(role: &str, text: &str) -> TeamEvent {
        TeamEvent::LlmDelta { role: role.into(), text: text.into() }
    }

    fn ran(role: &str, name: &str, args: serde_json::Value, outcome: Result<&str, &str>) -> TeamEvent {
        TeamEvent::CommandRan { role: role.into(), command: Command::new(name, args), outcome: outcome.map(str::to_owned).map_err(str::to_owned) }
    }

    /// Each answer says what its commands did, in order, under its text;
    /// the commands stay folded beside; a member's report reads plainly.
    #[test]
    fn an_answer_says_what_its_commands_did() {
        let mut v = RunView::default();
        v.apply(&TeamEvent::RoundStarted { round: 1 });
        v.apply(&started("Mike"));
        v.apply(&delta("Mike", "Planning.\n```json\n[{\"command_name\": \"Plan.append_task\"}]\n```"));
        v.apply(&cost("Mike", 0.0));
        v.apply(&ran("Mike", "Plan.append_task", json!({"instruction": "Write the code", "assignee": "Alex"}), Ok("Task 1 appended")));
        let brief = Rc::new(Message::new(MessageId(2), "Write game.js").with_role(MsgRole::Assistant).caused_by("TeamLeader.publish_team_message").from_role("Mike").to(["Alex"]));
        v.apply(&TeamEvent::Published { message: brief });
        v.apply(&ran("Mike", "TeamLeader.publish_team_message", json!({"send_to": "Alex", "content": "Write game.js"}), Ok("message sent to Alex")));
        v.apply(&ran("Mike", "RoleZero.reply_to_human", json!({"content": "Alex is coding."}), Ok("received")));
        v.apply(&started("Alex"));
        v.apply(&delta("Alex", "Coding."));
        v.apply(&cost("Alex", 0.0));
        v.apply(&ran("Alex", "Editor.write", json!({"path": "game.js", "content": "x"}), Ok("wrote game.js (1 line, version 2)")));
        v.apply(&ran("Alex", "Editor.write", json!({"path": ""}), Err("the path is empty")));
        let report = Rc::new(
            Message::new(MessageId(5), "I have finished the task, please mark my task as finished. Outputs: Command Editor.write executed: wrote game.js\n\nCommand Editor.write failed: the path is empty")
                .with_role(MsgRole::Assistant)
                .caused_by(RUN_COMMAND)
                .from_role("Alex")
                .to(["Mike"]),
        );
        v.apply(&TeamEvent::Published { message: report });
        let shown: Vec<(&str, &str, Vec<&str>)> = v.entries.iter().map(|e| (e.role.as_str(), e.text.as_str(), e.deeds.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            shown,
            [
                ("Mike", "Planning.", vec!["Mike assigned 'Write the code' to Alex", "Mike messaged Alex"]),
                ("Mike → Alex", "Write game.js", vec![]),
                ("Alex", "Coding.", vec!["Alex wrote game.js (version 2)", "Alex tried to write a file, but it failed: the path is empty"]),
                ("Alex → Mike", "Stopped with a problem (the details are in the answer above) and handed back.", vec![]),
            ]
        );
        assert!(v.entries[0].commands.is_some(), "the raw commands stay one click away");
        assert!(v.entries.iter().all(|e| !e.text.contains("Command ") && !e.text.contains("executed")));
    }
}
