//! A model's context window and output limit, and the token estimate that
//! sizes a prompt against them before it is sent (issue #33).
//!
//! The table knows each preset's default model (and a few neighbours); a
//! person gives any other model's figures in Settings; a model nobody
//! knows gets [`ModelWindow::FALLBACK`], small enough for most models
//! served today. The estimate is deliberately on the high side (three
//! bytes a token, plus a few tokens a turn): calibrated against the
//! providers' reported usage in `tests/fixtures/llm` (see the tests), so a
//! prompt it says fits does fit. It is not a tokenizer, and it decides
//! nothing about what goes in a prompt (that is the caller's: RoleZero's
//! history, `rolezero::condense`). The provider's own "too long" answer is
//! still handled where it always was (`LlmError::ContextTooLong`).

use litemap::LiteMap;

use serde::{Deserialize, Serialize};

use super::llm::ChatMessage;

/// Bytes a token, rounded down so that the estimate errs high: JSON and
/// code run at about 3.5 bytes a token, English prose at 4 to 5.
const BYTES_PER_TOKEN: usize = 3;
/// What a chat turn costs beyond its text (role, separators).
const TOKENS_PER_TURN: u64 = 4;
/// The most a request reserves for the answer: the Anthropic codec's
/// default `max_tokens`, and more than any RoleZero answer needs.
const ANSWER_RESERVE: u64 = 4096;

/// How many tokens a text costs, estimated high.
pub fn estimate_tokens(text: &str) -> u64 {
    text.len().div_ceil(BYTES_PER_TOKEN) as u64
}

/// How many tokens a request's turns cost, estimated high.
pub fn estimate_messages(messages: &[ChatMessage]) -> u64 {
    messages.iter().map(|m| estimate_tokens(&m.content) + TOKENS_PER_TURN + image_tokens(m)).sum()
}

/// A turn's images, at `core::image`'s estimate each.
fn image_tokens(message: &ChatMessage) -> u64 {
    #[cfg(feature = "images")]
    return message.images.len() as u64 * crate::core::image::TOKENS_PER_IMAGE;
    #[cfg(not(feature = "images"))]
    {
        let _ = message;
        0
    }
}

/// A model's limits, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelWindow {
    /// The prompt and the answer together.
    pub context: u64,
    /// The longest answer the model writes.
    pub output: u64,
}

impl ModelWindow {
    /// For a model no table knows: 16k tokens in all, 4k out.
    pub const FALLBACK: ModelWindow = ModelWindow { context: 16_384, output: 4_096 };

    pub const fn new(context: u64, output: u64) -> Self {
        Self { context, output }
    }

    /// Room kept for the answer: the output limit, at most
    /// [`ANSWER_RESERVE`] and a quarter of the window.
    pub fn answer_reserve(&self) -> u64 {
        self.output.min(ANSWER_RESERVE).min(self.context / 4)
    }

    /// The most a prompt may cost (estimated): the window less the answer's room.
    pub fn prompt_budget(&self) -> u64 {
        self.context.saturating_sub(self.answer_reserve())
    }
}

/// Known windows: (model name or prefix, context, output). A name matches
/// exactly or as the start of a dated or sized variant, like prices do.
const KNOWN: &[(&str, u64, u64)] = &[
    ("gpt-4o-mini", 128_000, 16_384),
    ("gpt-4o", 128_000, 16_384),
    ("gpt-4.1", 1_047_576, 32_768),
    ("gpt-4.1-mini", 1_047_576, 32_768),
    ("gpt-4.1-nano", 1_047_576, 32_768),
    ("o3-mini", 200_000, 100_000),
    ("o4-mini", 200_000, 100_000),
    ("claude-3-5-haiku", 200_000, 8_192),
    ("claude-3-5-sonnet", 200_000, 8_192),
    ("claude-3-7-sonnet", 200_000, 64_000),
    ("claude-sonnet-4", 200_000, 64_000),
    ("claude-opus-4", 200_000, 32_000),
    ("claude-3-haiku", 200_000, 4_096),
    ("llama-3.3-70b-versatile", 131_072, 32_768),
    ("llama-3.1-8b-instant", 131_072, 131_072),
    ("deepseek-chat", 64_000, 8_192),
    ("deepseek-reasoner", 64_000, 8_192),
    ("gemini-2.0-flash", 1_048_576, 8_192),
    ("gemini-2.5-flash", 1_048_576, 65_536),
    ("gemini-1.5-flash", 1_048_576, 8_192),
    ("gemini-1.5-pro", 2_097_152, 8_192),
    // Ollama's default context, whatever the model could take.
    ("llama3.2", 4_096, 2_048),
];

/// Model name → window: the known ones and the person's own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowTable {
    /// Given in Settings; they win over the known ones.
    #[serde(with = "crate::core::sorted_map::map")]
    own: LiteMap<String, ModelWindow>,
}

impl WindowTable {
    pub fn set(&mut self, model: &str, window: ModelWindow) {
        self.own.insert(normalize(model), window);
    }

    /// The window of `model`: the person's, else the known one (exact,
    /// else the longest known name it extends with a dash or a colon),
    /// else the fallback. A router prefix (`openai/gpt-4o`) is ignored.
    pub fn window(&self, model: &str) -> ModelWindow {
        self.known(model).unwrap_or(ModelWindow::FALLBACK)
    }

    /// The window of `model` if someone knows it.
    pub fn known(&self, model: &str) -> Option<ModelWindow> {
        let model = normalize(model);
        if let Some(w) = self.own.get(&model) {
            return Some(*w);
        }
        KNOWN
            .iter()
            .filter(|(name, ..)| model == *name || model.strip_prefix(name).is_some_and(|rest| rest.starts_with(['-', ':'])))
            .max_by_key(|(name, ..)| name.len())
            .map(|&(_, context, output)| ModelWindow::new(context, output))
    }
}

fn normalize(model: &str) -> String {
    let model = model.trim().to_ascii_lowercase();
    match model.rsplit_once('/') {
        Some((_, name)) => name.to_string(),
        None => model,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::presets::PRESETS;

    #[test]
    fn every_preset_default_model_has_a_known_window() {
        let table = WindowTable::default();
        for preset in PRESETS.iter().filter(|p| !p.default_model.is_empty()) {
            let w = table.known(preset.default_model);
            assert!(w.is_some(), "{} ({}) has no window", preset.id, preset.default_model);
            let w = w.unwrap_or(ModelWindow::FALLBACK);
            assert!(w.output <= w.context, "{}", preset.default_model);
        }
    }

    #[test]
    fn names_match_like_prices_and_the_persons_figures_win() {
        let mut table = WindowTable::default();
        assert_eq!(table.window("gpt-4o-mini-2024-07-18").context, 128_000);
        assert_eq!(table.window("openai/gpt-4o-mini").context, 128_000);
        assert_eq!(table.window("gpt-4.1-mini").output, 32_768);
        assert_eq!(table.window("llama3.2:3b").context, 4_096);
        assert_eq!(table.window("my-finetune"), ModelWindow::FALLBACK);
        table.set("My-Finetune", ModelWindow::new(32_000, 2_000));
        assert_eq!(table.window("my-finetune"), ModelWindow::new(32_000, 2_000));
        table.set("gpt-4o-mini", ModelWindow::new(8_000, 1_000));
        assert_eq!(table.window("gpt-4o-mini").context, 8_000);
    }

    #[test]
    fn the_budget_leaves_room_for_the_answer() {
        assert_eq!(ModelWindow::new(16_000, 4_096).prompt_budget(), 16_000 - 4_000);
        assert_eq!(ModelWindow::new(128_000, 16_384).prompt_budget(), 128_000 - 4_096);
        assert_eq!(ModelWindow::new(200_000, 1_000).prompt_budget(), 199_000);
    }

    /// The estimate against the providers' own counts: every recorded
    /// text answer (no tool calls, whose framing costs tokens the text does
    /// not show) of ten tokens or more is estimated at or above what the
    /// provider billed, and not more than twice it.
    #[test]
    fn the_estimate_errs_high_but_not_far_against_recorded_usage() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/llm/expected.json");
        let text = std::fs::read_to_string(path).expect("the fixtures are in the repository");
        let entries: serde_json::Value = serde_json::from_str(&text).expect("expected.json is JSON");
        let mut checked = 0;
        for entry in entries.as_array().into_iter().flatten() {
            let e = &entry["expected"];
            let usage = if e["final_usage"].is_object() { &e["final_usage"] } else { &e["usage_merged"] };
            let Some(billed) = usage["completion_tokens"].as_u64().or_else(|| usage["output_tokens"].as_u64()) else { continue };
            let tools = e["tool_calls"].as_object().is_some_and(|t| !t.is_empty())
                || e["input_json_by_block"].as_object().is_some_and(|t| !t.is_empty());
            let texts = if e["text_by_choice"].is_object() { &e["text_by_choice"] } else { &e["text_by_block"] };
            let answer: String = texts.as_object().into_iter().flatten().filter_map(|(_, t)| t.as_str()).collect();
            if tools || billed < 10 || answer.is_empty() {
                continue;
            }
            let estimate = estimate_tokens(&answer);
            assert!(estimate >= billed, "{}: estimated {estimate}, billed {billed}", entry["file"]);
            assert!(estimate <= 2 * billed, "{}: estimated {estimate}, billed {billed}", entry["file"]);
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} recordings checked");
    }
}
