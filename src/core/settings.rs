//! What the user chooses before a run: provider, model, price, budget,
//! rounds, team. Plain data, checked here, saved by the browser edge.
//!
//! The API key is deliberately not a field: it lives in memory in the UI,
//! and is stored (apart from these settings) only when the user asks. So
//! saving or exporting settings can never leak it.

use super::window::{ModelWindow, WindowTable};
use serde::{Deserialize, Serialize};

use super::cost::{Price, PriceTable, DEFAULT_BUDGET};
use super::llm::client::{ProviderConfig, DEFAULT_TIMEOUT_MS};
use super::llm::presets::{blocked_hint, preset, Preset, PRESETS};
use super::team::DEFAULT_ROUNDS;

/// Which team works on the idea.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TeamKind {
    /// Team leader Mike and his members (RoleZero).
    #[default]
    Company,
    /// The classic pipeline: PRD → design → tasks → code → tests.
    FixedSop,
    /// One RoleZero assistant.
    Assistant,
}

impl TeamKind {
    pub const ALL: [TeamKind; 3] = [TeamKind::Company, TeamKind::FixedSop, TeamKind::Assistant];

    pub fn label(self) -> &'static str {
        match self {
            TeamKind::Company => "Software company (team leader + members)",
            TeamKind::FixedSop => "Software company, fixed steps (PRD → design → tasks → code → tests)",
            TeamKind::Assistant => "A single assistant",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            TeamKind::Company => "company",
            TeamKind::FixedSop => "fixed_sop",
            TeamKind::Assistant => "assistant",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.id() == id)
    }
}

/// A role that works with another model than the team's (same provider,
/// same key): the engineer on a bigger model, say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RoleModel {
    /// The role's name, as the team shows it ("Alex").
    pub role: String,
    pub model: String,
    /// A price the user entered, for a model the table does not know.
    pub price: Option<Price>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub preset: String,
    pub base_url: String,
    pub model: String,
    /// A price the user entered, for models the table does not know.
    pub custom_price: Option<Price>,
    /// The model's context window and output limit, when the person gives
    /// them (for a model `core::window` does not know, or to use less).
    pub custom_window: Option<ModelWindow>,
    pub budget: f64,
    pub rounds: u32,
    /// At most this many model calls a run (0: no limit), then a pause
    /// whose files so far are a version. For small models, which may
    /// never say they are done. Site only.
    #[cfg(feature = "site")]
    pub call_limit: u32,
    pub team: TeamKind,
    /// Keep the key in this browser's storage (off unless the user ticks it).
    pub remember_key: bool,
    /// On load, continue a run the closed tab left interrupted, without
    /// waiting for a click.
    pub auto_resume: bool,
    /// Roles on another model than `model` (empty: every role uses it).
    /// Overrides naming a role the chosen team lacks are kept and unused.
    pub overrides: Vec<RoleModel>,
    /// Where the project's npm packages come from, as browser ES modules
    /// (esm.sh's URL scheme: `{cdn}/react@18.3.1`); fetched by the app page,
    /// kept in the browser's package cache.
    pub package_cdn: String,
}

impl Default for Settings {
    fn default() -> Self {
        let p = &PRESETS[0];
        Self {
            preset: p.id.into(),
            base_url: p.base_url.into(),
            model: p.default_model.into(),
            custom_price: None,
            custom_window: None,
            budget: DEFAULT_BUDGET,
            rounds: DEFAULT_ROUNDS,
            #[cfg(feature = "site")]
            call_limit: 0,
            team: TeamKind::Company,
            remember_key: false,
            auto_resume: false,
            overrides: Vec::new(),
            package_cdn: crate::core::sandbox::packages::DEFAULT_CDN.into(),
        }
    }
}

impl Settings {
    pub fn preset(&self) -> Option<&'static Preset> {
        preset(&self.preset)
    }

    /// Switch provider: its base URL and default model replace the current ones.
    pub fn choose_preset(&mut self, id: &str) {
        if let Some(p) = preset(id) {
            self.preset = p.id.into();
            self.base_url = p.base_url.into();
            self.model = p.default_model.into();
            self.custom_price = local_price(p);
        }
    }

    /// The window table for a run: the known windows plus the person's.
    pub fn windows(&self) -> WindowTable {
        let mut table = WindowTable::default();
        #[cfg(feature = "site")]
        if self.in_tab() {
            table.set(self.model.trim(), IN_TAB_WINDOW);
        }
        if let Some(window) = self.custom_window {
            table.set(self.model.trim(), window);
        }
        table
    }

    /// The price table for a run: the known prices plus the user's.
    pub fn prices(&self) -> PriceTable {
        let mut table = PriceTable::default();
        for o in &self.overrides {
            if let Some(price) = o.price {
                table.set(o.model.trim(), price);
            }
        }
        if let Some(price) = self.custom_price {
            table.set(&self.model, price);
        }
        if self.in_tab() {
            table.set(&self.model, Price::new(0.0, 0.0));
        }
        table
    }

    /// The model runs in this tab (the site's "In this tab" provider): it
    /// costs nothing, and its window and answer length are the runtime's.
    pub fn in_tab(&self) -> bool {
        cfg!(feature = "site") && self.preset == "intab"
    }

    /// The model `role` works with: its override, else the team's.
    pub fn model_for(&self, role: &str) -> &str {
        self.override_for(role).map(|o| o.model.trim()).unwrap_or(self.model.trim())
    }

    /// The override for `role` that is in effect (a blank model is none).
    pub fn override_for(&self, role: &str) -> Option<&RoleModel> {
        self.overrides.iter().find(|o| o.role == role && !o.model.trim().is_empty())
    }

    /// Set `role`'s model (blank removes the override), keeping its price
    /// only while the model stays the same.
    pub fn set_override(&mut self, role: &str, model: &str, price: Option<Price>) {
        self.overrides.retain(|o| o.role != role);
        if !model.trim().is_empty() {
            self.overrides.push(RoleModel { role: role.to_string(), model: model.trim().to_string(), price });
        }
    }

    /// The price the run will use for the model, if any.
    pub fn model_price(&self) -> Option<Price> {
        self.prices().price(&self.model)
    }

    /// What stops a run from starting, in words for the person.
    pub fn problems(&self, key: &str) -> Vec<String> {
        let mut problems = Vec::new();
        if !(self.base_url.starts_with("https://") || self.base_url.starts_with("http://")) {
            problems.push("Enter the provider's base URL (it starts with https:// or http://).".into());
        }
        if self.model.trim().is_empty() && self.in_tab() {
            problems.push("Choose a model to run in this tab, and download it once.".into());
        } else if self.model.trim().is_empty() {
            problems.push("Enter a model name.".into());
        }
        if self.preset().is_some_and(|p| p.needs_key) && key.trim().is_empty() {
            problems.push("Paste your API key: it goes from this browser to the provider and nowhere else.".into());
        }
        if self.model_price().is_none() {
            problems.push(format!("No price is known for \"{}\": enter its price per million tokens so the budget can be kept.", self.model));
        }
        let prices = self.prices();
        for o in self.overrides.iter().filter(|o| !o.model.trim().is_empty()) {
            if prices.price(o.model.trim()).is_none() {
                problems.push(format!(
                    "No price is known for \"{}\" ({}'s model): enter its price in the per-role models so the budget can be kept.",
                    o.model.trim(),
                    o.role
                ));
            }
        }
        if !(self.budget.is_finite() && self.budget > 0.0) {
            problems.push("Set a budget above $0.".into());
        }
        if self.rounds == 0 {
            problems.push("Allow at least one round.".into());
        }
        #[cfg(feature = "site")]
        problems.extend(self.window_problem());
        problems
    }

    /// The window the model would have without the person's figures: the
    /// known one, else the fallback (`None` in the second place: unknown).
    #[cfg(feature = "site")]
    fn default_window(&self) -> (ModelWindow, bool) {
        let known = WindowTable::default().known(self.model.trim());
        (known.unwrap_or(ModelWindow::FALLBACK), known.is_some())
    }

    /// The person's window figures from Settings' two fields (`None`: left
    /// empty). Both empty: the known or assumed window again; one given:
    /// the other stays as it would be.
    #[cfg(feature = "site")]
    pub fn set_window(&mut self, context: Option<u64>, output: Option<u64>) {
        let current = self.custom_window.unwrap_or(self.default_window().0);
        self.custom_window = match (context, output) {
            (None, None) => None,
            (context, output) => Some(ModelWindow::new(context.unwrap_or(current.context), output.unwrap_or(current.output))),
        };
    }

    /// What Settings says under the window fields: the figures in use and
    /// where they come from.
    #[cfg(feature = "site")]
    pub fn window_note(&self) -> String {
        let (window, known) = self.default_window();
        let figures = |w: ModelWindow| format!("{} tokens in all, answers up to {}", grouped(w.context), grouped(w.output));
        match self.custom_window {
            Some(own) => format!("Using your figures: {}. Empty both fields to use the {} again ({}).", figures(own), if known { "known ones" } else { "safe default" }, figures(window)),
            None if known => format!("Known for this model: {}. Enter smaller figures to send less.", figures(window)),
            None => format!(
                "This model's window is not known, so a safe default is used: {}. If the model takes more, enter its figures (they are on the provider's model page): long projects then need fewer summaries.",
                figures(window)
            ),
        }
    }

    /// The person's window figures, checked: words for the person.
    #[cfg(feature = "site")]
    pub fn window_problem(&self) -> Option<String> {
        let w = self.custom_window?;
        if w.context < MIN_CONTEXT {
            return Some(format!(
                "The context window is {} tokens: the team's instructions alone need more. Enter at least {} (or empty the field to use {}).",
                grouped(w.context),
                grouped(MIN_CONTEXT),
                grouped(self.default_window().0.context)
            ));
        }
        if w.output == 0 || w.output >= w.context {
            return Some(format!(
                "The answer limit must be above 0 and below the context window ({} tokens): the prompt needs the rest.",
                grouped(w.context)
            ));
        }
        None
    }

    /// [`Settings::provider_config`] for another model of the same provider.
    pub fn provider_config_for_model(&self, model: &str, key: &str, origin: Option<&str>) -> ProviderConfig {
        ProviderConfig { model: model.trim().to_string(), ..self.provider_config(key, origin) }
    }

    /// Where and how to call the model, with the key given for this session.
    pub fn provider_config(&self, key: &str, origin: Option<&str>) -> ProviderConfig {
        let preset = self.preset();
        ProviderConfig {
            protocol: preset.map_or(super::llm::presets::Protocol::OpenAi, |p| p.protocol).codec(),
            base_url: self.base_url.trim().to_string(),
            model: self.model.trim().to_string(),
            api_key: (!key.trim().is_empty()).then(|| key.trim().to_string()),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            // The model in the tab writes every token on this computer's
            // CPU: answers are held to the window's output part, which
            // the person can shorten in Settings.
            max_tokens: self.in_tab().then(|| self.windows().window(self.model.trim()).output as u32),
            unreachable_hint: preset.map(|p| blocked_hint(p, origin)),
            structured_output: preset.is_some_and(|p| p.structured_output),
        }
    }
}

/// The window of a model run in the tab: the context the runtime loads it
/// with (`n_ctx` in `web/in_tab/engine.mjs`), and the longest answer asked
/// by default: a 1–3 B model on a laptop's CPU writes a few tokens a
/// second, and a RoleZero answer fits in 512.
pub const IN_TAB_WINDOW: ModelWindow = ModelWindow::new(8192, 512);

/// The smallest context window Settings accepts: a RoleZero's system
/// prompt and closing turn need about this much before any history (the
/// company's first requests are ~2,500 tokens, estimated, with some).
#[cfg(feature = "site")]
pub const MIN_CONTEXT: u64 = 2_048;

#[cfg(feature = "site")]
use super::versions::grouped;

/// Local servers cost nothing to call.
fn local_price(p: &Preset) -> Option<Price> {
    let local = p.base_url.starts_with("http://localhost") || p.base_url.starts_with("http://127.0.0.1");
    // The model in the tab runs on the person's own computer.
    let in_tab = cfg!(feature = "site") && p.id == "intab";
    (local || in_tab).then_some(Price::new(0.0, 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_metagpt_s() {
        let s = Settings::default();
        assert_eq!((s.budget, s.rounds, s.team, s.remember_key), (3.0, 5, TeamKind::Company, false));
        assert!(s.problems("sk-x").is_empty(), "{:?}", s.problems("sk-x"));
    }

    #[test]
    fn problems_say_what_to_fix() {
        let check = |edit: &dyn Fn(&mut Settings), key: &str, want: &str| {
            let mut s = Settings::default();
            edit(&mut s);
            let problems = s.problems(key).join(" ");
            assert!(problems.contains(want), "{want}: {problems}");
        };
        check(&|_| {}, "", "Paste your API key");
        check(&|s| s.model = "my-finetune".into(), "k", "No price is known for \"my-finetune\"");
        check(&|s| s.base_url = "api.example.com".into(), "k", "base URL");
        check(&|s| s.budget = 0.0, "k", "budget");
        check(&|s| s.rounds = 0, "k", "round");
    }

    #[test]
    fn local_servers_need_no_key_and_cost_nothing() {
        let mut s = Settings::default();
        s.choose_preset("ollama");
        s.model = "llama3.2".into();
        assert!(s.problems("").is_empty(), "{:?}", s.problems(""));
        assert_eq!(s.model_price(), Some(Price::new(0.0, 0.0)));
        let config = s.provider_config("", Some("http://127.0.0.1:8080"));
        assert_eq!(config.api_key, None);
        assert!(config.unreachable_hint.unwrap().contains("OLLAMA_ORIGINS=http://127.0.0.1:8080"));
    }

    #[test]
    fn a_saved_setting_never_holds_the_key() {
        let s = Settings { remember_key: true, ..Settings::default() };
        let config = s.provider_config("sk-secret-123", None);
        assert_eq!(config.api_key.as_deref(), Some("sk-secret-123"));
        let saved = serde_json::to_string(&s).unwrap();
        assert!(!saved.contains("sk-secret"), "{saved}");
    }

    #[test]
    fn per_role_models_are_priced_checked_and_saved() {
        let mut s = Settings::default();
        s.set_override("Alex", "gpt-4o", None);
        s.set_override("Bob", "my-finetune", None);
        s.set_override("Eve", "  ", None);
        assert_eq!((s.model_for("Alex"), s.model_for("Bob"), s.model_for("Eve"), s.model_for("Mike")), ("gpt-4o", "my-finetune", s.model.as_str(), s.model.as_str()));
        let problems = s.problems("k").join(" ");
        assert!(problems.contains("\"my-finetune\" (Bob's model)"), "{problems}");
        assert!(!problems.contains("gpt-4o"), "a known model needs no price: {problems}");
        s.set_override("Bob", "my-finetune", Some(Price::new(3.0, 4.0)));
        assert!(s.problems("k").is_empty(), "{:?}", s.problems("k"));
        assert_eq!(s.prices().price("my-finetune"), Some(Price::new(3.0, 4.0)));
        assert_eq!(s.provider_config_for_model("gpt-4o", "k", None).model, "gpt-4o");
        // Saved with the settings, never with a key; old saves load without them.
        let saved = serde_json::to_string(&s).unwrap();
        let back: Settings = serde_json::from_str(&saved).unwrap();
        assert_eq!(back.overrides, s.overrides);
        let old: Settings = serde_json::from_str(r#"{"model":"gpt-4o-mini"}"#).unwrap();
        assert!(old.overrides.is_empty());
        // Blank removes.
        s.set_override("Alex", "", None);
        assert_eq!(s.model_for("Alex"), s.model);
    }

    /// Issue #33 item 1: the window fields. Empty: the known or the safe
    /// default, said so; given: used, checked in words, saved.
    #[test]
    fn another_model_s_window_is_given_checked_and_saved() {
        let mut s = Settings { model: "my-finetune".into(), custom_price: Some(Price::new(1.0, 1.0)), ..Settings::default() };
        assert!(s.window_note().starts_with("This model's window is not known, so a safe default is used: 16,384 tokens in all, answers up to 4,096."), "{}", s.window_note());
        assert_eq!(s.windows().window("my-finetune"), ModelWindow::FALLBACK);
        s.set_window(Some(32_000), None);
        assert_eq!(s.custom_window, Some(ModelWindow::new(32_000, 4_096)), "the other figure stays");
        assert_eq!(s.windows().window("my-finetune"), ModelWindow::new(32_000, 4_096));
        assert!(s.window_note().starts_with("Using your figures: 32,000 tokens in all, answers up to 4,096. Empty both fields to use the safe default again"), "{}", s.window_note());
        assert!(s.problems("k").is_empty(), "{:?}", s.problems("k"));
        let saved: Settings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(saved.custom_window, s.custom_window);
        s.set_window(Some(1_000), Some(4_096));
        assert_eq!(s.problems("k"), ["The context window is 1,000 tokens: the team's instructions alone need more. Enter at least 2,048 (or empty the field to use 16,384).".to_string()]);
        s.set_window(Some(8_192), Some(8_192));
        assert_eq!(s.window_problem().as_deref(), Some("The answer limit must be above 0 and below the context window (8,192 tokens): the prompt needs the rest."));
        s.set_window(None, None);
        assert_eq!((s.custom_window, s.window_problem()), (None, None));
        s.model = "gpt-4o-mini".into();
        assert_eq!(s.window_note(), "Known for this model: 128,000 tokens in all, answers up to 16,384. Enter smaller figures to send less.");
    }

    #[test]
    fn team_kinds_round_trip_by_id() {
        for kind in TeamKind::ALL {
            assert_eq!(TeamKind::from_id(kind.id()), Some(kind));
        }
    }

    /// The model in the tab: no key, no price to enter (whatever the model
    /// field was typed to), the runtime's window, and answers held to its
    /// output part, which the person may shorten.
    #[test]
    fn the_model_in_the_tab_is_free_keyless_and_short() {
        let mut s = Settings::default();
        s.choose_preset("intab");
        assert_eq!(s.problems(""), vec!["Choose a model to run in this tab, and download it once.".to_string()]);
        s.model = "http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf".into();
        s.custom_price = None;
        assert!(s.problems("").is_empty(), "{:?}", s.problems(""));
        assert_eq!(s.model_price(), Some(Price::new(0.0, 0.0)));
        let config = s.provider_config("", None);
        assert_eq!((config.max_tokens, config.structured_output, config.api_key), (Some(512), true, None));
        s.custom_window = Some(ModelWindow::new(8192, 96));
        assert_eq!(s.provider_config("", None).max_tokens, Some(96));
        // Another provider's answers are not bounded here.
        s.choose_preset("openai");
        assert_eq!(s.provider_config("k", None).max_tokens, None);
    }
}
