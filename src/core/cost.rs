//! Cost accounting: a price table per model and a ledger of every LLM call.
//!
//! MetaGPT checks the budget only between rounds and counts a model it has no
//! price for as free. Here the budget is checked before every call (by
//! `gate::LlmGate`), the check includes the prompt about to be sent, and a
//! model with no known price stops the run with [`BudgetError::UnknownPrice`]
//! until the user enters one. Prices are dollars per million tokens.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::llm::Usage;
use super::shared_str::SharedStr;

/// Dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Price {
    pub const fn new(input_per_mtok: f64, output_per_mtok: f64) -> Self {
        Self { input_per_mtok, output_per_mtok }
    }

    pub fn cost(&self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input_per_mtok + completion_tokens as f64 * self.output_per_mtok) / 1_000_000.0
    }
}

/// Known prices, from MetaGPT's table and, for models it lacks, tokencost's
/// (see `shared/mission/PROVIDERS.md` §6). Where the two disagree on an
/// undated alias (`gpt-4o`), the current price is used.
const DEFAULT_PRICES: &[(&str, f64, f64)] = &[
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4o-2024-08-06", 2.50, 10.00),
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("claude-3-5-sonnet", 3.00, 15.00),
    ("claude-3-7-sonnet", 3.00, 15.00),
    ("claude-sonnet-4", 3.00, 15.00),
    ("claude-3-5-haiku", 0.80, 4.00),
    ("claude-3-haiku", 0.25, 1.25),
    ("claude-3-opus", 15.00, 75.00),
    ("claude-opus-4", 15.00, 75.00),
    ("deepseek-chat", 0.27, 1.10),
    ("deepseek-reasoner", 0.55, 2.20),
    ("gemini-1.5-flash", 0.075, 0.30),
    ("gemini-1.5-pro", 3.50, 10.50),
];

/// Model name → price. Users extend it with [`PriceTable::set`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
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
        let mut prices = BTreeMap::new();
        for &(model, input, output) in DEFAULT_PRICES {
            prices.insert(model.to_string(), Price::new(input, output));
        }
        Self { prices, last: RefCell::default() }
    }
}

impl PriceTable {
    /// An empty table (every model unpriced).
    pub fn empty() -> Self {
        Self { prices: BTreeMap::new(), last: RefCell::default() }
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
fn add_to(tallies: &mut BTreeMap<SharedStr, Tally>, key: &SharedStr, entry: &CostEntry) {
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
}

impl Tally {
    fn add(&mut self, entry: &CostEntry) {
        self.calls += 1;
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
}

/// Every call's cost, totals per role and per model, and the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostLedger {
    pub budget: f64,
    pub prices: PriceTable,
    total: Tally,
    /// Keyed by the entries' shared names (saved as plain strings).
    per_role: BTreeMap<SharedStr, Tally>,
    per_model: BTreeMap<SharedStr, Tally>,
    entries: Vec<CostEntry>,
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
            per_role: BTreeMap::new(),
            per_model: BTreeMap::new(),
            entries: Vec::new(),
        }
    }

    /// A ledger as it was saved, its totals taken as they were (not
    /// recomputed from the entries).
    pub fn restored(budget: f64, prices: PriceTable, total: Tally, per_role: BTreeMap<SharedStr, Tally>, per_model: BTreeMap<SharedStr, Tally>, entries: Vec<CostEntry>) -> Self {
        Self { budget, prices, total, per_role, per_model, entries }
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
        let cost = self.prices.price_of(model).map_or(0.0, |p| p.cost(usage.prompt_tokens, usage.completion_tokens));
        let entry = CostEntry {
            seq: self.entries.len() as u64 + 1,
            role: role.clone(),
            model: model.clone(),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            cost,
            estimated: usage.estimated,
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

    pub fn per_role(&self) -> &BTreeMap<SharedStr, Tally> {
        &self.per_role
    }

    pub fn per_model(&self) -> &BTreeMap<SharedStr, Tally> {
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
        Usage { prompt_tokens: p, completion_tokens: c, estimated: false }
    }

    #[test]
    fn ledger_totals_per_role_and_model() {
        let mut prices = PriceTable::empty();
        prices.set("m1", Price::new(1.0, 2.0));
        prices.set("m2", Price::new(10.0, 10.0));
        let mut l = CostLedger::new(10.0, prices);
        l.record("Alice", "m1", usage(1_000_000, 0));
        l.record("Bob", "m2", usage(100_000, 100_000));
        l.record("Alice", "m1", Usage { prompt_tokens: 0, completion_tokens: 500_000, estimated: true });
        assert_eq!(l.total().calls, 3);
        assert!((l.total().cost - 4.0).abs() < 1e-9);
        assert!((l.per_role()["Alice"].cost - 2.0).abs() < 1e-9);
        assert_eq!(l.per_role()["Alice"].estimated_calls, 1);
        assert!((l.per_model()["m2"].cost - 2.0).abs() < 1e-9);
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
        assert!((l.per_role()["Alice"].cost - 3.0).abs() < 1e-9);
        let (key, _) = l.per_role().first_key_value().unwrap();
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
