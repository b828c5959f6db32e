//! Cost accounting: a price table per model and a ledger of every LLM call.
//!
//! MetaGPT checks the budget only between rounds and counts a model it has no
//! price for as free. Here the budget is checked before every call (by
//! `gate::LlmGate`), the check includes the prompt about to be sent, and a
//! model with no known price stops the run with [`BudgetError::UnknownPrice`]
//! until the user enters one. Prices are dollars per million tokens.
//!
//! Cached input is billed at the model's cached price and cache writes at
//! its write price when the table has them; a model without a cached price
//! is billed the full input price for cached tokens (never less than the
//! provider could charge), and without a write price, writes cost
//! Anthropic's 1.25 × input (Anthropic is the one provider that reports
//! writes).

use std::cell::RefCell;
use litemap::LiteMap;

use serde::{Deserialize, Serialize};

use super::llm::Usage;
use super::shared_str::SharedStr;

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Input served from the provider's prompt cache; `None`: unknown, so
    /// billed at `input_per_mtok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
    /// Input written to the cache (Anthropic); `None`: 1.25 × input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_per_mtok: Option<f64>,
}

/// Anthropic's price of a 5-minute cache write, as a multiple of the input
/// price: what a write costs when the table names no write price.
pub const CACHE_WRITE_FACTOR: f64 = 1.25;

impl Price {
    /// A price without cache rates (cached tokens billed as input).
    pub const fn new(input_per_mtok: f64, output_per_mtok: f64) -> Self {
        Self { input_per_mtok, output_per_mtok, cached_input_per_mtok: None, cache_write_per_mtok: None }
    }

    /// This price with cache rates: reads at `cached`, writes at `write`.
    pub const fn with_cache(self, cached: Option<f64>, write: Option<f64>) -> Self {
        Self { cached_input_per_mtok: cached, cache_write_per_mtok: write, ..self }
    }

    /// Every prompt token at the full input price.
    pub fn cost(&self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input_per_mtok + completion_tokens as f64 * self.output_per_mtok) / 1_000_000.0
    }

    /// One call's cost: uncached input, cached input and cache writes each
    /// at their own price. A cached price above the input price is taken
    /// as given; a missing one is the input price, so a cached token never
    /// costs less than the provider may charge for it.
    pub fn cost_of(&self, usage: &Usage) -> f64 {
        let cached = self.cached_input_per_mtok.unwrap_or(self.input_per_mtok);
        let write = self.cache_write_per_mtok.unwrap_or(self.input_per_mtok * CACHE_WRITE_FACTOR);
        let cached_tokens = usage.cached_tokens.min(usage.prompt_tokens);
        let written = usage.cache_write_tokens.min(usage.prompt_tokens - cached_tokens);
        let uncached = usage.prompt_tokens - cached_tokens - written;
        (uncached as f64 * self.input_per_mtok
            + cached_tokens as f64 * cached
            + written as f64 * write
            + usage.completion_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// Known prices, from MetaGPT's table and, for models it lacks, tokencost's
/// (see `shared/mission/PROVIDERS.md` §6). Where the two disagree on an
/// undated alias (`gpt-4o`), the current price is used.
///
/// Columns: model, input, output, cached input, cache write. The cache
/// rates come from the providers' own pricing pages, as read on 2026-11-26:
/// OpenAI's "Pricing" (developers.openai.com/api/docs/pricing, "Cached
/// input"; OpenAI charges nothing extra for writes, so they are the input
/// price), Anthropic's "Pricing" (platform.claude.com/docs/en/about-claude/pricing,
/// "5m cache writes" = 1.25 × input and "Cache hits" = 0.1 × input), and
/// DeepSeek's "Models & Pricing" (api-docs.deepseek.com/quick_start/pricing,
/// "cache hit", the rates that go with the input and output prices here).
/// Gemini's explicit context caches are also priced by storage per hour,
/// which a per-token table cannot say; tabteam creates none, so the cached
/// tokens Gemini reports are implicit-cache hits, billed at the cached
/// price alone (no storage). Gemini 1.5's rows keep no cached price.
///
/// Every preset's default model has a row (a test checks it):
/// `llama-3.3-70b-versatile` (Groq: 0.59 / 0.79, groq.com/pricing, no
/// cache discount listed) and `gemini-2.0-flash` (0.10 / 0.40, cached
/// 0.025) and `gemini-2.5-flash` (0.30 / 2.50, output including thinking,
/// cached 0.03) from ai.google.dev/gemini-api/docs/pricing (paid tier,
/// text). This machine cannot reach those pages: the figures were checked
/// on 2026-11-28 against public price tables that cite them (LiteLLM-derived
/// tables in public repositories; the `gemini-cost` 0.1.0 crate's table).
const DEFAULT_PRICES: &[(&str, f64, f64, Option<f64>, Option<f64>)] = &[
    ("gpt-4o", 2.50, 10.00, Some(1.25), Some(2.50)),
    ("gpt-4o-2024-08-06", 2.50, 10.00, Some(1.25), Some(2.50)),
    ("gpt-4o-mini", 0.15, 0.60, Some(0.075), Some(0.15)),
    ("gpt-4.1", 2.00, 8.00, Some(0.50), Some(2.00)),
    ("gpt-4.1-mini", 0.40, 1.60, Some(0.10), Some(0.40)),
    ("gpt-4.1-nano", 0.10, 0.40, Some(0.025), Some(0.10)),
    ("claude-3-5-sonnet", 3.00, 15.00, Some(0.30), Some(3.75)),
    ("claude-3-7-sonnet", 3.00, 15.00, Some(0.30), Some(3.75)),
    ("claude-sonnet-4", 3.00, 15.00, Some(0.30), Some(3.75)),
    ("claude-3-5-haiku", 0.80, 4.00, Some(0.08), Some(1.00)),
    ("claude-3-haiku", 0.25, 1.25, Some(0.03), Some(0.30)),
    ("claude-3-opus", 15.00, 75.00, Some(1.50), Some(18.75)),
    ("claude-opus-4", 15.00, 75.00, Some(1.50), Some(18.75)),
    ("deepseek-chat", 0.27, 1.10, Some(0.07), Some(0.27)),
    ("deepseek-reasoner", 0.55, 2.20, Some(0.14), Some(0.55)),
    ("gemini-1.5-flash", 0.075, 0.30, None, None),
    ("gemini-2.0-flash", 0.10, 0.40, Some(0.025), None),
    ("gemini-2.5-flash", 0.30, 2.50, Some(0.03), None),
    ("llama-3.3-70b-versatile", 0.59, 0.79, None, None),
    ("gemini-1.5-pro", 3.50, 10.50, None, None),
];

/// Model name → price. Users extend it with [`PriceTable::set`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PriceTable {
    #[serde(with = "crate::core::sorted_map::map")]
    prices: LiteMap<String, Price>,
    /// The last lookup, as asked (before normalizing) and answered: a team
    /// asks for the same model's price before and after every call, by
    /// the same shared name (see [`PriceTable::price_of`]).
    /// Not saved; `set` forgets it.
    #[serde(skip)]
    last: RefCell<Option<(SharedStr, Option<Price>)>>,
}

impl PartialEq for PriceTable {
    fn eq(&self, other: &Self) -> bool {
        self.prices == other.prices
    }
}

impl Default for PriceTable {
    fn default() -> Self {
        // Inserted one by one: collecting into a map sorts a Vec first,
        // a slice sort of its own in the wasm.
        let mut prices = LiteMap::new();
        for &(model, input, output, cached, write) in DEFAULT_PRICES {
            prices.insert(model.to_string(), Price::new(input, output).with_cache(cached, write));
        }
        Self { prices, last: RefCell::default() }
    }
}

impl PriceTable {
    /// An empty table (every model unpriced).
    pub fn empty() -> Self {
        Self { prices: LiteMap::new(), last: RefCell::default() }
    }

    pub fn set(&mut self, model: &str, price: Price) {
        self.prices.insert(normalize(model), price);
        *self.last.get_mut() = None;
    }

    /// Every price of `other` set here too (a price the user entered later
    /// joins the ones a saved session had).
    pub fn merge(&mut self, other: &PriceTable) {
        self.prices.extend(other.prices.iter().map(|(m, p)| (m.clone(), *p)));
        *self.last.get_mut() = None;
    }

    /// The price of `model`: an exact match, else the longest known name the
    /// model extends with a dash (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`).
    /// A router prefix (`openai/gpt-4o`) is ignored.
    pub fn price(&self, model: &str) -> Option<Price> {
        if let Some((asked, price)) = &*self.last.borrow() {
            if *asked == *model {
                return *price;
            }
        }
        self.remember(SharedStr::from(model))
    }

    /// [`PriceTable::price`] of a shared name: the last one asked is
    /// recognised by its pointer (the gate asks with the same name on
    /// every call, before and after it).
    pub fn price_of(&self, model: &SharedStr) -> Option<Price> {
        if let Some((asked, price)) = &*self.last.borrow() {
            if asked.is_same(model) || *asked == *model {
                return *price;
            }
        }
        self.remember(model.clone())
    }

    fn remember(&self, model: SharedStr) -> Option<Price> {
        let price = self.lookup(&model);
        *self.last.borrow_mut() = Some((model, price));
        price
    }

    fn lookup(&self, model: &str) -> Option<Price> {
        let model = normalize(model);
        if let Some(p) = self.prices.get(&model) {
            return Some(*p);
        }
        self.prices
            .iter()
            .filter(|(name, _)| model.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with('-')))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    }
}

fn normalize(model: &str) -> String {
    let model = model.trim().to_ascii_lowercase();
    match model.rsplit_once('/') {
        Some((_, name)) => name.to_string(),
        None => model,
    }
}

/// Add `entry` to the tally under `key` (the shared key is kept when new:
/// no copy of the name). Looked up as a `SharedStr`: the key it holds is
/// usually the very same name, found without comparing text.
fn add_to(tallies: &mut LiteMap<SharedStr, Tally>, key: &SharedStr, entry: &CostEntry) {
    match tallies.get_mut(key) {
        Some(tally) => tally.add(entry),
        None => {
            let mut tally = Tally::default();
            tally.add(entry);
            tallies.insert(key.clone(), tally);
        }
    }
}

/// Why a call may not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum BudgetError {
    #[error("The budget is used up (${spent:.4} spent of ${budget:.2}). Raise the budget in Settings, then Resume.")]
    Exhausted { spent: f64, budget: f64 },
    #[error("No price is known for the model \"{model}\". Enter its price per million tokens in Settings, then Resume.")]
    UnknownPrice { model: String },
    /// The run made the model calls Settings allow one run (site only:
    /// the widget has no such setting, and its size budget no room).
    #[cfg(feature = "site")]
    #[error("The run made the {} Settings allow it. Resume to let the team go on.", model_calls(*calls))]
    CallLimit { calls: u64 },
}

/// "1 model call", "8 model calls".
#[cfg(feature = "site")]
pub fn model_calls(n: u64) -> String {
    if n == 1 { "1 model call".into() } else { format!("{n} model calls") }
}

/// Token and dollar totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost: f64,
    /// Calls whose tokens were estimated (the provider sent no usage).
    pub estimated_calls: u64,
    /// Of `prompt_tokens`, served from the provider's cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of `prompt_tokens`, written to the provider's cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Tally {
    /// The share of input tokens served from a cache (0 with no input).
    pub fn cached_share(&self) -> f64 {
        if self.prompt_tokens == 0 { 0.0 } else { self.cached_tokens as f64 / self.prompt_tokens as f64 }
    }

    /// Count one more call.
    pub(crate) fn add(&mut self, entry: &CostEntry) {
        self.calls += 1;
        self.cached_tokens += entry.cached_tokens;
        self.cache_write_tokens += entry.cache_write_tokens;
        self.prompt_tokens += entry.prompt_tokens;
        self.completion_tokens += entry.completion_tokens;
        self.cost += entry.cost;
        self.estimated_calls += u64::from(entry.estimated);
    }
}

/// One priced call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostEntry {
    pub seq: u64,
    pub role: SharedStr,
    pub model: SharedStr,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost: f64,
    pub estimated: bool,
    /// Of `prompt_tokens`, served from the provider's cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of `prompt_tokens`, written to the provider's cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

/// Every call's cost, totals per role and per model, and the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostLedger {
    pub budget: f64,
    pub prices: PriceTable,
    total: Tally,
    /// Keyed by the entries' shared names (saved as plain strings).
    #[serde(with = "crate::core::sorted_map::map")]
    per_role: LiteMap<SharedStr, Tally>,
    #[serde(with = "crate::core::sorted_map::map")]
    per_model: LiteMap<SharedStr, Tally>,
    entries: Vec<CostEntry>,
    /// The number of calls after which no call may be made in this run,
    /// with the limit it came from (`limit_calls`). Set before each run,
    /// never saved.
    #[cfg(feature = "site")]
    #[serde(skip)]
    call_limit: Option<(u64, u64)>,
}

/// MetaGPT's CLI default budget.
pub const DEFAULT_BUDGET: f64 = 3.0;

impl Default for CostLedger {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET, PriceTable::default())
    }
}

impl CostLedger {
    pub fn new(budget: f64, prices: PriceTable) -> Self {
        Self {
            budget,
            prices,
            total: Tally::default(),
            per_role: LiteMap::new(),
            per_model: LiteMap::new(),
            entries: Vec::new(),
            #[cfg(feature = "site")]
            call_limit: None,
        }
    }

    /// A ledger as it was saved, its totals taken as they were (not
    /// recomputed from the entries).
    pub fn restored(budget: f64, prices: PriceTable, total: Tally, per_role: LiteMap<SharedStr, Tally>, per_model: LiteMap<SharedStr, Tally>, entries: Vec<CostEntry>) -> Self {
        Self {
            budget,
            prices,
            total,
            per_role,
            per_model,
            entries,
            #[cfg(feature = "site")]
            call_limit: None,
        }
    }

    /// From now on, at most `calls` more model calls (`None`: no limit).
    /// For small models, which may never say they are done: the session
    /// sets it before each run, so a Resume gives as many again.
    #[cfg(feature = "site")]
    pub fn limit_calls(&mut self, calls: Option<u32>) {
        self.call_limit = calls.map(|n| (self.total.calls + u64::from(n), u64::from(n)));
    }

    /// May a call to `model` with a prompt of about `prompt_tokens` be made?
    /// The prompt's cost counts against what is left, so a call is refused
    /// when even its prompt would overrun the budget.
    pub fn check(&self, model: &str, prompt_tokens: u64) -> Result<(), BudgetError> {
        self.check_price(model, self.prices.price(model), prompt_tokens)
    }

    /// [`CostLedger::check`] for a shared name (the gate's, every call).
    pub fn check_shared(&self, model: &SharedStr, prompt_tokens: u64) -> Result<(), BudgetError> {
        self.check_price(model, self.prices.price_of(model), prompt_tokens)
    }

    fn check_price(&self, model: &str, price: Option<Price>, prompt_tokens: u64) -> Result<(), BudgetError> {
        #[cfg(feature = "site")]
        if let Some((last, calls)) = self.call_limit {
            if self.total.calls >= last {
                return Err(BudgetError::CallLimit { calls });
            }
        }
        let price = price.ok_or_else(|| BudgetError::UnknownPrice { model: model.to_string() })?;
        let spent = self.total.cost;
        if spent >= self.budget || spent + price.cost(prompt_tokens, 0) > self.budget {
            return Err(BudgetError::Exhausted { spent, budget: self.budget });
        }
        Ok(())
    }

    /// Record a finished call. An unpriced model (possible only if its price
    /// was removed mid-call) is recorded at zero and its entry says so by
    /// staying out of `prices`.
    pub fn record(&mut self, role: &str, model: &str, usage: Usage) -> CostEntry {
        let model = self.shared_model(model);
        self.record_entry(&SharedStr::from(role), &model, usage).clone()
    }

    /// [`CostLedger::record`], lending the entry instead of a copy. The
    /// entry shares `role` and `model` (the gate passes the model's name
    /// as [`CostLedger::shared_model`] gave it: one name for a team that
    /// calls one model again and again).
    pub fn record_entry(&mut self, role: &SharedStr, model: &SharedStr, usage: Usage) -> &CostEntry {
        let cost = self.prices.price_of(model).map_or(0.0, |p| p.cost_of(&usage));
        let entry = CostEntry {
            seq: self.entries.len() as u64 + 1,
            role: role.clone(),
            model: model.clone(),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            cost,
            estimated: usage.estimated,
            cached_tokens: usage.cached_tokens,
            cache_write_tokens: usage.cache_write_tokens,
        };
        self.total.add(&entry);
        add_to(&mut self.per_role, &entry.role, &entry);
        add_to(&mut self.per_model, &entry.model, &entry);
        self.entries.push(entry);
        &self.entries[self.entries.len() - 1]
    }

    /// `model` as a shared name: the last entry's when it is the same model
    /// (a team calls one model again and again), else a new one.
    pub fn shared_model(&self, model: &str) -> SharedStr {
        match self.entries.last() {
            Some(last) if last.model == *model => last.model.clone(),
            _ => SharedStr::from(model),
        }
    }

    pub fn total(&self) -> Tally {
        self.total
    }

    pub fn per_role(&self) -> &LiteMap<SharedStr, Tally> {
        &self.per_role
    }

    pub fn per_model(&self) -> &LiteMap<SharedStr, Tally> {
        &self.per_model
    }

    pub fn entries(&self) -> &[CostEntry] {
        &self.entries
    }

    pub fn remaining(&self) -> f64 {
        (self.budget - self.total.cost).max(0.0)
    }

    pub fn is_exhausted(&self) -> bool {
        self.total.cost >= self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn price_lookup() {
        let t = PriceTable::default();
        let cases: &[(&str, Option<(f64, f64)>)] = &[
            ("gpt-4o-mini", Some((0.15, 0.60))),
            ("gpt-4o-mini-2024-07-18", Some((0.15, 0.60))),
            ("GPT-4o", Some((2.50, 10.00))),
            ("openai/gpt-4o-mini", Some((0.15, 0.60))),
            ("claude-3-5-haiku-20241022", Some((0.80, 4.00))),
            ("claude-3-haiku-20240307", Some((0.25, 1.25))),
            ("gpt-4o2", None),
            ("llama3.2", None),
            ("", None),
        ];
        for (model, want) in cases {
            assert_eq!(t.price(model).map(|p| (p.input_per_mtok, p.output_per_mtok)), *want, "{model}");
        }
    }

    #[test]
    fn cost_is_per_million_tokens() {
        let p = Price::new(2.0, 8.0);
        assert_eq!(p.cost(1_000_000, 0), 2.0);
        assert_eq!(p.cost(500_000, 250_000), 3.0);
    }

    fn usage(p: u64, c: u64) -> Usage {
        Usage::new(p, c)
    }

    fn cached(p: u64, c: u64, read: u64, written: u64) -> Usage {
        Usage { cached_tokens: read, cache_write_tokens: written, ..Usage::new(p, c) }
    }

    /// Uncached, cached and written input each at its price; a model
    /// without cache prices pays the full input price for cached tokens.
    #[test]
    fn cached_tokens_at_their_prices() {
        let sonnet = Price::new(3.0, 15.0).with_cache(Some(0.30), Some(3.75));
        let check = |price: Price, usage: Usage, want: f64| {
            let got = price.cost_of(&usage);
            assert!((got - want).abs() < 1e-12, "{price:?} {usage:?}: {got} != {want}");
        };
        // No cache: the plain price.
        check(sonnet, usage(1_000_000, 100_000), 3.0 + 1.5);
        // 800k read (0.24), 150k written (0.5625), 50k plain (0.15), output 1.5.
        check(sonnet, cached(1_000_000, 100_000, 800_000, 150_000), 0.24 + 0.5625 + 0.15 + 1.5);
        // All read.
        check(sonnet, cached(1_000_000, 0, 1_000_000, 0), 0.30);
        // No cached price: cached tokens cost the input price, writes 1.25 ×.
        check(Price::new(2.0, 8.0), cached(1_000_000, 0, 600_000, 0), 2.0);
        check(Price::new(2.0, 8.0), cached(1_000_000, 0, 0, 400_000), 1.2 + 0.4 * 2.5);
        // Cached price only (OpenAI): reads discounted, nothing else.
        check(Price::new(0.15, 0.6).with_cache(Some(0.075), None), cached(2_000_000, 0, 1_000_000, 0), 0.15 + 0.075);
        // A report of more cached than sent is capped at what was sent.
        check(sonnet, cached(100, 0, 500, 500), 100.0 * 0.30 / 1e6);
        // Never less than the cached price allows: every mix costs at least
        // all-cached and at most all-written.
        for read in [0, 250_000, 1_000_000] {
            let got = sonnet.cost_of(&cached(1_000_000, 0, read, 0));
            assert!((0.30 - 1e-12..=3.0 + 1e-12).contains(&got), "{got}");
        }
    }

    /// The ledger bills each entry as `cost_of` says and keeps the cached
    /// and written tokens per entry, per role, per model and in all.
    #[test]
    fn ledger_bills_cached_tokens() {
        let mut prices = PriceTable::empty();
        prices.set("claude-sonnet-4", Price::new(3.0, 15.0).with_cache(Some(0.30), Some(3.75)));
        prices.set("plain", Price::new(3.0, 15.0));
        let mut l = CostLedger::new(100.0, prices);
        let first = l.record("Mike", "claude-sonnet-4", cached(10_000, 0, 0, 9_000)).cost;
        let second = l.record("Mike", "claude-sonnet-4", cached(10_500, 0, 9_000, 1_000)).cost;
        let plain = l.record("Alice", "plain", cached(10_500, 0, 9_000, 0)).cost;
        assert!((first - (1_000.0 * 3.0 + 9_000.0 * 3.75) / 1e6).abs() < 1e-12);
        assert!((second - (500.0 * 3.0 + 9_000.0 * 0.30 + 1_000.0 * 3.75) / 1e6).abs() < 1e-12);
        assert!((plain - 10_500.0 * 3.0 / 1e6).abs() < 1e-12, "no cached price: full input price");
        let total = l.total();
        assert_eq!((total.prompt_tokens, total.cached_tokens, total.cache_write_tokens), (31_000, 18_000, 10_000));
        assert_eq!((l.per_role().get("Mike").unwrap().cached_tokens, l.per_role().get("Alice").unwrap().cached_tokens), (9_000, 9_000));
        assert_eq!(l.per_model().get("claude-sonnet-4").unwrap().cache_write_tokens, 10_000);
        assert!((total.cached_share() - 18.0 / 31.0).abs() < 1e-12);
        assert!((total.cost - (first + second + plain)).abs() < 1e-12);
        assert_eq!(Tally::default().cached_share(), 0.0);
    }

    /// Every preset's default model that the table prices has a cached
    /// price at most its input price; Anthropic's have a write price.
    #[test]
    fn default_cache_prices() {
        let t = PriceTable::default();
        for (model, want_cached, want_write) in [
            ("gpt-4o-mini", 0.075, 0.15),
            ("claude-3-5-haiku-20241022", 0.08, 1.00),
            ("claude-sonnet-4-20250514", 0.30, 3.75),
            ("deepseek-chat", 0.07, 0.27),
        ] {
            let p = t.price(model).unwrap();
            assert_eq!((p.cached_input_per_mtok, p.cache_write_per_mtok), (Some(want_cached), Some(want_write)), "{model}");
        }
        assert_eq!(t.price("gemini-1.5-flash").unwrap().cached_input_per_mtok, None);
        for preset in crate::core::llm::presets::PRESETS {
            if let Some(p) = t.price(preset.default_model) {
                assert!(p.cached_input_per_mtok.is_none_or(|c| c <= p.input_per_mtok), "{}", preset.default_model);
            }
        }
    }

    /// A preset must start with its own default model: Start is blocked
    /// while the model has no price. (The presets whose default is empty
    /// leave the model to the person, who then gives a price; local
    /// servers are free, see `settings::local_price`.)
    #[test]
    fn every_preset_default_model_has_a_price() {
        let t = PriceTable::default();
        let unpriced: Vec<&str> = crate::core::llm::presets::PRESETS
            .iter()
            .filter(|p| !p.default_model.is_empty() && !p.base_url.contains("localhost"))
            .filter(|p| t.price(p.default_model).is_none())
            .map(|p| p.id)
            .collect();
        assert!(unpriced.is_empty(), "presets whose default model has no price: {unpriced:?}");
    }

    #[test]
    fn ledger_totals_per_role_and_model() {
        let mut prices = PriceTable::empty();
        prices.set("m1", Price::new(1.0, 2.0));
        prices.set("m2", Price::new(10.0, 10.0));
        let mut l = CostLedger::new(10.0, prices);
        l.record("Alice", "m1", usage(1_000_000, 0));
        l.record("Bob", "m2", usage(100_000, 100_000));
        l.record("Alice", "m1", Usage { estimated: true, ..Usage::new(0, 500_000) });
        assert_eq!(l.total().calls, 3);
        assert!((l.total().cost - 4.0).abs() < 1e-9);
        assert!((l.per_role().get("Alice").unwrap().cost - 2.0).abs() < 1e-9);
        assert_eq!(l.per_role().get("Alice").unwrap().estimated_calls, 1);
        assert!((l.per_model().get("m2").unwrap().cost - 2.0).abs() < 1e-9);
        assert_eq!(l.entries().iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    }

    /// A shared name is priced as its text is, before and after a price
    /// changes, and the totals keep the entries' names (no copy).
    #[test]
    fn shared_names_price_and_tally_as_their_text() {
        let mut l = CostLedger::new(10.0, PriceTable::empty());
        let model = SharedStr::from("m");
        assert_eq!(l.check_shared(&model, 1), Err(BudgetError::UnknownPrice { model: "m".into() }));
        l.prices.set("m", Price::new(1.0, 0.0));
        assert_eq!(l.prices.price_of(&model), Some(Price::new(1.0, 0.0)));
        assert_eq!(l.prices.price_of(&SharedStr::from("M")), Some(Price::new(1.0, 0.0)));
        assert_eq!(l.prices.price("m"), Some(Price::new(1.0, 0.0)));
        let role = SharedStr::from("Alice");
        l.record_entry(&role, &model, usage(1_000_000, 0));
        l.prices.set("m", Price::new(2.0, 0.0));
        l.record_entry(&role, &model, usage(1_000_000, 0));
        assert!((l.per_role().get("Alice").unwrap().cost - 3.0).abs() < 1e-9);
        let (key, _) = l.per_role().first().unwrap();
        assert!(key.is_same(&role) && l.entries()[1].model.is_same(&model));
        assert!(matches!(l.check_shared(&model, 8_000_000), Err(BudgetError::Exhausted { .. })));
    }

    #[test]
    fn check_before_a_call() {
        let mut prices = PriceTable::empty();
        prices.set("m", Price::new(1.0, 1.0));
        prices.set("free", Price::new(0.0, 0.0));
        let mut l = CostLedger::new(1.0, prices);
        assert_eq!(l.check("m", 1000), Ok(()));
        assert_eq!(l.check("unknown", 1), Err(BudgetError::UnknownPrice { model: "unknown".into() }));
        // The prompt alone would overrun what is left.
        assert!(matches!(l.check("m", 2_000_000), Err(BudgetError::Exhausted { .. })));
        l.record("r", "m", usage(1_000_000, 0));
        assert!(l.is_exhausted());
        assert!(matches!(l.check("m", 0), Err(BudgetError::Exhausted { .. })));
        // A zero budget still allows a free model? No: spent (1.0) >= budget.
        assert!(matches!(l.check("free", 0), Err(BudgetError::Exhausted { .. })));
        l.budget = 5.0;
        assert_eq!(l.check("free", 10_000), Ok(()));
    }
}
