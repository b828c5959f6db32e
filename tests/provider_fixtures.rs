//! The provider layer against recorded fixtures: SSE decoding, the OpenAI and
//! Anthropic stream codecs, error mapping, request building and retry.
//!
//! Fixtures are read from `tests/fixtures/llm/` (public SDK recordings, each
//! with its provenance header; see the README there) and never edited. No
//! network, no clock: every "now" and jitter is a constant. Recorded streams
//! are fed whole, split in two at every byte boundary, and one byte at a
//! time; each way must give the same result.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use tabteam::core::llm::anthropic::{self, Anthropic};
use tabteam::core::llm::codec::Codec;
use tabteam::core::llm::gemini::Gemini;
use tabteam::core::llm::http::{HttpRequest, HttpResponseHead, Method};
use tabteam::core::llm::openai::{self, OpenAi};
use tabteam::core::llm::presets::{self, PRESETS};
use tabteam::core::llm::retry::{self, Outcome, RetryDecision, RetryPolicy};
use tabteam::core::llm::sse::{LineDecoder, SseDecoder, SseEvent};
use tabteam::core::llm::{ChatMessage, ChatRequest, Completion, FinishReason, LlmError, StreamEvent, Usage};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/llm/");

/// Prompt size handed to the stream decoders, for usage estimates.
const PROMPT_CHARS: usize = 100;

fn read_bytes(name: &str) -> Vec<u8> {
    let path = format!("{FIXTURES}{name}");
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read fixture {path}: {e}"))
}

fn read_json(name: &str) -> Value {
    serde_json::from_slice(&read_bytes(name)).unwrap_or_else(|e| panic!("fixture {name} is not JSON: {e}"))
}

// ---------------------------------------------------------------------------
// Recorded streams

/// Every `.sse` fixture, each with its own test below so they run in parallel.
const SSE_FILES: &[&str] = &[
    "openai-chat-text-usage.sse",
    "openai-chat-parallel-tool-calls.sse",
    "openai-chat-n3-choices.sse",
    "openai-chat-finish-length.sse",
    "openai-chat-refusal.sse",
    "openai-chat-json-object-181-events.sse",
    "openai-chat-leading-newline-content.sse",
    "openai-chat-structured-output.sse",
    "anthropic-messages-text.sse",
    "anthropic-messages-tool-use.sse",
    "anthropic-messages-max-tokens-partial-json.sse",
    "anthropic-messages-text-unterminated-eof.sse",
    "anthropic-error-event.sse",
    "derived-openai-chat-finish-length.crlf.sse",
    "derived-openai-chat-finish-length.cr.sse",
    "derived-openai-chat-with-comment-keepalives.sse",
    "gemini-stream-basic-reply-short.sse",
    "gemini-stream-basic-reply-long.sse",
    "gemini-stream-thinking-thought-summary.sse",
    "gemini-stream-recitation-no-content.sse",
    "gemini-stream-finish-message.sse",
    "derived-gemini-stream-implicit-caching.sse",
];

macro_rules! fixture_tests {
    ($($name:ident => $file:literal,)*) => {
        $(#[test] fn $name() { check_recorded_stream($file); })*
        const TESTED_FILES: &[&str] = &[$($file),*];
    };
}

fixture_tests! {
    openai_chat_text_usage => "openai-chat-text-usage.sse",
    openai_chat_parallel_tool_calls => "openai-chat-parallel-tool-calls.sse",
    openai_chat_n3_choices => "openai-chat-n3-choices.sse",
    openai_chat_finish_length => "openai-chat-finish-length.sse",
    openai_chat_refusal => "openai-chat-refusal.sse",
    openai_chat_json_object_181_events => "openai-chat-json-object-181-events.sse",
    openai_chat_leading_newline_content => "openai-chat-leading-newline-content.sse",
    openai_chat_structured_output => "openai-chat-structured-output.sse",
    anthropic_messages_text => "anthropic-messages-text.sse",
    anthropic_messages_tool_use => "anthropic-messages-tool-use.sse",
    anthropic_messages_max_tokens_partial_json => "anthropic-messages-max-tokens-partial-json.sse",
    anthropic_messages_text_unterminated_eof => "anthropic-messages-text-unterminated-eof.sse",
    anthropic_error_event => "anthropic-error-event.sse",
    derived_openai_chat_finish_length_crlf => "derived-openai-chat-finish-length.crlf.sse",
    derived_openai_chat_finish_length_cr => "derived-openai-chat-finish-length.cr.sse",
    derived_openai_chat_with_comment_keepalives => "derived-openai-chat-with-comment-keepalives.sse",
    gemini_stream_basic_reply_short => "gemini-stream-basic-reply-short.sse",
    gemini_stream_basic_reply_long => "gemini-stream-basic-reply-long.sse",
    gemini_stream_thinking_thought_summary => "gemini-stream-thinking-thought-summary.sse",
    gemini_stream_recitation_no_content => "gemini-stream-recitation-no-content.sse",
    gemini_stream_finish_message => "gemini-stream-finish-message.sse",
    derived_gemini_stream_implicit_caching => "derived-gemini-stream-implicit-caching.sse",
}

#[test]
fn every_sse_fixture_is_tested_and_described() {
    let mut on_disk: Vec<String> = std::fs::read_dir(FIXTURES)
        .unwrap_or_else(|e| panic!("cannot list {FIXTURES}: {e}"))
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".sse"))
        .collect();
    on_disk.sort();
    let mut tested: Vec<String> = TESTED_FILES.iter().map(|s| s.to_string()).collect();
    tested.sort();
    let mut listed: Vec<String> = SSE_FILES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    let mut described: Vec<String> = expected_entries().iter().map(|e| str_at(e, "file").to_owned()).collect();
    described.sort();
    assert_eq!(tested, on_disk, "each .sse fixture needs a test");
    assert_eq!(listed, on_disk);
    assert_eq!(described, on_disk, "expected.json and the directory disagree");
}

fn expected_entries() -> Vec<Value> {
    match read_json("expected.json") {
        Value::Array(entries) => entries,
        other => panic!("expected.json is not an array: {other}"),
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("no string {key:?} in {value}"))
}

fn u64_at(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The codec of a fixture's provider.
fn codec_of(provider: &str) -> &'static dyn Codec {
    match provider {
        "anthropic" => &Anthropic,
        "gemini" => &Gemini,
        _ => &OpenAi,
    }
}

/// Everything a codec produced for one way of chunking a stream.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    /// All `Delta`s concatenated.
    deltas: String,
    done: Option<Completion>,
    error: Option<LlmError>,
    /// Items that came after `Done` or an error (must be none).
    after_end: usize,
    finish: Result<(), LlmError>,
}

fn run_codec<'a>(codec: &dyn Codec, chunks: impl IntoIterator<Item = &'a [u8]>) -> Run {
    // A nameless model (so the test sees whether the provider named one)
    // and a prompt of PROMPT_CHARS characters (for usage estimates).
    let request = ChatRequest::new("", vec![ChatMessage::user("x".repeat(PROMPT_CHARS))]);
    let mut decoder = codec.decoder(&request);
    let mut run = Run { deltas: String::new(), done: None, error: None, after_end: 0, finish: Ok(()) };
    let take = |run: &mut Run, item: Result<StreamEvent, LlmError>| {
        if run.done.is_some() || run.error.is_some() {
            run.after_end += 1;
        }
        match item {
            Ok(StreamEvent::Delta(d)) => run.deltas.push_str(&d),
            Ok(StreamEvent::Done(c)) => run.done = Some(c),
            Ok(StreamEvent::Waiting { .. }) => {}
            Err(e) => run.error = Some(e),
        }
    };
    for chunk in chunks {
        for item in decoder.feed(chunk) {
            take(&mut run, item);
        }
    }
    // A protocol whose answer ends with the body (Gemini) says `Done` here.
    match decoder.finish() {
        Ok(None) => {}
        Ok(Some(done)) => take(&mut run, Ok(StreamEvent::Done(done))),
        Err(e) => run.finish = Err(e),
    }
    run
}

fn sse_events<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::default();
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(decoder.feed(chunk));
    }
    events.extend(decoder.finish());
    events
}

/// What the fixture's `expected` block says the codec must produce.
fn expected_run(provider: &str, expected: &Value) -> Run {
    match provider {
        "anthropic" => expected_anthropic_run(expected),
        "gemini" => expected_gemini_run(expected),
        _ => expected_openai_run(expected),
    }
}

/// Gemini's answer ends with the body: a finish reason makes it whole.
/// Prompt tokens include the cached ones; thinking is billed as output; a
/// stream with no usage is estimated from the text.
fn expected_gemini_run(expected: &Value) -> Run {
    let text = str_at(expected, "text_of_candidate0").to_owned();
    let finish = match expected["finish_reason"].as_str() {
        Some("STOP") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some("RECITATION" | "SAFETY") => FinishReason::ContentFilter,
        // No finish reason: the stream was cut short; there is no `Done`.
        None => FinishReason::Stop,
        other => panic!("finish reason {other:?} has no expectation here"),
    };
    let usage = match &expected["final_usage_metadata"] {
        Value::Null => Usage::estimate(PROMPT_CHARS, text.chars().count()),
        usage => Usage {
            cached_tokens: u64_at(usage, "cachedContentTokenCount"),
            ..Usage::new(
                u64_at(usage, "promptTokenCount"),
                u64_at(usage, "candidatesTokenCount") + u64_at(usage, "thoughtsTokenCount"),
            )
        },
    };
    finished_run(expected["finish_reason"].is_string(), text, finish, usage, None)
}

fn expected_openai_run(expected: &Value) -> Run {
    let texts = &expected["text_by_choice"];
    let (text, refused) = match (texts.get("0"), texts.get("refusal0")) {
        (Some(t), _) => (t.as_str().unwrap_or_default().to_owned(), false),
        (None, Some(r)) => (r.as_str().unwrap_or_default().to_owned(), true),
        (None, None) => (String::new(), false),
    };
    let finish = match (refused, expected["finish_reason_by_choice"]["0"].as_str()) {
        (true, _) => FinishReason::ContentFilter,
        (false, Some("stop")) => FinishReason::Stop,
        (false, Some("length")) => FinishReason::Length,
        (false, Some("tool_calls")) => FinishReason::ToolCalls,
        (false, other) => panic!("finish reason {other:?} has no expectation here"),
    };
    let usage = &expected["final_usage"];
    let usage = Usage {
        cached_tokens: u64_at(&usage["prompt_tokens_details"], "cached_tokens"),
        ..Usage::new(u64_at(usage, "prompt_tokens"), u64_at(usage, "completion_tokens"))
    };
    finished_run(expected["saw_done"] == json!(true), text, finish, usage, None)
}

fn expected_anthropic_run(expected: &Value) -> Run {
    let blocks: BTreeMap<u64, String> = expected["text_by_block"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.parse().unwrap_or(0), v.as_str().unwrap_or_default().to_owned())).collect())
        .unwrap_or_default();
    let text: String = blocks.into_values().collect();
    let finish = match expected["stop_reason"].as_str() {
        Some("end_turn") | None => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens") => FinishReason::Length,
        Some(other) => panic!("stop reason {other:?} has no expectation here"),
    };
    let usage = &expected["usage_merged"];
    let usage = Usage {
        cached_tokens: u64_at(usage, "cache_read_input_tokens"),
        cache_write_tokens: u64_at(usage, "cache_creation_input_tokens"),
        ..Usage::new(
            u64_at(usage, "input_tokens") + u64_at(usage, "cache_creation_input_tokens") + u64_at(usage, "cache_read_input_tokens"),
            u64_at(usage, "output_tokens"),
        )
    };
    let error = match expected["error"]["type"].as_str() {
        None => None,
        Some("overloaded_error") => {
            Some(LlmError::ProviderDown { status: 529, message: str_at(&expected["error"], "message").to_owned() })
        }
        Some(other) => panic!("error type {other:?} has no expectation here"),
    };
    finished_run(expected["saw_message_stop"] == json!(true), text, finish, usage, error)
}

fn finished_run(saw_end: bool, text: String, finish: FinishReason, usage: Usage, error: Option<LlmError>) -> Run {
    let done = saw_end.then(|| Completion { text: text.clone(), finish, usage, model: Default::default() });
    let finish =
        if saw_end || error.is_some() { Ok(()) } else { Err(LlmError::Truncated { partial_text: text.clone() }) };
    Run { deltas: text, done, error, after_end: 0, finish }
}

/// The bytes after the provenance header (what `payload_bytes` counts).
fn payload(bytes: &[u8]) -> &[u8] {
    let marker = b"--- header ends";
    let at = bytes.windows(marker.len()).position(|w| w == marker).unwrap_or_else(|| panic!("no header marker"));
    let end = bytes[at..].iter().position(|&b| b == b'\n').map(|i| at + i + 1).unwrap_or(bytes.len());
    &bytes[end..]
}

fn check_recorded_stream(file: &str) {
    let entry = expected_entries()
        .into_iter()
        .find(|e| e["file"] == json!(file))
        .unwrap_or_else(|| panic!("{file} is not in expected.json"));
    let expected = &entry["expected"];
    let provider = str_at(&entry, "provider");
    let codec = codec_of(provider);
    let bytes = read_bytes(file);
    assert_eq!(payload(&bytes).len() as u64, u64_at(&entry, "payload_bytes"), "{file}: payload size");

    // The SSE layer: event count and types, header comments ignored, any chunking.
    let events = sse_events([bytes.as_slice()]);
    assert_eq!(events.len() as u64, u64_at(&entry, "whatwg_event_count"), "{file}: event count");
    assert_eq!(events.len() as u64, u64_at(expected, "whatwg_events"), "{file}: event count");
    let mut histogram: BTreeMap<String, u64> = BTreeMap::new();
    for event in &events {
        *histogram.entry(event.event.clone().unwrap_or_else(|| "(none)".to_owned())).or_default() += 1;
    }
    let want_histogram: BTreeMap<String, u64> = expected["event_types"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0))).collect())
        .unwrap_or_default();
    assert_eq!(histogram, want_histogram, "{file}: event types");
    assert_eq!(sse_events([payload(&bytes)]), events, "{file}: the provenance header changed the events");
    let every_boundary: Vec<usize> = (0..=bytes.len()).collect();
    for_each_split(&every_boundary, |split| {
        let (a, b) = bytes.split_at(split);
        assert_eq!(sse_events([a, b]), events, "{file}: SSE split at byte {split}");
    });
    assert_eq!(sse_events(bytes.chunks(1)), events, "{file}: SSE one byte at a time");

    // The codec: text, finish reason, usage, end of stream, for any chunking.
    let whole = run_codec(codec, [bytes.as_slice()]);
    let mut want = expected_run(provider, expected);
    if let (Some(done), Some(want_done)) = (&whole.done, &mut want.done) {
        assert!(!done.model.is_empty(), "{file}: the provider named a model");
        want_done.model = done.model.clone();
    }
    assert_eq!(whole, want, "{file}: decoded whole");
    for_each_split(&codec_split_points(&bytes), |split| {
        let (a, b) = bytes.split_at(split);
        let run = run_codec(codec, [a, b]);
        assert!(run == whole, "{file}: codec split at byte {split}: {run:?}");
    });
    assert_eq!(run_codec(codec, bytes.chunks(1)), whole, "{file}: codec one byte at a time");
}

/// Streams up to this size go through the codec split at every byte boundary.
const CODEC_EVERY_BOUNDARY_MAX: usize = 16 * 1024;

/// Where to split a stream in two for the codec check. Up to
/// [`CODEC_EVERY_BOUNDARY_MAX`] bytes: every byte boundary. Beyond that (only
/// the 47 KB, 181-event recording) a split's effect on the codec is fixed by
/// how many SSE events the first chunk completes, and the SSE check above
/// already covers every byte boundary, so the codec is split within four
/// bytes of every line terminator (both edges of every event, CR/LF pairs)
/// and at every 61st byte in between: a few thousand decodes instead of
/// 47 000, which would take minutes in a debug build.
fn codec_split_points(bytes: &[u8]) -> Vec<usize> {
    if bytes.len() <= CODEC_EVERY_BOUNDARY_MAX {
        return (0..=bytes.len()).collect();
    }
    (0..=bytes.len())
        .filter(|&p| {
            let near = &bytes[p.saturating_sub(4)..(p + 4).min(bytes.len())];
            p.is_multiple_of(61) || near.iter().any(|&b| b == b'\n' || b == b'\r')
        })
        .collect()
}

/// Run `check` at every split point, spread over the machine's cores. A
/// failed assertion in any worker fails the test.
fn for_each_split(points: &[usize], check: impl Fn(usize) + Sync) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
    let per_worker = points.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        for part in points.chunks(per_worker) {
            let check = &check;
            scope.spawn(move || part.iter().for_each(|&p| check(p)));
        }
    });
}

/// OpenRouter and Ollama recordings were stored as parsed JSON chunks; they
/// are re-encoded as `data:` events, and the `[DONE]` the recorder dropped
/// (it is not JSON) is appended.
fn reencoded_stream(name: &str) -> (Vec<u8>, Vec<Value>) {
    let fixture = read_json(name);
    let chunks = fixture["fixture"]["response"]["chunks"].as_array().cloned().unwrap_or_default();
    assert!(!chunks.is_empty(), "{name}: no chunks");
    let mut sse = String::new();
    for chunk in &chunks {
        sse.push_str(&format!("data: {chunk}\n\n"));
    }
    sse.push_str("data: [DONE]\n\n");
    (sse.into_bytes(), chunks)
}

fn content_of(chunks: &[Value]) -> String {
    chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect()
}

#[test]
fn openrouter_usage_chunk_with_nonempty_choices() {
    let (bytes, chunks) = reencoded_stream("openrouter-chat-stream-chunks.json");
    let run = run_codec(&OpenAi, [bytes.as_slice()]);
    let done = run.done.clone().unwrap_or_else(|| panic!("no Done: {run:?}"));
    assert_eq!(done.text, content_of(&chunks));
    assert_eq!(done.text, run.deltas);
    assert_eq!(done.finish, FinishReason::Stop);
    assert_eq!(done.usage, Usage::new(25, 40));
    assert_eq!(&*done.model, "openai/gpt-4o-mini");
    assert_eq!(run_codec(&OpenAi, bytes.chunks(7)), run);
}

/// Cached-token figures survive any chunking: each stream below is decoded
/// whole and split in two at every byte boundary, and must give the same
/// usage every time. (Written here, not recorded: the recorded fixtures
/// report no cache hits.)
#[test]
fn cached_usage_from_streams_split_at_every_boundary() {
    let anthropic = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":1800,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Done.\"}}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":250,\"cache_read_input_tokens\":1800,\"output_tokens\":7}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );
    // Only `message_start` reports the cache (the delta has output tokens).
    let anthropic_start_only = anthropic.replace(
        "\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":250,\"cache_read_input_tokens\":1800,\"output_tokens\":7}",
        "\"usage\":{\"output_tokens\":7}",
    );
    let openai = concat!(
        "data: {\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Done.\"}}],\"usage\":null}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2062,\"completion_tokens\":7,\"prompt_tokens_details\":{\"cached_tokens\":1920,\"audio_tokens\":0}}}\n\n",
        "data: [DONE]\n\n",
    );
    let deepseek = concat!(
        "data: {\"model\":\"deepseek-chat\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Done.\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":7,\"prompt_cache_hit_tokens\":640,\"prompt_cache_miss_tokens\":260}}\n\n",
        "data: [DONE]\n\n",
    );
    let cases: [(&dyn Codec, &str, Usage); 4] = [
        (&Anthropic, anthropic, Usage { cached_tokens: 1800, cache_write_tokens: 250, ..Usage::new(2062, 7) }),
        (&Anthropic, &anthropic_start_only, Usage { cached_tokens: 1800, ..Usage::new(1812, 7) }),
        (&OpenAi, openai, Usage { cached_tokens: 1920, ..Usage::new(2062, 7) }),
        (&OpenAi, deepseek, Usage { cached_tokens: 640, ..Usage::new(900, 7) }),
    ];
    for (codec, stream, want) in cases {
        let bytes = stream.as_bytes();
        let whole = run_codec(codec, [bytes]);
        let done = whole.done.clone().unwrap_or_else(|| panic!("no Done: {whole:?}"));
        assert_eq!((done.text.as_str(), done.usage), ("Done.", want), "{stream}");
        for_each_split(&(0..=bytes.len()).collect::<Vec<_>>(), |split| {
            let (a, b) = bytes.split_at(split);
            assert_eq!(run_codec(codec, [a, b]), whole, "{codec:?} split at byte {split}");
        });
        assert_eq!(run_codec(codec, bytes.chunks(1)), whole, "{codec:?} one byte at a time");
    }
}

#[test]
fn ollama_reasoning_is_not_content_and_usage_is_estimated() {
    let (bytes, chunks) = reencoded_stream("ollama-openai-compat-stream-chunks.json");
    let run = run_codec(&OpenAi, [bytes.as_slice()]);
    let done = run.done.clone().unwrap_or_else(|| panic!("no Done: {run:?}"));
    let text = content_of(&chunks);
    assert_eq!(text, (1..=20).map(|n| n.to_string()).collect::<Vec<_>>().join("\n"));
    assert_eq!(done.text, text);
    assert_eq!(done.finish, FinishReason::Stop);
    assert_eq!(done.usage, Usage::estimate(PROMPT_CHARS, text.chars().count()));
    assert!(done.usage.estimated);
    assert_eq!(run_codec(&OpenAi, bytes.chunks(5)), run);
}

#[test]
fn the_end_marker_is_what_counts() {
    // Each recorded OpenAI stream cut just before `data: [DONE]` is truncated,
    // with all the text so far.
    let bytes = read_bytes("openai-chat-text-usage.sse");
    let cut = bytes.windows(12).rposition(|w| w == b"data: [DONE]").unwrap_or_else(|| panic!("no [DONE]"));
    let run = run_codec(&OpenAi, [&bytes[..cut]]);
    assert_eq!(run.done, None);
    assert_eq!(run.finish, Err(LlmError::Truncated { partial_text: run.deltas.clone() }));
    assert!(run.deltas.starts_with("I'm unable to provide real-time weather updates."));
    // `data: [DONE]` without its blank line is not dispatched either.
    let run = run_codec(&OpenAi, [&bytes[..cut + 13]]);
    assert!(matches!(run.finish, Err(LlmError::Truncated { .. })), "{run:?}");
}

// ---------------------------------------------------------------------------
// SSE parser vectors

fn hex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or_else(|e| panic!("bad hex {text}: {e}")))
        .collect()
}

#[test]
fn sse_parser_vectors() {
    let vectors = read_json("sse-parser-vectors.json");
    let vectors = vectors["vectors"].as_array().cloned().unwrap_or_default();
    assert_eq!(vectors.len(), 20);
    for vector in &vectors {
        let id = str_at(vector, "id");
        let chunks: Vec<Vec<u8>> = vector["chunks_hex"]
            .as_array()
            .map(|a| a.iter().map(|c| hex(c.as_str().unwrap_or_default())).collect())
            .unwrap_or_default();
        let want: Vec<SseEvent> = vector["expected_whatwg"]
            .as_array()
            .map(|events| {
                events
                    .iter()
                    .map(|e| SseEvent {
                        event: e["event"].as_str().map(str::to_owned),
                        data: str_at(e, "data").to_owned(),
                        id: e["last_event_id"].as_str().filter(|s| !s.is_empty()).map(str::to_owned),
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(sse_events(chunks.iter().map(Vec::as_slice)), want, "{id}: as chunked");
        let all: Vec<u8> = chunks.concat();
        assert_eq!(sse_events(all.chunks(1)), want, "{id}: one byte at a time");
        for split in 0..=all.len() {
            let (a, b) = all.split_at(split);
            assert_eq!(sse_events([a, b]), want, "{id}: split at {split}");
        }
    }
}

#[test]
fn line_decoder_vectors() {
    let vectors = read_json("sse-parser-vectors.json");
    let cases = vectors["line_decoder_vectors"]["cases"].as_array().cloned().unwrap_or_default();
    assert_eq!(cases.len(), 12);
    for case in &cases {
        let mut decoder = LineDecoder::default();
        let mut lines = Vec::new();
        for chunk in case["chunks"].as_array().into_iter().flatten() {
            lines.extend(decoder.feed(chunk.as_str().unwrap_or_default().as_bytes()));
        }
        if case["flush"] == json!(true) {
            lines.extend(decoder.finish());
        }
        let want: Vec<String> = case["lines"]
            .as_array()
            .map(|a| a.iter().map(|l| l.as_str().unwrap_or_default().to_owned()).collect())
            .unwrap_or_default();
        assert_eq!(lines, want, "{case}");
    }
}

// ---------------------------------------------------------------------------
// Error bodies

fn head(status: u16, headers: &[(&str, &str)]) -> HttpResponseHead {
    HttpResponseHead::new(status, headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
}

#[test]
fn recorded_error_bodies() {
    let file = read_json("error-bodies.json");
    let errors = file["errors"].as_array().cloned().unwrap_or_default();
    let mut seen = 0;
    for entry in &errors {
        let provider = str_at(entry, "provider");
        let kind = str_at(entry, "kind");
        let protocol = codec_of(provider).name();
        let headers: Vec<(String, String)> = entry["headers"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect())
            .unwrap_or_default();
        let body = entry["body"].to_string();
        let status = entry["status"].as_u64().map(|s| s as u16);
        let message = entry["body"]["error"]["message"].as_str().unwrap_or_default().to_owned();
        match (provider, kind, status) {
            ("anthropic", "recorded", Some(401)) => {
                let head = HttpResponseHead::new(401, headers);
                assert_eq!(retry::error_from_response(protocol, 401, &head, &body), LlmError::BadKey { message });
                // The recorded `x-should-retry: false` agrees with the status.
                let decision = RetryPolicy::default().decide(0, &Outcome::Response(head), 0.0, None);
                assert_eq!(decision, RetryDecision::GiveUp);
            }
            ("anthropic", "recorded", Some(404)) => {
                let head = HttpResponseHead::new(404, headers);
                assert_eq!(
                    retry::error_from_response(protocol, 404, &head, &body),
                    LlmError::ModelNotFound { message }
                );
            }
            ("anthropic", "issue-quote", Some(401)) => {
                // The opt-in header is missing: a key problem as far as the
                // status goes, and the message names the header.
                let error = retry::error_from_response(protocol, 401, &HttpResponseHead::default(), &body);
                assert_eq!(error, LlmError::BadKey { message });
                assert!(error.to_string().contains("anthropic-dangerous-direct-browser-access"));
            }
            ("anthropic", "sdk-test", None) => {
                assert_eq!(str_at(entry, "stream_event"), "error");
                assert_eq!(retry::error_from_event_data(&body), LlmError::ProviderDown { status: 529, message });
            }
            ("ollama (OpenAI-compat /v1)", "recorded", Some(404)) => {
                let error = retry::error_from_response(protocol, 404, &HttpResponseHead::default(), &body);
                assert_eq!(
                    error,
                    LlmError::ModelNotFound { message: "model 'nonexistent-model-xyz' not found".into() }
                );
            }
            ("openai" | "openrouter", "schema" | "documented", None) => {
                // Only schemas: check the field the mapping reads is in them,
                // then map a body of that shape.
                let schema = &entry["body_schema"]["error"];
                assert!(schema.get("message").is_some(), "{schema}");
                let code = if provider == "openrouter" { json!(402) } else { json!("insufficient_quota") };
                let body = json!({"error": {"message": "out of money", "type": "insufficient_quota", "param": null, "code": code}});
                let error = retry::error_from_response(protocol, 429, &HttpResponseHead::default(), &body.to_string());
                assert_eq!(error, LlmError::NoCredit { message: "out of money".into() });
                if provider == "openrouter" {
                    // After generation started OpenRouter sends the error with HTTP 200.
                    let body = json!({"error": {"code": 402, "message": "Insufficient credits"}});
                    assert_eq!(
                        retry::error_from_payload(&body),
                        LlmError::NoCredit { message: "Insufficient credits".into() }
                    );
                }
            }
            other => panic!("error-bodies.json entry {other:?} has no expectation here"),
        }
        seen += 1;
    }
    assert_eq!(seen, 7);
}

/// Google's error envelope, as the Gemini API sends it, through the Gemini
/// codec: each recorded body maps to the kind the fixture names, with
/// Google's own message, and none is retried.
#[test]
fn recorded_gemini_error_bodies() {
    let file = read_json("gemini-error-bodies.json");
    let errors = file["errors"].as_array().cloned().unwrap_or_default();
    assert_eq!(errors.len(), 3);
    for entry in &errors {
        let status = entry["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(0);
        let head = HttpResponseHead::new(status, vec![]);
        let message = str_at(&entry["body"]["error"], "message").to_owned();
        let got = Gemini.error_from_response(&head, &entry["body"].to_string());
        let want = match str_at(entry, "expected_error") {
            "BadKey" => LlmError::BadKey { message },
            "ModelNotFound" => LlmError::ModelNotFound { message },
            "Forbidden" => LlmError::Forbidden { message },
            other => panic!("{other} has no expectation here"),
        };
        assert_eq!(got, want, "{}", str_at(entry, "source_path"));
        let decision = RetryPolicy::default().decide(0, &Outcome::Response(head), 0.0, None);
        assert_eq!(decision, RetryDecision::GiveUp, "HTTP {status}");
    }
    // The busy statuses in Google's documented envelope (ai.google.dev,
    // "Troubleshooting guide": 429 RESOURCE_EXHAUSTED, 500 INTERNAL,
    // 503 UNAVAILABLE).
    let google = |code: u16, status: &str, message: &str| {
        json!({"error": {"code": code, "message": message, "status": status}}).to_string()
    };
    let check = |code: u16, status: &str, want: LlmError| {
        let body = google(code, status, "m");
        assert_eq!(Gemini.error_from_response(&head(code, &[]), &body), want, "{body}");
    };
    check(429, "RESOURCE_EXHAUSTED", LlmError::RateLimited { message: "m".into(), retry_after_ms: None });
    check(500, "INTERNAL", LlmError::ProviderDown { status: 500, message: "m".into() });
    check(503, "UNAVAILABLE", LlmError::ProviderDown { status: 503, message: "m".into() });
}

#[test]
fn errors_by_status_and_body() {
    let openai = |message: &str, kind: &str, code: Value| {
        json!({"error": {"message": message, "type": kind, "param": null, "code": code}}).to_string()
    };
    let anthropic =
        |kind: &str, message: &str| json!({"type": "error", "error": {"type": kind, "message": message}}).to_string();
    let check = |protocol: &str, status: u16, headers: &[(&str, &str)], body: &str, want: LlmError| {
        let got = retry::error_from_response(protocol, status, &head(status, headers), body);
        assert_eq!(got, want, "HTTP {status} {body}");
    };
    const A: &str = "anthropic";
    const O: &str = "openai";
    use LlmError::{BadKey, BadRequest, Forbidden, ModelNotFound, NoCredit, ProviderDown, RateLimited};
    let msg = |m: &str| m.to_owned();

    check(
        O,
        401,
        &[],
        &openai("bad key", "invalid_request_error", json!("invalid_api_key")),
        BadKey { message: msg("bad key") },
    );
    check(
        O,
        403,
        &[],
        &openai("Country, region, or territory not supported", "request_forbidden", json!(null)),
        Forbidden { message: msg("Country, region, or territory not supported") },
    );
    check(
        O,
        404,
        &[],
        &openai("The model `gpt-9` does not exist", "invalid_request_error", json!("model_not_found")),
        ModelNotFound { message: msg("The model `gpt-9` does not exist") },
    );
    check(
        O,
        400,
        &[],
        &openai("bad temperature", "invalid_request_error", json!(null)),
        BadRequest { message: msg("bad temperature") },
    );
    check(
        O,
        422,
        &[],
        &openai("unprocessable", "invalid_request_error", json!(null)),
        BadRequest { message: msg("unprocessable") },
    );
    check(O, 413, &[], "request too large", BadRequest { message: msg("request too large") });
    check(
        O,
        402,
        &[],
        r#"{"error":{"code":402,"message":"Insufficient credits"}}"#,
        NoCredit { message: msg("Insufficient credits") },
    );
    let quota = "You exceeded your current quota, please check your plan and billing details.";
    check(
        O,
        429,
        &[("retry-after", "20")],
        &openai(quota, "insufficient_quota", json!("insufficient_quota")),
        NoCredit { message: msg(quota) },
    );
    check(O, 429, &[], &openai(quota, "requests", json!(null)), NoCredit { message: msg(quota) });
    let limit = "Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3, Requested 1.";
    check(
        O,
        429,
        &[("Retry-After", "20")],
        &openai(limit, "requests", json!("rate_limit_exceeded")),
        RateLimited { message: msg(limit), retry_after_ms: Some(20_000) },
    );
    check(
        O,
        429,
        &[("retry-after-ms", "1500.5"), ("retry-after", "9")],
        &openai(limit, "requests", json!(null)),
        RateLimited { message: msg(limit), retry_after_ms: Some(1501) },
    );
    check(
        O,
        429,
        &[("retry-after", "Sun, 16 Nov 2025 13:05:04 GMT")],
        &openai(limit, "requests", json!(null)),
        RateLimited { message: msg(limit), retry_after_ms: None },
    );
    // A rate limit that mentions a billing page is still a rate limit.
    let groq = "Rate limit reached for model `llama-3.3-70b-versatile` on tokens per minute (TPM). Need more tokens? Upgrade at https://console.groq.com/settings/billing";
    check(
        O,
        429,
        &[],
        &openai(groq, "tokens", json!("rate_limit_exceeded")),
        RateLimited { message: msg(groq), retry_after_ms: None },
    );
    check(O, 408, &[], "", ProviderDown { status: 408, message: msg("no details given") });
    check(
        O,
        409,
        &[],
        &openai("conflict", "invalid_request_error", json!(null)),
        ProviderDown { status: 409, message: msg("conflict") },
    );
    check(
        O,
        500,
        &[],
        &openai("The server had an error while processing your request.", "server_error", json!(null)),
        ProviderDown { status: 500, message: msg("The server had an error while processing your request.") },
    );
    check(
        O,
        503,
        &[],
        &openai("overloaded", "service_unavailable_error", json!("server_is_overloaded")),
        ProviderDown { status: 503, message: msg("overloaded") },
    );
    // Gemini's compatibility endpoint may wrap the error in an array.
    check(
        O,
        400,
        &[],
        r#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]"#,
        BadKey { message: msg("API key not valid.") },
    );
    check(
        O,
        404,
        &[],
        r#"{"error":"model \"x\" not found, try pulling it first"}"#,
        ModelNotFound { message: msg("model \"x\" not found, try pulling it first") },
    );
    check(
        A,
        400,
        &[],
        &anthropic("invalid_request_error", "Your credit balance is too low to access the Anthropic API."),
        NoCredit { message: msg("Your credit balance is too low to access the Anthropic API.") },
    );
    check(
        A,
        400,
        &[],
        &anthropic("invalid_request_error", "max_tokens: must be positive"),
        BadRequest { message: msg("max_tokens: must be positive") },
    );
    check(A, 402, &[], &anthropic("billing_error", "billing"), NoCredit { message: msg("billing") });
    check(A, 403, &[], &anthropic("permission_error", "no access"), Forbidden { message: msg("no access") });
    check(
        A,
        429,
        &[("retry-after", "7")],
        &anthropic("rate_limit_error", "slow"),
        RateLimited { message: msg("slow"), retry_after_ms: Some(7000) },
    );
    check(
        A,
        529,
        &[],
        &anthropic("overloaded_error", "Overloaded"),
        ProviderDown { status: 529, message: msg("Overloaded") },
    );
    check(
        A,
        500,
        &[],
        &anthropic("api_error", "Internal server error"),
        ProviderDown { status: 500, message: msg("Internal server error") },
    );
    // A status that is not an error status but a body that is.
    check(
        O,
        200,
        &[],
        r#"{"error":{"code":502,"message":"upstream died"}}"#,
        ProviderDown { status: 502, message: msg("upstream died") },
    );
    check(
        O,
        302,
        &[],
        "<html>moved</html>",
        LlmError::Protocol { message: msg("unexpected HTTP status 302 from the openai endpoint: <html>moved</html>") },
    );
}

#[test]
fn error_messages_are_cut_and_never_carry_keys() {
    let html = format!("<html><body>{}</body></html>", "x".repeat(1000));
    match retry::error_from_response("openai", 502, &HttpResponseHead::default(), &html) {
        LlmError::ProviderDown { status: 502, message } => {
            assert_eq!(message.chars().count(), 301, "{message}");
            assert!(message.starts_with("<html><body>xxx") && message.ends_with('…'));
        }
        other => panic!("{other:?}"),
    }
    let bodies = [
        r#"{"error":{"message":"Incorrect API key provided: sk-proj-abcdefghijklmnop1234. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
        r#"{"error":{"message":"Incorrect API key provided: sk-abc12***************wxyz.","type":"invalid_request_error"}}"#,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-api03-SECRETSECRET"}}"#,
        "Unauthorized: Bearer gsk_SECRETSECRETSECRET",
        r#"{"error":{"message":"API key not valid: AIzaSyDSECRETSECRET","status":"UNAUTHENTICATED"}}"#,
    ];
    for body in bodies {
        let error = retry::error_from_response("openai", 401, &HttpResponseHead::default(), body);
        let text = format!("{error} {error:?}");
        assert!(matches!(error, LlmError::BadKey { .. }), "{error:?}");
        for secret in ["sk-proj-abc", "sk-abc12", "sk-ant", "SECRET", "gsk_", "AIza"] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
        assert!(text.contains("[redacted]"), "{text}");
    }
}

#[test]
fn mid_stream_errors() {
    let check = |data: &str, want: LlmError| assert_eq!(retry::error_from_event_data(data), want, "{data}");
    use LlmError::{ProviderDown, RateLimited};
    check(
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ProviderDown { status: 529, message: "Overloaded".into() },
    );
    check(
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}"#,
        RateLimited { message: "slow".into(), retry_after_ms: None },
    );
    check(
        r#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#,
        ProviderDown { status: 500, message: "boom".into() },
    );
    check(
        r#"{"error":{"code":502,"message":"Provider returned error"}}"#,
        ProviderDown { status: 502, message: "Provider returned error".into() },
    );
    check(r#"{"error":{"message":"odd","type":"something_new"}}"#, ProviderDown { status: 500, message: "odd".into() });
    check("not json", ProviderDown { status: 500, message: "not json".into() });
}

// ---------------------------------------------------------------------------
// Requests

fn request() -> ChatRequest {
    let mut request = ChatRequest::new(
        "model-x",
        vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("Hi"),
            ChatMessage::assistant("Hello."),
            ChatMessage::user("Plan?"),
        ],
    );
    request.max_tokens = Some(100);
    request.temperature = Some(0.2);
    request.json_mode = true;
    request
}

fn headers(request: &HttpRequest) -> Vec<(&str, &str)> {
    request.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

fn body(request: &HttpRequest) -> Value {
    serde_json::from_str(&request.body).unwrap_or_else(|e| panic!("body is not JSON: {e}: {}", request.body))
}

fn assert_no_sdk_headers(request: &HttpRequest) {
    for (name, _) in &request.headers {
        let name = name.to_ascii_lowercase();
        assert!(!name.starts_with("x-stainless") && name != "openai-beta" && name != "user-agent", "{name}");
    }
}

#[test]
fn openai_request_streaming() {
    let http = openai::build_request("https://api.openai.com/v1/", Some(" sk-test \n"), &request(), true);
    assert_eq!(http.method, Method::Post);
    assert_eq!(http.method.as_str(), "POST");
    assert_eq!(http.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(headers(&http), [("Content-Type", "application/json"), ("Authorization", "Bearer sk-test")]);
    assert_no_sdk_headers(&http);
    assert_eq!(
        body(&http),
        json!({
            "model": "model-x",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "Plan?"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 100,
            "temperature": 0.2,
            "response_format": {"type": "json_object"},
        })
    );
    assert!(http.body.contains("\"temperature\":0.2"), "f32 kept short: {}", http.body);
}

#[test]
fn openai_request_plain() {
    let request = ChatRequest::new("llama3.2", vec![ChatMessage::user("Hi")]);
    for key in [None, Some(""), Some("   ")] {
        let http = openai::build_request("http://localhost:11434/v1", key, &request, false);
        assert_eq!(http.url, "http://localhost:11434/v1/chat/completions");
        assert_eq!(headers(&http), [("Content-Type", "application/json")]);
        assert_eq!(
            body(&http),
            json!({"model": "llama3.2", "messages": [{"role": "user", "content": "Hi"}], "stream": false})
        );
    }
}

#[test]
fn anthropic_request_hoists_system() {
    let mut request = request();
    request.messages.push(ChatMessage::system("Answer in JSON."));
    request.messages.push(ChatMessage::user("Now."));
    let http = anthropic::build_request("https://api.anthropic.com/", Some("sk-ant-test"), &request, true);
    assert_eq!(http.method, Method::Post);
    assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(
        headers(&http),
        [
            ("content-type", "application/json"),
            ("x-api-key", "sk-ant-test"),
            ("anthropic-version", "2023-06-01"),
            ("anthropic-dangerous-direct-browser-access", "true"),
        ]
    );
    assert_no_sdk_headers(&http);
    assert_eq!(http.header("Authorization"), None);
    assert_eq!(
        body(&http),
        json!({
            "model": "model-x",
            "max_tokens": 100,
            "system": [{"type": "text", "text": "You are terse.\n\nAnswer in JSON.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": [
                    {"type": "text", "text": "Plan?", "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": "Now."},
                ]},
            ],
            "stream": true,
            "temperature": 0.2,
        })
    );
}

#[test]
fn anthropic_request_defaults() {
    let mut request = ChatRequest::new("claude-3-5-haiku-20241022", vec![ChatMessage::assistant("Earlier answer")]);
    request.temperature = Some(1.7);
    let http = anthropic::build_request(anthropic::DEFAULT_BASE_URL, Some("k"), &request, false);
    assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(
        body(&http),
        json!({
            "model": "claude-3-5-haiku-20241022",
            "max_tokens": 4096,
            "messages": [
                {"role": "user", "content": anthropic::FILLER_USER_TURN},
                {"role": "assistant", "content": "Earlier answer"},
            ],
            "stream": false,
            "temperature": 1.0,
        })
    );
    let http = anthropic::build_request("https://proxy.example/v1/", None, &request, false);
    assert_eq!(http.url, "https://proxy.example/v1/messages");
    assert_eq!(http.header("x-api-key"), None);
}

/// The Gemini request: the model in the path, the key in `x-goog-api-key`
/// (never in the URL, where it would be logged), Gemini's own field names.
#[test]
fn gemini_request() {
    let preset = presets::preset("google").unwrap_or_else(|| panic!("no google preset"));
    let mut request = ChatRequest::new(preset.default_model, vec![ChatMessage::system("sys"), ChatMessage::user("Hi")]);
    request.temperature = Some(0.2);
    let http = Gemini.build_request(preset.base_url, Some("AIzaSyTEST"), &request);
    assert_eq!(http.method, Method::Post);
    assert_eq!(
        http.url,
        format!("https://generativelanguage.googleapis.com/v1beta/models/{}:streamGenerateContent?alt=sse", preset.default_model)
    );
    assert_eq!(headers(&http), [("Content-Type", "application/json"), ("x-goog-api-key", "AIzaSyTEST")]);
    assert!(!http.url.contains("key="));
    assert!(!format!("{http:?}").contains("AIzaSyTEST"), "Debug masks the key");
    let body = body(&http);
    assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "sys"}]}));
    assert_eq!(body["contents"], json!([{"role": "user", "parts": [{"text": "Hi"}]}]));
    assert_eq!(body["generationConfig"]["temperature"].as_f64().map(|t| (t * 10.0).round()), Some(2.0));
}

#[test]
fn preset_urls() {
    let request = ChatRequest::new("m", vec![ChatMessage::user("Hi")]);
    let check = |id: &str, url: &str, needs_key: bool| {
        let preset = presets::preset(id).unwrap_or_else(|| panic!("no preset {id}"));
        let http = preset.protocol.codec().build_request(preset.base_url, Some("k"), &request);
        assert_eq!((http.url.as_str(), preset.needs_key), (url, needs_key), "{id}");
        assert_no_sdk_headers(&http);
    };
    check("openai", "https://api.openai.com/v1/chat/completions", true);
    check("anthropic", "https://api.anthropic.com/v1/messages", true);
    check("openrouter", "https://openrouter.ai/api/v1/chat/completions", true);
    check("groq", "https://api.groq.com/openai/v1/chat/completions", true);
    check("deepseek", "https://api.deepseek.com/chat/completions", true);
    check("gemini", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", true);
    check("google", "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse", true);
    check("ollama", "http://localhost:11434/v1/chat/completions", false);
    check("lmstudio", "http://localhost:1234/v1/chat/completions", false);
    check("litellm", "http://localhost:4000/chat/completions", false);
    check("llamacpp", "http://localhost:8080/v1/chat/completions", false);
    check("vllm", "http://localhost:8000/v1/chat/completions", false);
    check("intab", "https://in-this-tab.invalid/v1/chat/completions", false);
    assert_eq!(PRESETS.len(), 14);
    assert!(presets::preset("custom").is_some());
    let models: Vec<(&str, &str)> = PRESETS.iter().map(|p| (p.id, p.default_model)).collect();
    assert!(models.contains(&("openai", "gpt-4o-mini")));
    assert!(models.contains(&("anthropic", "claude-3-5-haiku-20241022")));
    assert!(models.contains(&("deepseek", "deepseek-chat")));
    let hint = presets::preset("ollama").map(|p| presets::blocked_hint(p, Some("https://tab.example")));
    assert!(hint.is_some_and(|h| h.contains("OLLAMA_ORIGINS=https://tab.example")));
    let hint = presets::preset("lmstudio").map(|p| presets::blocked_hint(p, None));
    assert!(hint.is_some_and(|h| h.contains("lms server start --cors") && h.contains("Enable CORS")));
}

// ---------------------------------------------------------------------------
// Retry

#[test]
fn retry_decisions() {
    let policy = RetryPolicy::default();
    assert_eq!(policy.max_retries, 2);
    let now = retry::parse_http_date_ms("Sun, 16 Nov 2025 13:05:04 GMT").map(|ms| ms as u64);
    let check = |attempt: u32, outcome: Outcome, jitter: f64, now_ms: Option<u64>, want: Option<u64>| {
        let want = match want {
            Some(delay_ms) => RetryDecision::Retry { delay_ms },
            None => RetryDecision::GiveUp,
        };
        assert_eq!(
            policy.decide(attempt, &outcome, jitter, now_ms),
            want,
            "attempt {attempt} {outcome:?} jitter {jitter}"
        );
    };
    let status = |status: u16| Outcome::Response(head(status, &[]));
    let with = |status: u16, headers: &[(&str, &str)]| Outcome::Response(head(status, headers));

    // No response at all: back off 0.5 s, 1 s, then give up.
    check(0, Outcome::Network, 0.0, None, Some(500));
    check(1, Outcome::Network, 0.0, None, Some(1000));
    check(2, Outcome::Network, 0.0, None, None);
    check(0, Outcome::Network, 1.0, None, Some(375));
    check(1, Outcome::Network, 0.5, None, Some(875));
    check(0, Outcome::Timeout, 0.0, None, Some(500));
    // Statuses that ask for a quick retry: the SDKs' backoff, twice.
    for s in [408, 409] {
        check(0, status(s), 0.0, None, Some(500));
        check(1, status(s), 1.0, None, Some(750));
        check(2, status(s), 0.0, None, None);
    }
    // A busy provider (rate limit, outage) that gives no delay: 5 s, 10 s,
    // 20 s, 40 s, 60 s, 60 s, then give up; no jitter.
    for s in [429, 500, 502, 503, 504, 529] {
        for (attempt, delay_ms) in [5_000, 10_000, 20_000, 40_000, 60_000, 60_000].into_iter().enumerate() {
            check(attempt as u32, status(s), 1.0, None, Some(delay_ms));
        }
        check(6, status(s), 0.0, None, None);
    }
    for s in [400, 401, 402, 403, 404, 413, 422] {
        check(0, status(s), 0.0, None, None);
    }
    // `x-should-retry` wins over the status.
    check(0, with(400, &[("x-should-retry", "true")]), 0.0, None, Some(500));
    check(0, with(529, &[("X-Should-Retry", "false")]), 0.0, None, None);
    check(0, with(503, &[("x-should-retry", "maybe")]), 0.0, None, Some(5000));
    check(2, with(400, &[("x-should-retry", "true")]), 0.0, None, None);
    // Server delays: `retry-after-ms`, then `retry-after` seconds, then an
    // HTTP-date; one that is unusable or over a minute gives the schedule.
    check(0, with(429, &[("retry-after-ms", "1500.5")]), 0.9, None, Some(1501));
    check(0, with(429, &[("retry-after-ms", "250"), ("retry-after", "9")]), 0.0, None, Some(250));
    check(0, with(429, &[("retry-after-ms", "soon"), ("retry-after", "9")]), 0.0, None, Some(9000));
    check(0, with(429, &[("retry-after", "3")]), 0.0, None, Some(3000));
    check(5, with(429, &[("retry-after", "3")]), 0.0, None, Some(3000));
    check(6, with(429, &[("retry-after", "3")]), 0.0, None, None);
    check(0, with(503, &[("Retry-After", "2.5")]), 0.0, None, Some(2500));
    check(0, with(408, &[("retry-after", "2")]), 0.0, None, Some(2000));
    check(2, with(408, &[("retry-after", "2")]), 0.0, None, None);
    check(0, with(429, &[("retry-after", "0")]), 0.0, None, Some(0));
    check(0, with(429, &[("retry-after", "60")]), 0.0, None, Some(60_000));
    check(0, with(429, &[("retry-after-ms", "60000.5")]), 0.0, None, Some(5000));
    check(0, with(429, &[("retry-after", "120")]), 0.0, None, Some(5000));
    check(0, with(429, &[("retry-after", "-1")]), 0.0, None, Some(5000));
    check(0, with(429, &[("retry-after-ms", "NaN")]), 0.0, None, Some(5000));
    check(0, with(429, &[("retry-after", "inf")]), 0.0, None, Some(5000));
    check(0, with(429, &[("retry-after", "soon")]), 0.0, None, Some(5000));
    let date = "Sun, 16 Nov 2025 13:05:09 GMT";
    check(0, with(429, &[("retry-after", date)]), 0.0, now, Some(5000));
    check(1, with(429, &[("retry-after", date)]), 0.0, now, Some(5000));
    check(1, with(429, &[("retry-after", date)]), 0.0, None, Some(10_000));
    check(1, with(429, &[("retry-after", "Sun, 16 Nov 2025 13:04:09 GMT")]), 0.0, now, Some(10_000));
    check(1, with(429, &[("retry-after", "Sun, 16 Nov 2025 13:06:05 GMT")]), 0.0, now, Some(10_000));
    // A server delay is used even when it is longer than the default would be.
    check(1, with(500, &[("retry-after", "30")]), 0.0, None, Some(30_000));
    // The default backoff grows to at most 8 s.
    let long = RetryPolicy { max_retries: 10, ..RetryPolicy::default() };
    let backoff: Vec<RetryDecision> = (0..7).map(|a| long.decide(a, &Outcome::Network, 0.0, None)).collect();
    let want: Vec<RetryDecision> = [500, 1000, 2000, 4000, 8000, 8000, 8000]
        .into_iter()
        .map(|delay_ms| RetryDecision::Retry { delay_ms })
        .collect();
    assert_eq!(backoff, want);
    let never = RetryPolicy { max_retries: 0, busy_waits_ms: &[] };
    assert_eq!(never.decide(0, &Outcome::Network, 0.0, None), RetryDecision::GiveUp);
    assert_eq!(never.decide(0, &status(503), 0.0, None), RetryDecision::GiveUp);
    // The schedule can be shortened (or lengthened) by whoever builds the client.
    let short = RetryPolicy { max_retries: 2, busy_waits_ms: &[100, 200] };
    let waits: Vec<RetryDecision> = (0..3).map(|a| short.decide(a, &status(429), 0.0, None)).collect();
    assert_eq!(waits, [RetryDecision::Retry { delay_ms: 100 }, RetryDecision::Retry { delay_ms: 200 }, RetryDecision::GiveUp]);
}

#[test]
fn recorded_headers_give_default_backoff() {
    // Real success responses carry rate-limit headers but no retry hint; if
    // one of them had been a 503, the busy schedule's first wait would apply.
    let file = read_json("recorded-response-headers.json");
    let responses = file["responses"].as_array().cloned().unwrap_or_default();
    assert!(!responses.is_empty());
    for response in &responses {
        let headers: Vec<(String, String)> = response["headers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|pair| {
                        (
                            pair[0].as_str().unwrap_or_default().to_owned(),
                            pair[1].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let head = HttpResponseHead::new(503, headers);
        assert_eq!(head.header("CONTENT-TYPE").map(|v| v.starts_with("application/json")), Some(true));
        let now = head.header("date").and_then(retry::parse_http_date_ms).map(|ms| ms as u64);
        assert!(now.is_some(), "{response}");
        let decision = RetryPolicy::default().decide(0, &Outcome::Response(head), 0.5, now);
        assert_eq!(decision, RetryDecision::Retry { delay_ms: 5000 });
    }
}
