//! Experiences: requests a role handled before and the commands that
//! worked, and picking the closest one as an example for a new request
//! (MetaGPT's experience pool and retriever, without the vector store).
//!
//! Matching is BM25 over the request texts (`bm25.rs`), ties going to the
//! most recent; the pool is bounded and keeps the most recent entries.
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
}

impl Experience {
    pub fn new(request: impl Into<String>, commands: impl Into<String>, outcome: impl Into<String>) -> Self {
        Self { request: request.into(), commands: commands.into(), outcome: outcome.into() }
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

    /// The experience whose request is closest to `request` by BM25,
    /// if its score is positive and at least `min_score`; among equal
    /// scores the most recent.
    pub fn best_match(&self, request: &str, min_score: f64) -> Option<&Experience> {
        let scores = bm25::scores(request, self.entries.iter().map(|e| e.request.as_str()));
        let mut best: Option<(f64, &Experience)> = None;
        for (score, experience) in scores.into_iter().zip(&self.entries) {
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
