//! Experiences: requests a role handled before and the commands that
//! worked, and picking the closest one as an example for a new request
//! (MetaGPT's experience pool and retriever, without the vector store).
//!
//! Matching is BM25 over the request texts (`bm25.rs`), ties going to the
//! most recent, among the experiences of the same kind of role only (an
//! engineer is never shown the team leader's commands, which are not his
//! to run); the pool is bounded and keeps the most recent entries.
//! Deciding what counts as "worked" and when to record is the role's job;
//! nothing here calls a model or reads a clock (recency is insertion
//! order).
//!
//! Layout:
//! - `bm25`: the tokenizer and the BM25 scores.

mod bm25;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// How many experiences a pool keeps unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 200;

/// One handled request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Experience {
    /// What the user asked.
    pub request: String,
    /// The command list that worked, as JSON text.
    pub commands: String,
    /// How it went, in a few words.
    pub outcome: String,
    /// The kind of role that handled it (`RoleSpec::kind`: "TeamLeader",
    /// "Engineer2"); its examples go to that kind only. Empty in pools
    /// saved before roles were kept: those match no role.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
}

impl Experience {
    pub fn new(request: impl Into<String>, commands: impl Into<String>, outcome: impl Into<String>) -> Self {
        Self { request: request.into(), commands: commands.into(), outcome: outcome.into(), role: String::new() }
    }

    /// This experience, as had by a role of `kind`.
    pub fn of_role(self, kind: impl Into<String>) -> Self {
        Self { role: kind.into(), ..self }
    }
}

/// The most recent experiences, oldest first, at most `capacity` of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperiencePool {
    capacity: usize,
    entries: VecDeque<Experience>,
}

impl Default for ExperiencePool {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl ExperiencePool {
    /// A pool keeping at most `capacity` experiences (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self { capacity: capacity.max(1), entries: VecDeque::new() }
    }

    /// Records an experience; the oldest is forgotten when the pool is full.
    pub fn add(&mut self, experience: Experience) {
        self.entries.push_back(experience);
        while self.entries.len() > self.capacity {
            self.entries.pop_front();
        }
    }

    /// Among the experiences of roles of `kind`, the one whose request is
    /// closest to `request` by BM25, if its score is positive and at least
    /// `min_score`; among equal scores the most recent. None when no role
    /// of that kind has any.
    pub fn best_match(&self, kind: &str, request: &str, min_score: f64) -> Option<&Experience> {
        let same_role: Vec<&Experience> = self.entries.iter().filter(|e| !kind.is_empty() && e.role == kind).collect();
        let scores = bm25::scores(request, same_role.iter().map(|e| e.request.as_str()));
        let mut best: Option<(f64, &Experience)> = None;
        for (score, experience) in scores.into_iter().zip(same_role) {
            // `>=`: later entries are more recent and win ties.
            if best.is_none_or(|(top, _)| score >= top) {
                best = Some((score, experience));
            }
        }
        best.filter(|&(score, _)| score > 0.0 && score >= min_score).map(|(_, e)| e)
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Experience> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// The experience as an example for the prompt. The commands are kept as
/// the role wrote them, usually already in a ```` ```json ```` block
/// (`Command::render_block`); that fence is taken off before the example
/// puts its own, so the model never sees a block opened twice.
pub fn render_example(experience: &Experience) -> String {
    let mut text = format!(
        "## Past experience\nRequest: {}\nCommands that worked:\n```json\n{}\n```",
        experience.request.trim(),
        unfenced(experience.commands.trim())
    );
    if !experience.outcome.trim().is_empty() {
        text.push_str(&format!("\nOutcome: {}", experience.outcome.trim()));
    }
    text
}

/// `text` without the code fence around it, if it is one fenced block.
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else { return text };
    let Some((_info, body)) = rest.split_once('\n') else { return text };
    body.strip_suffix("```").map_or(text, str::trim)
}
