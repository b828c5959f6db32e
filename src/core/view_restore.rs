//! The conversation of a saved session, rebuilt from its `TeamSnapshot`
//! when the session is opened again (after a reload, from the sessions
//! list, after an import).
//!
//! Nothing extra is saved for it: the messages between roles are the
//! history, and each RoleZero keeps its answers (thoughts and commands) in
//! its memory; message ids are given out in order, so merging both by id
//! gives the order they happened in. Replies to the user and questions are
//! the `reply_to_human` / `ask_human` commands in those answers. What is not
//! rebuilt: answers of roles that keep no answers in memory (the fixed-SOP
//! company's documents show as its published messages) and the streaming
//! text of a call the reload cut off (it was not finished: it is made again).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use serde_json::Value;

use super::events::{StopReason, TeamEvent};
use super::message::{Message, MessageId, MsgRole};
use super::rolezero::{parse_commands, ParseOutcome};
use super::rolezero::zero::{ASK_HUMAN, PUBLISH_TEAM_MESSAGE, REPLY_TO_HUMAN};
use super::snapshot::TeamSnapshot;
use super::view::{split_commands, EntryKind, RunState, RunView};
use super::view_words::deed;

/// The cause a RoleZero gives the answers it keeps in memory.
const ZERO_ANSWER: &str = "RoleZero";

impl RunView {
    /// The conversation, costs and round of a saved team, stopped for `reason`.
    pub fn restored(snapshot: &TeamSnapshot, reason: StopReason) -> RunView {
        let mut view = RunView::default();
        // `extend`, not `collect`: collecting into a B-tree sorts first, one
        // more copy of the standard sort in the wasm (see `core::sort`).
        let (mut published, mut answers, mut by_id) = (BTreeSet::new(), BTreeSet::new(), BTreeMap::<MessageId, &Message>::new());
        published.extend(snapshot.history.iter().copied());
        answers.extend(snapshot.roles.iter().flat_map(|r| r.memory.iter().copied()));
        by_id.extend(snapshot.messages.iter().map(|m| (m.id, m)));
        let mut shown: BTreeSet<MessageId> = BTreeSet::new();
        for (&id, message) in &by_id {
            if shown.contains(&id) {
                continue;
            }
            if published.contains(&id) {
                view.show_published(message);
            } else if answers.contains(&id) && message.role == MsgRole::Assistant && message.cause_by.as_str() == ZERO_ANSWER {
                // The messages its commands published come in command order,
                // between the replies.
                let mut later = by_id
                    .range(id..)
                    .filter(|(i, m)| published.contains(i) && m.sent_from == message.sent_from)
                    .map(|(_, m)| *m);
                view.restore_answer(&message.sent_from, &message.content, |view| {
                    if let Some(m) = later.next() {
                        shown.insert(m.id);
                        view.show_published(m);
                    }
                });
            }
        }
        for entry in snapshot.ledger.entries() {
            view.count_cost(entry);
        }
        view.round = snapshot.round;
        view.state = RunState::Stopped(reason);
        view
    }

    fn show_published(&mut self, message: &Message) {
        self.apply(&TeamEvent::Published { message: Rc::new(message.clone()) });
    }

    /// A kept answer: its thoughts with the commands folded, then the
    /// replies and questions its commands carried.
    fn restore_answer(&mut self, role: &str, content: &str, mut next_published: impl FnMut(&mut Self)) {
        let (thoughts, folded) = split_commands(content);
        let i = self.push(role, EntryKind::Answer, thoughts);
        self.entries[i].commands = folded;
        let ParseOutcome::Parsed { commands, .. } = parse_commands(content) else { return };
        // Their results are not kept with the answer: the words say what
        // each command was for ("Alex wrote game.js"), without versions.
        self.entries[i].deeds = commands.iter().filter_map(|c| deed(role, c, None)).collect();
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

impl RunView {
    /// An answer that was streaming when the tab closed: shown, marked as
    /// abandoned (its call is made again when the session continues).
    pub fn add_abandoned(&mut self, role: &str, text: &str) {
        let (thoughts, folded) = split_commands(text);
        let i = self.push(role, EntryKind::Answer, format!("{thoughts} …(abandoned when the tab closed; asked again on resume)"));
        self.entries[i].commands = folded;
    }
}
