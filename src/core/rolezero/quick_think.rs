//! `QuickThink`: the intent class of a new user request, and reading it out
//! of the model's answer.
//!
//! MetaGPT tests `"QUICK" in answer` (then AMBIGUOUS, then SEARCH) on the
//! raw text, so a thought that merely mentions a word decides, and
//! lowercase answers fall through to TASK. Here the label is a whole word,
//! any case; a word that stands out (written in capitals, or marked as
//! `[TASK]`, `**search**`, `` `quick` ``, "Intent: quick") wins over one
//! in plain prose, and among equals the first one wins. Nothing found
//! means TASK, the safe default (the full loop can still answer briefly).
//! What to do with each class is the role's business.

use serde::{Deserialize, Serialize};

/// How a new user request should be handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum QuickThink {
    /// Answerable at once from what the model knows.
    Quick,
    /// Needs a web search before answering.
    Search,
    /// Unclear; answer by asking the user what they mean.
    Ambiguous,
    /// Real work: run the think/act loop.
    Task,
}

impl QuickThink {
    /// QUICK and AMBIGUOUS get a direct answer that ends the turn.
    pub fn answers_directly(self) -> bool {
        matches!(self, QuickThink::Quick | QuickThink::Ambiguous)
    }

    fn from_word(word: &str) -> Option<Self> {
        match word.to_ascii_uppercase().as_str() {
            "QUICK" => Some(QuickThink::Quick),
            "SEARCH" => Some(QuickThink::Search),
            "AMBIGUOUS" => Some(QuickThink::Ambiguous),
            "TASK" => Some(QuickThink::Task),
            _ => None,
        }
    }
}

/// The class named in `answer`; `Task` when none is.
pub fn parse_quick_think(answer: &str) -> QuickThink {
    let mut plain = None;
    for (at, word) in words(answer) {
        let Some(class) = QuickThink::from_word(word) else {
            continue;
        };
        if stands_out(answer, at, word) {
            return class;
        }
        plain.get_or_insert(class);
    }
    plain.unwrap_or(QuickThink::Task)
}

/// Whole words (runs of letters, digits and `_` are split at `_` too, so
/// `QUICK_ANSWER` holds QUICK) with their byte positions.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = None;
    let mut out = Vec::new();
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push((s, &text[s..at]));
                start = None;
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// Written in capitals, or marked by the character just before it.
fn stands_out(text: &str, at: usize, word: &str) -> bool {
    let capitals = word.chars().all(|c| c.is_ascii_uppercase());
    let marked = matches!(text[..at].chars().next_back(), Some('[' | '*' | '`' | '"' | '\'' | '_' | '<'))
        || text[..at].trim_end().ends_with(':');
    capitals || marked
}
