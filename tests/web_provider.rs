//! The real provider path in headless Chromium: `core::llm::client::HttpLlm`
//! over `fetch` (`web::transport`) against the local scripted LLM server,
//! with faults injected by each test (each uses its own model-keyed queue).
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use serde_json::Value;
use tabteam::core::llm::client::{HttpLlm, ProviderConfig};
use tabteam::core::llm::retry::RetryPolicy;
use tabteam::core::llm::anthropic::Anthropic;
use tabteam::core::llm::codec::Codec;
use tabteam::core::llm::http::{HttpRequest, Method};
use tabteam::core::llm::openai::OpenAi;
use tabteam::core::llm::{collect_stream, ChatMessage, ChatRequest, Completion, Llm, LlmError};
use tabteam::web::fetch;
use tabteam::web::transport::{sleep, BrowserRuntime, FetchTransport};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn server() -> &'static str {
    option_env!("TABTEAM_LLM_URL").expect("TABTEAM_LLM_URL must be set at build time (scripts/test.sh does)")
}

async fn post(path: &str, body: String) -> String {
    let request = HttpRequest {
        method: Method::Post,
        url: format!("{}{path}", server()),
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    };
    let response = fetch::send(&request, None).await.expect("control request");
    assert_eq!(response.head.status, 200, "control {path}");
    response.text(None).await.expect("control body")
}

async fn script(model: &str, turns: Value) {
    post("/_control/script", serde_json::json!({"key": model, "turns": turns}).to_string()).await;
}

/// How many requests the server received for `model`.
async fn requests_for(model: &str) -> usize {
    let request = HttpRequest { method: Method::Get, url: format!("{}/_control/log", server()), headers: vec![], body: String::new() };
    let text = fetch::send(&request, None).await.expect("log").text(None).await.expect("log body");
    let log: Vec<Value> = serde_json::from_str(&text).expect("log json");
    log.iter().filter(|e| e["model"] == model).count()
}

fn provider(protocol: &'static dyn Codec, model: &str, timeout_ms: u64) -> (HttpLlm, FetchTransport) {
    let transport = FetchTransport::default();
    let base = match protocol.name() {
        "openai" => format!("{}/v1", server()),
        _ => server().to_string(),
    };
    let config = ProviderConfig { protocol, base_url: base, model: model.into(), api_key: Some("sk-test-key".into()), timeout_ms, max_tokens: None, unreachable_hint: None, structured_output: false };
    (HttpLlm::new(config, Rc::new(transport.clone()), Rc::new(BrowserRuntime)), transport)
}

fn request(model: &str) -> ChatRequest {
    ChatRequest::new(model, vec![ChatMessage::system("be brief"), ChatMessage::user("say hello")])
}

/// Deltas and the final result of one streamed call.
async fn run(llm: &HttpLlm, model: &str) -> (Vec<String>, Result<Completion, LlmError>) {
    collect_stream(llm.stream(request(model))).await
}

fn now() -> f64 {
    js_sys::Date::now()
}

#[wasm_bindgen_test]
async fn a_streamed_completion_arrives_as_deltas_in_order() {
    let model = "p-stream";
    script(model, serde_json::json!([{"text": "The quick brown fox jumps over the lazy dog.", "chunk_chars": 4, "usage": {"prompt_tokens": 12, "completion_tokens": 10}}])).await;
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let (deltas, done) = run(&llm, model).await;
    let done = done.expect("completion");
    assert!(deltas.len() >= 10, "{deltas:?}");
    assert_eq!(deltas.concat(), "The quick brown fox jumps over the lazy dog.");
    assert_eq!(done.text, deltas.concat());
    assert_eq!((done.usage.prompt_tokens, done.usage.completion_tokens, done.usage.estimated), (12, 10, false));
}

#[wasm_bindgen_test]
async fn a_bad_key_fails_at_once() {
    let model = "p-401";
    script(model, serde_json::json!([{"status": 401, "text": "Incorrect API key provided"}])).await;
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let (_, result) = run(&llm, model).await;
    assert!(matches!(&result, Err(LlmError::BadKey { .. })), "{result:?}");
    assert!(result.unwrap_err().to_string().contains("Check the key in Settings"));
    assert_eq!(requests_for(model).await, 1, "401 is never retried");
}

#[wasm_bindgen_test]
async fn rate_limited_with_retry_after_is_retried_once_and_succeeds() {
    let model = "p-429";
    script(model, serde_json::json!([{"status": 429, "headers": {"retry-after": "1"}}, {"text": "finally"}])).await;
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let started = now();
    let (_, result) = run(&llm, model).await;
    assert_eq!(result.expect("succeeds").text, "finally");
    assert!(now() - started >= 950.0, "waited for Retry-After: {} ms", now() - started);
    assert_eq!(requests_for(model).await, 2);
}

/// The same HTTP 500 twice is a fault, not a busy spell: the call stops
/// with the server's message after the second (issue #32, item 9).
#[wasm_bindgen_test]
async fn the_same_server_error_twice_stops() {
    let model = "p-500";
    script(model, serde_json::json!([{"status": 500, "text": "Internal failure", "repeat": 2}])).await;
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let llm = llm.with_policy(RetryPolicy { max_retries: 2, busy_waits_ms: &[50, 100] });
    let (_, result) = run(&llm, model).await;
    assert_eq!(result, Err(LlmError::ServerFault { status: 500, message: "Internal failure".into() }));
    assert_eq!(requests_for(model).await, 2);
}

#[wasm_bindgen_test]
async fn busy_errors_twice_then_success() {
    let model = "p-503";
    script(model, serde_json::json!([{"status": 503, "repeat": 2}, {"text": "third time"}])).await;
    // A busy provider's schedule (5 s, 10 s, ... in the app) made short.
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let llm = llm.with_policy(RetryPolicy { max_retries: 2, busy_waits_ms: &[50, 100] });
    let started = now();
    let (_, result) = run(&llm, model).await;
    assert_eq!(result.expect("succeeds").text, "third time");
    assert!(now() - started >= 150.0, "waited the schedule: {} ms", now() - started);
    assert_eq!(requests_for(model).await, 3);
}

#[wasm_bindgen_test]
async fn a_stream_cut_mid_way_is_truncated_with_the_partial_text() {
    let model = "p-cut";
    script(model, serde_json::json!([{"text": "abcdefghijklmnopqrstuvwxyz", "chunk_chars": 4, "cut_after_chunks": 2, "chunk_delay_ms": 20}])).await;
    let (llm, _) = provider(&OpenAi, model, 10_000);
    let (deltas, result) = run(&llm, model).await;
    assert_eq!(deltas.concat(), "abcdefgh");
    assert_eq!(result, Err(LlmError::Truncated { partial_text: "abcdefgh".into() }));
    assert_eq!(requests_for(model).await, 1, "a cut stream is not re-requested");
}

#[wasm_bindgen_test]
async fn stop_aborts_the_request_in_flight() {
    let model = "p-stop";
    script(model, serde_json::json!([{"text": "too late", "delay_ms": 5000}])).await;
    let (llm, transport) = provider(&OpenAi, model, 30_000);
    let stop = transport.stop.clone();
    wasm_bindgen_futures::spawn_local(async move {
        sleep(200).await;
        stop.stop();
    });
    let started = now();
    let (_, result) = run(&llm, model).await;
    assert_eq!(result, Err(LlmError::Cancelled));
    assert!(now() - started < 3000.0, "stopped promptly: {} ms", now() - started);
}

#[wasm_bindgen_test]
async fn a_slow_first_byte_hits_the_timeout() {
    let model = "p-slow";
    // Timeouts are retried twice, like the SDKs: three slow answers.
    script(model, serde_json::json!([{"text": "slow", "delay_ms": 2000, "repeat": 3}])).await;
    let (llm, _) = provider(&OpenAi, model, 300);
    let (_, result) = run(&llm, model).await;
    assert_eq!(result, Err(LlmError::Timeout { after_ms: 300 }));
    assert_eq!(requests_for(model).await, 3);
}

#[wasm_bindgen_test]
async fn the_anthropic_stream_end_to_end() {
    let model = "p-anthropic";
    script(model, serde_json::json!([{"text": "Hello from Claude", "chunk_chars": 5, "usage": {"input_tokens": 7, "output_tokens": 4}}])).await;
    let (llm, _) = provider(&Anthropic, model, 10_000);
    let (deltas, result) = run(&llm, model).await;
    let done = result.expect("completion");
    assert_eq!(deltas.concat(), "Hello from Claude");
    assert_eq!((done.usage.prompt_tokens, done.usage.completion_tokens), (7, 4));
    assert_eq!(requests_for(model).await, 1);
}
