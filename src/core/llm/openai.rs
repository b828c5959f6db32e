//! The OpenAI chat-completions codec, used for every OpenAI-compatible
//! server: builds the HTTP request, decodes the streamed answer and the
//! non-streamed one. The only file that knows OpenAI's JSON.
//!
//! It deliberately does no IO (the transport sends the [`HttpRequest`] and
//! feeds the bytes back), sends no SDK-style headers (`x-stainless-*`,
//! `OpenAI-Beta`: they break CORS preflights on compatible servers), and
//! ignores native tool calls and every choice but the first.
//!
//! Answers are read as a `serde_json::Value`, field by field, not through
//! derived structs: every field is optional on compatible servers, so the
//! structs were all `Option`s, and their derived decoders cost the widget
//! ~2 KB gzip of wasm. A field of an unexpected type counts as absent.

use serde::Serialize;
use serde_json::Value;

use super::codec::{Codec, StreamDecoder};
use super::http::{join_url, HttpRequest, Method};
use super::retry::{error_from_event_data, error_from_payload};
use super::framing::{EventDecoder, EventStream};
use super::sse::SseEvent;
use crate::core::ordered_json::OrderedJson;
use super::{ChatMessage, ChatRequest, ChatRole, Completion, FinishReason, LlmError, StreamEvent, Usage};

/// The OpenAI chat-completions protocol, spoken by every OpenAI-compatible
/// server (Ollama, LM Studio, OpenRouter, Groq, DeepSeek, Gemini's
/// compatibility endpoint, LiteLLM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenAi;

impl Codec for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn build_request(&self, base_url: &str, api_key: Option<&str>, request: &ChatRequest) -> HttpRequest {
        build_request(base_url, api_key, request, true)
    }

    fn decoder(&self, request: &ChatRequest) -> Box<dyn StreamDecoder> {
        Box::new(OpenAiStream::for_request(request))
    }
}

/// Build `POST {base_url}/chat/completions`. A missing or blank key sends no
/// `Authorization` header (local servers need none).
pub fn build_request(base_url: &str, api_key: Option<&str>, request: &ChatRequest, stream: bool) -> HttpRequest {
    let body = WireRequest {
        model: &request.model,
        messages: request
            .messages
            .iter()
            .map(|m| WireMessage { role: role_name(m.role), content: wire_content(m) })
            .collect(),
        stream,
        stream_options: stream.then_some(StreamOptions { include_usage: true }),
        max_tokens: request.max_tokens,
        temperature: request.temperature,
        response_format: match (&request.response_schema, request.json_mode) {
            (Some(schema), _) => Some(ResponseFormat {
                kind: "json_schema",
                json_schema: Some(JsonSchema { name: &schema.name, schema: &schema.schema, strict: false }),
            }),
            (None, true) => Some(ResponseFormat { kind: "json_object", json_schema: None }),
            (None, false) => None,
        },
    };
    let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("Authorization".to_owned(), format!("Bearer {key}")));
    }
    HttpRequest {
        method: Method::Post,
        url: join_url(base_url, "/chat/completions"),
        headers,
        // Serializing plain strings and numbers cannot fail.
        body: serde_json::to_string(&body).unwrap_or_default(),
    }
}

/// Decode a non-streamed chat-completions response body.
pub fn parse_response(body: &str, prompt_chars: usize) -> Result<Completion, LlmError> {
    let response = parse_object(body)?;
    if let Some(error) = response.get("error").filter(|e| is_truthy(e)) {
        return Err(error_from_payload(&error_envelope(error.clone())));
    }
    let choice = choices(&response)
        .find(|c| index(c) == 0)
        .ok_or_else(|| LlmError::Protocol { message: "the response has no choices".to_owned() })?;
    let message = &choice["message"];
    let content = text_of(&message["content"]);
    let refusal = text_of(&message["refusal"]);
    let refused = !refusal.is_empty();
    let text = if content.is_empty() { refusal } else { content }.to_owned();
    let usage = usage(&response).unwrap_or_else(|| estimate(prompt_chars, &text));
    Ok(Completion {
        finish: finish_reason(choice["finish_reason"].as_str(), refused),
        usage,
        model: self::text_of(&response["model"]).into(),
        text,
    })
}

/// What OpenAI chat-completion chunks mean: a `Delta` per piece of text of the
/// first choice, then `Done` at `data: [DONE]`, or an error.
#[derive(Debug, Clone, Default)]
pub struct OpenAiEvents {
    prompt_chars: usize,
    model: String,
    text: String,
    finish_reason: Option<String>,
    refused: bool,
    usage: Option<Usage>,
}

/// Decodes a streamed answer from raw bytes (see [`EventStream`]).
pub type OpenAiStream = EventStream<OpenAiEvents>;

impl EventDecoder for OpenAiEvents {
    fn start(prompt_chars: usize, model: String) -> Self {
        Self { prompt_chars, model, ..Self::default() }
    }

    fn partial_text(self) -> String {
        self.text
    }

    /// Handle one event, pushing deltas; returns the final item, if this ends the stream.
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut Vec<Result<StreamEvent, LlmError>>,
    ) -> Option<Result<StreamEvent, LlmError>> {
        if event.event.as_deref() == Some("error") {
            return Some(Err(error_from_event_data(&event.data)));
        }
        if event.data.starts_with("[DONE]") {
            return Some(Ok(StreamEvent::Done(self.completion())));
        }
        let chunk = match parse_object(&event.data) {
            Ok(chunk) => chunk,
            Err(e) => return Some(Err(e)),
        };
        if let Some(error) = chunk.get("error").filter(|e| is_truthy(e)) {
            return Some(Err(error_from_payload(&error_envelope(error.clone()))));
        }
        let model = text_of(&chunk["model"]);
        if !model.is_empty() {
            self.model = model.to_owned();
        }
        if let Some(usage) = usage(&chunk) {
            self.usage = Some(usage);
        }
        for choice in choices(&chunk).filter(|c| index(c) == 0) {
            let delta = &choice["delta"];
            for (piece, is_refusal) in [(text_of(&delta["content"]), false), (text_of(&delta["refusal"]), true)] {
                if !piece.is_empty() {
                    self.refused |= is_refusal;
                    self.text.push_str(piece);
                    out.push(Ok(StreamEvent::Delta(piece.to_owned())));
                }
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                self.finish_reason = Some(reason.to_owned());
            }
        }
        None
    }
}

impl OpenAiEvents {

    fn completion(&mut self) -> Completion {
        let text = std::mem::take(&mut self.text);
        Completion {
            finish: finish_reason(self.finish_reason.as_deref(), self.refused),
            usage: self.usage.unwrap_or_else(|| estimate(self.prompt_chars, &text)),
            model: std::mem::take(&mut self.model).into(),
            text,
        }
    }
}

/// OpenAI's finish reasons. A refusal counts as filtered whatever the server
/// said; a stream that ended with `[DONE]` but no reason counts as a stop.
fn finish_reason(reason: Option<&str>, refused: bool) -> FinishReason {
    if refused {
        return FinishReason::ContentFilter;
    }
    match reason {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

fn role_name(role: ChatRole) -> &'static str {
    match role {
        ChatRole::System => "system",
        ChatRole::User => "user",
        ChatRole::Assistant => "assistant",
    }
}

fn estimate(prompt_chars: usize, text: &str) -> Usage {
    Usage::estimate(prompt_chars, text.chars().count())
}

fn protocol_error(e: serde_json::Error) -> LlmError {
    LlmError::Protocol { message: format!("invalid chat-completions JSON: {e}") }
}

/// A response or a chunk: a JSON object (anything else is a protocol error).
fn parse_object(json: &str) -> Result<Value, LlmError> {
    match serde_json::from_str::<Value>(json) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err(LlmError::Protocol { message: "invalid chat-completions JSON: expected an object".to_owned() }),
        Err(e) => Err(protocol_error(e)),
    }
}

/// A string field's text; "" when it is missing, null or not a string.
fn text_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The `choices` of a response or a chunk (none when missing).
fn choices(value: &Value) -> impl Iterator<Item = &Value> {
    value["choices"].as_array().into_iter().flatten()
}

/// A choice's `index` (a missing one is the first).
fn index(choice: &Value) -> u64 {
    choice["index"].as_u64().unwrap_or(0)
}

/// The `usage` of a response or a chunk, if it reports one. Cached tokens
/// are part of `prompt_tokens` in both OpenAI's report (`prompt_tokens_details
/// .cached_tokens`) and DeepSeek's (`prompt_cache_hit_tokens`); more cached
/// than sent would be a server's error, so the figure is capped rather than
/// trusted (never billed below zero).
fn usage(value: &Value) -> Option<Usage> {
    let usage = value.get("usage").filter(|u| u.is_object())?;
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    let prompt_tokens = count(&usage["prompt_tokens"]);
    let cached = usage["prompt_tokens_details"]["cached_tokens"].as_u64().or(usage["prompt_cache_hit_tokens"].as_u64());
    Some(Usage { cached_tokens: cached.unwrap_or(0).min(prompt_tokens), ..Usage::new(prompt_tokens, count(&usage["completion_tokens"])) })
}

/// JavaScript truthiness, which is what the SDK tests an `error` key with.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Rewrap an `error` value so the shared error mapping sees `{"error": …}`.
fn error_envelope(error: Value) -> Value {
    let mut envelope = serde_json::Map::new();
    envelope.insert("error".to_owned(), error);
    Value::Object(envelope)
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: WireContent<'a>,
}

/// A turn's content: its text (a build without images has nothing else).
#[cfg(not(feature = "images"))]
type WireContent<'a> = &'a str;

#[cfg(not(feature = "images"))]
fn wire_content(m: &ChatMessage) -> WireContent<'_> {
    &m.content
}

/// A turn's content: its text, or with images the parts array, text first
/// and each image an `image_url` part holding its `data:` URL.
#[cfg(feature = "images")]
struct WireContent<'a>(&'a ChatMessage);

#[cfg(feature = "images")]
fn wire_content(m: &ChatMessage) -> WireContent<'_> {
    WireContent(m)
}

#[cfg(feature = "images")]
impl Serialize for WireContent<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde_json::json;
        let m = self.0;
        if m.images.is_empty() {
            return serializer.serialize_str(&m.content);
        }
        let text = json!({"type": "text", "text": m.content});
        let images = m.images.iter().map(|url| json!({"type": "image_url", "image_url": {"url": url}}));
        serializer.collect_seq(std::iter::once(text).chain(images))
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    json_schema: Option<JsonSchema<'a>>,
}

/// OpenAI's `json_schema` format. Not `strict`: strict mode refuses
/// optional properties and open `args`, which the command schema has;
/// servers that constrain (llama.cpp, Ollama, LM Studio, vLLM) follow the
/// schema either way.
#[derive(Serialize)]
struct JsonSchema<'a> {
    name: &'a str,
    schema: &'a OrderedJson,
    strict: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `sse` whole and describe what came out.
    fn check(sse: &str, want: &str) {
        let mut stream = OpenAiStream::new(8);
        let mut got = Vec::new();
        for item in stream.feed(sse.as_bytes()) {
            got.push(match item {
                Ok(StreamEvent::Delta(d)) => format!("delta {d:?}"),
                Ok(StreamEvent::Done(c)) => format!(
                    "done {:?} {:?} {}+{}{}",
                    c.text,
                    c.finish,
                    c.usage.prompt_tokens,
                    c.usage.completion_tokens,
                    if c.usage.estimated { "~" } else { "" }
                ),
                Ok(StreamEvent::Waiting { ms, .. }) => format!("waiting {ms}"),
                Err(e) => format!("err {e:?}"),
            });
        }
        if let Err(e) = stream.finish() {
            got.push(format!("finish {e:?}"));
        }
        assert_eq!(got.join("; "), want, "{sse}");
    }

    #[test]
    fn decodes_streams() {
        check(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
            "delta \"Hi\"; done \"Hi\" Stop 2+1~",
        );
        check(
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}],\"usage\":null}\n\n\
             data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
            "delta \"a\"; done \"a\" Length 3+1",
        );
        check(
            "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n",
            "done \"\" Stop 2+0~",
        );
        check(
            "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n",
            "delta \"ab\"; finish Truncated { partial_text: \"ab\" }",
        );
        check(
            "data: {oops\n\n",
            "err Protocol { message: \"invalid chat-completions JSON: key must be a string at line 1 column 2\" }",
        );
        check(
            "data: {\"error\":{\"message\":\"Overloaded\",\"code\":502}}\n\n",
            "err ProviderDown { status: 502, message: \"Overloaded\" }",
        );
        check(
            "event: error\ndata: {\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\"}}\n\n",
            "err RateLimited { message: \"slow down\", retry_after_ms: None }",
        );
        check("data: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n", "done \"\" Stop 2+0~");        // A field of an unexpected type counts as absent; a chunk that is no object is an error.
        check(
            "data: {\"model\":7,\"choices\":[{\"delta\":{\"content\":5,\"refusal\":null}},{\"delta\":{\"content\":\"b\"}}],\"usage\":\"n/a\"}\n\ndata: [DONE]\n\n",
            "delta \"b\"; done \"b\" Stop 2+1~",
        );
        check("data: [1]\n\n", "err Protocol { message: \"invalid chat-completions JSON: expected an object\" }");
    }

    #[test]
    fn parses_responses() {
        let check = |body: &str, want: &str| {
            let got = match parse_response(body, 8) {
                Ok(c) => format!(
                    "{:?} {:?} {}+{} {}",
                    c.text, c.finish, c.usage.prompt_tokens, c.usage.completion_tokens, c.model
                ),
                Err(e) => format!("err {e:?}"),
            };
            assert_eq!(got, want, "{body}");
        };
        check(
            r#"{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
            "\"hi\" Stop 5+1 m",
        );
        check(
            r#"{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}"#,
            "\"no\" ContentFilter 2+1 ",
        );
        check(r#"{"choices":[]}"#, "err Protocol { message: \"the response has no choices\" }");
        let cached = |body: &str| parse_response(body, 8).map(|c| (c.usage.prompt_tokens, c.usage.cached_tokens, c.usage.cache_write_tokens));
        let choice = r#""choices":[{"message":{"content":"hi"}}]"#;
        // OpenAI's cached tokens, DeepSeek's cache hits, a server claiming
        // more cached than sent (capped), and no cache report at all.
        assert_eq!(cached(&format!(r#"{{{choice},"usage":{{"prompt_tokens":2000,"completion_tokens":1,"prompt_tokens_details":{{"cached_tokens":1920}}}}}}"#)), Ok((2000, 1920, 0)));
        assert_eq!(cached(&format!(r#"{{{choice},"usage":{{"prompt_tokens":900,"completion_tokens":1,"prompt_cache_hit_tokens":640,"prompt_cache_miss_tokens":260}}}}"#)), Ok((900, 640, 0)));
        assert_eq!(cached(&format!(r#"{{{choice},"usage":{{"prompt_tokens":10,"prompt_tokens_details":{{"cached_tokens":64}}}}}}"#)), Ok((10, 10, 0)));
        assert_eq!(cached(&format!(r#"{{{choice},"usage":{{"prompt_tokens":10,"prompt_tokens_details":null}}}}"#)), Ok((10, 0, 0)));
        check(
            r#"{"error":{"message":"quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            "err NoCredit { message: \"quota\" }",
        );
    }

    #[cfg(feature = "images")]
    #[test]
    fn writes_images_as_image_url_parts() {
        let png = "data:image/png;base64,iVBORw0KGgo=";
        let mut turn = ChatMessage::user("make it look like this");
        turn.images = vec![png.to_owned()];
        let request = ChatRequest::new("gpt-4o", vec![ChatMessage::system("sys"), turn, ChatMessage::assistant("ok")]);
        let body: Value = serde_json::from_str(&build_request("https://api.openai.com/v1", None, &request, true).body).unwrap_or_default();
        assert_eq!(
            body["messages"],
            serde_json::json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [
                    {"type": "text", "text": "make it look like this"},
                    {"type": "image_url", "image_url": {"url": png}},
                ]},
                {"role": "assistant", "content": "ok"},
            ])
        );
    }
}
