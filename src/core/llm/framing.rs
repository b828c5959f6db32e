//! The framing every streaming codec shares: SSE events in, stream events
//! out, nothing after the end, and "the bytes ended before the provider said
//! it was done" reported as truncation with the text so far (unless the
//! protocol's answer ends with its body, see [`EventDecoder::at_end`]).
//!
//! A codec supplies only what its events mean ([`EventDecoder`]); it does
//! not repeat the loop, the end-of-stream rule or the truncation rule.

use super::sse::{SseDecoder, SseEvent};
use super::{ChatRequest, Completion, LlmError, StreamEvent};

/// What one protocol's events mean.
pub trait EventDecoder {
    /// Handle one event, pushing deltas to `out`; return the final item
    /// (`Done` or an error) when this event ends the stream.
    fn on_event(&mut self, event: SseEvent, out: &mut Vec<Result<StreamEvent, LlmError>>) -> Option<Result<StreamEvent, LlmError>>;

    /// The text received so far (kept in a truncation error).
    fn partial_text(self) -> String;

    /// The bytes ended before any event ended the stream. For protocols
    /// with an end marker (OpenAI's `[DONE]`, Anthropic's `message_stop`)
    /// that is truncation, the default; a protocol whose answer ends with
    /// the body (Gemini) says `Done` here when the provider said why it
    /// stopped.
    fn at_end(self) -> Result<Completion, LlmError>
    where
        Self: Sized,
    {
        Err(LlmError::Truncated { partial_text: self.partial_text() })
    }

    /// A decoder for an answer to a prompt of `prompt_chars` characters
    /// (the token estimate when the server reports no usage); `model` is
    /// the fallback when the server names none.
    fn start(prompt_chars: usize, model: String) -> Self;
}

/// Decodes a provider's streamed answer from raw bytes.
///
/// [`feed`](Self::feed) yields deltas, then `Done` or an error; after
/// either, nothing more. [`finish`](Self::finish) reports what the end of
/// the bytes means: truncation unless the stream was already over.
#[derive(Debug, Clone)]
pub struct EventStream<D> {
    sse: SseDecoder,
    decoder: D,
    over: bool,
}

impl<D: EventDecoder> EventStream<D> {
    /// `prompt_chars` estimates prompt tokens if the server reports no usage.
    pub fn new(prompt_chars: usize) -> Self {
        Self::with(D::start(prompt_chars, String::new()))
    }

    /// A decoder for the answer to `request` (its model name is the fallback
    /// when the server names none).
    pub fn for_request(request: &ChatRequest) -> Self {
        Self::with(D::start(request.prompt_chars(), request.model.to_string()))
    }

    fn with(decoder: D) -> Self {
        Self { sse: SseDecoder::default(), decoder, over: false }
    }

    /// Decode another network chunk.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Result<StreamEvent, LlmError>> {
        let mut out = Vec::new();
        for event in self.sse.feed(bytes) {
            if self.over {
                break;
            }
            if let Some(result) = self.decoder.on_event(event, &mut out) {
                self.over = true;
                out.push(result);
            }
        }
        out
    }

    /// The end of the bytes. `Ok(None)` if the stream already ended (with
    /// `Done` or an error); otherwise what the decoder makes of the end
    /// (see [`EventDecoder::at_end`]): truncation, or for a protocol with
    /// no end marker, the finished answer.
    pub fn finish(self) -> Result<Option<Completion>, LlmError> {
        if self.over {
            Ok(None)
        } else {
            self.decoder.at_end().map(Some)
        }
    }
}
