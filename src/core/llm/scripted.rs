//! A scripted language model for tests and benchmarks.
//!
//! Each call consumes exactly one scripted turn, in order; a call with no turn
//! left is an error ([`LlmError::ScriptExhausted`]), never a silent repeat.
//! A request for a summary of a role's earlier work (`rolezero::condense`)
//! consumes no turn: it is answered with [`summary_of`] the request, so a
//! script keeps its order whether or not the history was condensed (a
//! model answering by a function sees those requests itself).
//! Every request is recorded so tests can assert on prompts. Each call
//! suspends once before answering, as a real network call would, so work
//! spreads over a round the way it does in a live run. An answer of one
//! chunk (or a failure) is handed back whole ([`Reply::Whole`]), longer
//! ones stream in chunks; both mean the same (see `reply`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::{LocalBoxStream, Stream};

use super::{ChatRequest, Completion, FinishReason, Llm, LlmError, Reply, StreamEvent, Usage};

/// The closing turn of a summary request: `rolezero::condense::CONDENSE`,
/// read from the same file (the model layer does not import the roles').
const CONDENSE: &str = include_str!("../rolezero/prompts/condense.md");
use std::sync::Arc;

/// One scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// Answer with this text; usage is estimated (prompt bytes, answer
    /// characters) unless set.
    Text { text: String, usage: Option<Usage> },
    /// Fail the call with this error.
    Fail(LlmError),
}

impl Turn {
    pub fn text(text: impl Into<String>) -> Self {
        Turn::Text { text: text.into(), usage: None }
    }
    pub fn with_usage(text: impl Into<String>, prompt_tokens: u64, completion_tokens: u64) -> Self {
        Turn::Text {
            text: text.into(),
            usage: Some(Usage::new(prompt_tokens, completion_tokens)),
        }
    }
}

#[derive(Default)]
struct Script {
    turns: VecDeque<Turn>,
    requests: Vec<ChatRequest>,
    /// Answer every call with this text once the turns run out (benchmarks only).
    fallback: Option<AnswerFn>,
}

type AnswerFn = Box<dyn Fn(usize, &ChatRequest) -> String>;

/// A model that answers from a script. Cloning shares the script.
#[derive(Clone)]
pub struct ScriptedLlm {
    /// Shared with every answer's `Done` (no copy per call).
    model: Arc<str>,
    script: Rc<RefCell<Script>>,
    /// Split each text answer into deltas of this many characters.
    chunk_chars: usize,
}

impl ScriptedLlm {
    pub fn new(model: impl Into<Arc<str>>, turns: impl IntoIterator<Item = Turn>) -> Self {
        Self {
            model: model.into(),
            script: Rc::new(RefCell::new(Script { turns: turns.into_iter().collect(), ..Default::default() })),
            chunk_chars: 16,
        }
    }

    /// A model whose answer is computed from the call number and the request;
    /// it never runs out. For benchmarks, where a script of a million turns
    /// would measure the script.
    pub fn answering(model: impl Into<Arc<str>>, answer: impl Fn(usize, &ChatRequest) -> String + 'static) -> Self {
        let llm = Self::new(model, []);
        llm.script.borrow_mut().fallback = Some(Box::new(answer));
        llm
    }

    /// Texts, each one turn.
    pub fn from_texts<S: Into<String>>(model: impl Into<Arc<str>>, texts: impl IntoIterator<Item = S>) -> Self {
        Self::new(model, texts.into_iter().map(|t| Turn::text(t)))
    }

    pub fn push(&self, turn: Turn) {
        self.script.borrow_mut().turns.push_back(turn);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.script.borrow().requests.clone()
    }

    pub fn calls(&self) -> usize {
        self.script.borrow().requests.len()
    }

    /// Turns not yet consumed.
    pub fn remaining(&self) -> usize {
        self.script.borrow().turns.len()
    }

    fn take_turn(&self, request: ChatRequest) -> Turn {
        let mut script = self.script.borrow_mut();
        let call = script.requests.len();
        let summary = script.fallback.is_none() && request.messages.last().is_some_and(|m| m.content == CONDENSE);
        let next = if summary { None } else { script.turns.pop_front() };
        let turn = match next {
            _ if summary => Turn::text(summary_of(&request)),
            Some(turn) => turn,
            None => match &script.fallback {
                Some(answer) => Turn::text(answer(call, &request)),
                None => Turn::Fail(LlmError::ScriptExhausted { call: call + 1 }),
            },
        };
        script.requests.push(request);
        turn
    }
}

/// The answer to a summary request: short, and the same for the same
/// request (the number of turns it summarises and how the first opens).
pub fn summary_of(request: &ChatRequest) -> String {
    let turns = request.messages.iter().filter(|m| m.role != super::ChatRole::System);
    let summarised = turns.clone().count().saturating_sub(1);
    let opening: String = turns.map(|m| m.content.as_str()).next().unwrap_or_default().chars().take(80).collect();
    format!("Scripted summary of {summarised} earlier turns; the first began: {}", opening.replace('\n', " "))
}

impl std::fmt::Debug for ScriptedLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedLlm").field("model", &self.model).field("remaining", &self.remaining()).finish()
    }
}

impl Llm for ScriptedLlm {
    fn model(&self) -> &str {
        &self.model
    }

    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        let prompt_bytes = request.prompt_bytes();
        // The turn is taken when the call is made, not when the stream is
        // polled, so call order is request order.
        let turn = self.take_turn(request);
        self.answer_stream(turn, prompt_bytes)
    }

    /// An answer of one piece (at most one chunk) or a failure comes back
    /// whole: exactly what its stream would have sent (one delta, then
    /// `Done`), without the stream. Longer answers stream in chunks.
    fn reply(&self, request: ChatRequest) -> Reply {
        let prompt_bytes = request.prompt_bytes();
        match self.take_turn(request) {
            Turn::Fail(e) => Reply::whole(Err(e)),
            Turn::Text { text, usage } if text.len() <= self.chunk_chars.max(1) => {
                let usage = usage.unwrap_or_else(|| Usage::estimate(prompt_bytes, text.chars().count()));
                Reply::whole(Ok(Completion { text, finish: FinishReason::Stop, usage, model: self.model.clone() }))
            }
            turn => Reply::Stream(self.answer_stream(turn, prompt_bytes)),
        }
    }
}

impl ScriptedLlm {
    fn answer_stream(&self, turn: Turn, prompt_bytes: usize) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        Box::pin(Answer {
            suspended: false,
            turn: Some(turn),
            sent: 0,
            chars: 0,
            chunk_chars: self.chunk_chars.max(1),
            prompt_bytes,
            model: self.model.clone(),
        })
    }
}

/// The stream of one scripted answer: it suspends once (as a network call
/// would), then hands out deltas of `chunk_chars` characters, then `Done`.
/// Written by hand rather than collected into a list of events first: the
/// benchmarks make millions of these calls.
struct Answer {
    suspended: bool,
    /// `None` once the answer is over.
    turn: Option<Turn>,
    /// Bytes of the text already sent as deltas.
    sent: usize,
    /// Characters of the text already sent.
    chars: usize,
    chunk_chars: usize,
    prompt_bytes: usize,
    model: Arc<str>,
}

impl Stream for Answer {
    type Item = Result<StreamEvent, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if !self.suspended {
            self.suspended = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let this = &mut *self;
        let event = match this.turn.take() {
            None => None,
            Some(Turn::Fail(e)) => Some(Err(e)),
            Some(Turn::Text { text, usage }) if this.sent < text.len() => {
                let rest = &text[this.sent..];
                // No more bytes than a chunk's characters: the rest is the
                // last delta (the usual short answer), found without a walk.
                let (len, n) = if rest.len() <= this.chunk_chars {
                    (rest.len(), rest.chars().count())
                } else {
                    match rest.char_indices().nth(this.chunk_chars) {
                        Some((end, _)) => (end, this.chunk_chars),
                        None => (rest.len(), rest.chars().count()),
                    }
                };
                let delta = rest[..len].to_string();
                this.sent += len;
                this.chars += n;
                this.turn = Some(Turn::Text { text, usage });
                Some(Ok(StreamEvent::Delta(delta)))
            }
            Some(Turn::Text { text, usage }) => {
                let usage = usage.unwrap_or_else(|| Usage::estimate(this.prompt_bytes, this.chars));
                let model = this.model.clone();
                Some(Ok(StreamEvent::Done(Completion { text, finish: FinishReason::Stop, usage, model })))
            }
        };
        Poll::Ready(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::ChatMessage;
    use futures::executor::block_on;
    use futures::StreamExt;

    fn ask(llm: &ScriptedLlm, prompt: &str) -> Result<Completion, LlmError> {
        block_on(llm.complete(ChatRequest::new("m", vec![ChatMessage::user(prompt)])))
    }

    #[test]
    fn consumes_one_turn_per_call_and_records_requests() {
        let llm = ScriptedLlm::from_texts("m", ["one", "two"]);
        assert_eq!(ask(&llm, "a").unwrap().text, "one");
        assert_eq!(ask(&llm, "b").unwrap().text, "two");
        let prompts: Vec<_> = llm.requests().iter().map(|r| r.messages[0].content.clone()).collect();
        assert_eq!(prompts, ["a", "b"]);
    }

    #[test]
    fn a_summary_request_is_answered_without_taking_the_next_turn() {
        let llm = ScriptedLlm::from_texts("m", ["one", "two"]);
        assert_eq!(ask(&llm, "a").unwrap().text, "one");
        let summary = ChatRequest::new(
            "m",
            vec![ChatMessage::system("the role"), ChatMessage::user("a\nfirst request"), ChatMessage::assistant("done"), ChatMessage::user(CONDENSE)],
        );
        let answer = block_on(llm.complete(summary.clone())).unwrap().text;
        assert_eq!(answer, "Scripted summary of 2 earlier turns; the first began: a first request");
        assert_eq!(block_on(llm.complete(summary)).unwrap().text, answer, "the same request, the same summary");
        assert_eq!(llm.remaining(), 1, "no turn taken");
        assert_eq!(ask(&llm, "b").unwrap().text, "two", "the script goes on in order");
        assert_eq!(llm.calls(), 4, "every request recorded, the summary ones too");
        // A model answering by a function gets summary requests itself.
        let by_function = ScriptedLlm::answering("m", |_, r| format!("{} turns", r.messages.len()));
        assert_eq!(block_on(by_function.complete(ChatRequest::new("m", vec![ChatMessage::user(CONDENSE)]))).unwrap().text, "1 turns");
    }

    #[test]
    fn running_out_is_an_error_not_a_repeat() {
        let llm = ScriptedLlm::from_texts("m", ["only"]);
        ask(&llm, "a").unwrap();
        assert_eq!(ask(&llm, "b"), Err(LlmError::ScriptExhausted { call: 2 }));
    }

    #[test]
    fn streams_deltas_that_join_to_the_text() {
        let llm = ScriptedLlm::from_texts("m", ["a fairly long answer of more than sixteen chars"]);
        let events: Vec<_> = block_on(llm.stream(ChatRequest::new("m", vec![])).collect::<Vec<_>>());
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::Delta(d)) => Some(d.as_str()),
                _ => None,
            })
            .collect();
        assert!(events.len() > 2);
        assert_eq!(deltas, "a fairly long answer of more than sixteen chars");
        assert!(matches!(events.last(), Some(Ok(StreamEvent::Done(c))) if c.usage.estimated));
    }

    #[test]
    fn deltas_are_chunk_chars_characters_each() {
        for (text, chunk, want) in [
            ("", 3, vec![]),
            ("abcdefg", 3, vec!["abc", "def", "g"]),
            ("abcdef", 3, vec!["abc", "def"]),
            ("héllo wörld", 2, vec!["hé", "ll", "o ", "wö", "rl", "d"]),
        ] {
            let llm = ScriptedLlm { chunk_chars: chunk, ..ScriptedLlm::from_texts("m", [text]) };
            let events: Vec<_> = block_on(llm.stream(ChatRequest::new("m", vec![])).collect::<Vec<_>>());
            let deltas: Vec<String> = events
                .iter()
                .filter_map(|e| match e {
                    Ok(StreamEvent::Delta(d)) => Some(d.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(deltas, want, "{text:?}");
            let Some(Ok(StreamEvent::Done(done))) = events.last() else { panic!("no Done") };
            assert_eq!(done.usage.completion_tokens, (text.chars().count() as u64).div_ceil(4));
        }
    }

    #[test]
    fn scripted_failures_surface_as_errors() {
        let llm = ScriptedLlm::new("m", [Turn::Fail(LlmError::BadKey { message: "nope".into() })]);
        assert!(matches!(ask(&llm, "a"), Err(LlmError::BadKey { .. })));
    }
}
