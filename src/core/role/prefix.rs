//! The role's prefix ("You are a Product Manager, named Alice, ..."), and
//! its cache: remade only when the team's roles, the environment's
//! description or the spec change (a role asks for it on every think and
//! act).
//!
//! Holds no model text beyond the prefix itself.

use std::rc::Rc;

use super::{Role, RoleSpec};
use crate::core::post::PostOffice;
use crate::core::world::World;


/// A role prefix and everything it depends on: it is remade only when the
/// team's roles, the environment's description or the spec change.
pub(super) struct PrefixCache {
    /// The team's role names; `None` when the environment has no
    /// description (the prefix then does not name the other roles).
    names: Option<Rc<[String]>>,
    env_desc: String,
    spec: RoleSpec,
    text: Rc<str>,
}

impl PrefixCache {
    fn matches(&self, post: &PostOffice, env_desc: &str, spec: &RoleSpec) -> bool {
        let same_names = match &self.names {
            None => env_desc.is_empty(),
            Some(names) => Rc::ptr_eq(names, &post.names()),
        };
        same_names && self.env_desc == env_desc && self.spec == *spec
    }
}

impl Role {
    /// "You are a {profile}, named {name}, your goal is {goal}." plus
    /// constraints and the environment with the other roles' names.
    pub fn prefix(&self, env_desc: &str, role_names: &[String]) -> String {
        let spec = &self.spec;
        if !spec.desc.is_empty() {
            return spec.desc.clone();
        }
        let mut prefix = format!("You are {} {}, named {}, your goal is {}. ", article(&spec.profile), spec.profile, spec.name, spec.goal);
        if !spec.constraints.is_empty() {
            prefix += &format!("The constraint is {}. ", spec.constraints);
        }
        if !env_desc.is_empty() {
            prefix += &format!("You are in {env_desc}");
            let others: Vec<&str> = role_names.iter().filter(|n| **n != spec.name).map(String::as_str).collect();
            if !others.is_empty() {
                prefix += &format!(" with roles({})", others.join(", "));
            }
            prefix.push('.');
        }
        prefix
    }

    /// [`Role::prefix`] in `world`, made once and reused while the team's
    /// roles, the environment and the spec stay the same (a role asks for
    /// it on every think and act).
    pub fn prefix_in(&self, world: &World) -> Rc<str> {
        if let Some(cache) = &*self.prefix_cache.borrow() {
            if cache.matches(&world.post.borrow(), &world.env_desc, &self.spec) {
                return cache.text.clone();
            }
        }
        // Without a description the prefix names nobody else.
        let names = (!world.env_desc.is_empty()).then(|| world.post.borrow().names());
        let text: Rc<str> = Rc::from(self.prefix(&world.env_desc, names.as_deref().unwrap_or_default()));
        *self.prefix_cache.borrow_mut() =
            Some(PrefixCache { names, env_desc: world.env_desc.to_string(), spec: self.spec.clone(), text: text.clone() });
        text
    }
}

/// "a" or "an" before a profile (MetaGPT always writes "a").
fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}
