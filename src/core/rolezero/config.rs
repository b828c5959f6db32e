//! `ZeroConfig`: how a RoleZero behaves (its instruction, how much
//! history it sees, quick think, summary, language, whom it reports to).
//!
//! Plain data fixed when the role is built; nothing here runs.

/// How a RoleZero behaves.
#[derive(Debug, Clone)]
pub struct ZeroConfig {
    pub instruction: String,
    /// Recent messages given to the model (MetaGPT: 200).
    pub memory_k: usize,
    /// Classify new user requirements first.
    pub quick_think: bool,
    /// Summarize at `end`.
    pub use_summary: bool,
    /// "the language of the user's requirement" or a language name.
    pub language: String,
    /// Where the final response goes (a team leader), instead of everyone.
    pub report_to: Option<String>,
    /// At `end`, write the human a report if nobody replied to them yet.
    /// Team members leave that to their leader.
    pub reply_on_end: bool,
}

impl Default for ZeroConfig {
    fn default() -> Self {
        Self {
            instruction: "Help the user with their request, using the commands available.".into(),
            memory_k: 200,
            quick_think: true,
            use_summary: false,
            language: "the language of the user's requirement".into(),
            report_to: None,
            reply_on_end: true,
        }
    }
}

