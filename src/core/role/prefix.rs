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
    /// Where each of the environment's description and the spec's name,
    /// profile, goal, constraints and desc ([`PrefixCache::key_parts`])
    /// stands in `text` (an empty range: it was empty); `None` where the
    /// text does not depend on it (a desc replaces the rest). The text is
    /// its own key: no copy of the parts is kept.
    parts: [Option<(usize, usize)>; 6],
    text: Rc<str>,
}

impl PrefixCache {
    fn key_parts<'a>(env_desc: &'a str, spec: &'a RoleSpec) -> [&'a str; 6] {
        [env_desc, &spec.name, &spec.profile, &spec.goal, &spec.constraints, &spec.desc]
    }

    fn matches(&self, post: &PostOffice, env_desc: &str, spec: &RoleSpec) -> bool {
        let text = self.text.as_bytes();
        let parts = Self::key_parts(env_desc, spec);
        for (i, part) in parts.iter().enumerate() {
            if let Some((start, end)) = self.parts[i] {
                // Lengths first: most parts are empty or differ in length
                // when they differ at all.
                if part.len() != end - start || (start != end && text[start..end] != *part.as_bytes()) {
                    return false;
                }
            }
        }
        match &self.names {
                None => true,
                Some(names) => Rc::ptr_eq(names, &post.names()),
            }
    }
}

impl Role {
    /// "You are a {profile}, named {name}, your goal is {goal}." plus
    /// constraints and the environment with the other roles' names.
    pub fn prefix(&self, env_desc: &str, role_names: &[String]) -> String {
        self.prefix_and_parts(env_desc, role_names).0
    }

    /// [`Role::prefix`], and where each of [`PrefixCache::key_parts`]
    /// stands in it (see [`PrefixCache::parts`]).
    fn prefix_and_parts(&self, env_desc: &str, role_names: &[String]) -> (String, [Option<(usize, usize)>; 6]) {
        let spec = &self.spec;
        if !spec.desc.is_empty() {
            return (spec.desc.clone(), [None, None, None, None, None, Some((0, spec.desc.len()))]);
        }
        // Pushed piece by piece rather than formatted: every role of a new
        // team makes its prefix on its first call.
        let mut parts = [Some((0, 0)); 6];
        let mut prefix = String::with_capacity(64 + spec.profile.len() + spec.name.len() + spec.goal.len() + spec.constraints.len());
        let mut part = |prefix: &mut String, slot: usize, text: &str| {
            let start = prefix.len();
            prefix.push_str(text);
            parts[slot] = Some((start, prefix.len()));
        };
        for piece in ["You are ", article(&spec.profile), " "] {
            prefix.push_str(piece);
        }
        part(&mut prefix, 2, &spec.profile);
        prefix.push_str(", named ");
        part(&mut prefix, 1, &spec.name);
        prefix.push_str(", your goal is ");
        part(&mut prefix, 3, &spec.goal);
        prefix.push_str(". ");
        if !spec.constraints.is_empty() {
            prefix.push_str("The constraint is ");
            part(&mut prefix, 4, &spec.constraints);
            prefix.push_str(". ");
        }
        if !env_desc.is_empty() {
            prefix.push_str("You are in ");
            part(&mut prefix, 0, env_desc);
            let mut others = role_names.iter().filter(|n| **n != spec.name);
            if let Some(first) = others.next() {
                prefix.push_str(" with roles(");
                prefix.push_str(first);
                for other in others {
                    prefix.push_str(", ");
                    prefix.push_str(other);
                }
                prefix.push(')');
            }
            prefix.push('.');
        }
        (prefix, parts)
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
        let (text, parts) = self.prefix_and_parts(&world.env_desc, names.as_deref().unwrap_or_default());
        let text: Rc<str> = Rc::from(text);
        *self.prefix_cache.borrow_mut() = Some(PrefixCache { names, parts, text: text.clone() });
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
