//! The MGX company's scripted 2048 run, in headless Chromium, with the
//! model behind real HTTP streaming: `HttpLlm` over `fetch` against the
//! local test LLM server, scripted with the same answers as the native run.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen_test::wasm_bindgen_test;

use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason, TeamEvent};
use crate::core::human::ScriptedHuman;
use crate::core::llm::client::{HttpLlm, ProviderConfig};
use crate::core::llm::http::{HttpRequest, Method};
use crate::core::mgx::{mgx_team, tests::script};
use crate::web::fetch;
use crate::web::transport::{BrowserRuntime, FetchTransport};

fn server() -> &'static str {
    option_env!("TABTEAM_LLM_URL").unwrap_or("http://127.0.0.1:9")
}

#[wasm_bindgen_test]
async fn the_mgx_company_builds_2048_over_real_http_streaming() {
    let model = "team-mgx-2048";
    let turns: Vec<serde_json::Value> =
        script().into_iter().map(|text| serde_json::json!({"text": text, "chunk_chars": 24})).collect();
    let body = serde_json::json!({"key": model, "turns": turns}).to_string();
    let control = HttpRequest {
        method: Method::Post,
        url: format!("{}/_control/script", server()),
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    };
    let response = fetch::send(&control, None).await.expect("the test LLM server is running");
    assert_eq!(response.head.status, 200);

    let config = ProviderConfig {
        protocol: &crate::core::llm::openai::OpenAi,
        base_url: format!("{}/v1", server()),
        model: model.into(),
        api_key: Some("sk-test".into()),
        timeout_ms: 10_000,
        max_tokens: None,
        unreachable_hint: None,
        structured_output: false,
    };
    let llm = HttpLlm::new(config, Rc::new(FetchTransport::default()), Rc::new(BrowserRuntime));
    let deltas = Rc::new(Cell::new(0usize));
    let counter = deltas.clone();
    let events = EventSink::new(move |e| {
        if let TeamEvent::LlmDelta { .. } = e {
            counter.set(counter.get() + 1);
        }
    });
    let mut team = mgx_team(Rc::new(llm), events);
    let mut prices = PriceTable::empty();
    prices.set(model, Price::new(1.0, 2.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(3.0);
    let human = ScriptedHuman::default();
    team.env.world.human = Rc::new(human.clone());
    team.run_project("a 2048 game in HTML/JS");
    let outcome = team.run(20).await;
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(outcome.stop, StopReason::Idle);
    let files = team.env.world.files.borrow();
    assert_eq!(
        files.list(None).unwrap(),
        ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "game.js", "index.html", "main.js", "style.css", "tests/game.test.js"]
    );
    assert!(files.read("docs/prd.md").unwrap().contains("quadrantChart"));
    assert_eq!(team.ledger.borrow().total().calls as usize, script().len());
    assert!(deltas.get() > 3 * script().len(), "the answers streamed in pieces: {} deltas", deltas.get());
    assert!(human.replies.borrow().last().unwrap().starts_with("Your 2048 game is ready"));
}
