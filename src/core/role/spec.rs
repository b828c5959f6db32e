//! `RoleSpec`: what a role is, fixed when it is hired (name, profile, goal,
//! constraints, addresses, the actions it watches, its react mode).
//!
//! Plain data, saved with the team; it does nothing by itself.

use crate::core::sorted_map::SortedSet;

use serde::{Deserialize, Serialize};

use crate::core::message::ActionKind;

/// How a role reacts to news.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReactMode {
    /// Think (the model picks the next action) then act, up to `max_react_loop` times.
    #[default]
    React,
    /// Run the actions in order, once each.
    ByOrder,
    /// Plan tasks for the requirement, then act on each.
    PlanAndAct,
}

/// What a role is, fixed when it is hired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleSpec {
    pub name: String,
    pub profile: String,
    pub goal: String,
    pub constraints: String,
    /// Replaces the generated prefix when set (MetaGPT's `desc`).
    pub desc: String,
    /// The role's kind (its class in MetaGPT): an address besides its name.
    pub kind: String,
    /// Extra addresses the role answers to.
    pub extra_addresses: SortedSet<String>,
    /// Action kinds whose messages are news to this role.
    pub watch: SortedSet<ActionKind>,
    pub react_mode: ReactMode,
    pub max_react_loop: u32,
    /// Keep every buffered message in memory, not only news (RoleZero).
    pub observe_all: bool,
}

impl RoleSpec {
    pub fn new(name: &str, profile: &str) -> Self {
        Self {
            name: name.to_string(),
            profile: profile.to_string(),
            goal: String::new(),
            constraints: String::new(),
            desc: String::new(),
            kind: profile.replace(' ', ""),
            extra_addresses: SortedSet::new(),
            watch: SortedSet::from([ActionKind::user_requirement()]),
            react_mode: ReactMode::React,
            max_react_loop: 1,
            observe_all: false,
        }
    }

    pub fn goal(mut self, goal: &str) -> Self {
        self.goal = goal.to_string();
        self
    }

    pub fn constraints(mut self, constraints: &str) -> Self {
        self.constraints = constraints.to_string();
        self
    }

    pub fn kind(mut self, kind: &str) -> Self {
        self.kind = kind.to_string();
        self
    }

    pub fn watch<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, kinds: I) -> Self {
        // Inserted one by one: collecting sorts a Vec first (a slice sort
        // of its own in the wasm).
        self.watch.clear();
        for kind in kinds {
            self.watch.insert(ActionKind::new(kind.as_ref()));
        }
        self
    }

    pub fn react_mode(mut self, mode: ReactMode, max_react_loop: u32) -> Self {
        self.react_mode = mode;
        self.max_react_loop = max_react_loop.max(1);
        self
    }

    pub fn observe_all(mut self) -> Self {
        self.observe_all = true;
        self
    }

    /// Name and kind, plus any extra addresses.
    pub fn addresses(&self) -> SortedSet<String> {
        let mut a = self.extra_addresses.clone();
        a.insert(self.name.clone());
        a.insert(self.kind.clone());
        a
    }

    /// Is `address` among [`RoleSpec::addresses`]? (Without building them.)
    pub fn is_address(&self, address: &str) -> bool {
        address == self.name || address == self.kind || self.extra_addresses.contains(address)
    }
}
