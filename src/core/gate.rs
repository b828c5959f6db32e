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
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

use super::cost::CostLedger;
use super::digest;
use super::events::{EventSink, TeamEvent};
use super::keep_error::KeepError;
use super::llm::{ChatMessage, ChatRequest, Completion, Llm, LlmError, Reply, ResponseSchema, StreamEvent, Usage};
use super::role_error::RoleError;
use super::shared_str::SharedStr;

/// What a gate waits on before each call when the team is kept durable:
/// the team's `checkpoint::Checkpoints`. A trait here so that the gate,
/// which every action holds, does not depend on the checkpoint, which reads
/// the roles (the write-through cycle stays between role and checkpoint).
pub trait KeepFirst {
    /// Keep the team as it stands; the call is made once this is `Ok`.
    fn keep_first(self: Rc<Self>) -> LocalBoxFuture<'static, Result<(), KeepError>>;
}

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

    /// Forget the last `n` calls made or replayed (an action whose answers
    /// never fit gave up): a resumed reaction asks them afresh, from the
    /// action's first attempt, instead of replaying the same refused answers.
    pub fn forget_last(&mut self, n: usize) {
        self.cursor = self.cursor.saturating_sub(n);
        self.entries.truncate(self.cursor);
    }

    /// The next entry's answer if it was for this request (`digest` is
    /// asked for only when there is a next entry).
    fn replay(&mut self, digest: impl FnOnce() -> u64) -> Option<String> {
        let next = self.entries.get(self.cursor)?.request;
        if next == digest() {
            self.cursor += 1;
            Some(self.entries[self.cursor - 1].answer.clone())
        } else {
            // The conversation went another way: the rest is stale.
            self.entries.truncate(self.cursor);
            None
        }
    }

    fn record(&mut self, request: u64, answer: &str) {
        self.entries.truncate(self.cursor);
        self.entries.push(JournalEntry { request, answer: answer.to_string() });
        self.cursor += 1;
    }
}

/// The digest of the request's model and turns, to recognise a request
/// the journal has already answered (saved with it, so stable across
/// builds: see `digest`). Each field is length-prefixed so turns cannot run
/// into each other.
fn request_digest(request: &ChatRequest) -> u64 {
    let turns = request.messages.iter().flat_map(|m| [m.role.as_str(), m.content.as_str()]);
    std::iter::once(request.model.as_str()).chain(turns).fold(digest::EMPTY, |hash, field| {
        digest::fold(digest::fold(hash, &(field.len() as u64).to_le_bytes()), field.as_bytes())
    })
}

/// One role's metered access to its model.
#[derive(Clone)]
pub struct LlmGate {
    llm: Rc<dyn Llm>,
    ledger: Rc<RefCell<CostLedger>>,
    role: SharedStr,
    events: EventSink,
    journal: Rc<RefCell<CallJournal>>,
    /// The answer is bookkeeping (a classification), not for the conversation.
    quiet: bool,
    /// The caller makes the answer part of the role's state before it next
    /// awaits: no journal entry could ever be saved or replayed.
    absorbed: bool,
    /// Write-through: kept before every call that is made.
    checkpoints: Option<Rc<dyn KeepFirst>>,
    /// The schema the answers should follow (sent to providers that
    /// constrain to it). Not part of the journal's digest: the same
    /// conversation is the same call.
    schema: Option<Arc<ResponseSchema>>,
}

impl LlmGate {
    pub fn new(
        llm: Rc<dyn Llm>,
        ledger: Rc<RefCell<CostLedger>>,
        role: impl Into<SharedStr>,
        events: EventSink,
        journal: Rc<RefCell<CallJournal>>,
    ) -> Self {
        Self { llm, ledger, role: role.into(), events, journal, quiet: false, absorbed: false, checkpoints: None, schema: None }
    }

    /// See [`CallJournal::forget_last`].
    pub fn forget_last(&self, calls: usize) {
        self.journal.borrow_mut().forget_last(calls);
    }

    /// The same door, for a call whose answer the UI need not show (it is
    /// still metered and journaled).
    pub fn quietly(&self) -> Self {
        Self { quiet: true, ..self.clone() }
    }

    /// The same door, for a call whose answer the caller absorbs into the
    /// role's state (and clears the journal) before its next `.await`: the
    /// answer is not journaled, and the request is digested only if the
    /// journal has an entry to compare it with.
    pub(crate) fn absorbed(self) -> Self {
        Self { absorbed: true, ..self }
    }

    /// The same door, keeping a checkpoint before each call it makes.
    pub(crate) fn keeping(self, checkpoints: Rc<dyn KeepFirst>) -> Self {
        Self { checkpoints: Some(checkpoints), ..self }
    }

    /// The same door, asking for answers that follow `schema`.
    pub fn with_schema(self, schema: Arc<ResponseSchema>) -> Self {
        Self { schema: Some(schema), ..self }
    }

    pub fn model(&self) -> &str {
        self.llm.model()
    }

    /// Ask with a full chat; returns the answer's text.
    pub async fn ask(&self, messages: Vec<ChatMessage>) -> Result<String, RoleError> {
        self.ask_as(messages, self.absorbed).await
    }

    /// A call whose answer the caller absorbs (see [`LlmGate::absorbed`])
    /// through this same gate: `system` as the system turn (none when
    /// absent or empty) and `prompt` as the user turn. A role's react
    /// steps ask this way, one gate for the whole reaction.
    pub(crate) async fn ask_absorbed(&self, system: Option<&str>, prompt: String) -> Result<String, RoleError> {
        self.ask_as(turns(system, prompt), true).await
    }

    async fn ask_as(&self, messages: Vec<ChatMessage>, absorbed: bool) -> Result<String, RoleError> {
        let model = self.ledger.borrow().shared_model(self.llm.model());
        let mut request = ChatRequest::new(model.clone(), messages);
        request.response_schema = self.schema.clone();
        let mut digest = None;
        if let Some(answer) = self.journal.borrow_mut().replay(|| *digest.insert(request_digest(&request))) {
            return Ok(answer);
        }
        let digest = match (absorbed, digest) {
            (true, _) => None,
            (false, Some(digest)) => Some(digest),
            (false, None) => Some(request_digest(&request)),
        };
        let prompt_estimate = Usage::estimate(request.prompt_bytes(), 0).prompt_tokens;
        self.ledger.borrow().check_shared(&model, prompt_estimate)?;
        // Nothing this call depends on may be lost if the tab closes while
        // it streams.
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.clone().keep_first().await.map_err(RoleError::Storage)?;
        }
        self.events.emit_with(|| TeamEvent::LlmStarted { role: self.role.clone(), model: model.clone(), quiet: self.quiet });
        let done = match self.llm.reply(request) {
            Reply::Whole(whole) => {
                let mut done = whole.await?;
                // Shown as its stream would show it: one delta, the whole text.
                if !done.text.is_empty() {
                    done.text = self.show(done.text);
                }
                done
            }
            Reply::Stream(stream) => self.follow(stream).await?,
        };
        // Priced by the model asked for: providers answer with dated names
        // the price table may not list.
        // The ledger is released before the event: listeners read it.
        let entry = {
            let mut ledger = self.ledger.borrow_mut();
            let entry = ledger.record_entry(&self.role, &model, done.usage);
            self.events.is_listening().then(|| entry.clone())
        };
        if let Some(entry) = entry {
            self.events.emit(TeamEvent::LlmFinished { role: self.role.clone(), entry });
        }
        if let Some(digest) = digest {
            self.journal.borrow_mut().record(digest, &done.text);
        }
        Ok(done.text)
    }

    /// A streamed answer: each delta shown, waits announced, until `Done`.
    async fn follow(&self, mut stream: LocalBoxStream<'static, Result<StreamEvent, LlmError>>) -> Result<Completion, RoleError> {
        let mut partial = String::new();
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(text) => {
                    let text = self.show(text);
                    if partial.is_empty() {
                        // The first delta's string is kept as it is.
                        partial = text;
                    } else {
                        partial.push_str(&text);
                    }
                }
                StreamEvent::Waiting { ms, reason } => {
                    self.events.emit_with(|| TeamEvent::Waiting { role: self.role.clone(), seconds: ms.div_ceil(1000), reason });
                }
                StreamEvent::Done(done) => return Ok(done),
            }
        }
        Err(RoleError::Llm(LlmError::Truncated { partial_text: partial }))
    }

    /// A piece of the answer, lent to the listener as a delta, then given
    /// back: no copy.
    fn show(&self, text: String) -> String {
        if !self.events.is_listening() {
            return text;
        }
        let event = TeamEvent::LlmDelta { role: self.role.clone(), text };
        self.events.emit_ref(&event);
        let TeamEvent::LlmDelta { text, .. } = event else { unreachable!() };
        text
    }

    /// Ask with a system prompt and one user prompt.
    pub async fn aask(&self, system: &str, prompt: &str) -> Result<String, RoleError> {
        self.aask_owned(system, prompt.to_string()).await
    }

    /// [`LlmGate::aask`] with a prompt it may keep (no copy of a long prompt).
    pub async fn aask_owned(&self, system: &str, prompt: String) -> Result<String, RoleError> {
        self.ask(turns(Some(system), prompt)).await
    }
}

/// A system turn (none when absent or empty) and a user turn.
fn turns(system: Option<&str>, prompt: String) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(2);
    if let Some(system) = system.filter(|s| !s.is_empty()) {
        messages.push(ChatMessage::system(system));
    }
    messages.push(ChatMessage::user(prompt));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Digests are saved with a pending reaction's journal: they must not
    /// change between builds, or a resumed run pays for its calls again.
    /// Pinned over short and long turns and the field boundaries.
    #[test]
    fn request_digests_are_stable() {
        let text: String = (0..5000u32).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let mut folded = 0u64;
        for len in (0..=100).chain([255, 256, 257, 4999, 5000]) {
            let request = ChatRequest::new("gpt-4o", vec![ChatMessage::system("You are"), ChatMessage::user(&text[..len])]);
            folded = folded.rotate_left(5) ^ request_digest(&request);
        }
        let one = request_digest(&ChatRequest::new("m", vec![ChatMessage::user("hello")]));
        let none = request_digest(&ChatRequest::new("", vec![]));
        assert_eq!((folded, one, none), (1238707452484693396, 10974666588064768279, 12161962213042174405));
        let split = |a: &str, b: &str| request_digest(&ChatRequest::new("m", vec![ChatMessage::system(a), ChatMessage::user(b)]));
        assert_ne!(split("ab", "c"), split("a", "bc"), "turns cannot run into each other");
    }
}
