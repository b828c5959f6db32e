//! The conversation of a saved session, rebuilt from its `TeamSnapshot`
//! when the session is opened again (after a reload, from the sessions
//! list, after an import).
//!
//! Nothing extra is saved for it: the messages between roles are the
//! history, and each RoleZero keeps its answers (thoughts and commands) in
//! its memory; message ids are given out in order, so merging both by id
//! gives the order they happened in. Replies to the user and questions are
//! the `reply_to_human` / `ask_human` commands in those answers, and a quick
//! answer is its published message. Answers shown but not acted on (a
//! repeat the model was asked to redo, a broken answer it repaired) are
//! kept as such and shown without their commands; the error bubbles come
//! from the session's `ProjectLog::errors`, each after the message it
//! followed, under what had arrived of an answer the error cut off (kept
//! with it). What is not rebuilt: answers of roles that keep no answers in
//! memory (the fixed-SOP company's documents show as its published
//! messages). The streaming text of a call the reload cut off comes from
//! the page once (`Edge::abandoned`); the host keeps it in the session's
//! `ProjectLog::errors` (marked `abandoned`), shown from there.

use crate::core::sorted_map::SortedSet;

use litemap::LiteMap;

use crate::core::sorted_map::entries_from;
use std::rc::Rc;

use serde_json::Value;

use crate::core::events::{StopReason, TeamEvent};
use crate::core::message::{Message, MessageId, MsgRole};
use crate::core::rolezero::{parse_commands, ParseOutcome};
use crate::core::commands::Command;
use crate::core::rolezero::zero::{ASK_HUMAN, PUBLISH_TEAM_MESSAGE, QUICK_THINK_TAG, REPEAT_NOTE, REPLY_TO_HUMAN, RUN_COMMAND, SHOWN_ONLY};
use crate::core::snapshot::TeamSnapshot;
use crate::core::versions::ShownError;
use super::{split_commands, EntryKind, RunState, RunView};
use super::words::deed;

/// The cause a RoleZero gives the answers it keeps in memory.
const ZERO_ANSWER: &str = "RoleZero";

impl RunView {
    /// The conversation, costs and round of a saved team, stopped for `reason`.
    pub fn restored(snapshot: &TeamSnapshot, reason: StopReason) -> RunView {
        let mut view = RunView::default();
        let published: SortedSet<MessageId> = snapshot.history.iter().copied().collect();
        let answers: SortedSet<MessageId> = snapshot.roles.iter().flat_map(|r| r.memory.iter().copied()).collect();
        // Inserted one by one: `collect` would bring in litemap's stable
        // sort, a few KB of the widget for nothing (the ids are unique).
        let mut by_id: LiteMap<MessageId, &Message> = LiteMap::new();
        for m in &snapshot.messages {
            by_id.insert(m.id, m);
        }
        let mut shown: SortedSet<MessageId> = SortedSet::new();
        let mut errors = snapshot.project.errors.iter().peekable();
        // The conversation a share link carried into this copy, before
        // anything the copy's own team said.
        #[cfg(feature = "site")]
        for line in &snapshot.project.shared {
            view.push(&line.who, EntryKind::Shared, line.text.clone());
        }
        for (&id, message) in &by_id {
            while let Some(error) = errors.next_if(|e| e.after < id.0) {
                view.push_error(error);
            }
            if shown.contains(&id) {
                continue;
            }
            // A summary a role wrote of its earlier work: where it was made.
            #[cfg(feature = "site")]
            if answers.contains(&id) && message.cause_by.as_str() == crate::core::rolezero::condense::CONDENSED {
                view.show_summary(message);
                continue;
            }
            if published.contains(&id) && message.cause_by.as_str() == QUICK_THINK_TAG && message.send_to.iter().any(|a| a == crate::core::message::ALL) {
                // A quick answer: live, its streamed text became the reply
                // (the message itself, sent to all, is not shown twice).
                view.apply(&TeamEvent::ReplyToHuman { role: message.sent_from.clone(), content: message.content.clone() });
            } else if published.contains(&id) {
                view.show_published(message);
            } else if answers.contains(&id) && message.role == MsgRole::Assistant && message.cause_by.as_str() == ZERO_ANSWER {
                // The messages its commands published come in command order,
                // between the replies.
                let mut later = entries_from(&by_id, &id)
                    .filter(|(i, m)| published.contains(i) && m.sent_from == message.sent_from)
                    .map(|(_, m)| *m);
                // What its commands gave back: the role's next note of
                // command outputs, before its next answer (none while the
                // commands had not all run when the session was saved).
                let outputs = entries_from(&by_id, &id)
                    .skip(1)
                    .filter(|(i, m)| answers.contains(i) && m.sent_from == message.sent_from)
                    .take_while(|(_, m)| m.cause_by.as_str() != ZERO_ANSWER)
                    .find(|(_, m)| m.role == MsgRole::User && m.cause_by.as_str() == RUN_COMMAND)
                    .map(|(_, m)| m.content.as_str());
                view.restore_answer(&message.sent_from, &message.content, outputs, |view| {
                    if let Some(m) = later.next() {
                        shown.insert(m.id);
                        view.show_published(m);
                    }
                });
            } else if answers.contains(&id) && message.cause_by.as_str() == SHOWN_ONLY {
                let (thoughts, folded) = split_commands(&message.content);
                let i = view.push(&message.sent_from, EntryKind::Answer, thoughts);
                view.entries[i].commands = folded;
            }
        }
        for error in errors {
            view.push_error(error);
        }
        for entry in snapshot.ledger.entries() {
            view.count_cost(entry);
        }
        view.round = snapshot.round;
        view.state = RunState::Stopped(reason);
        view
    }

    /// An error bubble as the live run showed it: under what had arrived
    /// of the answer it cut off, if anything had.
    fn push_error(&mut self, error: &ShownError) {
        if error.abandoned {
            return self.add_abandoned(&error.role, &error.partial);
        }
        if !error.partial.is_empty() {
            self.push_cut_off(&error.role, &error.partial);
        }
        self.push(&error.role, EntryKind::Error, error.text.clone());
    }

    fn show_published(&mut self, message: &Message) {
        self.apply(&TeamEvent::Published { message: Rc::new(message.clone()) });
    }

    /// A kept answer: its thoughts with the commands folded, then the
    /// replies and questions its commands carried.
    fn restore_answer(&mut self, role: &str, content: &str, outputs: Option<&str>, mut next_published: impl FnMut(&mut Self)) {
        // The duplicate guard's closing answer is the role's own: the live
        // conversation showed only the question it carries.
        let entry = (!content.starts_with(REPEAT_NOTE)).then(|| {
            let (thoughts, folded) = split_commands(content);
            let i = self.push(role, EntryKind::Answer, thoughts);
            self.entries[i].commands = folded;
            // Commands still to run when the session continues say their words here.
            self.last_answer.insert(role.to_owned(), i);
            i
        });
        let ParseOutcome::Parsed { commands, .. } = parse_commands(content) else { return };
        // The same words as when they ran: each command with its result.
        if let (Some(i), Some(outputs)) = (entry, outputs) {
            let results = command_results(outputs, &commands);
            self.entries[i].deeds = commands.iter().zip(&results).filter_map(|(c, r)| r.as_ref().and_then(|r| deed(role, c, Some(r)))).collect();
        }
        for command in commands {
            let text = |key: &str| command.args.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
            match command.name.as_str() {
                PUBLISH_TEAM_MESSAGE => next_published(self),
                REPLY_TO_HUMAN => self.apply(&TeamEvent::ReplyToHuman { role: role.into(), content: text("content") }),
                // Asked before the reload; if it was still open, the role
                // asks again when the session continues.
                ASK_HUMAN => {
                    self.push(role, EntryKind::Question { question_id: 0, answered: true }, text("question"));
                }
                _ => {}
            }
        }
    }
}

/// Each command's result in a role's note of outputs ("Command X executed:
/// …" / "Command X failed: …", joined by blank lines, in command order);
/// `None` for a command that did not run (an earlier one failed).
fn command_results(outputs: &str, commands: &[Command]) -> Vec<Option<Result<String, String>>> {
    let marker = |c: &Command, from: usize| -> Option<(usize, usize, bool)> {
        let (ok, failed) = (format!("Command {} executed: ", c.name), format!("Command {} failed: ", c.name));
        let rest = &outputs[from..];
        let at = |m: &str| rest.find(m).filter(|&p| p == 0 || rest[..p].ends_with("\n\n")).map(|p| (from + p, from + p + m.len()));
        match (at(&ok), at(&failed)) {
            (Some(a), Some(b)) if b.0 < a.0 => Some((b.0, b.1, false)),
            (Some(a), _) => Some((a.0, a.1, true)),
            (None, Some(b)) => Some((b.0, b.1, false)),
            (None, None) => None,
        }
    };
    let mut results = Vec::with_capacity(commands.len());
    let mut from = 0;
    for (n, command) in commands.iter().enumerate() {
        let Some((_, body, ok)) = marker(command, from) else {
            results.push(None);
            continue;
        };
        // This result runs to the next command's marker, or the end.
        let end = commands[n + 1..]
            .iter()
            .find_map(|next| marker(next, body).map(|(start, ..)| start))
            .or_else(|| outputs[body..].find("\n\nNot run because").map(|p| body + p + 2))
            .unwrap_or(outputs.len());
        let text = outputs[body..end].trim_end().to_owned();
        results.push(Some(if ok { Ok(text) } else { Err(text) }));
        from = end;
    }
    results
}

impl RunView {
    /// An answer that was streaming when the tab closed: shown, marked as
    /// abandoned (its call is made again when the session continues).
    fn add_abandoned(&mut self, role: &str, text: &str) {
        let (thoughts, folded) = split_commands(text);
        let i = self.push(role, EntryKind::Answer, format!("{thoughts} …(abandoned when the tab closed; asked again on resume)"));
        self.entries[i].commands = folded;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A note of outputs read back per command: a note first, a result over
    /// several lines, a failure, and a command that did not run.
    #[test]
    fn outputs_are_read_back_per_command() {
        let commands = [
            Command::new("Editor.write", json!({"path": "a.js"})),
            Command::new("Sandbox.run_tests", json!({})),
            Command::new("Editor.write", json!({"path": ""})),
            Command::bare("end"),
        ];
        let outputs = "Note: one list at a time.\n\nCommand Editor.write executed: wrote a.js (1 line, version 3)\n\n\
                       Command Sandbox.run_tests executed: tests: 1 passed, 1 failed\nFAILED t › x\n\n\
                       Command Editor.write failed: the path is empty\n\nNot run because an earlier command failed: end.";
        let results = command_results(outputs, &commands);
        assert_eq!(
            results,
            [
                Some(Ok("wrote a.js (1 line, version 3)".to_owned())),
                Some(Ok("tests: 1 passed, 1 failed\nFAILED t › x".to_owned())),
                Some(Err("the path is empty".to_owned())),
                None,
            ]
        );
    }
}
