//! The records a store keeps, one type per object store, and the schema
//! version they are written under.
//!
//! Records are plain serde data; only the store implementations decide
//! how they are laid out on disk (IndexedDB rows, JSON). The session's
//! settings have no field for an API key on purpose, and no record has
//! one: a key the person asks to remember is the page's, kept apart
//! (`web::settings_store`).

use litemap::LiteMap;

use serde::{Deserialize, Serialize};

use crate::core::cost::{CostEntry, CostLedger, PriceTable, Tally, DEFAULT_BUDGET};
use crate::core::shared_str::SharedStr;
use crate::core::message::{IdSource, MessageId};
use crate::core::snapshot::RoleSnapshot;
use crate::core::team::DEFAULT_ROUNDS;

use super::StoreError;

/// The version of the stored shape (the IndexedDB database version and the
/// export's `schema_version`). v1 kept a session's files as one record;
/// v2 keeps one record per file version; v3 keeps the message log, the
/// cost entries and the history in chunks; v4 keeps each role's id lists
/// in chunks apart from the rest of the role; v5 adds the claims that let
/// a commit be checked without a read; v6 drops the app-wide records
/// nothing read (experiences, app settings, a remembered key). The
/// export's shape is v2's.
pub const SCHEMA_VERSION: u32 = 6;

/// How a session is run. There is no API key here, ever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSettings {
    /// The provider preset's id (`llm::presets`), e.g. "openai".
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// Dollars.
    pub budget: f64,
    pub rounds: u32,
    /// Role name → model, for roles that use another model than `model`.
    #[serde(default, skip_serializing_if = "LiteMap::is_empty")]
    #[serde(with = "crate::core::sorted_map::map")]
    pub role_models: LiteMap<String, String>,
    /// The person gave a key for this session (the key itself is never
    /// kept here): after a reload without it, the key is asked for again
    /// whatever the preset says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub key_given: bool,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            provider: "openai".into(),
            base_url: String::new(),
            model: String::new(),
            budget: DEFAULT_BUDGET,
            rounds: DEFAULT_ROUNDS,
            role_models: LiteMap::new(),
            key_given: false,
        }
    }
}

impl SessionSettings {
    /// What a session keeps of the settings it was started with.
    pub fn of(settings: &crate::core::settings::Settings) -> Self {
        Self {
            provider: settings.preset.clone(),
            base_url: settings.base_url.clone(),
            model: settings.model.clone(),
            budget: settings.budget,
            rounds: settings.rounds,
            role_models: LiteMap::new(),
            key_given: false,
        }
    }

    /// The settings to continue the session with, over `current` (which
    /// keeps what a session does not save, such as "remember my key").
    pub fn apply_to(&self, current: &crate::core::settings::Settings, team: &str, prices: &PriceTable) -> crate::core::settings::Settings {
        let mut settings = current.clone();
        settings.preset = self.provider.clone();
        settings.base_url = self.base_url.clone();
        settings.model = self.model.clone();
        settings.budget = self.budget;
        settings.rounds = self.rounds;
        settings.custom_price = prices.price(&self.model);
        if let Some(kind) = crate::core::settings::TeamKind::from_id(team) {
            settings.team = kind;
        }
        settings
    }
}

/// Where a session stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// Not running; nothing pending (new, or finished a run).
    #[default]
    Idle,
    Running,
    /// Paused by the user or by a storage failure; continue resumes it.
    Paused,
    /// Was running when the tab closed; continue resumes it.
    Interrupted,
    /// Stopped by the user, the budget or the rounds.
    Stopped,
    /// Every role is idle: the work is done.
    Finished,
}

impl SessionStatus {
    /// Where a session stands after its team stopped for `reason`.
    pub fn after(reason: &crate::core::events::StopReason) -> Self {
        use crate::core::events::StopReason;
        match reason {
            StopReason::Idle => SessionStatus::Finished,
            StopReason::BudgetExhausted { .. } | StopReason::UnknownPrice { .. } => SessionStatus::Stopped,
            StopReason::RoundsDone | StopReason::Cancelled | StopReason::Failed { .. } => SessionStatus::Paused,
            #[cfg(feature = "site")]
            StopReason::CallLimit { .. } => SessionStatus::Paused,
            StopReason::Interrupted => SessionStatus::Interrupted,
        }
    }

    /// In words, for the sessions list.
    pub fn label(self) -> &'static str {
        match self {
            SessionStatus::Idle => "new",
            SessionStatus::Running => "running",
            SessionStatus::Paused => "paused",
            SessionStatus::Interrupted => "interrupted",
            SessionStatus::Stopped => "stopped",
            SessionStatus::Finished => "finished",
        }
    }
}

/// A session as the sessions list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub id: String,
    pub title: String,
    pub idea: String,
    /// Which team recipe restores it, e.g. "mgx", "sop" or "solo".
    pub team_kind: String,
    pub settings: SessionSettings,
    pub status: SessionStatus,
    pub created_ms: u64,
    pub updated_ms: u64,
}

/// The id of the `n`th session a store creates.
pub fn session_id(n: u64) -> String {
    format!("s{n}")
}

/// The sessions list's order: most recently updated first.
pub fn sort_sessions(sessions: &mut [SessionRecord]) {
    sessions.sort_unstable_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then_with(|| a.id.cmp(&b.id)));
}

/// What the user gives to start a session.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSession {
    pub title: String,
    pub idea: String,
    pub team_kind: String,
    pub settings: SessionSettings,
    pub now_ms: u64,
}

impl NewSession {
    /// The record, with an id the store replaces.
    pub fn into_record(self) -> SessionRecord {
        SessionRecord {
            id: String::new(),
            title: self.title,
            idea: self.idea,
            team_kind: self.team_kind,
            settings: self.settings,
            status: SessionStatus::Idle,
            created_ms: self.now_ms,
            updated_ms: self.now_ms,
        }
    }
}

/// The team-level state that is neither a message, a role, a file nor a
/// cost: one per session, rewritten when it changes. The history is ids
/// into the message log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaRecord {
    pub idea: String,
    pub round: u32,
    /// The message-id watermark: the next message gets the next id.
    pub ids: IdSource,
    pub history: Vec<MessageId>,
    /// What the team learnt in this session (absent in older records).
    #[serde(default)]
    pub experience: crate::core::experience::ExperiencePool,
    /// The project's versions (absent in older records).
    #[serde(default)]
    pub project: crate::core::versions::ProjectLog,
}

/// The meta record without the history: what a commit rewrites when the
/// idea, the round, the id watermark or the experience change. The history
/// is saved apart, as a list that grows at its end ([`super::HistoryEdit`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaHead {
    pub idea: String,
    pub round: u32,
    pub ids: IdSource,
    #[serde(default)]
    pub experience: crate::core::experience::ExperiencePool,
    #[serde(default)]
    pub project: crate::core::versions::ProjectLog,
}

impl MetaRecord {
    pub fn head(&self) -> MetaHead {
        MetaHead {
            idea: self.idea.clone(),
            round: self.round,
            ids: self.ids.clone(),
            experience: self.experience.clone(),
            project: self.project.clone(),
        }
    }

    pub fn from_head(head: MetaHead, history: Vec<MessageId>) -> Self {
        Self { idea: head.idea, round: head.round, ids: head.ids, history, experience: head.experience, project: head.project }
    }
}

/// One role's saved state and its place in the team's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleRecord {
    pub index: u32,
    pub role: RoleSnapshot,
}

/// One version of one project file (versions count from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileVersion {
    pub path: String,
    pub version: u32,
    pub content: String,
}

/// The cost ledger without its entries: budget, prices and the totals
/// (small; rewritten when it changes). The entries are kept one record
/// each, append-only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerRecord {
    pub budget: f64,
    pub prices: PriceTable,
    pub total: Tally,
    #[serde(with = "crate::core::sorted_map::map")]
    pub per_role: LiteMap<SharedStr, Tally>,
    #[serde(with = "crate::core::sorted_map::map")]
    pub per_model: LiteMap<SharedStr, Tally>,
}

impl LedgerRecord {
    pub fn of(ledger: &CostLedger) -> Self {
        Self {
            budget: ledger.budget,
            prices: ledger.prices.clone(),
            total: ledger.total(),
            per_role: ledger.per_role().clone(),
            per_model: ledger.per_model().clone(),
        }
    }

    /// The ledger again, with its entries. The totals are the saved ones,
    /// not recomputed, so the ledger is exactly the one that was saved.
    /// (Built field by field: a trip through `serde_json::Value` would
    /// compile a second copy of the ledger's (de)serializers into the wasm.)
    pub fn to_ledger(&self, entries: &[CostEntry]) -> Result<CostLedger, StoreError> {
        Ok(CostLedger::restored(self.budget, self.prices.clone(), self.total, self.per_role.clone(), self.per_model.clone(), entries.to_vec()))
    }
}

/// Who holds a session, until when. A lease: a tab that dies without
/// releasing it blocks the session only until `expires_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockRecord {
    pub holder: String,
    pub expires_ms: u64,
}

impl LockRecord {
    /// Does this lease keep `holder` out at `now_ms`?
    pub fn excludes(&self, holder: &str, now_ms: u64) -> bool {
        self.holder != holder && self.expires_ms > now_ms
    }
}
