//! Turning provider failures into typed [`LlmError`]s, and deciding whether
//! and when to try again.
//!
//! Both are deterministic: the caller supplies the jitter (a number in 0..1)
//! and, if it wants HTTP-date `Retry-After` values honoured, the current
//! time. This file sleeps, counts and reads no clock itself; the transport
//! does the waiting. It never puts an API key into a message: anything that
//! looks like one is masked.

use serde_json::Value;

use super::http::HttpResponseHead;
use super::LlmError;

/// How many times, and after which pauses, a failed call is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Quick retries (the SDKs' backoff of half a second and up) after a
    /// failed connection, a time-out, or a status such as 408 that says
    /// "try again" without the provider being busy.
    pub max_retries: u32,
    /// The pauses before each new try while the provider is busy (429, 5xx,
    /// Anthropic's 529): one retry per entry, then the call gives up. A
    /// `Retry-After` the provider sends (up to [`MAX_SERVER_DELAY_MS`])
    /// replaces the entry's pause.
    pub busy_waits_ms: &'static [u64],
}
/// What one attempt ended with, as far as retrying cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No response at all: `fetch` rejected (network down, DNS, CORS).
    Network,
    /// No response within the time limit.
    Timeout,
    /// A response with a non-success status.
    Response(HttpResponseHead),
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    Retry { delay_ms: u64 },
    GiveUp,
}

/// Server-suggested delays above this are ignored in favour of the default
/// backoff: a tab should not sit silent for minutes on a header's word.
pub const MAX_SERVER_DELAY_MS: f64 = 60_000.0;

/// Raw bodies quoted in messages are cut to this many characters.
const MAX_BODY_CHARS: usize = 300;

/// Prefixes of API keys of the providers tabteam talks to; a word starting
/// with one of these is masked before it reaches a message.
const KEY_PREFIXES: &[&str] = &["sk-", "sk_", "gsk_", "xai-", "AIza"];

/// A busy provider (a rate limit, an outage) that does not say when to come
/// back is asked again after 5 s, 10 s, 20 s, 40 s, 60 s and 60 s: a few
/// minutes in all (3 min 15 s), so a short overload passes without the
/// person doing anything, and a long one ends in a pause they can resume.
pub const BUSY_WAITS_MS: &[u64] = &[5_000, 10_000, 20_000, 40_000, 60_000, 60_000];

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { max_retries: 2, busy_waits_ms: BUSY_WAITS_MS }
    }
}

impl RetryPolicy {
    /// Decide after a failed attempt. `attempt` is the number of retries
    /// already done (0 after the first try); `jitter` is a random number in
    /// 0..1 chosen by the caller; `now_ms` (Unix milliseconds), when given,
    /// lets an HTTP-date `Retry-After` count.
    pub fn decide(&self, attempt: u32, outcome: &Outcome, jitter: f64, now_ms: Option<u64>) -> RetryDecision {
        let quick = |attempt: u32| {
            if attempt < self.max_retries {
                RetryDecision::Retry { delay_ms: default_backoff_ms(attempt, jitter) }
            } else {
                RetryDecision::GiveUp
            }
        };
        let head = match outcome {
            Outcome::Network | Outcome::Timeout => return quick(attempt),
            Outcome::Response(head) => head,
        };
        let should_retry = match head.header("x-should-retry").map(str::trim) {
            Some("true") => true,
            Some("false") => false,
            _ => is_retryable_status(head.status),
        };
        if !should_retry {
            return RetryDecision::GiveUp;
        }
        let server_delay = server_delay_ms(head, now_ms)
            .filter(|ms| (0.0..=MAX_SERVER_DELAY_MS).contains(ms))
            .map(|ms| ms.ceil() as u64);
        if !is_busy_status(head.status) {
            return match (quick(attempt), server_delay) {
                (RetryDecision::Retry { .. }, Some(delay_ms)) => RetryDecision::Retry { delay_ms },
                (decision, _) => decision,
            };
        }
        match self.busy_waits_ms.get(attempt as usize) {
            Some(wait) => RetryDecision::Retry { delay_ms: server_delay.unwrap_or(*wait) },
            None => RetryDecision::GiveUp,
        }
    }
}

/// Whether `current` repeats `previous` as a fault that waiting will not
/// mend: an HTTP 500 ("internal error") with the same message as the try
/// before. The other busy statuses (429, 502, 503, 504, 529) say
/// "overloaded" or "try later" by their nature and keep their retries; a
/// 500 whose message changes may still be passing trouble.
pub fn is_persistent(previous: Option<&LlmError>, current: &LlmError) -> bool {
    match (previous, current) {
        (
            Some(LlmError::ProviderDown { status: 500, message: before }),
            LlmError::ProviderDown { status: 500, message: now },
        ) => before == now,
        _ => false,
    }
}

/// Statuses that mean the provider is busy or down rather than that the
/// request is wrong: a rate limit (429), a server error or overload (5xx,
/// Anthropic's 529).
pub fn is_busy_status(status: u16) -> bool {
    status == 429 || status >= 500
}

/// Statuses worth another try without a header saying otherwise.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// `min(0.5 · 2^attempt, 8)` seconds, shortened by up to a quarter by `jitter`.
pub fn default_backoff_ms(attempt: u32, jitter: f64) -> u64 {
    let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
    let seconds = (0.5 * 2f64.powi(attempt.min(16) as i32)).min(8.0);
    (seconds * (1.0 - jitter * 0.25) * 1000.0).ceil() as u64
}

/// The delay the server asked for, in milliseconds, unchecked: `retry-after-ms`
/// first, then `retry-after` as seconds, then as an HTTP-date (only with `now_ms`).
pub fn server_delay_ms(head: &HttpResponseHead, now_ms: Option<u64>) -> Option<f64> {
    if let Some(ms) = head.header("retry-after-ms").and_then(parse_number) {
        return Some(ms);
    }
    let value = head.header("retry-after")?;
    if let Some(seconds) = parse_number(value) {
        return Some(seconds * 1000.0);
    }
    let now_ms = now_ms?;
    let date_ms = parse_http_date_ms(value)?;
    Some(date_ms as f64 - now_ms as f64)
}

/// The typed error for a response that was not a success; `protocol` names
/// the codec (for the message when nothing else is known).
pub fn error_from_response(protocol: &str, status: u16, head: &HttpResponseHead, body: &str) -> LlmError {
    let detail = ErrorDetail::from_body(body);
    let retry_after_ms =
        server_delay_ms(head, None).filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| ms.ceil() as u64);
    // A status that is not an error status (OpenRouter's 200 with an error
    // body) defers to the body's own code or type.
    error_from_status(status, &detail, retry_after_ms)
        .or_else(|| detail.numeric_code.and_then(|code| error_from_status(code, &detail, retry_after_ms)))
        .or_else(|| detail.to_error())
        .unwrap_or_else(|| LlmError::Protocol {
            message: format!(
                "unexpected HTTP status {status} from the {} endpoint: {}",
                protocol,
                detail.message
            ),
        })
}

/// The typed error for an error object that arrived inside a stream or a
/// success response (`event: error`, a chunk with an `error` key, an
/// OpenRouter error after generation started). Errors of an unknown kind are
/// treated as server failures. Both protocols' shapes are understood.
pub fn error_from_payload(payload: &Value) -> LlmError {
    let detail = ErrorDetail::from_value(payload, "");
    if let Some(status) = detail.numeric_code {
        if let Some(error) = error_from_status(status, &detail, None) {
            return error;
        }
    }
    detail.to_error().unwrap_or(LlmError::ProviderDown { status: 500, message: detail.message })
}

/// The typed error for the data of an `event: error` SSE event, which should
/// be an error object but may be plain text.
pub fn error_from_event_data(data: &str) -> LlmError {
    match serde_json::from_str::<Value>(data) {
        Ok(payload) => error_from_payload(&payload),
        Err(_) => LlmError::ProviderDown { status: 500, message: raw_message(data) },
    }
}

/// Mask anything that looks like an API key.
pub fn redact_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || matches!(c, '-' | '_' | '*' | '.') {
            word.push(c);
        } else {
            push_redacted(&mut out, &word);
            word.clear();
            out.push(c);
        }
    }
    push_redacted(&mut out, &word);
    out
}

fn push_redacted(out: &mut String, word: &str) {
    let looks_like_key = KEY_PREFIXES.iter().any(|p| word.starts_with(p) && word.len() > p.len() + 3);
    out.push_str(if looks_like_key { "[redacted]" } else { word });
}

/// The human parts of an error body, whichever provider's shape it has.
#[derive(Debug, Default)]
struct ErrorDetail {
    message: String,
    /// `error.type` (OpenAI, Anthropic) or `error.status` (Google).
    kind: Option<String>,
    /// `error.code` when it is a string (OpenAI: `insufficient_quota`, ...).
    code: Option<String>,
    /// `error.code` when it is a number (OpenRouter, Google: the HTTP status).
    numeric_code: Option<u16>,
}

impl ErrorDetail {
    fn from_body(body: &str) -> Self {
        match serde_json::from_str::<Value>(body) {
            Ok(value) => Self::from_value(&value, body),
            Err(_) => Self { message: raw_message(body), ..Self::default() },
        }
    }

    fn from_value(value: &Value, body: &str) -> Self {
        // Gemini's compatibility endpoint sometimes wraps the error in an array.
        let value = match value {
            Value::Array(items) => items.first().unwrap_or(value),
            _ => value,
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let (message, kind, code, numeric_code) = match value.get("error") {
            Some(error @ Value::Object(_)) => {
                let code = error.get("code");
                (
                    text(error.get("message")),
                    text(error.get("type")).or_else(|| text(error.get("status"))),
                    text(code),
                    code.and_then(Value::as_u64).and_then(|c| u16::try_from(c).ok()),
                )
            }
            Some(Value::String(message)) => (Some(message.clone()), None, None, None),
            _ => (text(value.get("message")), None, None, None),
        };
        let message = match message {
            Some(m) if !m.trim().is_empty() => redact_secrets(&m),
            _ if !body.is_empty() => raw_message(body),
            _ => raw_message(&value.to_string()),
        };
        Self { message, kind, code, numeric_code }
    }

    /// The account is out of money or quota, whatever the status says.
    fn says_no_credit(&self) -> bool {
        let tags = [self.kind.as_deref(), self.code.as_deref()];
        if tags.iter().flatten().any(|t| matches!(*t, "insufficient_quota" | "billing_error" | "insufficient_credits"))
        {
            return true;
        }
        let message = self.message.to_ascii_lowercase();
        ["quota", "billing_error", "credit balance", "insufficient credits", "insufficient_credits"]
            .iter()
            .any(|needle| message.contains(needle))
    }

    /// The prompt does not fit the model's context window, however the
    /// provider (or a proxy such as LiteLLM, whose message then goes on with
    /// advice for its operator) puts it.
    fn says_too_long(&self) -> bool {
        let tags = [self.kind.as_deref(), self.code.as_deref()];
        if tags.iter().flatten().any(|t| matches!(*t, "context_length_exceeded" | "request_too_large")) {
            return true;
        }
        let message = self.message.to_ascii_lowercase();
        [
            "context length",
            "context_length_exceeded",
            "context window",
            "contextwindowexceeded",
            "prompt is too long",
            "input is too long",
            "too many tokens",
            "reduce the length of the messages",
        ]
        .iter()
        .any(|needle| message.contains(needle))
    }

    /// Google answers a bad key with 400 `INVALID_ARGUMENT`.
    fn says_bad_key(&self) -> bool {
        let message = self.message.to_ascii_lowercase();
        message.contains("api key not valid") || message.contains("api_key_invalid")
    }

    /// Map by the provider's error type or code; `None` if neither is known.
    fn to_error(&self) -> Option<LlmError> {
        let message = self.message.clone();
        let kinds = [self.code.as_deref(), self.kind.as_deref()];
        let kind = kinds.iter().flatten().find(|k| known_kind(k)).copied()?;
        let error = match kind {
            "authentication_error" | "invalid_api_key" | "invalid_authentication" | "UNAUTHENTICATED" => {
                LlmError::BadKey { message }
            }
            "permission_error" | "permission_denied" | "PERMISSION_DENIED" => LlmError::Forbidden { message },
            "not_found_error" | "model_not_found" | "NOT_FOUND" => LlmError::ModelNotFound { message },
            "billing_error" | "insufficient_quota" | "insufficient_credits" => LlmError::NoCredit { message },
            "rate_limit_error" | "rate_limit_exceeded" | "RESOURCE_EXHAUSTED" if self.says_no_credit() => {
                LlmError::NoCredit { message }
            }
            "rate_limit_error" | "rate_limit_exceeded" | "RESOURCE_EXHAUSTED" => {
                LlmError::RateLimited { message, retry_after_ms: None }
            }
            "overloaded_error" => LlmError::ProviderDown { status: 529, message },
            "service_unavailable_error" | "server_is_overloaded" | "UNAVAILABLE" => {
                LlmError::ProviderDown { status: 503, message }
            }
            "timeout_error" => LlmError::ProviderDown { status: 504, message },
            "api_error" | "server_error" | "INTERNAL" => LlmError::ProviderDown { status: 500, message },
            "context_length_exceeded" | "request_too_large" => LlmError::ContextTooLong { message },
            _ if self.says_no_credit() => LlmError::NoCredit { message },
            _ if self.says_too_long() => LlmError::ContextTooLong { message },
            _ => LlmError::BadRequest { message },
        };
        Some(error)
    }
}

fn known_kind(kind: &str) -> bool {
    matches!(
        kind,
        "authentication_error"
            | "invalid_api_key"
            | "invalid_authentication"
            | "UNAUTHENTICATED"
            | "permission_error"
            | "permission_denied"
            | "PERMISSION_DENIED"
            | "not_found_error"
            | "model_not_found"
            | "NOT_FOUND"
            | "billing_error"
            | "insufficient_quota"
            | "insufficient_credits"
            | "rate_limit_error"
            | "rate_limit_exceeded"
            | "RESOURCE_EXHAUSTED"
            | "overloaded_error"
            | "service_unavailable_error"
            | "server_is_overloaded"
            | "UNAVAILABLE"
            | "timeout_error"
            | "api_error"
            | "server_error"
            | "INTERNAL"
            | "invalid_request_error"
            | "request_too_large"
            | "context_length_exceeded"
            | "INVALID_ARGUMENT"
    )
}

/// The error for an HTTP status, or `None` when the status alone says nothing.
fn error_from_status(status: u16, detail: &ErrorDetail, retry_after_ms: Option<u64>) -> Option<LlmError> {
    let message = detail.message.clone();
    let error = match status {
        401 => LlmError::BadKey { message },
        402 => LlmError::NoCredit { message },
        403 => LlmError::Forbidden { message },
        404 => LlmError::ModelNotFound { message },
        // A 400 is how Anthropic reports a low credit balance, and how
        // Google reports a bad key.
        400 | 429 if detail.says_no_credit() => LlmError::NoCredit { message },
        400 if detail.says_bad_key() => LlmError::BadKey { message },
        400 | 413 if detail.says_too_long() => LlmError::ContextTooLong { message },
        429 => LlmError::RateLimited { message, retry_after_ms },
        408 | 409 | 500..=599 => LlmError::ProviderDown { status, message },
        400..=499 => LlmError::BadRequest { message },
        _ => return None,
    };
    Some(error)
}

fn raw_message(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return "no details given".to_owned();
    }
    let mut cut: String = body.chars().take(MAX_BODY_CHARS).collect();
    if body.chars().nth(MAX_BODY_CHARS).is_some() {
        cut.push('…');
    }
    redact_secrets(&cut)
}

/// A plain decimal number, as `parseFloat` would take it but strict: JSON's
/// number grammar (no `inf`, `NaN`, `.5` or `+1`). Parsed by serde_json
/// rather than `str::parse`, whose exact algorithm brings ~30 KB of tables
/// into the wasm (it matters for the widget's size budget).
fn parse_number(value: &str) -> Option<f64> {
    serde_json::from_str::<f64>(value.trim()).ok()
}

/// Unix milliseconds of an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
/// The obsolete RFC 850 and asctime forms are not accepted.
pub fn parse_http_date_ms(value: &str) -> Option<i64> {
    let mut parts = value.split_ascii_whitespace();
    let weekday = parts.next()?;
    let day: i64 = parts.next()?.parse().ok()?;
    let month = parts.next()?;
    let year: i64 = parts.next()?.parse().ok()?;
    let time = parts.next()?;
    let zone = parts.next()?;
    if parts.next().is_some() || zone != "GMT" || !weekday.ends_with(',') {
        return None;
    }
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_dates() {
        let check = |text: &str, want: Option<i64>| assert_eq!(parse_http_date_ms(text), want, "{text}");
        check("Thu, 01 Jan 1970 00:00:00 GMT", Some(0));
        check("Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_777_000));
        check("Sun, 16 Nov 2025 13:05:04 GMT", Some(1_763_298_304_000));
        check("Tue, 29 Feb 2028 23:59:59 GMT", Some(1_835_481_599_000));
        check("Sunday, 06-Nov-94 08:49:37 GMT", None);
        check("Sun Nov  6 08:49:37 1994", None);
        check("Sun, 06 Nov 1994 08:49:37 UTC", None);
        check("Sun, 06 Foo 1994 08:49:37 GMT", None);
        check("Sun, 06 Nov 1994 08:49 GMT", None);
        check("", None);
    }

    #[test]
    fn redacts_keys() {
        let check = |text: &str, want: &str| assert_eq!(redact_secrets(text), want, "{text}");
        check("Incorrect API key provided: sk-abc12***************wxyz.", "Incorrect API key provided: [redacted]");
        check("key sk-ant-api03-AAAA_bbbb-CC is bad", "key [redacted] is bad");
        check("\"gsk_0123456789abcdef\"", "\"[redacted]\"");
        check("AIzaSyA-1234567890 invalid", "[redacted] invalid");
        check("Authorization: Bearer abc", "Authorization: Bearer abc");
        check("invalid x-api-key", "invalid x-api-key");
        check("ask-me sk- skip", "ask-me sk- skip");
    }

    #[test]
    fn a_prompt_too_long_for_the_window_is_its_own_kind() {
        let kind = |status: u16, body: &str| {
            let head = HttpResponseHead::new(status, vec![]);
            match error_from_response("openai", status, &head, body) {
                LlmError::ContextTooLong { .. } => "too long",
                LlmError::RateLimited { .. } => "rate limited",
                LlmError::BadRequest { .. } => "bad request",
                other => panic!("{other:?}"),
            }
        };
        // OpenAI, Anthropic, a LiteLLM proxy (its `code` is a string), and
        // an error event inside a stream.
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        let litellm = r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: ... Set `context_window_fallback` in your config","type":null,"param":null,"code":"400"}}"#;
        assert_eq!(kind(400, openai), "too long");
        assert_eq!(kind(400, anthropic), "too long");
        assert_eq!(kind(400, litellm), "too long");
        assert_eq!(kind(413, r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}"#), "too long");
        assert!(matches!(error_from_event_data(openai), LlmError::ContextTooLong { .. }));
        // Not every mention of tokens is a full window.
        assert_eq!(kind(429, r#"{"error":{"message":"Rate limit: too many tokens per minute","type":"rate_limit_error"}}"#), "rate limited");
        assert_eq!(kind(400, r#"{"error":{"message":"temperature must be at most 2","type":"invalid_request_error"}}"#), "bad request");
        // The operator's advice never reaches the person.
        let head = HttpResponseHead::new(400, vec![]);
        let text = error_from_response("openai", 400, &head, litellm).to_string();
        assert!(!text.contains("context_window_fallback") && text.contains("too long for this model"), "{text}");
    }

    #[test]
    fn default_backoff() {
        let check = |attempt: u32, jitter: f64, want: u64| {
            assert_eq!(default_backoff_ms(attempt, jitter), want, "attempt {attempt} jitter {jitter}");
        };
        check(0, 0.0, 500);
        check(0, 1.0, 375);
        check(0, 0.5, 438);
        check(1, 0.0, 1000);
        check(2, 0.0, 2000);
        check(4, 0.0, 8000);
        check(5, 0.0, 8000);
        check(40, 1.0, 6000);
        check(0, f64::NAN, 500);
        check(0, 7.0, 375);
    }
}
