//! One seam per wire protocol: a [`Codec`] builds the HTTP request for a
//! [`ChatRequest`], decodes the streamed answer, and maps the provider's
//! error envelope to an [`LlmError`]. `HttpLlm` (in `client`) calls these
//! three and never asks which protocol it is speaking, so a new protocol
//! is one file with one `Codec` and a row in the preset table.
//!
//! It deliberately holds no IO, no retry rule (`retry` decides for every
//! protocol alike) and no list of the codecs: a preset names its codec.

use std::fmt;

use super::framing::{EventDecoder, EventStream};
use super::http::{HttpRequest, HttpResponseHead};
use super::retry::error_from_response;
use super::{ChatRequest, Completion, LlmError, StreamEvent};

/// A provider's wire protocol.
pub trait Codec: fmt::Debug + Sync {
    /// A short, stable name for messages ("openai", "anthropic", "gemini").
    fn name(&self) -> &'static str;

    /// The streaming request for `request`. A missing or blank key sends
    /// no credential header (local servers and proxies need none).
    fn build_request(&self, base_url: &str, api_key: Option<&str>, request: &ChatRequest) -> HttpRequest;

    /// A decoder for the streamed answer to `request`.
    fn decoder(&self, request: &ChatRequest) -> Box<dyn StreamDecoder>;

    /// The typed error for a response that was not a success. Every
    /// provider's envelope so far (OpenAI's `type`/`code`, Anthropic's
    /// `type`, Google's `code`/`status`) is read by the shared mapping in
    /// `retry`; a codec whose provider says things differently overrides this.
    fn error_from_response(&self, head: &HttpResponseHead, body: &str) -> LlmError {
        error_from_response(self.name(), head.status, head, body)
    }
}

/// Two codecs are the same protocol when they have the same name (a preset
/// row compares by value).
impl PartialEq for dyn Codec + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Codec + '_ {}

/// A streamed answer decoded from raw bytes, whatever the protocol.
pub trait StreamDecoder {
    /// Decode another network chunk: deltas, then `Done` or an error;
    /// after either, nothing more.
    fn feed(&mut self, bytes: &[u8]) -> Vec<Result<StreamEvent, LlmError>>;

    /// The bytes ended. `Ok(None)`: the stream had already ended (with
    /// `Done` or an error). `Ok(Some(..))`: the end of the bytes is the end
    /// of the answer (Gemini sends no end marker). `Err`: cut short
    /// ([`LlmError::Truncated`] with the text so far).
    fn finish(self: Box<Self>) -> Result<Option<Completion>, LlmError>;
}

impl<D: EventDecoder> StreamDecoder for EventStream<D> {
    fn feed(&mut self, bytes: &[u8]) -> Vec<Result<StreamEvent, LlmError>> {
        EventStream::feed(self, bytes)
    }

    fn finish(self: Box<Self>) -> Result<Option<Completion>, LlmError> {
        EventStream::finish(*self)
    }
}
