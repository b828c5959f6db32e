//! Messages: what roles say to each other, and the addresses that route them.
//!
//! A message is immutable once made and shared by reference count between the
//! memories and buffers that hold it. Ids come from the team's [`IdSource`],
//! so a run and its restored continuation number messages identically.
//! Routing itself lives in `environment`; this file only answers "is this
//! message for that address set?".

use crate::core::sorted_map::SortedSet;

use litemap::LiteMap;
use std::fmt;
use std::rc::Rc;

pub use super::addresses::{Addresses, ALL, NONE, SELF};
use super::shared_str::SharedStr;

use serde::{Deserialize, Serialize};


/// The action kind of a user's requirement (MetaGPT's `UserRequirement`).
pub const USER_REQUIREMENT: &str = "UserRequirement";

/// Metadata key of a message the session writes for the model on the
/// person's behalf (a follow-up with the project as it stands, a fix
/// request, a plan edit, the notes of a restore): what the person's bubble
/// says instead of the content; empty, no bubble. The model never sees it.
pub const SHOWN: &str = "shown";

/// A message id, unique within a team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(pub u64);

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m{}", self.0)
    }
}

/// The kind of action that produced a message (MetaGPT's `cause_by`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ActionKind(pub Rc<str>);

impl ActionKind {
    pub fn new(name: &str) -> Self {
        ActionKind(Rc::from(name))
    }
    /// Shared, not made anew: every message starts as one.
    pub fn user_requirement() -> Self {
        thread_local! {
            static KIND: ActionKind = ActionKind::new(USER_REQUIREMENT);
        }
        KIND.with(Clone::clone)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ActionKind {
    fn from(s: &str) -> Self {
        ActionKind::new(s)
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who a message speaks as, in chat terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MsgRole {
    #[default]
    User,
    Assistant,
    System,
}

/// One message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: MessageId,
    pub content: String,
    /// The parsed output of a structured action, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruct_content: Option<serde_json::Value>,
    pub role: MsgRole,
    pub cause_by: ActionKind,
    /// The sending role's name (empty for the user).
    #[serde(default)]
    pub sent_from: SharedStr,
    pub send_to: Addresses,
    #[serde(default, skip_serializing_if = "LiteMap::is_empty")]
    #[serde(with = "crate::core::sorted_map::map")]
    pub metadata: LiteMap<String, String>,
}

impl Message {
    /// A user message to everyone, caused by a user requirement.
    pub fn new(id: MessageId, content: impl Into<String>) -> Self {
        Self {
            id,
            content: content.into(),
            instruct_content: None,
            role: MsgRole::User,
            cause_by: ActionKind::user_requirement(),
            sent_from: SharedStr::default(),
            send_to: Addresses::all(),
            metadata: LiteMap::new(),
        }
    }

    /// The person's images with this request (`core::image`; none for most).
    #[cfg(feature = "images")]
    pub fn images(&self) -> Vec<String> {
        self.metadata.get(super::image::IMAGES).map(|urls| urls.lines().map(str::to_owned).collect()).unwrap_or_default()
    }

    pub fn with_role(mut self, role: MsgRole) -> Self {
        self.role = role;
        self
    }

    pub fn caused_by(mut self, kind: impl Into<ActionKind>) -> Self {
        self.cause_by = kind.into();
        self
    }

    pub fn from_role(mut self, name: impl Into<SharedStr>) -> Self {
        self.sent_from = name.into();
        self
    }

    /// Replace the recipients.
    pub fn to<I, S>(mut self, addresses: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.send_to = addresses.into_iter().map(Into::into).collect();
        self
    }

    pub fn with_instruct(mut self, value: serde_json::Value) -> Self {
        self.instruct_content = Some(value);
        self
    }

    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// True when a role with these addresses should receive the message.
    pub fn is_for(&self, addresses: &SortedSet<String>) -> bool {
        self.send_to.contains(ALL) || self.is_for_one_of(addresses)
    }

    /// True when the message names one of these addresses (`is_for` without
    /// the "sent to all" case, for routing that asks that once per message).
    pub fn is_for_one_of(&self, addresses: &SortedSet<String>) -> bool {
        self.send_to.iter().any(|a| addresses.contains(a))
    }

    /// "role: content", the line form used in prompts' histories.
    pub fn history_line(&self) -> String {
        let mut line = String::with_capacity(self.history_line_len());
        self.write_history_line(&mut line);
        line
    }

    /// Append [`Message::history_line`] to `out` without a string of its own.
    pub fn write_history_line(&self, out: &mut String) {
        out.push_str(self.who());
        out.push_str(": ");
        out.push_str(&self.content);
    }

    /// The length in bytes of [`Message::history_line`].
    pub fn history_line_len(&self) -> usize {
        self.who().len() + 2 + self.content.len()
    }

    fn who(&self) -> &str {
        if self.sent_from.is_empty() {
            self.role_label()
        } else {
            &self.sent_from
        }
    }

    fn role_label(&self) -> &'static str {
        match self.role {
            MsgRole::User => "user",
            MsgRole::Assistant => "assistant",
            MsgRole::System => "system",
        }
    }
}

/// Hands out message ids in order. Part of the team's saved state, so a
/// restored team continues the same sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdSource {
    next: u64,
}

impl IdSource {
    pub fn next_id(&mut self) -> MessageId {
        self.next += 1;
        MessageId(self.next)
    }

    pub fn peek(&self) -> u64 {
        self.next
    }
}

/// A shared, immutable message.
pub type MessageRef = Rc<Message>;

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(list: &[&str]) -> SortedSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn is_for() {
        // (send_to, role addresses, delivered?)
        let cases: &[(&[&str], &[&str], bool)] = &[
            (&[ALL], &["Alice", "ProductManager"], true),
            (&["Alice"], &["Alice", "ProductManager"], true),
            (&["ProductManager"], &["Alice", "ProductManager"], true),
            (&["Bob"], &["Alice", "ProductManager"], false),
            (&[NONE], &["Alice", "ProductManager"], false),
            (&[], &["Alice"], false),
            (&["Bob", "Alice"], &["Alice"], true),
        ];
        for (send_to, role, want) in cases {
            let m = Message::new(MessageId(1), "x").to(send_to.iter().copied());
            assert_eq!(m.is_for(&addrs(role)), *want, "send_to={send_to:?} role={role:?}");
        }
    }

    #[test]
    fn defaults_match_a_user_requirement_to_everyone() {
        let m = Message::new(MessageId(7), "build a game");
        assert_eq!(m.cause_by.as_str(), USER_REQUIREMENT);
        assert_eq!(m.send_to, addrs(&[ALL]));
        assert_eq!(m.role, MsgRole::User);
        assert_eq!(m.history_line(), "user: build a game");
        assert_eq!(m.clone().from_role("Alice").history_line(), "Alice: build a game");
    }

    #[test]
    fn ids_are_sequential_and_survive_a_round_trip() {
        let mut ids = IdSource::default();
        assert_eq!(ids.next_id(), MessageId(1));
        let json = serde_json::to_string(&ids).unwrap();
        let mut back: IdSource = serde_json::from_str(&json).unwrap();
        assert_eq!(back.next_id(), MessageId(2));
    }

    #[test]
    fn serde_round_trip() {
        let m = Message::new(MessageId(3), "hi")
            .with_role(MsgRole::Assistant)
            .caused_by("WritePRD")
            .from_role("Alice")
            .to(["Bob"])
            .with_instruct(serde_json::json!({"Goals": ["a"]}))
            .with_meta("agent", "Alice");
        let back: Message = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
    }
}
