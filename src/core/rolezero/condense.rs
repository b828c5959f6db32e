//! A RoleZero's history sized to its model's window (issue #33): the turns
//! a request carries between its system prompt and its closing turn, and
//! the condensation that keeps them within the budget.
//!
//! When the history would not fit, its older part is replaced by a summary
//! the model writes (MetaGPT's `use_summary` idea, asked as
//! `prompts/condense.md`). The summary is a message in the role's memory
//! like any other (cause `CONDENSED`, the last message it covers in its
//! metadata), so it is saved, restored and resumed with the role; the
//! history then starts with the latest summary and goes on with what came
//! after what it covers, append-only again until the next condensation.
//! What earlier requests left (the messages before the person's latest
//! one) is summarised the same way once it passes a small budget, so a
//! late follow-up costs about what an early one does; never in a project's
//! first follow-up, which refines the first run and pays no summary. A
//! single turn larger than a quarter of the room is shown clipped, with a
//! note that says how to see the rest (a file is read again on demand).
//!
//! It does not decide the window (`core::window`), and it never drops a
//! message without a summary covering it.

use crate::core::llm::{ChatMessage, ChatRole};
use crate::core::message::{Message, MessageId, MessageRef, MsgRole, ALL, USER_REQUIREMENT};
use crate::core::role::Role;
use crate::core::role_error::RoleError;
use crate::core::window::{estimate_messages, estimate_tokens};
use crate::core::world::World;

use super::zero::{RoleZero, SHOWN_ONLY};

/// The closing turn of the request that asks for a summary.
pub const CONDENSE: &str = include_str!("prompts/condense.md");
/// The `cause_by` of a summary that replaces the older history.
pub const CONDENSED: &str = "RoleZero.condensed";
/// The metadata key of the last message id a summary covers.
pub const COVERS_THROUGH: &str = "covers_through";
/// The metadata key of how many messages a summary replaces (site only:
/// the folded summary's label).
#[cfg(feature = "site")]
pub const SUMMARISES: &str = "summarises";
/// How the summary's turn opens in the history.
pub const SUMMARY_HEADING: &str = "[Summary of the earlier work in this project, written by you]";
/// The newest messages kept in full after a condensation: at most this
/// share of the room (the rest of the room is for what comes next).
const KEEP_SHARE: u64 = 3;
/// What earlier requests left is summarised past this share of the room
/// or [`EARLIER_MAX`] tokens, whichever is smaller (chosen with the token
/// bench: `docs/decisions/long-projects.md`, "Earlier requests") ...
const EARLIER_SHARE: u64 = 3;
const EARLIER_MAX: u64 = 3_072;
/// ... once the person has sent this many requests before the current one.
const EARLIER_REQUESTS: usize = 2;
/// A single turn is clipped to a quarter of the room.
const TURN_SHARE: u64 = 4;
/// Only the newest file reads are shown in full; older ones become a line
/// naming the file (MetaGPT's `parse_editor_result` keeps five).
pub const READS_IN_FULL: usize = 5;

impl RoleZero {
    /// The history for a request whose other turns (`fixed`: the system
    /// prompt, the closing turn) are given: condensed first, as often as
    /// needed, until the request fits the budget of the role's model and
    /// what earlier requests left fits [`earlier_budget`]. A request that cannot fit even with no history goes as it is (the
    /// provider's "too long" answer is handled where every error is).
    pub(super) async fn fitted_history(&self, role: &mut Role, world: &World, fixed: &[ChatMessage]) -> Result<Vec<ChatMessage>, RoleError> {
        let gate = role.gate_for(world);
        let budget = world.windows.borrow().window(gate.model()).prompt_budget();
        let room = budget.saturating_sub(estimate_messages(fixed));
        let earlier_budget = earlier_budget(room);
        loop {
            let (summary, live) = self.live(role);
            let turns = self.turns(role, summary, &live, room);
            let fits = estimate_messages(&turns) <= room;
            // What earlier requests left (the messages before the person's
            // latest one), once the project has two of them.
            let earlier = match earlier_requests(world) {
                Some(start) => live.iter().take_while(|m| m.id < start).count(),
                None => 0,
            };
            // Their turns: the summary's (when there is one) and one each.
            let earlier_fits = earlier == 0 || estimate_messages(&turns[..earlier + usize::from(summary.is_some())]) <= earlier_budget;
            if (fits && earlier_fits) || live.is_empty() {
                return Ok(turns);
            }
            let older = if fits {
                self.older_part(role, summary, &live[..earlier], room, 0)
            } else {
                self.older_part(role, summary, &live, room, room / KEEP_SHARE)
            };
            let Some(last) = older.last().map(|m| m.id) else { return Ok(turns) };
            let count = older.len();
            // The request's own system prompt, when it has one: the summary
            // call then shares the prefix the provider's cache holds.
            let mut request: Vec<ChatMessage> = fixed.iter().take(1).filter(|m| m.role == ChatRole::System).cloned().collect();
            request.extend(self.turns(role, summary, &older, room));
            request.push(ChatMessage::user(CONDENSE));
            let text = gate.quietly().absorbed().ask(request).await?;
            self.remember_summary(role, world, &text, last, count);
        }
    }

    /// The latest summary (if any) and the messages after what it covers,
    /// shown to the model (not `SHOWN_ONLY`, not older summaries).
    fn live<'r>(&self, role: &'r Role) -> (Option<&'r MessageRef>, Vec<&'r MessageRef>) {
        let all = role.state.memory.all();
        let summary = all.iter().rev().find(|m| m.cause_by.as_str() == CONDENSED);
        let covered = summary
            .and_then(|s| s.metadata.get(COVERS_THROUGH))
            .and_then(|id| id.parse::<u64>().ok())
            .and_then(|id| all.iter().position(|m| m.id == MessageId(id)))
            .map_or(0, |at| at + 1);
        let recent = role.state.memory.get(self.config.memory_k);
        let start = covered.max(all.len() - recent.len());
        let live = all[start..]
            .iter()
            .filter(|m| m.cause_by.as_str() != SHOWN_ONLY && m.cause_by.as_str() != CONDENSED)
            .collect();
        (summary, live)
    }

    /// What the next summary covers: the oldest of `live`, leaving the
    /// newest (up to `keep` tokens) in full, and no more than a
    /// summary request can carry with the current summary. At least one.
    fn older_part<'r>(&self, role: &Role, summary: Option<&'r MessageRef>, live: &[&'r MessageRef], room: u64, keep: u64) -> Vec<&'r MessageRef> {
        let cost = |m: &MessageRef| estimate_messages(&self.turns(role, None, &[m], room));
        let mut kept = 0;
        let mut split = live.len();
        while split > 1 && kept + cost(live[split - 1]) <= keep {
            kept += cost(live[split - 1]);
            split -= 1;
        }
        let mut carried = summary.map_or(0, |s| estimate_tokens(&s.content)) + estimate_tokens(CONDENSE);
        let mut older = Vec::new();
        for m in &live[..split.max(1)] {
            carried += cost(m);
            if !older.is_empty() && carried > room {
                break;
            }
            older.push(*m);
        }
        older
    }

    /// Messages as chat turns: this role's own words as the assistant,
    /// everyone else's as the user, with who said it; the summary first.
    /// A turn longer than a quarter of `room` is clipped.
    /// Of the messages holding file reads, all but the newest
    /// [`READS_IN_FULL`] show each read as its first line only.
    fn turns(&self, role: &Role, summary: Option<&MessageRef>, messages: &[&MessageRef], room: u64) -> Vec<ChatMessage> {
        let limit = room / TURN_SHARE;
        let summary = summary.map(|s| ChatMessage::user(format!("{SUMMARY_HEADING}\n{}", clip(&s.content, limit))));
        let mut reads = messages.iter().filter(|m| m.content.contains(READ_OUTPUT)).count();
        summary
            .into_iter()
            .chain(messages.iter().map(|m| {
                let stale = m.content.contains(READ_OUTPUT) && {
                    reads -= 1;
                    reads >= READS_IN_FULL
                };
                let content = if stale { reads_as_lines(&m.content) } else { clip(&m.content, limit) };
                if m.sent_from == role.spec.name && m.role == MsgRole::Assistant {
                    ChatMessage::assistant(content)
                } else if m.sent_from.is_empty() || m.sent_from == role.spec.name {
                    #[allow(unused_mut)]
                    let mut turn = ChatMessage::user(content);
                    // The person's images, for the roles that work from them.
                    #[cfg(feature = "images")]
                    if crate::core::image::SEEN_BY.contains(&role.spec.profile.as_str()) {
                        turn.images = m.images();
                    }
                    turn
                } else {
                    ChatMessage::user(format!("[Message] from {}: {}", m.sent_from, content))
                }
            }))
            .collect()
    }

    /// Keep the summary of `count` messages, through `covers`; on the
    /// site, the conversation hears of it (shown folded).
    fn remember_summary(&self, role: &mut Role, world: &World, text: &str, covers: MessageId, count: usize) {
        let message = Message::new(world.new_id(), text.trim())
            .with_role(MsgRole::Assistant)
            .caused_by(CONDENSED)
            .from_role(&role.spec.name)
            .with_meta(COVERS_THROUGH, covers.0.to_string());
        #[cfg(feature = "site")]
        let message = message.with_meta(SUMMARISES, count.to_string());
        #[cfg(not(feature = "site"))]
        let _ = count;
        let message = std::rc::Rc::new(message);
        role.state.memory.add(message.clone());
        #[cfg(feature = "site")]
        world.events.emit_with(|| crate::core::events::TeamEvent::Condensed { message });
    }
}

/// Whether a request asks for a summary (its closing turn is [`CONDENSE`]).
pub fn is_summary_request(messages: &[ChatMessage]) -> bool {
    messages.last().is_some_and(|m| m.content == CONDENSE)
}

/// The most what earlier requests left may hold before it is summarised.
fn earlier_budget(room: u64) -> u64 {
    (room / EARLIER_SHARE).min(EARLIER_MAX)
}

/// The id of the person's latest message (the request the team works on
/// now), when the person sent at least [`EARLIER_REQUESTS`] before it: a
/// project with one follow-up never pays for a summary of its idea.
fn earlier_requests(world: &World) -> Option<MessageId> {
    let post = world.post.borrow();
    // A request goes to the whole team; the person's notes (a hand edit,
    // a restore) and answers go to one role.
    let mut asked = post.history().iter().rev().filter(|m| m.sent_from.is_empty() && m.cause_by.as_str() == USER_REQUIREMENT && m.send_to.contains(ALL));
    let latest = asked.next()?.id;
    (asked.count() >= EARLIER_REQUESTS).then_some(latest)
}

/// How a file read's output opens in a command outputs message.
const READ_OUTPUT: &str = "Command Editor.read executed: ";

/// A command outputs message with each file read cut to its first line
/// (the file, its length and version) and a note to read it again;
/// the other outputs as they are. Outputs are separated by a blank line,
/// and a read's lines never hold one (each is numbered).
fn reads_as_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|output| match output.strip_prefix(READ_OUTPUT) {
            Some(read) => format!(
                "{READ_OUTPUT}{} (an earlier read: its lines are not shown again here; use Editor.read to see the file as it is now)",
                read.lines().next().unwrap_or_default()
            ),
            None => output.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` cut to about `tokens` (estimated), on a line or word boundary,
/// with a note of what was left out and how to see it.
fn clip(text: &str, tokens: u64) -> String {
    if estimate_tokens(text) <= tokens {
        return text.to_string();
    }
    // Room for the note itself.
    let bytes = (tokens.saturating_sub(80) as usize).saturating_mul(3);
    let mut cut = bytes.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &text[..cut];
    let head = head.rfind('\n').filter(|&n| n > cut / 2).map_or(head, |n| &head[..n]);
    format!(
        "{head}\n[… {} more characters not shown here to keep the conversation within the model's window; read the file again with Editor.read if you need them]",
        text.len() - head.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_keeps_short_texts_and_cuts_long_ones_on_a_line() {
        assert_eq!(clip("short", 100), "short");
        let long: String = (0..400).map(|i| format!("line {i} of the file\n")).collect();
        let cut = clip(&long, 200);
        assert!(estimate_tokens(&cut) <= 200, "{}", estimate_tokens(&cut));
        assert!(cut.contains("line 0 of the file\nline 1"));
        assert!(cut.contains("more characters not shown"));
        let head = cut.split("\n[…").next().unwrap_or_default();
        assert!(head.ends_with("of the file"), "cut on a line: {head:?}");
        // Multi-byte text is cut on a character boundary.
        let accents = "é".repeat(2000);
        assert!(clip(&accents, 100).starts_with('é'));
    }

    #[test]
    fn an_earlier_read_becomes_its_first_line_and_other_outputs_stay() {
        let text = "Command Editor.read executed: [File: a.js (2 lines total, version 3)]\n001|let a = 1;\n002|\n\n\
                    Command Editor.write executed: wrote b.js (1 line, version 1)";
        assert_eq!(
            reads_as_lines(text),
            "Command Editor.read executed: [File: a.js (2 lines total, version 3)] (an earlier read: its lines are not shown \
             again here; use Editor.read to see the file as it is now)\n\nCommand Editor.write executed: wrote b.js (1 line, version 1)"
        );
        assert_eq!(reads_as_lines("Command Plan.finish_current_task executed: done"), "Command Plan.finish_current_task executed: done");
    }
}
