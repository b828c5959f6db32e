//! The Anthropic messages codec: builds the HTTP request, decodes the
//! streamed answer and the non-streamed one. The only file that knows
//! Anthropic's JSON.
//!
//! It deliberately does no IO, keeps only text blocks (tool-use input and
//! thinking are skipped), and has no JSON mode: Anthropic has no
//! `response_format`, so `ChatRequest::json_mode` is left to the prompt.
//! Prompt caching: two `cache_control` breakpoints (the system prompt, the
//! end of the history), and the cache reads and writes in the usage.
//! Answers are read as a `serde_json::Value`, field by field (as in
//! `openai`, for the same reason: derived decoders of all-optional structs
//! cost the widget's wasm more than they say); a field of an unexpected
//! type counts as absent.

use serde::Serialize;
use serde_json::Value;

use super::codec::{Codec, StreamDecoder};
use super::http::{join_url, HttpRequest, Method};
use super::retry::{error_from_event_data, error_from_payload};
use super::framing::{EventDecoder, EventStream};
use super::sse::SseEvent;
use super::{ChatRequest, ChatRole, Completion, FinishReason, LlmError, StreamEvent, Usage};

/// Where Anthropic's API lives when no base URL is configured.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version header value this codec is written against.
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` is required by Anthropic; this is used when the request has none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// Anthropic requires the first turn to be the user's and rejects empty
/// turns; this stands in when the conversation opens otherwise.
pub const FILLER_USER_TURN: &str = "Continue.";

/// The Anthropic messages protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anthropic;

impl Codec for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn build_request(&self, base_url: &str, api_key: Option<&str>, request: &ChatRequest) -> HttpRequest {
        build_request(base_url, api_key, request, true)
    }

    fn decoder(&self, request: &ChatRequest) -> Box<dyn StreamDecoder> {
        Box::new(AnthropicStream::for_request(request))
    }
}

/// Build `POST {base_url}/v1/messages` (a base that already ends in `/v1` is
/// accepted too). System messages are hoisted into the top-level `system`
/// field; consecutive turns of one role are merged.
pub fn build_request(base_url: &str, api_key: Option<&str>, request: &ChatRequest, stream: bool) -> HttpRequest {
    let (system, messages) = split_system(request);
    let body = WireRequest {
        model: &request.model,
        max_tokens: request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        system,
        messages,
        stream,
        // Anthropic accepts 0..=1, OpenAI 0..=2; clamp rather than be refused.
        temperature: request.temperature.map(|t| t.clamp(0.0, 1.0)),
    };
    let base = base_url.trim().trim_end_matches('/');
    let path = if base.ends_with("/v1") { "/messages" } else { "/v1/messages" };
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-api-key".to_owned(), key.to_owned()));
    }
    headers.push(("anthropic-version".to_owned(), API_VERSION.to_owned()));
    // Without this opt-in Anthropic answers a browser (an `Origin` header) with 401.
    headers.push(("anthropic-dangerous-direct-browser-access".to_owned(), "true".to_owned()));
    HttpRequest {
        method: Method::Post,
        url: join_url(base, path),
        headers,
        // Serializing plain strings and numbers cannot fail.
        body: serde_json::to_string(&body).unwrap_or_default(),
    }
}

/// Decode a non-streamed messages response body.
pub fn parse_response(body: &str, prompt_chars: usize) -> Result<Completion, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(protocol_error)?;
    if value.get("type").and_then(Value::as_str) == Some("error") || value.get("error").is_some_and(Value::is_object) {
        return Err(error_from_payload(&value));
    }
    let text: String = value["content"].as_array().into_iter().flatten().filter(|b| b["type"] == "text").map(|b| text_of(&b["text"])).collect();
    let usage = match WireUsage::read(&value["usage"]) {
        Some(usage) => usage.into_usage(),
        None => estimate(prompt_chars, &text),
    };
    Ok(Completion {
        finish: stop_reason(value["stop_reason"].as_str()),
        usage,
        model: text_of(&value["model"]).into(),
        text,
    })
}

/// What Anthropic message events mean: a `Delta` per text delta, then `Done` at
/// `message_stop`, or an error (an `error` event included).
#[derive(Debug, Clone, Default)]
pub struct AnthropicEvents {
    prompt_chars: usize,
    model: String,
    text: String,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
}

/// Decodes a streamed answer from raw bytes (see [`EventStream`]).
pub type AnthropicStream = EventStream<AnthropicEvents>;

impl EventDecoder for AnthropicEvents {
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
        // The SSE event name is authoritative; the payload's `type` stands in
        // when a proxy dropped the `event:` lines.
        let parsed = match event.event.as_deref() {
            Some("error") => return Some(Err(error_from_event_data(&event.data))),
            Some(name) if !NEEDED_EVENTS.contains(&name) => return None,
            _ => match serde_json::from_str::<Value>(&event.data) {
                Ok(parsed) if parsed.is_object() => parsed,
                Ok(_) => return Some(Err(LlmError::Protocol { message: "invalid messages JSON: expected an object".to_owned() })),
                Err(e) => return Some(Err(protocol_error(e))),
            },
        };
        let name = event.event.or_else(|| parsed["type"].as_str().map(str::to_owned)).unwrap_or_default();
        match name.as_str() {
            "message_start" => {
                let message = &parsed["message"];
                let model = text_of(&message["model"]);
                if !model.is_empty() {
                    self.model = model.to_owned();
                }
                if let Some(usage) = WireUsage::read(&message["usage"]) {
                    self.usage = Some(usage);
                }
            }
            "content_block_start" => {
                let block = &parsed["content_block"];
                if block["type"] == "text" {
                    self.push_text(text_of(&block["text"]), out);
                }
            }
            "content_block_delta" => {
                let delta = &parsed["delta"];
                if delta["type"] == "text_delta" {
                    self.push_text(text_of(&delta["text"]), out);
                }
            }
            "message_delta" => {
                if let Some(reason) = parsed["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = WireUsage::read(&parsed["usage"]) {
                    // Usage here is cumulative: it replaces, never adds.
                    self.usage = Some(self.usage.take().unwrap_or_default().merged(usage));
                }
            }
            "message_stop" => return Some(Ok(StreamEvent::Done(self.completion()))),
            "error" => return Some(Err(error_from_event_data(&event.data))),
            _ => {}
        }
        None
    }
}

impl AnthropicEvents {

    fn push_text(&mut self, text: &str, out: &mut Vec<Result<StreamEvent, LlmError>>) {
        if !text.is_empty() {
            self.text.push_str(text);
            out.push(Ok(StreamEvent::Delta(text.to_owned())));
        }
    }

    fn completion(&mut self) -> Completion {
        let text = std::mem::take(&mut self.text);
        let usage = match self.usage.take() {
            Some(usage) => usage.into_usage(),
            None => estimate(self.prompt_chars, &text),
        };
        Completion {
            finish: stop_reason(self.stop_reason.as_deref()),
            usage,
            model: std::mem::take(&mut self.model).into(),
            text,
        }
    }
}

/// Events whose payload matters; everything else (`ping`,
/// `content_block_stop`, events added later) is skipped unread.
const NEEDED_EVENTS: &[&str] =
    &["message_start", "content_block_start", "content_block_delta", "message_delta", "message_stop"];

/// Anthropic's stop reasons. A stream that ended with `message_stop` but no
/// reason counts as a stop.
fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
        Some("tool_use") => FinishReason::ToolCalls,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

/// Hoist system messages and shape the rest as Anthropic wants: only user and
/// assistant turns, alternating, the first a user's, none empty, and a final
/// assistant turn (a prefill) without trailing whitespace.
///
/// Prompt caching: the system prompt and the last stable turn (the message
/// before the request's last one: the history ends there, and what changes
/// from call to call comes after it) carry a `cache_control` breakpoint, two
/// of the four Anthropic allows. A turn merged from several messages keeps
/// one text block per message, so the block a breakpoint sits on ends where
/// that message ends, in this request and in the next one alike.
fn split_system(request: &ChatRequest) -> (Option<WireSystem>, Vec<WireTurn>) {
    let mut system: Vec<&str> = Vec::new();
    let mut turns: Vec<WireTurn> = Vec::new();
    let stable = last_stable_message(request);
    for (index, message) in request.messages.iter().enumerate() {
        let role = match message.role {
            ChatRole::System => {
                system.push(&message.content);
                continue;
            }
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        };
        if message.content.trim().is_empty() {
            continue;
        }
        let block = WireBlockOut {
            text: message.content.to_string(),
            cache: Some(index) == stable,
            #[cfg(feature = "images")]
            images: message.images.clone(),
        };
        match turns.last_mut() {
            Some(last) if last.role == role => last.blocks.push(block),
            _ => turns.push(WireTurn { role, blocks: vec![block] }),
        }
    }
    if turns.first().is_none_or(|t| t.role != "user") {
        turns.insert(0, WireTurn { role: "user", blocks: vec![WireBlockOut::filler()] });
    }
    if let Some(block) = turns.last_mut().filter(|t| t.role == "assistant").and_then(|t| t.blocks.last_mut()) {
        block.text.truncate(block.text.trim_end().len());
    }
    let system: Vec<&str> = system.into_iter().filter(|s| !s.trim().is_empty()).collect();
    let system = (!system.is_empty()).then(|| WireSystem(system.join("\n\n")));
    (system, turns)
}

/// The index of the last stable message: the last non-empty user or
/// assistant message before the last one. `None` when there is at most one
/// (the system prompt's breakpoint is then the only one).
fn last_stable_message(request: &ChatRequest) -> Option<usize> {
    let mut turns = request
        .messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role != ChatRole::System && !m.content.trim().is_empty());
    turns.next()?;
    turns.next().map(|(index, _)| index)
}

fn estimate(prompt_chars: usize, text: &str) -> Usage {
    Usage::estimate(prompt_chars, text.chars().count())
}

fn protocol_error(e: serde_json::Error) -> LlmError {
    LlmError::Protocol { message: format!("invalid messages JSON: {e}") }
}

/// A string field's text; "" when it is missing, null or not a string.
fn text_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<WireSystem>,
    messages: Vec<WireTurn>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

/// One turn: its messages' texts, one block each.
struct WireTurn {
    role: &'static str,
    blocks: Vec<WireBlockOut>,
}

/// One message's text, and whether a cache breakpoint ends it.
struct WireBlockOut {
    text: String,
    cache: bool,
    /// The message's images, `data:` URLs, sent before its text (as
    /// Anthropic advises), so the breakpoint still ends the message.
    #[cfg(feature = "images")]
    images: Vec<String>,
}

/// The system prompt: always a cache breakpoint.
struct WireSystem(String);

/// `{"type": "ephemeral"}`: Anthropic's one cache kind (5 minutes).
#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

#[derive(Serialize)]
struct WireTextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

impl WireBlockOut {
    fn filler() -> Self {
        Self {
            text: FILLER_USER_TURN.to_owned(),
            cache: false,
            #[cfg(feature = "images")]
            images: Vec::new(),
        }
    }

    fn wire(&self) -> WireTextBlock<'_> {
        WireTextBlock { kind: "text", text: &self.text, cache_control: self.cache.then_some(EPHEMERAL) }
    }

    /// Sent as a plain string: one text, no breakpoint, no image.
    fn plain(&self) -> bool {
        #[cfg(feature = "images")]
        return !self.cache && self.images.is_empty();
        #[cfg(not(feature = "images"))]
        !self.cache
    }
}

/// A turn's blocks: each message's images (`image` blocks with a base64
/// `source`), then its text.
#[cfg(feature = "images")]
fn wire_blocks(blocks: &[WireBlockOut]) -> Vec<Value> {
    let mut out = Vec::new();
    for block in blocks {
        for image in block.images.iter().filter_map(|url| crate::core::image::parse(url)) {
            out.push(serde_json::json!({
                "type": "image",
                "source": {"type": "base64", "media_type": image.media_type, "data": image.base64},
            }));
        }
        out.push(serde_json::to_value(block.wire()).unwrap_or_default());
    }
    out
}

impl Serialize for WireSystem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [WireTextBlock { kind: "text", text: &self.0, cache_control: Some(EPHEMERAL) }].serialize(serializer)
    }
}

/// A turn of one plain message is sent as a string (what it always was);
/// a merged turn, or one holding a breakpoint, as its list of text blocks.
/// Anthropic reads a string as one text block, so the cached prefix is the
/// same either way.
impl Serialize for WireTurn {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut turn = serializer.serialize_struct("WireTurn", 2)?;
        turn.serialize_field("role", self.role)?;
        match self.blocks.as_slice() {
            [only] if only.plain() => turn.serialize_field("content", &only.text)?,
            #[cfg(feature = "images")]
            blocks => turn.serialize_field("content", &wire_blocks(blocks))?,
            #[cfg(not(feature = "images"))]
            blocks => turn.serialize_field("content", &blocks.iter().map(WireBlockOut::wire).collect::<Vec<_>>())?,
        }
        turn.end()
    }
}

/// The token counts of a `usage` object; a count missing (or not a
/// number) is `None`, so a later report's counts can replace only those it has.
#[derive(Default, Debug, Clone, Copy)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// `usage` read, when it is an object.
    fn read(usage: &Value) -> Option<WireUsage> {
        usage.is_object().then(|| WireUsage {
            input_tokens: usage["input_tokens"].as_u64(),
            output_tokens: usage["output_tokens"].as_u64(),
            cache_creation_input_tokens: usage["cache_creation_input_tokens"].as_u64(),
            cache_read_input_tokens: usage["cache_read_input_tokens"].as_u64(),
        })
    }

    /// Fields present in `newer` replace ours.
    fn merged(self, newer: WireUsage) -> WireUsage {
        WireUsage {
            input_tokens: newer.input_tokens.or(self.input_tokens),
            output_tokens: newer.output_tokens.or(self.output_tokens),
            cache_creation_input_tokens: newer.cache_creation_input_tokens.or(self.cache_creation_input_tokens),
            cache_read_input_tokens: newer.cache_read_input_tokens.or(self.cache_read_input_tokens),
        }
    }

    /// Anthropic's `input_tokens` are only the tokens after the last cache
    /// breakpoint; cache writes and reads are prompt tokens too, counted in
    /// `prompt_tokens` and priced at their own rates by the ledger.
    fn into_usage(self) -> Usage {
        let read = self.cache_read_input_tokens.unwrap_or(0);
        let written = self.cache_creation_input_tokens.unwrap_or(0);
        Usage {
            cached_tokens: read,
            cache_write_tokens: written,
            ..Usage::new(self.input_tokens.unwrap_or(0) + written + read, self.output_tokens.unwrap_or(0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::ChatMessage;

    #[test]
    fn shapes_turns() {
        let check = |messages: Vec<ChatMessage>, want_system: Option<&str>, want: &[(&str, &str)]| {
            let (system, turns) = split_system(&ChatRequest::new("m", messages.clone()));
            let turns: Vec<(&str, String)> =
                turns.iter().map(|t| (t.role, t.blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n\n"))).collect();
            let turns: Vec<(&str, &str)> = turns.iter().map(|(r, c)| (*r, c.as_str())).collect();
            assert_eq!((system.as_ref().map(|s| s.0.as_str()), turns.as_slice()), (want_system, want), "{messages:?}");
        };
        use ChatMessage as M;
        check(vec![M::system("s"), M::user("u")], Some("s"), &[("user", "u")]);
        check(vec![M::system("a"), M::user("u"), M::system("b")], Some("a\n\nb"), &[("user", "u")]);
        check(vec![M::user("a"), M::user("b"), M::assistant("c")], None, &[("user", "a\n\nb"), ("assistant", "c")]);
        check(
            vec![M::assistant("x"), M::user("y")],
            None,
            &[("user", FILLER_USER_TURN), ("assistant", "x"), ("user", "y")],
        );
        check(vec![M::system("only")], Some("only"), &[("user", FILLER_USER_TURN)]);
        check(vec![M::user("q"), M::assistant("{ \n")], None, &[("user", "q"), ("assistant", "{")]);
        check(vec![M::user("a"), M::assistant(" "), M::user("b")], None, &[("user", "a\n\nb")]);
        check(vec![M::system(""), M::user("u")], None, &[("user", "u")]);
    }

    /// Where the cache breakpoints go, for a request of each kind a role
    /// sends: every `cache_control` of the body, as (where, the text it ends).
    #[test]
    fn cache_breakpoints() {
        let check = |messages: Vec<ChatMessage>, want: &[(&str, &str)]| {
            let http = build_request("https://api.anthropic.com", None, &ChatRequest::new("m", messages.clone()), true);
            let body: Value = serde_json::from_str(&http.body).unwrap();
            let mut got = Vec::new();
            for block in body["system"].as_array().into_iter().flatten() {
                if block.get("cache_control").is_some() {
                    got.push(("system".to_string(), block["text"].as_str().unwrap_or_default().to_string()));
                }
            }
            for (i, turn) in body["messages"].as_array().unwrap().iter().enumerate() {
                for block in turn["content"].as_array().into_iter().flatten() {
                    if let Some(cc) = block.get("cache_control") {
                        assert_eq!(cc, &serde_json::json!({"type": "ephemeral"}));
                        got.push((format!("turn {i}"), block["text"].as_str().unwrap_or_default().to_string()));
                    }
                }
            }
            assert!(got.len() <= 4, "Anthropic allows at most 4 breakpoints");
            let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            assert_eq!(got, want, "{messages:?}");
        };
        use ChatMessage as M;
        // A RoleZero step (every MGX member, the team leader): the system
        // prompt, the history (its last message is the last stable turn),
        // then the turn that changes per call (example, plan, task, rules).
        check(
            vec![M::system("sys"), M::user("[Message] from Mike: do it"), M::assistant("ok"), M::user("Command ran"), M::user("# Current plan")],
            &[("system", "sys"), ("turn 2", "Command ran")],
        );
        // The first step: one history message before the closing turn.
        check(vec![M::system("sys"), M::user("req"), M::user("# Current plan")], &[("system", "sys"), ("turn 0", "req")]);
        // Quick think (the team leader's first call): system and history.
        check(vec![M::system("quick"), M::user("req")], &[("system", "quick")]);
        // A fixed-SOP action: the role's prefix and one prompt.
        check(vec![M::system("prefix"), M::user("Write the PRD")], &[("system", "prefix")]);
        // The regenerate request: the repeated answer is the last stable turn.
        check(
            vec![M::system("sys"), M::user("req"), M::user("cmd"), M::assistant("same"), M::user("again")],
            &[("system", "sys"), ("turn 1", "same")],
        );
        // The report at `end` (no system prompt): the history's end only.
        check(vec![M::user("req"), M::assistant("done"), M::user("report")], &[("turn 1", "done")]);
        // An empty message is not a turn, so it holds no breakpoint.
        check(vec![M::system("s"), M::user("a"), M::assistant(" "), M::user("b")], &[("system", "s"), ("turn 0", "a")]);
        // No system, one message: nothing to cache.
        check(vec![M::user("repair this")], &[]);
    }

    /// A turn of one message without a breakpoint stays a plain string.
    #[test]
    fn plain_turns_stay_strings() {
        use ChatMessage as M;
        let request = ChatRequest::new("m", vec![M::system("s"), M::user("a"), M::user("b"), M::assistant("c"), M::user("d")]);
        let body: Value = serde_json::from_str(&build_request("http://x", None, &request, false).body).unwrap();
        assert_eq!(
            body["messages"],
            serde_json::json!([
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}}]},
                {"role": "user", "content": "d"},
            ])
        );
        assert_eq!(body["system"], serde_json::json!([{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}]));
    }

    #[test]
    fn maps_stop_reasons() {
        let check = |reason: Option<&str>, want: FinishReason| assert_eq!(stop_reason(reason), want, "{reason:?}");
        check(Some("end_turn"), FinishReason::Stop);
        check(Some("stop_sequence"), FinishReason::Stop);
        check(Some("max_tokens"), FinishReason::Length);
        check(Some("refusal"), FinishReason::ContentFilter);
        check(Some("tool_use"), FinishReason::ToolCalls);
        check(Some("pause_turn"), FinishReason::Other("pause_turn".into()));
        check(None, FinishReason::Stop);
    }

    #[test]
    fn parses_responses() {
        let check = |body: &str, want: &str| {
            let got = match parse_response(body, 8) {
                Ok(c) => format!(
                    "{:?} {:?} {}+{} {}r{}w {}",
                    c.text, c.finish, c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.cached_tokens, c.usage.cache_write_tokens, c.model
                ),
                Err(e) => format!("err {e:?}"),
            };
            assert_eq!(got, want, "{body}");
        };
        check(
            r#"{"type":"message","model":"claude","content":[{"type":"text","text":"Hi"},{"type":"tool_use","input":{}}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":2}}"#,
            "\"Hi\" Stop 4+2 0r0w claude",
        );
        check(
            r#"{"type":"message","model":"claude","content":[{"type":"text","text":"Hi"}],"usage":{"input_tokens":4,"cache_read_input_tokens":2000,"cache_creation_input_tokens":300,"output_tokens":2}}"#,
            "\"Hi\" Stop 2304+2 2000r300w claude",
        );
        check(r#"{"content":[{"type":"text","text":"abcd"}],"stop_reason":"max_tokens"}"#, "\"abcd\" Length 2+1 0r0w ");
        check(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "err ProviderDown { status: 529, message: \"Overloaded\" }",
        );
        check("nope", "err Protocol { message: \"invalid messages JSON: expected ident at line 1 column 2\" }");
        // A field of an unexpected type counts as absent.
        check(
            r#"{"model":["x"],"content":[{"type":"text","text":3},{"type":"text","text":"ok"}],"stop_reason":1,"usage":{"input_tokens":"4","output_tokens":2}}"#,
            "\"ok\" Stop 0+2 0r0w ",
        );
    }

    #[cfg(feature = "images")]
    #[test]
    fn writes_images_as_base64_image_blocks_before_the_text() {
        let mut turn = ChatMessage::user("like this");
        turn.images = vec!["data:image/jpeg;base64,/9j/4AAQ".to_owned(), "not an image".to_owned()];
        let request = ChatRequest::new("claude-sonnet-4-5", vec![ChatMessage::system("sys"), turn, ChatMessage::user("# Current plan")]);
        let body: Value = serde_json::from_str(&build_request("https://api.anthropic.com", None, &request, true).body).unwrap_or_default();
        // The unreadable one is left out; the breakpoint still ends the
        // message (its text, after its image).
        assert_eq!(
            body["messages"],
            serde_json::json!([{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
                {"type": "text", "text": "like this", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "# Current plan"},
            ]}])
        );
    }
}
