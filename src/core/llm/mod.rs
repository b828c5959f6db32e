//! The LLM port: what the core asks of a language model, and what it gets back.
//!
//! The core never speaks a provider's wire format. It builds a [`ChatRequest`]
//! and consumes a stream of [`StreamEvent`]s through the [`Llm`] trait. The
//! provider codecs (`openai`, `anthropic`, `gemini`: each a [`codec::Codec`])
//! translate; the transport that moves
//! bytes lives outside the core (the browser's `fetch` in `web::fetch`).
//! This module does no IO and knows no clock.

pub mod anthropic;
pub mod client;
pub mod codec;
pub mod framing;
pub mod gemini;
pub mod http;
#[cfg(feature = "site")]
pub mod in_tab;
pub mod openai;
pub mod presets;
pub mod replay;
pub mod reply;
pub mod retry;
pub mod scripted;
pub mod sse;
pub mod transport;

use std::fmt;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use super::shared_str::SharedStr;
pub use reply::{Reply, WholeAnswer};

/// Who speaks a chat turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    System,
    User,
    Assistant,
}

/// One turn of a chat prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: ChatRole,
    pub content: String,
    /// Images after the text, as `data:` URLs (`core::image`); each codec
    /// writes them as its provider's image part.
    #[cfg(feature = "images")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

impl ChatMessage {
    fn new(role: ChatRole, content: String) -> Self {
        Self {
            role,
            content,
            #[cfg(feature = "images")]
            images: Vec::new(),
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(ChatRole::System, content.into())
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(ChatRole::User, content.into())
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(ChatRole::Assistant, content.into())
    }

    /// The images of this turn (none in a build without images).
    pub fn images(&self) -> &[String] {
        #[cfg(feature = "images")]
        return &self.images;
        #[cfg(not(feature = "images"))]
        &[]
    }
}

/// A provider-neutral completion request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Shared: a role asks the same model on every call.
    pub model: SharedStr,
    pub messages: Vec<ChatMessage>,
    /// Upper bound on completion tokens (required by Anthropic; codecs supply a
    /// default when `None`).
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// Ask for a JSON object answer where the protocol supports it.
    pub json_mode: bool,
    /// The JSON schema the answer must follow, for providers that
    /// constrain decoding to it (`response_format` `json_schema`, a
    /// grammar in the tab). A hint: a provider that cannot use it drops it
    /// and the answer is read the same way. Not saved: it is rebuilt from
    /// the command registry on every call.
    #[serde(skip)]
    pub response_schema: Option<Arc<ResponseSchema>>,
}

/// A named JSON schema for an answer (the RoleZero command list, an
/// ActionNode's fields), built by the core from its own types.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResponseSchema {
    /// `^[a-zA-Z0-9_-]{1,64}$`, as OpenAI asks of `json_schema.name`.
    pub name: String,
    /// Keys in the order the model should write them.
    pub schema: super::ordered_json::OrderedJson,
}

impl ChatRequest {
    pub fn new(model: impl Into<SharedStr>, messages: Vec<ChatMessage>) -> Self {
        Self { model: model.into(), messages, max_tokens: None, temperature: None, json_mode: false, response_schema: None }
    }

    /// Every character of the prompt, for estimates when a provider reports no usage.
    pub fn prompt_chars(&self) -> usize {
        self.messages.iter().map(|m| m.content.chars().count()).sum()
    }

    /// The prompt's length in bytes: for the estimates made on every call
    /// (the budget check, the scripted model), where counting characters
    /// would be a pass over the whole prompt each time. For ASCII it equals
    /// [`ChatRequest::prompt_chars`]; otherwise it is larger, which errs on
    /// the side of the budget.
    pub fn prompt_bytes(&self) -> usize {
        self.messages.iter().map(|m| m.content.len()).sum::<usize>() + self.image_bytes()
    }

    /// What the images weigh in the estimates, in prompt bytes: each
    /// [`TOKENS_PER_IMAGE`](crate::core::image::TOKENS_PER_IMAGE) at
    /// [`Usage::estimate`]'s four bytes a token.
    fn image_bytes(&self) -> usize {
        #[cfg(feature = "images")]
        return self.messages.iter().map(|m| m.images.len()).sum::<usize>() * crate::core::image::TOKENS_PER_IMAGE as usize * 4;
        #[cfg(not(feature = "images"))]
        0
    }
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Every input token, cached or not.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// True when the provider sent no usage and these figures are estimates.
    pub estimated: bool,
    /// Of `prompt_tokens`, those the provider served from its prompt cache
    /// (OpenAI's `cached_tokens`, Anthropic's `cache_read_input_tokens`,
    /// DeepSeek's `prompt_cache_hit_tokens`), billed at the cached price.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of `prompt_tokens`, those written to the cache
    /// (Anthropic's `cache_creation_input_tokens`), billed at the write price.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// A rough estimate (about four characters, or four bytes, a token),
    /// marked as such.
    pub fn estimate(prompt_chars: usize, completion_chars: usize) -> Self {
        Self {
            prompt_tokens: (prompt_chars as u64).div_ceil(4),
            completion_tokens: (completion_chars as u64).div_ceil(4),
            estimated: true,
            cached_tokens: 0,
            cache_write_tokens: 0,
        }
    }

    /// Plain figures: no cache read or written.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self { prompt_tokens, completion_tokens, ..Self::default() }
    }

    /// Input tokens billed at the full input price.
    pub fn uncached_tokens(&self) -> u64 {
        self.prompt_tokens.saturating_sub(self.cached_tokens).saturating_sub(self.cache_write_tokens)
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end (`stop`, `end_turn`, `stop_sequence`).
    Stop,
    /// The token limit was hit (`length`, `max_tokens`).
    Length,
    /// The provider filtered or the model refused.
    ContentFilter,
    /// The model asked for tools (tabteam does not use native tool calls; the
    /// text, if any, is still returned).
    ToolCalls,
    /// Anything else the provider said, kept verbatim.
    Other(String),
}

/// A finished completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    pub finish: FinishReason,
    pub usage: Usage,
    /// The model the provider says answered (may differ from the one asked
    /// for). Shared, not copied, by a model that names itself on every
    /// call (the scripted one); an `Arc` so a completion stays `Send`.
    pub model: Arc<str>,
}

/// One step of a streamed completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// More text.
    Delta(String),
    /// The end: the full text, why it stopped, and the usage.
    Done(Completion),
    /// Nothing yet: the call pauses `ms` milliseconds before trying again
    /// (a rate limit, a busy provider), for `reason`. Shown to the person
    /// so a wait is never a silent stall.
    Waiting { ms: u64, reason: String },
}

/// What can go wrong talking to a model.
///
/// The text of each kind is what the person sees (in the conversation and
/// in the paused run's status): what happened, then what to do, in whole
/// sentences. The provider's own words are quoted only where they help
/// (which key, which model, which quota), trimmed; they are never the whole
/// message, since some are advice for a server's operator, not for the
/// person in front of the tab. `core::error_texts` lists every text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum LlmError {
    #[error("The provider rejected the API key.{} Check the key in Settings, then Resume.", said(message))]
    BadKey { message: String },
    #[error("The provider does not let this key use this model (or not from where you are).{} Choose another model in Settings, or allow it in your account with the provider, then Resume.", said(message))]
    Forbidden { message: String },
    #[error("The provider is busy (too many requests{}); Resume when you want to try again.", asked_wait(*retry_after_ms))]
    RateLimited { message: String, retry_after_ms: Option<u64> },
    #[error("The account has no credit left or reached its quota.{} Add credit or raise the limit with the provider, then Resume.", said(message))]
    NoCredit { message: String },
    #[error("The provider does not know this model.{} Check the model name in Settings, then Resume.", said(message))]
    ModelNotFound { message: String },
    /// The prompt does not fit the model's context window.
    #[error("The conversation is too long for this model. Choose a model with a larger context window in Settings and Resume, or start a new session.")]
    ContextTooLong { message: String },
    #[error("The provider refused the request.{} Check the provider and model in Settings, then Resume.", said(message))]
    BadRequest { message: String },
    #[error("The provider is busy or down (HTTP {status}); Resume when you want to try again.")]
    ProviderDown { status: u16, message: String },
    /// The provider answered the same server error twice in a row (an HTTP
    /// 500 with the same message): a fault that waiting is unlikely to
    /// mend, so the call stops and says so rather than retrying for
    /// minutes (see `retry::is_persistent`).
    #[error("The provider failed twice in a row with the same error (HTTP {status}).{} Waiting is unlikely to help: check the provider's status page, or choose another model in Settings, then Resume.", said(message))]
    ServerFault { status: u16, message: String },
    /// Nothing got through; `hint` says why that may be and how to fix it.
    #[error("{hint} Then Resume.")]
    Blocked { hint: String },
    #[error("The network failed ({message}). Check the connection, then Resume.")]
    Network { message: String },
    #[error("The provider sent no answer within {} s. Resume to ask again.", after_ms.div_ceil(1000))]
    Timeout { after_ms: u64 },
    #[error("The answer broke off after {} characters, before the provider said it was done. Resume to ask again.", partial_text.chars().count())]
    Truncated { partial_text: String },
    #[error("The provider sent an answer tabteam cannot read ({message}). Check the base URL and provider in Settings, then Resume.")]
    Protocol { message: String },
    #[error("Stopped by you.")]
    Cancelled,
    #[error("The scripted model has no answer left for call #{call}.")]
    ScriptExhausted { call: usize },
}

/// How many characters of the provider's message a person is shown.
const SAID_CHARS: usize = 160;

/// ` The provider said: "…".`, or nothing when it said nothing useful.
fn said(message: &str) -> String {
    let message = message.trim();
    if message.is_empty() || message == "no details given" || message == "{}" {
        return String::new();
    }
    let mut cut: String = message.chars().take(SAID_CHARS).collect();
    if message.chars().nth(SAID_CHARS).is_some() {
        // End on a word, not inside one.
        if let Some(space) = cut.rfind(' ') {
            cut.truncate(space);
        }
        cut.push('…');
    }
    // The quote ends the sentence: its own full stop is dropped, not doubled.
    format!(" The provider said: \u{201c}{}\u{201d}.", cut.trim_end_matches('.'))
}

fn asked_wait(retry_after_ms: Option<u64>) -> String {
    match retry_after_ms {
        Some(ms) if ms >= 1000 => format!("; it asked for a pause of {} s", ms.div_ceil(1000)),
        _ => String::new(),
    }
}

/// A language model as the core sees it. Single-threaded on purpose: the tab is
/// one thread, so futures and streams are `Local*` and need no `Send`.
pub trait Llm {
    /// The model name used for pricing.
    fn model(&self) -> &str;

    /// Stream a completion: zero or more `Delta`s, then exactly one `Done`,
    /// or an error at any point.
    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>>;

    /// One call, as the gate makes it: the stream, or the whole answer
    /// when the model knows it at once (see [`Reply`]). Either way it means
    /// what [`Llm::stream`] would have sent; by default it is that stream.
    fn reply(&self, request: ChatRequest) -> Reply {
        Reply::Stream(self.stream(request))
    }

    /// The whole completion at once, built from the reply.
    fn complete(&self, request: ChatRequest) -> LocalBoxFuture<'static, Result<Completion, LlmError>> {
        let mut stream = match self.reply(request) {
            Reply::Whole(whole) => return Box::pin(whole),
            Reply::Stream(stream) => stream,
        };
        Box::pin(async move {
            let mut text = String::new();
            while let Some(event) = stream.next().await {
                match event? {
                    StreamEvent::Delta(d) => text.push_str(&d),
                    StreamEvent::Done(done) => return Ok(done),
                    StreamEvent::Waiting { .. } => {}
                }
            }
            Err(LlmError::Truncated { partial_text: text })
        })
    }
}

/// Every delta of a streamed answer, in order, and how the stream ended:
/// `Done`'s completion, the error, or `Truncated` (with the text so far)
/// when it stopped without either. `Waiting` notices are skipped.
pub async fn collect_stream(
    mut stream: LocalBoxStream<'_, Result<StreamEvent, LlmError>>,
) -> (Vec<String>, Result<Completion, LlmError>) {
    let mut deltas = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(StreamEvent::Delta(d)) => deltas.push(d),
            Ok(StreamEvent::Done(done)) => return (deltas, Ok(done)),
            Ok(StreamEvent::Waiting { .. }) => {}
            Err(e) => return (deltas, Err(e)),
        }
    }
    let partial_text = deltas.concat();
    (deltas, Err(LlmError::Truncated { partial_text }))
}

impl ChatRole {
    pub fn as_str(&self) -> &'static str {
        match self {
            ChatRole::System => "system",
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        }
    }
}

impl fmt::Display for ChatRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
