//! The post office: the environment's address table, each role's private
//! buffer, and the history of every published message.
//!
//! It routes (MetaGPT's `Environment.publish_message`): a message goes into
//! the buffer of every role whose addresses it names, or of every role when
//! it is sent to all. It never runs a role.

use std::collections::{BTreeSet, HashMap, VecDeque};

use super::message::MessageRef;

#[derive(Debug, Default)]
pub struct PostOffice {
    /// Role name and addresses, in hiring order.
    members: Vec<(String, BTreeSet<String>)>,
    /// Roles that receive every published message (a team leader).
    listeners: BTreeSet<String>,
    buffers: HashMap<String, VecDeque<MessageRef>>,
    history: Vec<MessageRef>,
}

impl PostOffice {
    /// Register a role's addresses (replacing earlier ones for that name).
    pub fn register(&mut self, name: &str, addresses: BTreeSet<String>) {
        match self.members.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = addresses,
            None => self.members.push((name.to_string(), addresses)),
        }
        self.buffers.entry(name.to_string()).or_default();
    }

    /// Let `name` receive every published message, whoever it is for
    /// (MGX's team leader sees all traffic). What it reacts to is still
    /// decided by its watch list when it observes.
    pub fn listen_to_all(&mut self, name: &str) {
        self.listeners.insert(name.to_string());
    }

    /// Deliver to every matching role (and every listener) and record in
    /// the history. Returns how many roles the message was *for* (0: nobody,
    /// worth a warning); listeners do not count.
    pub fn publish(&mut self, message: MessageRef) -> usize {
        let mut delivered = 0;
        for (name, addresses) in &self.members {
            let for_it = message.is_for(addresses);
            if for_it || (self.listeners.contains(name) && message.sent_from != *name) {
                self.buffers.entry(name.clone()).or_default().push_back(message.clone());
                delivered += usize::from(for_it);
            }
        }
        self.history.push(message);
        delivered
    }

    /// Put a message into one role's buffer, bypassing routing and history.
    pub fn deliver_to(&mut self, name: &str, message: MessageRef) {
        self.buffers.entry(name.to_string()).or_default().push_back(message);
    }

    /// Empty a role's buffer, oldest first.
    pub fn take(&mut self, name: &str) -> Vec<MessageRef> {
        self.buffers.get_mut(name).map(|b| b.drain(..).collect()).unwrap_or_default()
    }

    pub fn buffered(&self, name: &str) -> usize {
        self.buffers.get(name).map_or(0, VecDeque::len)
    }

    /// A role's buffer without taking it (for saving).
    pub fn peek(&self, name: &str) -> Vec<MessageRef> {
        self.buffers.get(name).map(|b| b.iter().cloned().collect()).unwrap_or_default()
    }

    pub fn role_names(&self) -> Vec<String> {
        self.members.iter().map(|(n, _)| n.clone()).collect()
    }

    pub fn addresses(&self, name: &str) -> Option<&BTreeSet<String>> {
        self.members.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }

    pub fn history(&self) -> &[MessageRef] {
        &self.history
    }

    pub(crate) fn restore(&mut self, history: Vec<MessageRef>, buffers: Vec<(String, Vec<MessageRef>)>) {
        self.history = history;
        for (name, messages) in buffers {
            self.buffers.insert(name, messages.into_iter().collect());
        }
    }
}
