//! A real model behind the [`Llm`] port: a provider codec, an injected HTTP
//! transport, and retries like the official SDKs.
//!
//! Everything here is pure logic over two ports: [`Transport`] moves bytes
//! (the browser's `fetch` in `web::transport`; recorded bytes in tests) and
//! [`Runtime`] sleeps, tells the time and draws jitter (the browser's timers;
//! a fake clock in tests). So retry decisions, delays, truncation and error
//! mapping are all tested natively, deterministically.
//!
//! Retries happen only before the body starts: a stream cut mid-way is
//! reported as [`LlmError::Truncated`] with the text so far, never silently
//! re-requested (that would bill the prompt twice).

use std::rc::Rc;

use futures::stream::{self, LocalBoxStream, StreamExt};

use crate::core::llm::codec::{Codec, StreamDecoder};
use crate::core::llm::retry::{is_persistent, Outcome, RetryDecision, RetryPolicy};
use crate::core::llm::{ChatRequest, Llm, LlmError, StreamEvent};

pub use crate::core::llm::transport::{Body, Runtime, Transport, TransportFailure};

/// Where and how to reach a model. The key lives only in memory here; it is
/// sent to `base_url` and nowhere else, and never appears in `Debug`.
#[derive(Clone)]
pub struct ProviderConfig {
    /// The provider's wire protocol (a preset names it).
    pub protocol: &'static dyn Codec,
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// How long to wait for the response head.
    pub timeout_ms: u64,
    pub max_tokens: Option<u32>,
    /// What to tell the user when the browser cannot reach `base_url` at
    /// all (see `presets::blocked_hint`); `None` gives a plain network error.
    pub unreachable_hint: Option<String>,
    /// The provider follows a JSON schema sent with the request
    /// (`Preset::structured_output`); otherwise the request's schema is
    /// dropped and the answer goes through the repair path.
    pub structured_output: bool,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("protocol", &self.protocol.name())
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// How often a retry pause says how long is left.
const COUNTDOWN_STEP_MS: u64 = 1_000;

/// The default wait for a response head: generous, since a long prompt can
/// take a while before the first token.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// An [`Llm`] that talks HTTP.
pub struct HttpLlm {
    config: Rc<ProviderConfig>,
    transport: Rc<dyn Transport>,
    runtime: Rc<dyn Runtime>,
    policy: RetryPolicy,
}

impl HttpLlm {
    pub fn new(config: ProviderConfig, transport: Rc<dyn Transport>, runtime: Rc<dyn Runtime>) -> Self {
        Self { config: Rc::new(config), transport, runtime, policy: RetryPolicy::default() }
    }

    pub fn with_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }
}

enum Phase {
    Connect,
    /// A failed attempt will be retried after this pause; `left_ms` of it
    /// remain, and `reason` says why (repeated in each countdown notice).
    Wait { left_ms: u64, reason: String },
    Streaming { body: Box<dyn Body>, decoder: Box<dyn StreamDecoder> },
    Over,
}

struct Call {
    config: Rc<ProviderConfig>,
    transport: Rc<dyn Transport>,
    runtime: Rc<dyn Runtime>,
    policy: RetryPolicy,
    request: ChatRequest,
    phase: Phase,
    /// Retries done so far.
    attempt: u32,
    /// What the last failed try came to (a second identical 500 stops).
    last_error: Option<LlmError>,
}

impl Llm for HttpLlm {
    fn model(&self) -> &str {
        &self.config.model
    }

    fn stream(&self, mut request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        if request.max_tokens.is_none() {
            request.max_tokens = self.config.max_tokens;
        }
        if !self.config.structured_output {
            request.response_schema = None;
        }
        let call = Call {
            config: self.config.clone(),
            transport: self.transport.clone(),
            runtime: self.runtime.clone(),
            policy: self.policy,
            request,
            phase: Phase::Connect,
            attempt: 0,
            last_error: None,
        };
        Box::pin(stream::unfold(call, step).flat_map(stream::iter))
    }
}

/// One step of a call: a batch of events, and the call to continue with.
async fn step(mut call: Call) -> Option<(Vec<Result<StreamEvent, LlmError>>, Call)> {
    match std::mem::replace(&mut call.phase, Phase::Over) {
        Phase::Over => None,
        Phase::Connect => match attempt(&mut call).await {
            Attempt::Body(body) => {
                let decoder = call.config.protocol.decoder(&call.request);
                call.phase = Phase::Streaming { body, decoder };
                Some((Vec::new(), call))
            }
            Attempt::Retry { delay_ms, reason } => {
                // Say so before the pause, so the person sees why nothing moves.
                call.phase = Phase::Wait { left_ms: delay_ms, reason: reason.clone() };
                call.attempt += 1;
                Some((vec![Ok(StreamEvent::Waiting { ms: delay_ms, reason })], call))
            }
            Attempt::Failed(e) => Some((vec![Err(e)], call)),
        },
        Phase::Wait { left_ms, reason } => {
            // A long pause is slept a second at a time, each second
            // announced with what is left: the person sees a countdown,
            // not a number that stands still for a minute.
            let step = left_ms.min(COUNTDOWN_STEP_MS);
            call.runtime.sleep(step).await;
            let left_ms = left_ms - step;
            if left_ms == 0 {
                call.phase = Phase::Connect;
                return Some((Vec::new(), call));
            }
            let notice = StreamEvent::Waiting { ms: left_ms, reason: reason.clone() };
            call.phase = Phase::Wait { left_ms, reason };
            Some((vec![Ok(notice)], call))
        }
        Phase::Streaming { mut body, mut decoder } => match body.next_chunk().await {
            Ok(Some(bytes)) => {
                let events = decoder.feed(&bytes);
                let ended = events.iter().any(|e| matches!(e, Ok(StreamEvent::Done(_)) | Err(_)));
                if !ended {
                    call.phase = Phase::Streaming { body, decoder };
                }
                Some((events, call))
            }
            Ok(None) => match decoder.finish() {
                Ok(None) => None,
                Ok(Some(done)) => Some((vec![Ok(StreamEvent::Done(done))], call)),
                Err(e) => Some((vec![Err(e)], call)),
            },
            Err(failure) => {
                // The body broke off: whatever arrived is kept in the error.
                let partial = match decoder.finish() {
                    Err(LlmError::Truncated { partial_text }) => partial_text,
                    _ => String::new(),
                };
                let error = match failure {
                    TransportFailure::Aborted => LlmError::Cancelled,
                    _ => LlmError::Truncated { partial_text: partial },
                };
                Some((vec![Err(error)], call))
            }
        },
    }
}

/// What one attempt to get a response head came to.
enum Attempt {
    Body(Box<dyn Body>),
    /// Try again after `delay_ms`; `reason` says why, for the person.
    Retry { delay_ms: u64, reason: String },
    Failed(LlmError),
}

/// Send once; decide whether a failure is worth another try.
async fn attempt(call: &mut Call) -> Attempt {
    let config = &call.config;
    let http = config.protocol.build_request(&config.base_url, config.api_key.as_deref(), &call.request);
    let (outcome, error) = match call.transport.send(http, config.timeout_ms).await {
        Ok((head, body)) if head.is_success() => return Attempt::Body(body),
        Ok((head, body)) => {
            let text = read_all(body).await;
            let error = config.protocol.error_from_response(&head, &text);
            (Outcome::Response(head), error)
        }
        Err(TransportFailure::Aborted) => return Attempt::Failed(LlmError::Cancelled),
        Err(TransportFailure::Timeout) => (Outcome::Timeout, LlmError::Timeout { after_ms: config.timeout_ms }),
        Err(TransportFailure::Network(message)) => (Outcome::Network, LlmError::Network { message }),
    };
    if is_persistent(call.last_error.as_ref(), &error) {
        if let LlmError::ProviderDown { status, message } = error {
            return Attempt::Failed(LlmError::ServerFault { status, message });
        }
    }
    match call.policy.decide(call.attempt, &outcome, call.runtime.jitter(), Some(call.runtime.now_ms())) {
        RetryDecision::Retry { delay_ms } => {
            let reason = wait_reason(&error);
            call.last_error = Some(error);
            Attempt::Retry { delay_ms, reason }
        }
        RetryDecision::GiveUp => Attempt::Failed(unreachable(config, error)),
    }
}

/// Why a call pauses before its next try, in a few words.
fn wait_reason(error: &LlmError) -> String {
    match error {
        LlmError::RateLimited { .. } => "rate limited by the provider".into(),
        // A 500 is "something broke", not "busy": its own words from the
        // first failure on, so a fault that will not pass is recognisable
        // (`retry::is_persistent` stops at the second identical one).
        LlmError::ProviderDown { status: 500, message } => match quoted(message) {
            Some(said) => format!("the provider failed (HTTP 500); it said {said}"),
            None => "the provider failed (HTTP 500)".into(),
        },
        LlmError::ProviderDown { status, .. } => format!("the provider is busy (HTTP {status})"),
        LlmError::Timeout { .. } => "no answer in time".into(),
        LlmError::Network { .. } => "the network failed".into(),
        other => other.to_string(),
    }
}

/// How many characters of a server's message a wait shows.
const WAIT_QUOTE_CHARS: usize = 120;

/// `“message”`, cut to [`WAIT_QUOTE_CHARS`] on a word; `None` when the
/// server said nothing useful.
fn quoted(message: &str) -> Option<String> {
    let message = message.trim().trim_end_matches('.');
    if message.is_empty() || message == "no details given" || message == "{}" {
        return None;
    }
    let mut cut: String = message.chars().take(WAIT_QUOTE_CHARS).collect();
    if message.chars().nth(WAIT_QUOTE_CHARS).is_some() {
        if let Some(space) = cut.rfind(' ') {
            cut.truncate(space);
        }
        cut.push('\u{2026}');
    }
    Some(format!("\u{201c}{cut}\u{201d}"))
}

/// A browser cannot tell "network down" from "CORS blocked": when nothing
/// got through at all, say both, with the provider's fix.
fn unreachable(config: &ProviderConfig, error: LlmError) -> LlmError {
    match (error, &config.unreachable_hint) {
        (LlmError::Network { message }, Some(hint)) => LlmError::Blocked {
            hint: format!(
                "Could not reach {} ({message}): the network may be down, the server not running, or it does not accept calls from this page. {hint}",
                config.base_url
            ),
        },
        (error, _) => error,
    }
}

/// An error body, read whole (lossy UTF-8; a broken body reads as what arrived).
async fn read_all(mut body: Box<dyn Body>) -> String {
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = body.next_chunk().await {
        bytes.extend(chunk);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests;
