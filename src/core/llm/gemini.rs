//! The Google Gemini codec (the Gemini API's own protocol, not its
//! OpenAI-compatible endpoint): builds `POST {base}/models/{model}:streamGenerateContent?alt=sse`
//! with the `x-goog-api-key` header, and decodes the streamed
//! `GenerateContentResponse` chunks. The only file that knows Gemini's JSON.
//!
//! It deliberately does no IO, keeps only the text parts of the first
//! candidate (thought summaries, function calls and code execution are
//! skipped), and maps errors through the shared table in `retry`, which
//! already reads Google's `{"error":{"code","message","status"}}`.
//! Gemini's stream has no end marker: the answer ends with the body, and is
//! whole when a chunk said why the model stopped (`finishReason`, or the
//! prompt's `blockReason`); otherwise it was cut short.

use serde::Serialize;
use serde_json::Value;

use super::codec::{Codec, StreamDecoder};
use super::framing::{EventDecoder, EventStream};
use super::http::{join_url, HttpRequest, Method};
use super::retry::error_from_payload;
use super::sse::SseEvent;
use super::{ChatRequest, ChatRole, Completion, FinishReason, LlmError, StreamEvent, Usage};

/// Where the Gemini API lives.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";
/// Gemini needs at least one turn in `contents`; this stands in when the
/// conversation has only a system prompt.
pub const FILLER_USER_TURN: &str = "Continue.";

/// The Gemini API's `generateContent` protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemini;

impl Codec for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn build_request(&self, base_url: &str, api_key: Option<&str>, request: &ChatRequest) -> HttpRequest {
        build_request(base_url, api_key, request)
    }

    fn decoder(&self, request: &ChatRequest) -> Box<dyn StreamDecoder> {
        Box::new(GeminiStream::for_request(request))
    }
}

/// Build the streaming request. System messages become `systemInstruction`;
/// consecutive turns of one role become one turn with several parts (Gemini
/// wants the roles to alternate); the assistant's role is `model`.
pub fn build_request(base_url: &str, api_key: Option<&str>, request: &ChatRequest) -> HttpRequest {
    let mut system = Vec::new();
    let mut contents: Vec<WireContent> = Vec::new();
    for message in &request.messages {
        let part = text_part(&message.content);
        let role = match message.role {
            ChatRole::System => {
                system.push(part);
                continue;
            }
            ChatRole::User => "user",
            ChatRole::Assistant => "model",
        };
        if contents.last().is_none_or(|last| last.role != role) {
            contents.push(WireContent { role, parts: Vec::new() });
        }
        if let Some(last) = contents.last_mut() {
            last.parts.push(part);
            #[cfg(feature = "images")]
            last.parts.extend(message.images.iter().filter_map(|url| crate::core::image::parse(url)).map(|image| WirePart::Image {
                inline_data: WireBlob { mime_type: image.media_type, data: image.base64 },
            }));
        }
    }
    if contents.is_empty() {
        contents.push(WireContent { role: "user", parts: vec![text_part(FILLER_USER_TURN)] });
    }
    let body = WireRequest {
        contents,
        system_instruction: (!system.is_empty()).then_some(WireSystem { parts: system }),
        generation_config: WireConfig {
            max_output_tokens: request.max_tokens,
            temperature: request.temperature,
            response_mime_type: request.json_mode.then_some("application/json"),
        },
    };
    // A model may be given as `models/gemini-…`, the way the API lists it.
    let model = request.model.trim();
    let model = model.strip_prefix("models/").unwrap_or(model);
    let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-goog-api-key".to_owned(), key.to_owned()));
    }
    HttpRequest {
        method: Method::Post,
        url: join_url(base_url, &format!("/models/{model}:streamGenerateContent?alt=sse")),
        headers,
        // Serializing plain strings and numbers cannot fail.
        body: serde_json::to_string(&body).unwrap_or_default(),
    }
}

/// What Gemini's chunks mean: a `Delta` per text part of the first
/// candidate; the finish reason and usage of the last chunk that has them.
#[derive(Debug, Clone, Default)]
pub struct GeminiEvents {
    prompt_chars: usize,
    model: String,
    text: String,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

/// Decodes a streamed answer from raw bytes (see [`EventStream`]).
pub type GeminiStream = EventStream<GeminiEvents>;

impl EventDecoder for GeminiEvents {
    fn start(prompt_chars: usize, model: String) -> Self {
        Self { prompt_chars, model, ..Self::default() }
    }

    fn partial_text(self) -> String {
        self.text
    }

    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut Vec<Result<StreamEvent, LlmError>>,
    ) -> Option<Result<StreamEvent, LlmError>> {
        let chunk = match serde_json::from_str::<Value>(&event.data) {
            Ok(chunk) if chunk.is_object() => chunk,
            Ok(_) => return Some(Err(protocol_error("expected an object".to_owned()))),
            Err(e) => return Some(Err(protocol_error(e.to_string()))),
        };
        if chunk.get("error").is_some_and(Value::is_object) {
            return Some(Err(error_from_payload(&chunk)));
        }
        if let Some(model) = chunk["modelVersion"].as_str().filter(|m| !m.is_empty()) {
            self.model = model.to_owned();
        }
        if let Some(usage) = usage(&chunk["usageMetadata"]) {
            self.usage = Some(usage);
        }
        if chunk["promptFeedback"]["blockReason"].is_string() {
            self.finish = Some(FinishReason::ContentFilter);
        }
        let first = chunk["candidates"].as_array().into_iter().flatten().find(|c| c["index"].as_u64().unwrap_or(0) == 0);
        if let Some(candidate) = first {
            for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
                let text = part["text"].as_str().unwrap_or_default();
                if !text.is_empty() && part["thought"] != Value::Bool(true) {
                    self.text.push_str(text);
                    out.push(Ok(StreamEvent::Delta(text.to_owned())));
                }
            }
            if let Some(reason) = candidate["finishReason"].as_str() {
                self.finish = Some(finish_reason(reason));
            }
        }
        None
    }

    fn at_end(self) -> Result<Completion, LlmError> {
        let Some(finish) = self.finish else {
            return Err(LlmError::Truncated { partial_text: self.text });
        };
        let usage = self.usage.unwrap_or_else(|| Usage::estimate(self.prompt_chars, self.text.chars().count()));
        Ok(Completion { text: self.text, finish, usage, model: self.model.into() })
    }
}

/// Gemini's finish reasons. The safety and recitation stops are filters.
fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        "MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL" => FinishReason::ToolCalls,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// `usageMetadata`, if the chunk has one. `promptTokenCount` includes the
/// cached tokens (`cachedContentTokenCount`); thinking (`thoughtsTokenCount`)
/// is billed as output, so it counts with the candidates' tokens. More
/// cached than sent would be a server's error: capped, never billed below zero.
fn usage(metadata: &Value) -> Option<Usage> {
    if !metadata.is_object() {
        return None;
    }
    let count = |key: &str| metadata[key].as_u64().unwrap_or(0);
    let prompt = count("promptTokenCount");
    Some(Usage {
        cached_tokens: count("cachedContentTokenCount").min(prompt),
        ..Usage::new(prompt, count("candidatesTokenCount") + count("thoughtsTokenCount"))
    })
}

fn protocol_error(why: String) -> LlmError {
    LlmError::Protocol { message: format!("invalid Gemini JSON: {why}") }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireRequest<'a> {
    contents: Vec<WireContent<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<WireSystem<'a>>,
    generation_config: WireConfig,
}

#[derive(Serialize)]
struct WireContent<'a> {
    role: &'static str,
    parts: Vec<WirePart<'a>>,
}

#[derive(Serialize)]
struct WireSystem<'a> {
    parts: Vec<WirePart<'a>>,
}

#[cfg(not(feature = "images"))]
#[derive(Serialize)]
struct WirePart<'a> {
    text: &'a str,
}

#[cfg(not(feature = "images"))]
fn text_part(text: &str) -> WirePart<'_> {
    WirePart { text }
}

/// A part: text, or an image inline (`inline_data`, base64).
#[cfg(feature = "images")]
#[derive(Serialize)]
#[serde(untagged)]
enum WirePart<'a> {
    Text { text: &'a str },
    Image { inline_data: WireBlob<'a> },
}

#[cfg(feature = "images")]
fn text_part(text: &str) -> WirePart<'_> {
    WirePart::Text { text }
}

#[cfg(feature = "images")]
#[derive(Serialize)]
struct WireBlob<'a> {
    mime_type: &'a str,
    data: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_mime_type: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::ChatMessage;

    /// Feed `sse` whole, then end the bytes, and describe what came out.
    fn check(sse: &str, want: &str) {
        let mut stream = GeminiStream::new(8);
        let mut got = Vec::new();
        let describe = |c: &Completion| {
            format!(
                "done {:?} {:?} {}+{}{} cached {} {}",
                c.text,
                c.finish,
                c.usage.prompt_tokens,
                c.usage.completion_tokens,
                if c.usage.estimated { "~" } else { "" },
                c.usage.cached_tokens,
                c.model
            )
        };
        for item in stream.feed(sse.as_bytes()) {
            got.push(match item {
                Ok(StreamEvent::Delta(d)) => format!("delta {d:?}"),
                Ok(StreamEvent::Done(c)) => describe(&c),
                Ok(StreamEvent::Waiting { ms, .. }) => format!("waiting {ms}"),
                Err(e) => format!("err {e:?}"),
            });
        }
        match stream.finish() {
            Ok(None) => {}
            Ok(Some(c)) => got.push(format!("end {}", describe(&c))),
            Err(e) => got.push(format!("finish {e:?}")),
        }
        assert_eq!(got.join("; "), want, "{sse}");
    }

    #[test]
    fn decodes_streams() {
        let text = |t: &str| format!(r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{t}"}}],"role":"model"}}}}]}}"#);
        check(
            &format!(
                "data: {}\r\n\r\ndata: {}\r\n\r\n",
                text("Hi"),
                r#"{"candidates":[{"content":{"parts":[{"text":"!"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":2},"modelVersion":"gemini-x"}"#
            ),
            r#"delta "Hi"; delta "!"; end done "Hi!" Stop 7+2 cached 0 gemini-x"#,
        );
        // No finish reason before the bytes end: cut short.
        check(&format!("data: {}\n\n", text("ab")), r#"delta "ab"; finish Truncated { partial_text: "ab" }"#);
        // Thought summaries are not the answer; thinking is billed as output.
        check(
            r#"data: {"candidates":[{"content":{"parts":[{"text":"hmm","thought":true},{"text":"ok"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"thoughtsTokenCount":5,"cachedContentTokenCount":4}}

"#,
            r#"delta "ok"; end done "ok" Length 10+6 cached 4 "#,
        );
        // A prompt blocked before any candidate; no usage: estimated.
        check(
            "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n",
            "end done \"\" ContentFilter 2+0~ cached 0 ",
        );
        // Only the first candidate; a field of an unexpected type counts as absent.
        check(
            r#"data: {"candidates":[{"index":1,"content":{"parts":[{"text":"x"}]}},{"content":{"parts":[{"text":5},{"text":"y"}]},"finishReason":"SAFETY"}],"usageMetadata":"n/a"}

"#,
            r#"delta "y"; end done "y" ContentFilter 2+1~ cached 0 "#,
        );
        check(
            "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\n\n",
            "err ProviderDown { status: 503, message: \"The model is overloaded.\" }",
        );
        check("data: [1]\n\n", "err Protocol { message: \"invalid Gemini JSON: expected an object\" }");
    }

    #[test]
    fn builds_requests() {
        let mut request = ChatRequest::new(
            "models/gemini-2.5-flash",
            vec![
                ChatMessage::system("be brief"),
                ChatMessage::user("a"),
                ChatMessage::user("b"),
                ChatMessage::assistant("c"),
            ],
        );
        request.max_tokens = Some(100);
        request.json_mode = true;
        let http = build_request("https://generativelanguage.googleapis.com/v1beta/", Some(" AIzaKEY "), &request);
        assert_eq!(
            http.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(http.header("x-goog-api-key"), Some("AIzaKEY"));
        assert_eq!(http.header("authorization"), None);
        let body: Value = serde_json::from_str(&http.body).unwrap_or_default();
        assert_eq!(
            body,
            serde_json::json!({
                "contents": [
                    {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]},
                    {"role": "model", "parts": [{"text": "c"}]},
                ],
                "systemInstruction": {"parts": [{"text": "be brief"}]},
                "generationConfig": {"maxOutputTokens": 100, "responseMimeType": "application/json"},
            })
        );
        let only_system = ChatRequest::new("gemini-2.5-flash", vec![ChatMessage::system("s")]);
        let http = build_request(DEFAULT_BASE_URL, None, &only_system);
        assert_eq!(http.headers.len(), 1, "no key, no key header");
        let body: Value = serde_json::from_str(&http.body).unwrap_or_default();
        assert_eq!(body["contents"], serde_json::json!([{"role": "user", "parts": [{"text": FILLER_USER_TURN}]}]));
        assert_eq!(body["generationConfig"], serde_json::json!({}));
    }

    #[cfg(feature = "images")]
    #[test]
    fn writes_images_as_inline_data_parts() {
        let mut turn = ChatMessage::user("like this");
        turn.images = vec!["data:image/webp;base64,UklGRg==".to_owned()];
        let request = ChatRequest::new("gemini-2.5-flash", vec![turn, ChatMessage::user("go")]);
        let body: Value = serde_json::from_str(&build_request(DEFAULT_BASE_URL, None, &request).body).unwrap_or_default();
        assert_eq!(
            body["contents"],
            serde_json::json!([{"role": "user", "parts": [
                {"text": "like this"},
                {"inline_data": {"mime_type": "image/webp", "data": "UklGRg=="}},
                {"text": "go"},
            ]}])
        );
    }
}
