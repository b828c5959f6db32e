//! The post office: the environment's address table, each role's private
//! buffer, and the history of every published message.
//!
//! It routes (MetaGPT's `Environment.publish_message`): a message goes into
//! the buffer of every role whose addresses it names, or of every role when
//! it is sent to all. It never runs a role.
//!
//! Each member's buffer sits beside its addresses, so routing a message
//! walks the members once and touches no map; the by-name calls (`take`,
//! `deliver_to`, ...) go through a small index.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use crate::core::sorted_map::SortedSet;
use std::rc::Rc;

use super::message::{MessageRef, ALL};

#[derive(Debug, Default)]
pub struct PostOffice {
    /// The registered roles, in hiring order.
    members: Vec<Member>,
    /// Position in `members` by name.
    index: HashMap<String, usize>,
    /// The members' names in hiring order, shared (see [`PostOffice::names`]).
    /// Made on first use after a registration (building a team of fifty
    /// must not copy the names fifty times).
    names: RefCell<Option<Rc<[String]>>>,
    /// Roles that receive every published message (a team leader).
    listeners: SortedSet<String>,
    /// Buffers of names no role is registered under (yet): a role
    /// registered later finds its messages waiting.
    strays: HashMap<String, Vec<MessageRef>>,
    history: Vec<MessageRef>,
}

/// One registered role: its addresses and its buffer.
#[derive(Debug)]
struct Member {
    name: String,
    addresses: SortedSet<String>,
    /// Among the `listeners`.
    listener: bool,
    /// Oldest first. A list, not a queue: a buffer is only ever pushed to
    /// and emptied whole.
    buffer: Vec<MessageRef>,
}

impl PostOffice {
    /// Register a role's addresses (replacing earlier ones for that name).
    pub fn register(&mut self, name: &str, addresses: SortedSet<String>) {
        match self.index.get(name) {
            Some(&i) => self.members[i].addresses = addresses,
            None => {
                self.index.insert(name.to_string(), self.members.len());
                self.members.push(Member {
                    name: name.to_string(),
                    addresses,
                    listener: self.listeners.contains(name),
                    buffer: self.strays.remove(name).unwrap_or_default(),
                });
                *self.names.get_mut() = None;
            }
        }
    }

    /// Let `name` receive every published message, whoever it is for
    /// (MGX's team leader sees all traffic). What it reacts to is still
    /// decided by its watch list when it observes.
    pub fn listen_to_all(&mut self, name: &str) {
        self.listeners.insert(name.to_string());
        if let Some(&i) = self.index.get(name) {
            self.members[i].listener = true;
        }
    }

    /// Deliver to every matching role (and every listener) and record in
    /// the history. Returns how many roles the message was *for* (0: nobody,
    /// worth a warning); listeners do not count.
    pub fn publish(&mut self, message: MessageRef) -> usize {
        let mut delivered = 0;
        // `Message::is_for`, with "sent to all" asked once per message.
        let to_all = message.send_to.contains(ALL);
        let room = self.members.len().max(4);
        for member in &mut self.members {
            let for_it = to_all || message.is_for_one_of(&member.addresses);
            if for_it || (member.listener && message.sent_from != member.name) {
                if member.buffer.capacity() == 0 {
                    // Room for a message from every member at once (a
                    // round's replies) instead of growing through them.
                    member.buffer.reserve(room);
                }
                member.buffer.push(message.clone());
                delivered += usize::from(for_it);
            }
        }
        self.history.push(message);
        delivered
    }

    /// Put a message into one role's buffer, bypassing routing and history.
    pub fn deliver_to(&mut self, name: &str, message: MessageRef) {
        match self.index.get(name) {
            Some(&i) => self.members[i].buffer.push(message),
            None => self.strays.entry(name.to_string()).or_default().push(message),
        }
    }

    /// Empty a role's buffer, oldest first.
    pub fn take(&mut self, name: &str) -> Vec<MessageRef> {
        self.buffer_mut(name).map(std::mem::take).unwrap_or_default()
    }

    /// Empty a role's buffer, oldest first, as the iterator is consumed
    /// (what is left is dropped with it). Unlike [`PostOffice::take`] the
    /// buffer keeps its room: a role observes every round.
    pub fn drain(&mut self, name: &str) -> impl Iterator<Item = MessageRef> + '_ {
        self.buffer_mut(name).into_iter().flat_map(|b| b.drain(..))
    }

    /// [`PostOffice::drain`] for a caller that remembers where `name` was
    /// found last (`hint`, updated here): no lookup by name while it is
    /// right (members are never removed or reordered).
    pub(crate) fn drain_at<'a>(&'a mut self, name: &str, hint: &Cell<usize>) -> impl Iterator<Item = MessageRef> + 'a {
        let buffer = match self.position(name, hint) {
            Some(i) => Some(&mut self.members[i].buffer),
            None => self.strays.get_mut(name),
        };
        buffer.into_iter().flat_map(|b| b.drain(..))
    }

    /// [`PostOffice::buffered`] with a remembered position (see [`PostOffice::drain_at`]).
    pub(crate) fn buffered_at(&self, name: &str, hint: &Cell<usize>) -> usize {
        match self.position(name, hint) {
            Some(i) => self.members[i].buffer.len(),
            None => self.strays.get(name).map_or(0, Vec::len),
        }
    }

    /// The member registered as `name`: at `hint` if it is there, else
    /// looked up (and `hint` moved to it).
    fn position(&self, name: &str, hint: &Cell<usize>) -> Option<usize> {
        let at = hint.get();
        if self.members.get(at).is_some_and(|m| m.name == name) {
            return Some(at);
        }
        let found = self.index.get(name).copied();
        if let Some(at) = found {
            hint.set(at);
        }
        found
    }

    pub fn buffered(&self, name: &str) -> usize {
        self.buffer(name).map_or(0, Vec::len)
    }

    /// A role's buffer without taking it (for saving).
    pub fn peek(&self, name: &str) -> Vec<MessageRef> {
        self.buffered_messages(name).to_vec()
    }

    /// A role's buffer, borrowed (for a checkpoint's frame).
    pub fn buffered_messages(&self, name: &str) -> &[MessageRef] {
        self.buffer(name).map_or(&[], Vec::as_slice)
    }

    pub fn role_names(&self) -> Vec<String> {
        self.members.iter().map(|m| m.name.clone()).collect()
    }

    /// The role names in hiring order, shared: the same `Rc` until a role
    /// is registered under a new name, so callers may key caches on it.
    pub fn names(&self) -> Rc<[String]> {
        self.names.borrow_mut().get_or_insert_with(|| self.members.iter().map(|m| m.name.clone()).collect()).clone()
    }

    pub fn addresses(&self, name: &str) -> Option<&SortedSet<String>> {
        self.index.get(name).map(|&i| &self.members[i].addresses)
    }

    pub fn history(&self) -> &[MessageRef] {
        &self.history
    }

    pub(crate) fn restore(&mut self, history: Vec<MessageRef>, buffers: Vec<(String, Vec<MessageRef>)>) {
        self.history = history;
        for (name, messages) in buffers {
            match self.index.get(&name) {
                Some(&i) => self.members[i].buffer = messages,
                None => {
                    self.strays.insert(name, messages);
                }
            }
        }
    }

    fn buffer(&self, name: &str) -> Option<&Vec<MessageRef>> {
        match self.index.get(name) {
            Some(&i) => Some(&self.members[i].buffer),
            None => self.strays.get(name),
        }
    }

    fn buffer_mut(&mut self, name: &str) -> Option<&mut Vec<MessageRef>> {
        match self.index.get(name) {
            Some(&i) => Some(&mut self.members[i].buffer),
            None => self.strays.get_mut(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::core::message::{Message, MessageId};

    fn addrs(list: &[&str]) -> SortedSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn msg(id: u64, to: &[&str], from: &str) -> MessageRef {
        Rc::new(Message::new(MessageId(id), "x").to(to.iter().copied()).from_role(from))
    }

    fn ids(list: &[MessageRef]) -> Vec<u64> {
        list.iter().map(|m| m.id.0).collect()
    }

    #[test]
    fn routes_by_address_and_counts_only_addressees() {
        let mut post = PostOffice::default();
        post.register("Alice", addrs(&["Alice", "PM"]));
        post.register("Bob", addrs(&["Bob", "Engineer"]));
        post.listen_to_all("Mike");
        post.register("Mike", addrs(&["Mike", "Leader"]));
        assert_eq!(post.publish(msg(1, &[ALL], "")), 3);
        assert_eq!(post.publish(msg(2, &["Engineer"], "Alice")), 1);
        assert_eq!(post.publish(msg(3, &["Nobody"], "Mike")), 0);
        assert_eq!(post.publish(msg(4, &["Nobody"], "Bob")), 0);
        assert_eq!(ids(&post.take("Alice")), [1]);
        assert_eq!(ids(&post.take("Bob")), [1, 2]);
        // The listener hears everything but its own.
        assert_eq!(ids(&post.take("Mike")), [1, 2, 4]);
        assert_eq!(post.take("Mike"), []);
        // Draining empties the buffer just as taking does.
        post.publish(msg(5, &["PM"], ""));
        assert_eq!(ids(&post.drain("Alice").collect::<Vec<_>>()), [5]);
        assert_eq!((post.buffered("Alice"), post.drain("Nobody").count()), (0, 0));
        assert_eq!(ids(post.history()), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn buffers_of_unregistered_names_wait_for_their_role() {
        let mut post = PostOffice::default();
        post.deliver_to("Eve", msg(1, &["Eve"], ""));
        post.restore(vec![], vec![("Zed".into(), vec![msg(2, &[ALL], "")])]);
        assert_eq!((post.buffered("Eve"), post.buffered("Zed")), (1, 1));
        post.register("Eve", addrs(&["Eve"]));
        post.publish(msg(3, &[ALL], ""));
        assert_eq!(ids(&post.peek("Eve")), [1, 3]);
        assert_eq!(ids(&post.take("Zed")), [2]);
        assert_eq!(post.buffered("Zed"), 0);
    }

    #[test]
    fn a_wrong_or_stale_position_hint_is_corrected() {
        let mut post = PostOffice::default();
        post.register("A", addrs(&["A"]));
        post.register("B", addrs(&["B"]));
        post.deliver_to("Stray", msg(9, &["Stray"], ""));
        post.publish(msg(1, &[ALL], ""));
        let hint = Cell::new(0);
        assert_eq!(post.buffered_at("B", &hint), 1);
        assert_eq!(hint.get(), 1, "moved to B's place");
        let hint_out_of_range = Cell::new(7);
        assert_eq!(ids(&post.drain_at("A", &hint_out_of_range).collect::<Vec<_>>()), [1]);
        assert_eq!((hint_out_of_range.get(), post.buffered("A")), (0, 0));
        assert_eq!(ids(&post.drain_at("B", &hint).collect::<Vec<_>>()), [1]);
        assert_eq!(post.buffered_at("Stray", &hint), 1);
        assert_eq!(ids(&post.drain_at("Stray", &hint).collect::<Vec<_>>()), [9]);
        assert_eq!((post.buffered_at("Nobody", &hint), hint.get()), (0, 1));
    }

    #[test]
    fn names_are_shared_until_a_new_role_registers() {
        let mut post = PostOffice::default();
        post.register("A", addrs(&["A"]));
        let first = post.names();
        assert!(Rc::ptr_eq(&first, &post.names()));
        post.register("A", addrs(&["A", "X"]));
        assert!(Rc::ptr_eq(&first, &post.names()));
        assert_eq!(post.addresses("A"), Some(&addrs(&["A", "X"])));
        post.register("B", addrs(&["B"]));
        assert_eq!(&*post.names(), ["A".to_string(), "B".to_string()]);
        assert_eq!(post.role_names(), ["A", "B"]);
    }
}
