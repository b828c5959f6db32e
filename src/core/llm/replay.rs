//! A recorded run played back: the [`Llm`] behind the site's "Replay a
//! sample run" button. The team is the real one; only its model answers
//! from a recording, turn by turn in call order, streamed at a pace that
//! looks like a model typing. No network, no key, and no cost (the replay
//! model is priced at $0 by the runner).
//!
//! The pace is time, so the pauses go through the injected [`Runtime`]
//! (the browser's timers in the site, a fake clock in tests); this file
//! reads no clock. The recording is `recordings/company-2048.json`, the
//! same file the native MGX test runs, so the replay cannot drift from what
//! the team really does with those answers.

use std::cell::RefCell;
use crate::core::sorted_map::SortedSet;
use std::rc::Rc;

use futures::stream::{self, LocalBoxStream};
use serde::Deserialize;

use super::client::Runtime;
use super::{ChatRequest, Completion, FinishReason, Llm, LlmError, StreamEvent, Usage};

/// The model name a replay reports (and is priced under, at $0).
pub const REPLAY_MODEL: &str = "replay";

/// A recorded run: what the user asked, which team, and the model's
/// answers in call order.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Recording {
    pub title: String,
    pub idea: String,
    /// A `TeamKind` id ("company").
    pub team: String,
    pub turns: Vec<RecordedTurn>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RecordedTurn {
    pub text: String,
}

/// The sample run shipped with the site.
const SAMPLE_JSON: &str = include_str!("../../../recordings/company-2048.json");

impl Recording {
    /// The sample run shipped with the site. It is checked by the tests, so
    /// reading it cannot fail in a build that passed them.
    pub fn sample() -> Recording {
        Self::parse(SAMPLE_JSON).unwrap_or_else(|e| Recording { title: format!("broken recording: {e}"), idea: String::new(), team: "company".into(), turns: Vec::new() })
    }

    pub fn parse(json: &str) -> Result<Recording, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// Every character the model "types" in the replay.
    pub fn chars(&self) -> usize {
        self.turns.iter().map(|t| t.text.chars().count()).sum()
    }
}

/// How fast the replay types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The pause before the first token of each answer ("thinking").
    pub first_token_ms: u64,
    /// Characters per delta.
    pub chunk_chars: usize,
    /// The pause before each delta.
    pub chunk_ms: u64,
}

impl Default for Pace {
    /// About 300 characters a second, a fast model's speed.
    fn default() -> Self {
        Pace { first_token_ms: 400, chunk_chars: 12, chunk_ms: 40 }
    }
}

#[derive(Default)]
struct Cursor {
    /// The next turn never handed out.
    next: usize,
    /// Turns handed out whose call was stopped before its end: handed out
    /// again, lowest first, so a resumed run gets the answers it missed.
    returned: SortedSet<usize>,
    /// Bumped by [`ReplayLlm::stop`]; a stream started before the bump ends.
    generation: u64,
    calls: usize,
}

/// Answers from a [`Recording`] at a [`Pace`]. Cloning shares the cursor.
#[derive(Clone)]
pub struct ReplayLlm {
    turns: Rc<[String]>,
    cursor: Rc<RefCell<Cursor>>,
    runtime: Rc<dyn Runtime>,
    pace: Pace,
}

impl ReplayLlm {
    pub fn new(recording: &Recording, runtime: Rc<dyn Runtime>, pace: Pace) -> Self {
        Self {
            turns: recording.turns.iter().map(|t| t.text.clone()).collect(),
            cursor: Rc::new(RefCell::new(Cursor::default())),
            runtime,
            pace,
        }
    }

    /// End every answer being typed (the Stop button): each ends with
    /// [`LlmError::Cancelled`] and its turn is kept for the next run.
    pub fn stop(&self) {
        self.cursor.borrow_mut().generation += 1;
    }

    /// Turns not yet answered in full.
    pub fn remaining(&self) -> usize {
        let cursor = self.cursor.borrow();
        self.turns.len().saturating_sub(cursor.next) + cursor.returned.len()
    }

    /// Calls made so far (stopped ones included).
    pub fn calls(&self) -> usize {
        self.cursor.borrow().calls
    }

    fn take(&self) -> (Option<usize>, u64) {
        let mut cursor = self.cursor.borrow_mut();
        cursor.calls += 1;
        let index = match cursor.returned.pop_first() {
            Some(i) => Some(i),
            None if cursor.next < self.turns.len() => {
                cursor.next += 1;
                Some(cursor.next - 1)
            }
            None => None,
        };
        (index, cursor.generation)
    }
}

/// Where one replayed answer is.
struct Typing {
    llm: ReplayLlm,
    index: usize,
    generation: u64,
    /// Byte offset of the next delta in the text.
    at: usize,
    chars: usize,
    prompt_bytes: usize,
    over: bool,
}

impl Llm for ReplayLlm {
    fn model(&self) -> &str {
        REPLAY_MODEL
    }

    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        // The turn is taken when the call is made, so call order is turn order.
        let (index, generation) = self.take();
        let Some(index) = index else {
            let call = self.calls();
            return Box::pin(stream::once(async move { Err(LlmError::ScriptExhausted { call }) }));
        };
        let typing = Typing { llm: self.clone(), index, generation, at: 0, chars: 0, prompt_bytes: request.prompt_bytes(), over: false };
        Box::pin(stream::unfold(typing, type_next))
    }
}

/// The next step of a replayed answer: a pause, then a delta, the end, or
/// the stop.
async fn type_next(mut t: Typing) -> Option<(Result<StreamEvent, LlmError>, Typing)> {
    if t.over {
        return None;
    }
    let pace = t.llm.pace;
    t.llm.runtime.sleep(if t.at == 0 { pace.first_token_ms } else { pace.chunk_ms }).await;
    if t.llm.cursor.borrow().generation != t.generation {
        t.llm.cursor.borrow_mut().returned.insert(t.index);
        t.over = true;
        return Some((Err(LlmError::Cancelled), t));
    }
    let text = &t.llm.turns[t.index];
    if t.at < text.len() {
        let rest = &text[t.at..];
        let end = rest.char_indices().nth(pace.chunk_chars.max(1)).map(|(i, _)| i).unwrap_or(rest.len());
        let delta = rest[..end].to_string();
        t.at += end;
        t.chars += delta.chars().count();
        return Some((Ok(StreamEvent::Delta(delta)), t));
    }
    t.over = true;
    let done = Completion {
        text: text.clone(),
        finish: FinishReason::Stop,
        usage: Usage::estimate(t.prompt_bytes, t.chars),
        model: REPLAY_MODEL.into(),
    };
    Some((Ok(StreamEvent::Done(done)), t))
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;
    use futures::future::LocalBoxFuture;

    use super::*;
    use crate::core::llm::{collect_stream, ChatMessage};

    #[derive(Default)]
    struct FakeClock {
        slept: RefCell<Vec<u64>>,
        /// Called on every sleep (to press Stop mid-answer).
        on_sleep: RefCell<Option<Box<dyn Fn(usize)>>>,
    }

    impl Runtime for FakeClock {
        fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
            self.slept.borrow_mut().push(ms);
            if let Some(f) = &*self.on_sleep.borrow() {
                f(self.slept.borrow().len());
            }
            Box::pin(async {})
        }
        fn now_ms(&self) -> u64 {
            0
        }
        fn jitter(&self) -> f64 {
            0.0
        }
    }

    fn recording(texts: &[&str]) -> Recording {
        Recording { title: "t".into(), idea: "i".into(), team: "company".into(), turns: texts.iter().map(|t| RecordedTurn { text: t.to_string() }).collect() }
    }

    fn ask(llm: &ReplayLlm) -> (Vec<String>, Result<Completion, LlmError>) {
        block_on(collect_stream(llm.stream(ChatRequest::new("x", vec![ChatMessage::user("hello")]))))
    }

    #[test]
    fn the_sample_recording_reads_and_is_a_company_run() {
        let sample = Recording::sample();
        assert_eq!(sample.team, "company");
        assert!(sample.turns.len() >= 10, "{}", sample.title);
        assert!(sample.turns.iter().all(|t| !t.text.is_empty()));
        assert_eq!(Recording::parse(SAMPLE_JSON).map(|r| r.turns.len()).ok(), Some(sample.turns.len()));
    }

    #[test]
    fn the_real_company_replays_the_sample_to_the_end_for_free() {
        use crate::core::cost::{Price, PriceTable};
        use crate::core::events::{EventSink, StopReason};
        use crate::core::recipes::build_team;
        use crate::core::settings::TeamKind;
        let sample = Recording::sample();
        let clock = Rc::new(FakeClock::default());
        let llm = ReplayLlm::new(&sample, clock.clone(), Pace::default());
        let mut team = build_team(TeamKind::from_id(&sample.team).unwrap(), Rc::new(llm.clone()), EventSink::default());
        let mut prices = PriceTable::empty();
        prices.set(REPLAY_MODEL, Price::new(0.0, 0.0));
        team.ledger.borrow_mut().prices = prices;
        team.invest(3.0);
        team.run_project(&sample.idea);
        let outcome = block_on(team.run(20));
        assert_eq!(outcome.stop, StopReason::Idle, "{:?}", outcome.failures);
        assert_eq!(llm.remaining(), 0, "every recorded answer used");
        assert_eq!(team.ledger.borrow().total().cost, 0.0);
        assert!(team.env.world.files.borrow().read("game.js").is_ok());
        // Paced: at least one pause per answer plus one per delta.
        let pauses = clock.slept.borrow().len();
        assert!(pauses >= sample.turns.len() + sample.chars() / Pace::default().chunk_chars, "{pauses}");
    }

    #[test]
    fn answers_in_call_order_at_the_pace() {
        let clock = Rc::new(FakeClock::default());
        let pace = Pace { first_token_ms: 300, chunk_chars: 4, chunk_ms: 20 };
        let llm = ReplayLlm::new(&recording(&["héllo wörld", "two"]), clock.clone(), pace);
        assert_eq!(llm.model(), REPLAY_MODEL);
        let (deltas, done) = ask(&llm);
        assert_eq!(deltas, ["héll", "o wö", "rld"]);
        let done = done.unwrap();
        assert_eq!((done.text.as_str(), &*done.model, done.usage.estimated), ("héllo wörld", REPLAY_MODEL, true));
        assert_eq!(done.usage.completion_tokens, 3);
        // A pause before the first token, one per delta, one before the end.
        assert_eq!(*clock.slept.borrow(), [300, 20, 20, 20]);
        assert_eq!(ask(&llm).1.unwrap().text, "two");
        assert_eq!(llm.remaining(), 0);
        assert_eq!(ask(&llm).1, Err(LlmError::ScriptExhausted { call: 3 }), "running out is an error, never a repeat");
    }

    #[test]
    fn a_stopped_answer_is_given_again_after_resume() {
        let clock = Rc::new(FakeClock::default());
        let llm = ReplayLlm::new(&recording(&["first answer", "second"]), clock.clone(), Pace { first_token_ms: 1, chunk_chars: 3, chunk_ms: 1 });
        let stopper = llm.clone();
        *clock.on_sleep.borrow_mut() = Some(Box::new(move |n| {
            if n == 3 {
                stopper.stop();
            }
        }));
        let (deltas, result) = ask(&llm);
        assert_eq!((deltas.concat(), result), ("fir".to_string() + "st ", Err(LlmError::Cancelled)));
        assert_eq!(llm.remaining(), 2, "the stopped turn is kept");
        *clock.on_sleep.borrow_mut() = None;
        assert_eq!(ask(&llm).1.unwrap().text, "first answer");
        assert_eq!(ask(&llm).1.unwrap().text, "second");
    }
}
