//! `HttpLlm`'s tests over a fake transport and a fake clock: streaming,
//! the SDKs' retry schedule, waits announced and counted down, truncation,
//! unreachable local servers, Stop, headers and the key kept out of sight.

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;

use super::*;
use crate::core::llm::anthropic::Anthropic;
use crate::core::llm::http::{HttpRequest, HttpResponseHead};
use crate::core::llm::openai::OpenAi;
use crate::core::llm::{collect_stream, ChatMessage, Completion, FinishReason};

/// A scripted response: a status, headers, and body chunks (an `Err`
/// chunk breaks the body off).
#[derive(Clone)]
enum Reply {
    Http { status: u16, headers: Vec<(&'static str, &'static str)>, chunks: Vec<Result<Vec<u8>, TransportFailure>> },
    Fail(TransportFailure),
}

fn ok_sse(chunks: &[&str]) -> Reply {
    Reply::Http { status: 200, headers: vec![], chunks: chunks.iter().map(|c| Ok(c.as_bytes().to_vec())).collect() }
}

fn status(code: u16, headers: Vec<(&'static str, &'static str)>, body: &str) -> Reply {
    Reply::Http { status: code, headers, chunks: vec![Ok(body.as_bytes().to_vec())] }
}

struct FakeBody(VecDeque<Result<Vec<u8>, TransportFailure>>);

impl Body for FakeBody {
    fn next_chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, TransportFailure>> {
        let next = self.0.pop_front();
        Box::pin(async move { next.transpose() })
    }
}

/// The fake clock both fakes share: sleeping moves it on, sending reads it.
type Clock = Rc<std::cell::Cell<u64>>;

const START_MS: u64 = 1_700_000_000_000;

#[derive(Default)]
struct FakeTransport {
    replies: RefCell<VecDeque<Reply>>,
    sent: RefCell<Vec<HttpRequest>>,
    /// The fake time of each request, for the pauses between them.
    sent_at: RefCell<Vec<u64>>,
    clock: Clock,
}

impl FakeTransport {
    /// The pauses between consecutive requests, in milliseconds.
    fn gaps(&self) -> Vec<u64> {
        self.sent_at.borrow().windows(2).map(|pair| pair[1] - pair[0]).collect()
    }
}

impl Transport for FakeTransport {
    fn send(&self, request: HttpRequest, _timeout_ms: u64) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        self.sent.borrow_mut().push(request);
        self.sent_at.borrow_mut().push(self.clock.get());
        let reply = self.replies.borrow_mut().pop_front().expect("the test scripted too few replies");
        Box::pin(async move {
            match reply {
                Reply::Fail(f) => Err(f),
                Reply::Http { status, headers, chunks } => {
                    let head = HttpResponseHead::new(status, headers.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
                    Ok((head, Box::new(FakeBody(chunks.into())) as Box<dyn Body>))
                }
            }
        })
    }
}

#[derive(Default)]
struct FakeRuntime {
    slept: RefCell<Vec<u64>>,
    clock: Clock,
}

impl Runtime for FakeRuntime {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        self.slept.borrow_mut().push(ms);
        self.clock.set(self.clock.get() + ms);
        Box::pin(async {})
    }
    fn now_ms(&self) -> u64 {
        START_MS + self.clock.get()
    }
    fn jitter(&self) -> f64 {
        0.0
    }
}

fn make(protocol: &'static dyn Codec, replies: Vec<Reply>) -> (HttpLlm, Rc<FakeTransport>, Rc<FakeRuntime>) {
    let clock = Clock::default();
    let transport = Rc::new(FakeTransport { replies: RefCell::new(replies.into()), clock: clock.clone(), ..Default::default() });
    let runtime = Rc::new(FakeRuntime { clock, ..Default::default() });
    let config = ProviderConfig {
        protocol,
        base_url: "http://127.0.0.1:1/v1".into(),
        model: "m".into(),
        api_key: Some("sk-secret".into()),
        timeout_ms: 1000,
        max_tokens: None,
        unreachable_hint: None,
        structured_output: false,
    };
    (HttpLlm::new(config, transport.clone(), runtime.clone()), transport, runtime)
}

fn request() -> ChatRequest {
    ChatRequest::new("m", vec![ChatMessage::system("be brief"), ChatMessage::user("hi")])
}

fn collect(llm: &HttpLlm) -> (Vec<String>, Result<Completion, LlmError>) {
    block_on(collect_stream(llm.stream(request())))
}

const HELLO: &[&str] = &[
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\ndata: [DONE]\n\n",
];

#[test]
fn streams_deltas_in_order_then_done_with_usage() {
    let (llm, transport, runtime) = make(&OpenAi, vec![ok_sse(HELLO)]);
    let (deltas, done) = collect(&llm);
    assert_eq!(deltas.concat(), "Hello");
    let done = done.unwrap();
    assert_eq!((done.text.as_str(), done.finish.clone(), done.usage.prompt_tokens, done.usage.estimated), ("Hello", FinishReason::Stop, 5, false));
    assert_eq!(transport.sent.borrow().len(), 1);
    assert!(runtime.slept.borrow().is_empty());
}

#[test]
fn retries_like_the_sdks() {
    let rate_limited = || status(429, vec![("retry-after", "1")], r#"{"error":{"message":"slow down","type":"rate_limit"}}"#);
    let busy = || status(429, vec![], r#"{"error":{"message":"slow down"}}"#);
    let down = || status(503, vec![], r#"{"error":{"message":"busy"}}"#);
    let gateway = || status(502, vec![], "<html>Bad gateway</html>");
    let internal = || status(500, vec![], r#"{"error":{"message":"oops"}}"#);
    let internal_other = || status(500, vec![], r#"{"error":{"message":"oops, again"}}"#);
    let overloaded = || status(529, vec![], r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    let bad_key = || status(401, vec![], r#"{"error":{"message":"Incorrect API key provided: sk-sec***"}}"#);
    let net = || Reply::Fail(TransportFailure::Network("Failed to fetch".into()));
    let times = |n: usize, reply: fn() -> Reply| (0..n).map(|_| reply()).collect::<Vec<_>>();
    let then_ok = |mut replies: Vec<Reply>| {
        replies.push(ok_sse(HELLO));
        replies
    };
    // The busy schedule in full: 5 s, 10 s, 20 s, 40 s, 60 s, 60 s.
    let schedule = vec![5_000, 10_000, 20_000, 40_000, 60_000, 60_000];
    // (replies, pauses between the requests, outcome)
    type Case = (Vec<Reply>, Vec<u64>, &'static str);
    let cases: Vec<Case> = vec![
        // A Retry-After is honoured.
        (then_ok(vec![rate_limited()]), vec![1000], "ok"),
        (times(7, rate_limited), vec![1000; 6], "rate limited"),
        // Busy without Retry-After: the growing schedule, then a pause.
        (then_ok(times(2, down)), vec![5_000, 10_000], "ok"),
        (then_ok(times(1, overloaded)), vec![5_000], "ok"),
        (then_ok(times(5, busy)), schedule[..5].to_vec(), "ok"),
        (times(7, busy), schedule.clone(), "rate limited"),
        (times(7, down), schedule.clone(), "down"),
        (times(7, gateway), schedule.clone(), "down"),
        // A 500 that says the same twice is a fault, not a busy spell:
        // the call stops after the second, without the rest of the schedule.
        (times(2, internal), vec![5_000], "fault"),
        (then_ok(vec![internal()]), vec![5_000], "ok"),
        (then_ok(vec![internal(), internal_other()]), vec![5_000, 10_000], "ok"),
        (vec![internal(), internal_other(), internal_other()], vec![5_000, 10_000], "fault"),
        (times(7, overloaded), schedule.clone(), "down"),
        // A Retry-After longer than a minute is not taken at its word.
        (then_ok(vec![status(429, vec![("retry-after", "600")], "{}")]), vec![5_000], "ok"),
        // Not busy: the SDKs' quick backoff, twice.
        (vec![net(), net(), net()], vec![500, 1000], "network"),
        (then_ok(vec![Reply::Fail(TransportFailure::Timeout)]), vec![500], "ok"),
        (times(3, || status(408, vec![], "{}")), vec![500, 1000], "down"),
        // Never retried.
        (vec![bad_key()], vec![], "bad key"),
        (vec![status(404, vec![], "{}")], vec![], "not found"),
        (vec![status(400, vec![], "{}")], vec![], "bad request"),
        (vec![status(503, vec![("x-should-retry", "false")], "{}")], vec![], "down"),
    ];
    for (i, (replies, want_gaps, want)) in cases.into_iter().enumerate() {
        let n = replies.len();
        let (llm, transport, runtime) = make(&OpenAi, replies);
        let (_, result) = collect(&llm);
        let got = match &result {
            Ok(c) if c.text == "Hello" => "ok",
            Err(LlmError::ProviderDown { .. }) => "down",
            Err(LlmError::ServerFault { status: 500, .. }) => "fault",
            Err(LlmError::RateLimited { .. }) => "rate limited",
            Err(LlmError::BadKey { .. }) => "bad key",
            Err(LlmError::Network { .. }) => "network",
            Err(LlmError::ModelNotFound { .. }) => "not found",
            Err(LlmError::BadRequest { .. }) => "bad request",
            _ => "other",
        };
        assert_eq!(got, want, "case {i}: {result:?}");
        assert_eq!(transport.gaps(), want_gaps, "case {i}");
        assert_eq!(runtime.slept.borrow().iter().sum::<u64>(), want_gaps.iter().sum::<u64>(), "case {i}: no pause after the last try");
        assert_eq!(transport.sent.borrow().len(), n, "case {i}: every scripted reply used, no more");
    }
}

/// The `Waiting` notices of a call, as (milliseconds left, reason).
fn waits(events: &[Result<StreamEvent, LlmError>]) -> Vec<(u64, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::Waiting { ms, reason }) => Some((*ms, reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_retry_wait_is_announced_before_the_pause_and_counted_down() {
    let rate_limited = status(429, vec![("retry-after", "3")], r#"{"error":{"message":"slow down"}}"#);
    let down = status(503, vec![], r#"{"error":{"message":"busy"}}"#);
    let (llm, transport, runtime) = make(&OpenAi, vec![rate_limited, down, ok_sse(HELLO)]);
    let events: Vec<_> = block_on(llm.stream(request()).collect::<Vec<_>>());
    let limited = |ms: u64| (ms, "rate limited by the provider".to_string());
    let busy = |ms: u64| (ms, "the provider is busy (HTTP 503)".to_string());
    let mut want = vec![limited(3000), limited(2000), limited(1000)];
    want.extend((1..=10).rev().map(|s| busy(s * 1000)));
    assert_eq!(waits(&events), want, "each pause announced, then counted down a second at a time");
    assert_eq!(*runtime.slept.borrow(), vec![1000; 13], "the pauses are slept a second at a time");
    assert_eq!(transport.gaps(), [3000, 10_000]);
    // Every notice comes before any text, and the call then completes.
    let first_delta = events.iter().position(|e| matches!(e, Ok(StreamEvent::Delta(_)))).unwrap();
    assert_eq!(first_delta, 13);
    assert!(matches!(events.last(), Some(Ok(StreamEvent::Done(c))) if c.text == "Hello"));
    // A pause that is not a whole number of seconds ends on its remainder.
    let (llm, _, runtime) = make(&OpenAi, vec![status(429, vec![("retry-after-ms", "1500")], "{}"), ok_sse(HELLO)]);
    let events: Vec<_> = block_on(llm.stream(request()).collect::<Vec<_>>());
    assert_eq!(waits(&events), [limited(1500), limited(500)]);
    assert_eq!(*runtime.slept.borrow(), [1000, 500]);
    // A call that gives up announces only the waits it took.
    let give_up = || status(429, vec![("retry-after", "1")], "{}");
    let (llm, _, _) = make(&OpenAi, (0..7).map(|_| give_up()).collect());
    let events: Vec<_> = block_on(llm.stream(request()).collect::<Vec<_>>());
    assert_eq!(waits(&events), vec![limited(1000); 6]);
    assert!(matches!(events.last(), Some(Err(LlmError::RateLimited { .. }))));
}

#[test]
fn a_cut_stream_is_truncated_with_the_partial_text() {
    let mut reply = ok_sse(&HELLO[..2]);
    if let Reply::Http { chunks, .. } = &mut reply {
        chunks.push(Err(TransportFailure::Network("connection reset".into())));
    }
    let (llm, transport, _) = make(&OpenAi, vec![reply]);
    let (deltas, result) = collect(&llm);
    assert_eq!(deltas.concat(), "Hello");
    assert_eq!(result, Err(LlmError::Truncated { partial_text: "Hello".into() }));
    assert_eq!(transport.sent.borrow().len(), 1, "never re-requested mid-stream");
    // A body that simply ends before [DONE] is truncated too.
    let (llm, _, _) = make(&OpenAi, vec![ok_sse(&HELLO[..3])]);
    assert_eq!(collect(&llm).1, Err(LlmError::Truncated { partial_text: "Hello".into() }));
}

#[test]
fn an_unreachable_local_server_says_how_to_fix_it() {
    let net = || Reply::Fail(TransportFailure::Network("Failed to fetch".into()));
    let (mut llm, _, _) = make(&OpenAi, vec![net(), net(), net()]);
    let preset = crate::core::llm::presets::preset("ollama").unwrap();
    Rc::get_mut(&mut llm.config).unwrap().unreachable_hint =
        Some(crate::core::llm::presets::blocked_hint(preset, Some("http://127.0.0.1:8080")));
    let err = collect(&llm).1.unwrap_err();
    assert!(matches!(err, LlmError::Blocked { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("OLLAMA_ORIGINS=http://127.0.0.1:8080") && text.contains("Failed to fetch"), "{text}");
}

#[test]
fn stop_cancels() {
    let (llm, _, _) = make(&OpenAi, vec![Reply::Fail(TransportFailure::Aborted)]);
    assert_eq!(collect(&llm).1, Err(LlmError::Cancelled));
    let mut reply = ok_sse(&HELLO[..1]);
    if let Reply::Http { chunks, .. } = &mut reply {
        chunks.push(Err(TransportFailure::Aborted));
    }
    let (llm, _, _) = make(&OpenAi, vec![reply]);
    assert_eq!(collect(&llm).1, Err(LlmError::Cancelled));
}

#[test]
fn sends_only_the_needed_headers_to_the_configured_url() {
    let (llm, transport, _) = make(&OpenAi, vec![ok_sse(HELLO)]);
    collect(&llm).1.unwrap();
    let sent = &transport.sent.borrow()[0];
    assert_eq!(sent.url, "http://127.0.0.1:1/v1/chat/completions");
    let mut names: Vec<String> = sent.headers.iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
    names.sort();
    assert_eq!(names, ["authorization", "content-type"]);
}

#[test]
fn the_key_never_shows_in_debug_or_errors() {
    let (llm, _, _) = make(&OpenAi, vec![status(401, vec![], r#"{"error":{"message":"Incorrect API key provided: sk-secret"}}"#)]);
    assert!(!format!("{:?}", llm.config).contains("sk-secret"));
    let err = collect(&llm).1.unwrap_err();
    assert!(!err.to_string().contains("sk-secret"), "{err}");
}

#[test]
fn anthropic_streams_through_the_same_client() {
    let events = [
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    ];
    let (llm, transport, _) = make(&Anthropic, vec![ok_sse(&events)]);
    let done = collect(&llm).1.unwrap();
    assert_eq!((done.text.as_str(), done.usage.prompt_tokens, done.usage.completion_tokens), ("Hi", 9, 3));
    assert!(transport.sent.borrow()[0].url.ends_with("/v1/messages"));
}

/// Issue #32, item 9: a 500 that never goes away. The server's own words
/// are in the wait from the first failure on; the second identical 500
/// ends the call with an error that says so, after one short pause
/// instead of about three minutes of retries.
#[test]
fn a_repeated_500_shows_the_server_message_and_stops() {
    let body = r#"{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}"#;
    let (llm, transport, runtime) = make(&OpenAi, vec![status(500, vec![], body), status(500, vec![], body)]);
    let events: Vec<_> = block_on(llm.stream(request()).collect::<Vec<_>>());
    let said = "the provider failed (HTTP 500); it said \u{201c}An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting\u{201d}";
    assert_eq!(waits(&events), (1..=5).rev().map(|s| (s * 1000, said.to_string())).collect::<Vec<_>>());
    let message = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting".to_string();
    assert_eq!(events.last(), Some(&Err(LlmError::ServerFault { status: 500, message })));
    assert_eq!(transport.sent.borrow().len(), 2);
    assert_eq!(runtime.slept.borrow().iter().sum::<u64>(), 5_000);
    let text = match events.last() {
        Some(Err(e)) => e.to_string(),
        _ => String::new(),
    };
    assert!(text.starts_with("The provider failed twice in a row with the same error (HTTP 500). The provider said: \u{201c}An internal error"), "{text}");
}
