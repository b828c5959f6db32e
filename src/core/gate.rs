//! The metered door to the model: every LLM call a role makes goes through
//! [`LlmGate::ask`], which checks the budget first, streams deltas out as
//! events, and records the usage in the cost ledger.
//!
//! It does not retry: transport retries belong to the provider edge, and a
//! failed call leaves the role's reaction pending so it can be resumed.
//!
//! Resuming must not pay twice. While a reaction is pending, every finished
//! call's answer is kept in the role's [`CallJournal`]; when the reaction is
//! run again (after a failure, a Stop, or a restore in a new tab), calls
//! whose request is the same as the journal's next entry get the recorded
//! answer instead of a new call. The journal is cleared whenever the role
//! has absorbed the answers into its state (a choice made, a message kept).

use std::cell::RefCell;
use std::rc::Rc;

use futures::StreamExt;
use serde::{Deserialize, Serialize};

use super::cost::CostLedger;
use super::events::{EventSink, TeamEvent};
use super::llm::{ChatMessage, ChatRequest, Llm, LlmError, StreamEvent, Usage};
use super::role::RoleError;

/// A finished call of the pending reaction: which request, what answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub request: u64,
    pub answer: String,
}

/// The finished calls of a role's pending reaction, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallJournal {
    entries: Vec<JournalEntry>,
    cursor: usize,
}

impl CallJournal {
    pub fn from_entries(entries: Vec<JournalEntry>) -> Self {
        Self { entries, cursor: 0 }
    }

    pub fn entries(&self) -> &[JournalEntry] {
        &self.entries
    }

    /// Start replaying from the first entry (a reaction runs again).
    pub fn rewind(&mut self) {
        self.cursor = 0;
    }

    /// Forget everything (the answers are now part of the role's state).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.cursor = 0;
    }

    fn replay(&mut self, request: u64) -> Option<String> {
        match self.entries.get(self.cursor) {
            Some(e) if e.request == request => {
                self.cursor += 1;
                Some(e.answer.clone())
            }
            Some(_) => {
                // The conversation went another way: the rest is stale.
                self.entries.truncate(self.cursor);
                None
            }
            None => None,
        }
    }

    fn record(&mut self, request: u64, answer: &str) {
        self.entries.truncate(self.cursor);
        self.entries.push(JournalEntry { request, answer: answer.to_string() });
        self.cursor += 1;
    }
}

/// FNV-1a over the request's model and turns: stable across builds, so a
/// journal saved by one version of the site replays in the next.
fn request_digest(request: &ChatRequest) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    eat(request.model.as_bytes());
    for m in &request.messages {
        eat(m.role.to_string().as_bytes());
        eat(m.content.as_bytes());
    }
    hash
}

/// One role's metered access to its model.
#[derive(Clone)]
pub struct LlmGate {
    llm: Rc<dyn Llm>,
    ledger: Rc<RefCell<CostLedger>>,
    role: Rc<str>,
    events: EventSink,
    journal: Rc<RefCell<CallJournal>>,
    /// The answer is bookkeeping (a classification), not for the conversation.
    quiet: bool,
}

impl LlmGate {
    pub fn new(
        llm: Rc<dyn Llm>,
        ledger: Rc<RefCell<CostLedger>>,
        role: &str,
        events: EventSink,
        journal: Rc<RefCell<CallJournal>>,
    ) -> Self {
        Self { llm, ledger, role: Rc::from(role), events, journal, quiet: false }
    }

    /// The same door, for a call whose answer the UI need not show (it is
    /// still metered and journaled).
    pub fn quietly(&self) -> Self {
        Self { quiet: true, ..self.clone() }
    }

    pub fn model(&self) -> &str {
        self.llm.model()
    }

    /// Ask with a full chat; returns the answer's text.
    pub async fn ask(&self, messages: Vec<ChatMessage>) -> Result<String, RoleError> {
        let model = self.llm.model().to_string();
        let request = ChatRequest::new(model.clone(), messages);
        let digest = request_digest(&request);
        if let Some(answer) = self.journal.borrow_mut().replay(digest) {
            return Ok(answer);
        }
        let prompt_estimate = Usage::estimate(request.prompt_chars(), 0).prompt_tokens;
        self.ledger.borrow().check(&model, prompt_estimate)?;
        self.events.emit(TeamEvent::LlmStarted { role: self.role.to_string(), model: model.clone(), quiet: self.quiet });
        let mut stream = self.llm.stream(request);
        let mut partial = String::new();
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(text) => {
                    partial.push_str(&text);
                    self.events.emit(TeamEvent::LlmDelta { role: self.role.to_string(), text });
                }
                StreamEvent::Done(done) => {
                    // Priced by the model asked for: providers answer with
                    // dated names the price table may not list.
                    let entry = self.ledger.borrow_mut().record(&self.role, &model, done.usage);
                    self.events.emit(TeamEvent::LlmFinished { role: self.role.to_string(), entry });
                    self.journal.borrow_mut().record(digest, &done.text);
                    return Ok(done.text);
                }
            }
        }
        Err(RoleError::Llm(LlmError::Truncated { partial_text: partial }))
    }

    /// Ask with a system prompt and one user prompt.
    pub async fn aask(&self, system: &str, prompt: &str) -> Result<String, RoleError> {
        let mut messages = Vec::with_capacity(2);
        if !system.is_empty() {
            messages.push(ChatMessage::system(system));
        }
        messages.push(ChatMessage::user(prompt));
        self.ask(messages).await
    }
}
