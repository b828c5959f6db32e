//! Browser tests for the browser edge (`web`): real `fetch` against the
//! local test LLM server, in headless Chromium. IndexedDB is tested through
//! the store that uses it, in `tests/web_store.rs`.
//!
//! The server's URL is baked in at compile time from `TABTEAM_LLM_URL`,
//! which `scripts/test.sh` sets after starting the server on a free port.
#![cfg(target_arch = "wasm32")]

use tabteam::core::llm::http::{HttpRequest, Method};
use tabteam::web::fetch;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn llm_url() -> &'static str {
    option_env!("TABTEAM_LLM_URL").expect("TABTEAM_LLM_URL must be set at build time (scripts/test.sh does)")
}

async fn control(path: &str, body: &str) -> String {
    let request = HttpRequest {
        method: Method::Post,
        url: format!("{}{path}", llm_url()),
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.into(),
    };
    let response = fetch::send(&request, None).await.expect("control request");
    assert_eq!(response.head.status, 200, "control {path}");
    response.text(None).await.expect("control body")
}

#[wasm_bindgen_test]
async fn fetch_streams_from_the_local_llm_server() {
    control("/_control/script", r#"{"key":"web-fetch","turns":[{"text":"hello from the test server","chunk_chars":5}]}"#).await;
    let request = HttpRequest {
        method: Method::Post,
        url: format!("{}/v1/chat/completions", llm_url()),
        headers: vec![("content-type".into(), "application/json".into()), ("authorization".into(), "Bearer sk-test".into())],
        body: r#"{"model":"web-fetch","stream":true,"messages":[{"role":"user","content":"hi"}]}"#.into(),
    };
    let mut response = fetch::send(&request, None).await.expect("send");
    assert_eq!(response.head.status, 200);
    assert_eq!(response.head.header("content-type").map(|v| v.starts_with("text/event-stream")), Some(true));
    let mut body = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = response.next_chunk(None).await.expect("chunk") {
        chunks += 1;
        body.extend(chunk);
    }
    let text = String::from_utf8(body).expect("utf-8");
    assert!(chunks >= 1);
    assert!(text.contains("data: [DONE]"), "{text}");
    assert!(text.contains(r#""content":"hello""#), "{text}");
}

#[wasm_bindgen_test]
async fn an_unreachable_host_is_a_network_error() {
    let request = HttpRequest {
        method: Method::Post,
        url: "http://127.0.0.1:9/v1/chat/completions".into(),
        headers: vec![],
        body: "{}".into(),
    };
    let err = fetch::send(&request, None).await.err().expect("must fail");
    assert!(matches!(err, fetch::TransportError::Network(_)), "{err:?}");
}
