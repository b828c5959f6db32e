//! Answers constrained to a JSON schema, through the providers: the
//! request's schema reaches the wire as `response_format` `json_schema`
//! only for presets flagged for it (`Preset::structured_output`), and the
//! answer is read the same way whether it was sent or not.
//!
//! The provider's answer is a scripted SSE stream in OpenAI's chunk shape
//! (the real servers' streams are exercised by the e2e test against the
//! local llama.cpp server, `tests/e2e/local-llm.real.mjs`). No network.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use serde_json::{json, Value};
use tabteam::core::commands::{answer_schema, CommandSpec, Param, ParamType, ANSWER_SCHEMA_NAME};
use tabteam::core::llm::client::{Body, HttpLlm, Runtime, Transport, TransportFailure};
use tabteam::core::llm::http::{HttpRequest, HttpResponseHead};
use tabteam::core::llm::presets::PRESETS;
use tabteam::core::llm::{openai, ChatMessage, ChatRequest, Llm, ResponseSchema, StreamEvent};
use tabteam::core::rolezero::{answer_text, parse_commands, ParseOutcome};
use tabteam::core::settings::Settings;

/// What a constraining server streams for the answer schema (scripted).
const ANSWER: &str = r#"{"thought": "Start with the page.", "commands": [{"command_name": "Editor.write", "args": {"path": "index.html", "content": "<h1>hi</h1>"}}, {"command_name": "end", "args": {}}]}"#;

/// Anthropic's event shape for the same answer (scripted).
fn anthropic_sse(answer: &str) -> Vec<u8> {
    let events = [
        ("message_start", json!({"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 120, "output_tokens": 1}}})),
        ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": answer}})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40}})),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect::<String>().into_bytes()
}

fn gemini_sse(answer: &str) -> Vec<u8> {
    let (a, b) = answer.split_at(answer.len() / 2);
    let chunk = |text: &str, finish: Option<&str>| {
        let mut candidate = json!({"content": {"role": "model", "parts": [{"text": text}]}, "index": 0});
        if let Some(finish) = finish {
            candidate["finishReason"] = json!(finish);
        }
        json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 40, "totalTokenCount": 160}})
    };
    format!("data: {}\r\n\r\ndata: {}\r\n\r\n", chunk(a, None), chunk(b, Some("STOP"))).into_bytes()
}

fn sse(answer: &str) -> Vec<u8> {
    let (a, b) = answer.split_at(answer.len() / 2);
    let chunk = |text: &str| json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}).to_string();
    format!(
        "data: {}\n\ndata: {}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        chunk(a),
        chunk(b),
        json!({"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160}})
    )
    .into_bytes()
}

/// Answers every request with `ANSWER`, keeping the requests.
#[derive(Default)]
struct Recorder {
    sent: RefCell<Vec<HttpRequest>>,
}

struct OneBody(Option<Vec<u8>>);

impl Body for OneBody {
    fn next_chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, TransportFailure>> {
        let chunk = self.0.take();
        Box::pin(async move { Ok(chunk) })
    }
}

impl Transport for Recorder {
    fn send(&self, request: HttpRequest, _timeout_ms: u64) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        let bytes = if request.url.ends_with("/messages") {
            anthropic_sse(ANSWER)
        } else if request.url.contains(":streamGenerateContent") {
            gemini_sse(ANSWER)
        } else {
            sse(ANSWER)
        };
        self.sent.borrow_mut().push(request);
        Box::pin(async {
            let head = HttpResponseHead::new(200, vec![("content-type".into(), "text/event-stream".into())]);
            Ok((head, Box::new(OneBody(Some(bytes))) as Box<dyn Body>))
        })
    }
}

struct NoWait;

impl Runtime for NoWait {
    fn sleep(&self, _ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(async {})
    }
    fn now_ms(&self) -> u64 {
        0
    }
    fn jitter(&self) -> f64 {
        0.5
    }
}

fn schema() -> Arc<ResponseSchema> {
    let specs = [
        CommandSpec::new("Editor.write", "Writes a file.")
            .param(Param::new("path", ParamType::Str))
            .param(Param::new("content", ParamType::Str)),
        CommandSpec::new("end", "Ends.").exclusive(),
    ];
    Arc::new(ResponseSchema { name: ANSWER_SCHEMA_NAME.into(), schema: answer_schema(&specs) })
}

fn request() -> ChatRequest {
    let mut request = ChatRequest::new("m", vec![ChatMessage::system("be brief"), ChatMessage::user("a page")]);
    request.response_schema = Some(schema());
    request
}

/// The body sent and the answer read, for the preset `id`.
fn call(id: &str) -> (Value, String) {
    let mut settings = Settings::default();
    settings.choose_preset(id);
    if settings.base_url.is_empty() {
        settings.base_url = "http://127.0.0.1:1/v1".into();
    }
    let recorder = Rc::new(Recorder::default());
    let llm = HttpLlm::new(settings.provider_config("k", None), recorder.clone(), Rc::new(NoWait));
    let text = block_on(async {
        let mut stream = llm.stream(request());
        while let Some(event) = stream.next().await {
            if let StreamEvent::Done(done) = event.expect("the scripted stream decodes") {
                return done.text;
            }
        }
        panic!("no Done");
    });
    let sent = recorder.sent.borrow();
    assert_eq!(sent.len(), 1);
    (serde_json::from_str(&sent[0].body).expect("the body is JSON"), text)
}

#[test]
fn response_format_goes_only_to_flagged_presets() {
    let flagged: Vec<&str> = PRESETS.iter().filter(|p| p.structured_output).map(|p| p.id).collect();
    assert_eq!(flagged, ["openai", "openrouter", "ollama", "lmstudio", "llamacpp", "vllm", "intab"]);
    for preset in PRESETS {
        let (body, text) = call(preset.id);
        let format = body.get("response_format");
        if preset.structured_output {
            let format = format.unwrap_or_else(|| panic!("{}: no response_format", preset.id));
            assert_eq!(format["type"], "json_schema", "{}", preset.id);
            assert_eq!(format["json_schema"]["name"], ANSWER_SCHEMA_NAME);
            assert_eq!(format["json_schema"]["strict"], false);
            assert_eq!(format["json_schema"]["schema"], schema().schema.to_value(), "{}", preset.id);
        } else {
            // Anthropic's and Gemini's bodies have no such field either;
            // the others go through the repair path.
            assert!(format.is_none(), "{}: {format:?}", preset.id);
        }
        // Read the same way: the text as streamed, then MetaGPT's form.
        assert_eq!(text, ANSWER, "{}", preset.id);
        let ParseOutcome::Parsed { commands, notes } = parse_commands(&answer_text(text)) else {
            panic!("{}: did not parse", preset.id);
        };
        assert_eq!(commands.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Editor.write", "end"]);
        assert!(notes.is_empty(), "{notes:?}");
    }
}

/// The codec alone: a schema wins over JSON mode; neither sends nothing.
#[test]
fn the_openai_codec_writes_the_schema() {
    let body = |request: &ChatRequest| -> Value {
        serde_json::from_str(&openai::build_request("http://x/v1", None, request, true).body).unwrap()
    };
    let mut plain = request();
    plain.response_schema = None;
    assert!(body(&plain).get("response_format").is_none());
    plain.json_mode = true;
    assert_eq!(body(&plain)["response_format"], json!({"type": "json_object"}));
    let mut both = request();
    both.json_mode = true;
    let format = &body(&both)["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["schema"]["required"], json!(["thought", "commands"]));
}

/// The single assistant's answer schema as a file, for the tools outside
/// Rust that constrain with it (the llama.cpp stand-in's self-test, the
/// bench). Kept equal to what the core generates; `UPDATE_EXPECT=1`
/// rewrites it after a command changes.
#[test]
fn the_assistant_s_answer_schema_file_is_current() {
    use tabteam::core::rolezero::zero::{RoleZero, ZeroConfig};
    let zero = RoleZero::new(ZeroConfig::default(), |_| {});
    let schema = answer_schema(zero.registry().specs());
    let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    expect_test::expect_file!["fixtures/assistant_answer_schema.json"].assert_eq(&text);
}

/// The single assistant's first think request for the sample idea, as a
/// file: the prompt the bench (`scripts/bench-local-llm.sh`) sends a real
/// model. Taken from a run with a scripted model, so it is exactly what
/// the team sends; `UPDATE_EXPECT=1` rewrites it after a prompt changes.
#[test]
fn the_assistant_s_first_request_file_is_current() {
    use tabteam::core::events::EventSink;
    use tabteam::core::llm::scripted::ScriptedLlm;
    use tabteam::core::recipes::build_team;
    use tabteam::core::settings::TeamKind;
    let llm = ScriptedLlm::from_texts("m", ["TASK", r#"{"thought": "", "commands": [{"command_name": "end", "args": {}}]}"#, "ok"]);
    let mut team = build_team(TeamKind::Assistant, Rc::new(llm.clone()), EventSink::default());
    team.ledger.borrow_mut().prices.set("m", tabteam::core::cost::Price::new(0.0, 0.0));
    team.invest(10.0);
    team.run_project("A web page that says hello");
    block_on(team.run(2));
    let requests = llm.requests();
    let think = requests.iter().find(|r| r.response_schema.is_some()).unwrap_or_else(|| panic!("no think call in {} calls", requests.len()));
    let messages: Vec<Value> = think.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
    let text = serde_json::to_string_pretty(&json!({"idea": "A web page that says hello", "messages": messages})).unwrap() + "\n";
    expect_test::expect_file!["fixtures/assistant_first_request.json"].assert_eq(&text);
}
