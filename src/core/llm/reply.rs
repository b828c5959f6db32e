//! [`Reply`]: how a model answers one call, streamed or whole.
//!
//! Providers stream (`Reply::Stream`). A model that knows its whole answer
//! when it is asked (the scripted model, for an answer of one piece or an
//! error) hands it back as [`Reply::Whole`] instead: no stream to box and
//! poll, no copy of the text into a delta. A whole answer means exactly
//! what a stream of one `Delta` (the whole text; none when it is empty)
//! then `Done` means, or the error; [`Reply::into_stream`] makes it that
//! stream. It still suspends once before it is ready, as any call does,
//! so a call remains a point where the round's other roles get a turn.
//! Kept for the native overhead floor (S5 >= 100x MetaGPT, issue #24): streaming
//! every scripted answer measured S5's first 100 steps at 1.49 us (108x) against
//! 1.0-1.27 us (126-160x), and 12.1 heap allocations a step against 8.15.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::{self, LocalBoxStream, StreamExt};

use super::{Completion, LlmError, StreamEvent};

/// One call's answer.
pub enum Reply {
    /// Zero or more `Delta`s, then exactly one `Done`, or an error at any point.
    Stream(LocalBoxStream<'static, Result<StreamEvent, LlmError>>),
    /// The whole answer (or the error) after one suspension.
    Whole(WholeAnswer),
}

impl Reply {
    /// An answer known whole when asked.
    pub fn whole(answer: Result<Completion, LlmError>) -> Self {
        Reply::Whole(WholeAnswer { suspended: false, answer: Some(answer) })
    }

    /// The answer as a stream: a whole answer becomes one `Delta` of its
    /// text (none when it is empty) and its `Done`, or its error.
    pub fn into_stream(self) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        match self {
            Reply::Stream(stream) => stream,
            Reply::Whole(whole) => Box::pin(stream::once(whole).flat_map(|answer| {
                let events = match answer {
                    Ok(done) if done.text.is_empty() => vec![Ok(StreamEvent::Done(done))],
                    Ok(done) => vec![Ok(StreamEvent::Delta(done.text.clone())), Ok(StreamEvent::Done(done))],
                    Err(e) => vec![Err(e)],
                };
                stream::iter(events)
            })),
        }
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reply::Stream(_) => f.write_str("Reply::Stream"),
            Reply::Whole(whole) => f.debug_tuple("Reply::Whole").field(&whole.answer).finish(),
        }
    }
}

/// A whole answer: pending once (it wakes itself), then ready.
#[derive(Debug)]
pub struct WholeAnswer {
    suspended: bool,
    /// `None` once handed out.
    answer: Option<Result<Completion, LlmError>>,
}

impl Future for WholeAnswer {
    type Output = Result<Completion, LlmError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if !self.suspended {
            self.suspended = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.answer.take().expect("a whole answer is polled after it is ready"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures::task::noop_waker;

    use super::*;
    use crate::core::llm::{FinishReason, Usage};

    fn done(text: &str) -> Completion {
        Completion { text: text.into(), finish: FinishReason::Stop, usage: Usage::estimate(8, text.len()), model: Arc::from("m") }
    }

    #[test]
    fn a_whole_answer_suspends_once_then_is_ready() {
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let Reply::Whole(mut whole) = Reply::whole(Ok(done("hi"))) else { panic!("whole") };
        assert!(Pin::new(&mut whole).poll(&mut cx).is_pending());
        assert_eq!(Pin::new(&mut whole).poll(&mut cx), Poll::Ready(Ok(done("hi"))));
    }

    #[test]
    fn as_a_stream_it_is_one_delta_then_done() {
        let events = |reply: Reply| futures::executor::block_on(reply.into_stream().collect::<Vec<_>>());
        assert_eq!(events(Reply::whole(Ok(done("hi")))), [Ok(StreamEvent::Delta("hi".into())), Ok(StreamEvent::Done(done("hi")))]);
        assert_eq!(events(Reply::whole(Ok(done("")))), [Ok(StreamEvent::Done(done("")))]);
        assert_eq!(events(Reply::whole(Err(LlmError::Cancelled))), [Err(LlmError::Cancelled)]);
    }
}
