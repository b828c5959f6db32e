//! Memory: the ordered messages a role remembers, indexed by id and by the
//! action that caused them.
//!
//! Every operation MetaGPT's memory has, but none that grows with the number
//! of messages when it need not: adding checks duplicates in a hash set (MetaGPT
//! scans the list), lookups by action read an index, and "find news" checks
//! ids. Messages are shared (`Rc`), so a message delivered to fifty roles is
//! stored once. Memory saves as a list of ids; the messages themselves are
//! saved once per team (see `snapshot`).

use std::cell::RefCell;
use std::collections::HashSet;

use std::collections::HashMap;
use super::message::{ActionKind, Message, MessageId, MessageRef};

/// An ordered, deduplicated list of messages.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    storage: Vec<MessageRef>,
    /// Every id in `storage` once it has held more than [`SCAN_LIMIT`]
    /// messages; empty (and unused) before: a few ids are scanned faster
    /// than a set is made (a role of a fresh team remembers two or three).
    ids: HashSet<MessageId>,
    /// Positions by `cause_by`, of the first `indexed` messages: made on
    /// the first lookup by action and extended on the next ones, so adding
    /// (every observe and act) does not index what nobody may look up.
    by_action: RefCell<ByAction>,
    /// The history text of the first `lines` messages, rendered lazily and
    /// extended on demand: a role asks for its whole history on every think
    /// and act, and re-rendering it each time made a step grow with it.
    rendered: Rendered,
}

/// Up to this many messages, a duplicate is found by scanning their ids.
const SCAN_LIMIT: usize = 16;

/// [`Memory`]'s index by action of a prefix of the messages.
#[derive(Debug, Clone, Default)]
struct ByAction {
    positions: HashMap<ActionKind, Vec<usize>>,
    indexed: usize,
}

impl ByAction {
    /// Index the messages added since the last lookup.
    fn catch_up(&mut self, storage: &[MessageRef]) -> &HashMap<ActionKind, Vec<usize>> {
        for (i, m) in storage.iter().enumerate().skip(self.indexed) {
            self.positions.entry(m.cause_by.clone()).or_default().push(i);
        }
        self.indexed = storage.len();
        &self.positions
    }
}

/// A prefix of the memory rendered as history lines (see [`Memory::history_text`]).
#[derive(Debug, Clone, Default)]
struct Rendered {
    text: String,
    lines: usize,
}

impl Rendered {
    fn push(&mut self, message: &Message) {
        // Room for the line at once, not grown piece by piece.
        self.text.reserve(message.history_line_len() + 1);
        if self.lines > 0 {
            self.text.push('\n');
        }
        message.write_history_line(&mut self.text);
        self.lines += 1;
    }
}

impl Memory {
    /// Add a message unless one with the same id is already here.
    /// Returns whether it was added.
    pub fn add(&mut self, message: MessageRef) -> bool {
        if self.ids.is_empty() {
            if self.storage.iter().any(|m| m.id == message.id) {
                return false;
            }
            self.storage.push(message);
            if self.storage.len() > SCAN_LIMIT {
                self.ids.extend(self.storage.iter().map(|m| m.id));
            }
            return true;
        }
        if !self.ids.insert(message.id) {
            return false;
        }
        self.storage.push(message);
        true
    }

    pub fn add_batch<I: IntoIterator<Item = MessageRef>>(&mut self, messages: I) {
        for m in messages {
            self.add(m);
        }
    }

    pub fn len(&self) -> usize {
        self.storage.len()
    }

    pub fn is_empty(&self) -> bool {
        self.storage.is_empty()
    }

    pub fn contains(&self, id: MessageId) -> bool {
        if self.ids.is_empty() {
            self.storage.iter().any(|m| m.id == id)
        } else {
            self.ids.contains(&id)
        }
    }

    /// The last `k` messages in order; `k == 0` means all of them.
    pub fn get(&self, k: usize) -> &[MessageRef] {
        let start = if k == 0 { 0 } else { self.storage.len().saturating_sub(k) };
        &self.storage[start..]
    }

    /// Every message, in order.
    pub fn all(&self) -> &[MessageRef] {
        &self.storage
    }

    pub fn last(&self) -> Option<&MessageRef> {
        self.storage.last()
    }

    /// Every message's history line ("who: content", see
    /// [`Message::history_line`]), joined by newlines: what prompts show as
    /// the conversation. Rendered once per message and kept, so asking again
    /// after an add costs only the new lines.
    pub fn history_text(&mut self) -> &str {
        self.history_with_text().1
    }

    /// Every message and [`Memory::history_text`], together.
    pub fn history_with_text(&mut self) -> (&[MessageRef], &str) {
        for m in &self.storage[self.rendered.lines..] {
            self.rendered.push(m);
        }
        (&self.storage, &self.rendered.text)
    }

    /// Messages caused by `action`, in order.
    pub fn get_by_action(&self, action: &ActionKind) -> Vec<MessageRef> {
        self.by_action
            .borrow_mut()
            .catch_up(&self.storage)
            .get(action)
            .map(|positions| positions.iter().map(|&i| self.storage[i].clone()).collect())
            .unwrap_or_default()
    }

    /// Messages caused by any of `actions`, in memory order.
    pub fn get_by_actions<'a, I>(&self, actions: I) -> Vec<MessageRef>
    where
        I: IntoIterator<Item = &'a ActionKind>,
    {
        let mut by_action = self.by_action.borrow_mut();
        let index = by_action.catch_up(&self.storage);
        let mut positions: Vec<usize> = actions
            .into_iter()
            .collect::<HashSet<_>>()
            .into_iter()
            .filter_map(|a| index.get(a))
            .flatten()
            .copied()
            .collect();
        positions.sort_unstable();
        positions.into_iter().map(|i| self.storage[i].clone()).collect()
    }

    /// The messages of `observed` not among the last `k` remembered
    /// (`k == 0`: not remembered at all). MetaGPT's `find_news`.
    pub fn find_news(&self, observed: &[MessageRef], k: usize) -> Vec<MessageRef> {
        if k == 0 || k >= self.storage.len() {
            return observed.iter().filter(|m| !self.contains(m.id)).cloned().collect();
        }
        let recent: HashSet<MessageId> = self.get(k).iter().map(|m| m.id).collect();
        observed.iter().filter(|m| !recent.contains(&m.id)).cloned().collect()
    }

    /// Remove and return the newest message.
    pub fn pop_newest(&mut self) -> Option<MessageRef> {
        let m = self.storage.pop()?;
        let rendered = &mut self.rendered;
        if rendered.lines > self.storage.len() {
            // Drop the popped message's line and the newline before it.
            let line = m.history_line_len() + usize::from(rendered.lines > 1);
            let keep = rendered.text.len() - line;
            rendered.text.truncate(keep);
            rendered.lines -= 1;
        }
        self.ids.remove(&m.id);
        let by_action = self.by_action.get_mut();
        if by_action.indexed > self.storage.len() {
            if let Some(positions) = by_action.positions.get_mut(&m.cause_by) {
                positions.pop();
            }
            by_action.indexed -= 1;
        }
        Some(m)
    }

    pub fn clear(&mut self) {
        *self = Memory::default();
    }

    /// The ids in order: how memory is saved.
    pub fn ids(&self) -> Vec<MessageId> {
        self.storage.iter().map(|m| m.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::core::message::Message;

    fn msg(id: u64, action: &str) -> MessageRef {
        Rc::new(Message::new(MessageId(id), format!("message {id}")).caused_by(action))
    }

    fn ids(list: &[MessageRef]) -> Vec<u64> {
        list.iter().map(|m| m.id.0).collect()
    }

    fn filled() -> Memory {
        let mut m = Memory::default();
        for (id, action) in [(1, "A"), (2, "B"), (3, "A"), (4, "C"), (5, "B")] {
            assert!(m.add(msg(id, action)));
        }
        m
    }

    #[test]
    fn add_skips_duplicates() {
        let mut m = filled();
        assert!(!m.add(msg(3, "A")));
        assert_eq!(m.len(), 5);
    }

    #[test]
    fn get_last_k() {
        let m = filled();
        let cases: &[(usize, &[u64])] = &[(0, &[1, 2, 3, 4, 5]), (2, &[4, 5]), (5, &[1, 2, 3, 4, 5]), (9, &[1, 2, 3, 4, 5])];
        for (k, want) in cases {
            assert_eq!(ids(m.get(*k)), *want, "k={k}");
        }
    }

    #[test]
    fn by_actions() {
        let m = filled();
        let cases: &[(&[&str], &[u64])] = &[
            (&["A"], &[1, 3]),
            (&["B"], &[2, 5]),
            (&["A", "B"], &[1, 2, 3, 5]),
            (&["B", "A", "B"], &[1, 2, 3, 5]),
            (&["Z"], &[]),
            (&[], &[]),
        ];
        for (actions, want) in cases {
            let kinds: Vec<ActionKind> = actions.iter().map(|a| ActionKind::new(a)).collect();
            assert_eq!(ids(&m.get_by_actions(&kinds)), *want, "{actions:?}");
        }
        assert_eq!(ids(&m.get_by_action(&ActionKind::new("C"))), [4]);
    }

    #[test]
    fn find_news() {
        let m = filled();
        let observed = [msg(4, "C"), msg(5, "B"), msg(6, "A"), msg(1, "A")];
        let cases: &[(usize, &[u64])] = &[(0, &[6]), (2, &[6, 1]), (3, &[6, 1]), (5, &[6]), (50, &[6])];
        for (k, want) in cases {
            assert_eq!(ids(&m.find_news(&observed, *k)), *want, "k={k}");
        }
    }

    #[test]
    fn pop_newest_keeps_indexes_true() {
        let mut m = filled();
        assert_eq!(m.pop_newest().map(|x| x.id.0), Some(5));
        assert!(!m.contains(MessageId(5)));
        assert_eq!(ids(&m.get_by_action(&ActionKind::new("B"))), [2]);
        assert!(m.add(msg(5, "B")));
        assert_eq!(ids(&m.get_by_action(&ActionKind::new("B"))), [2, 5]);
    }

    /// Past the scanned few (a set of ids) and with lookups by action
    /// between adds and pops (the index catches up), memory answers as a
    /// plain list would.
    #[test]
    fn large_memories_dedup_and_index_like_small_ones() {
        let mut m = Memory::default();
        let mut want: Vec<(u64, &str)> = Vec::new();
        for id in 1..=40u64 {
            let action = ["A", "B", "C"][id as usize % 3];
            assert!(m.add(msg(id, action)));
            want.push((id, action));
            // Every earlier id is a duplicate, small memory or large.
            let earlier = want[want.len() / 2].0;
            assert!(!m.add(msg(earlier, "A")), "id {earlier}");
            assert!(m.contains(MessageId(id)) && !m.contains(MessageId(id + 1)));
            if id % 7 == 0 {
                assert_eq!(m.pop_newest().map(|x| x.id.0), Some(id));
                want.pop();
                assert!(!m.contains(MessageId(id)));
            }
            if id % 5 == 0 {
                for action in ["A", "B", "C"] {
                    let ids_want: Vec<u64> = want.iter().filter(|w| w.1 == action).map(|w| w.0).collect();
                    assert_eq!(ids(&m.get_by_action(&ActionKind::new(action))), ids_want, "{action} after {id}");
                }
            }
        }
        assert_eq!(m.len(), want.len());
        let news = m.find_news(&[msg(7, "A"), msg(41, "A"), msg(3, "A")], 0);
        assert_eq!(ids(&news), [7, 41]);
    }

    fn rendered_fresh(m: &Memory) -> String {
        m.all().iter().map(|x| x.history_line()).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn history_text_follows_adds_pops_and_clears() {
        let mut m = Memory::default();
        assert_eq!(m.history_text(), "");
        let mut steps = 0;
        for (id, action) in [(1, "A"), (2, "B"), (3, "A")] {
            m.add(msg(id, action));
            steps += 1;
            if steps % 2 == 1 {
                let want = rendered_fresh(&m);
                assert_eq!(m.history_text(), want);
            }
        }
        assert_eq!(m.history_text(), "user: message 1\nuser: message 2\nuser: message 3");
        m.pop_newest();
        let want = rendered_fresh(&m);
                assert_eq!(m.history_text(), want);
        // Popped before being rendered: nothing to take back.
        m.add(msg(4, "C"));
        m.pop_newest();
        let want = rendered_fresh(&m);
                assert_eq!(m.history_text(), want);
        m.add(Rc::new(Message::new(MessageId(5), "é\nü").from_role("Bob")));
        let want = rendered_fresh(&m);
                assert_eq!(m.history_text(), want);
        while m.pop_newest().is_some() {
            let want = rendered_fresh(&m);
                assert_eq!(m.history_text(), want);
        }
        m.add(msg(6, "A"));
        assert_eq!(m.history_text(), "user: message 6");
        m.clear();
        assert_eq!(m.history_text(), "");
    }
}
