//! What the host page configures for the team: provider preset, base URL,
//! model, price, team, budget, rounds, where the key comes from. Read from
//! a plain object (the JS wrapper turns attributes or `mount` options into
//! one; it keeps the options of its own, heading and placeholder), checked,
//! and turned into the core's `Settings`. Read field by field rather than
//! through serde: a derive here costs more wasm than the whole reader.
//!
//! Deliberately no key field: a key is typed into the widget or handed
//! over by the host's `getKey` per call, and never configured or saved.

use wasm_bindgen::JsValue;

use crate::core::cost::Price;
use crate::core::settings::{Settings, TeamKind};

/// Where the API key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeySource {
    /// The person types it into the widget (kept in memory only).
    #[default]
    User,
    /// The host page's `getKey()` returns it (or a Promise of it) per call.
    Host,
    /// No key at all (a local model server, a host proxy without auth).
    None,
}

#[derive(Debug, Clone, Default)]
pub struct WidgetOptions {
    pub preset: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// "assistant" (the default) or "company".
    pub team: Option<String>,
    pub budget: Option<f64>,
    pub rounds: Option<u32>,
    /// Dollars per million prompt / completion tokens, for models the
    /// price table does not know.
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
    pub key_source: KeySource,
    /// Keep the team in IndexedDB under this name (`keep`), so a reload
    /// resumes it.
    pub storage_key: Option<String>,
}

impl WidgetOptions {
    /// Read the options from `object`; a field of the wrong type is an error.
    pub fn from_object(object: &JsValue) -> Result<Self, String> {
        let text = |name: &str| -> Result<Option<String>, String> {
            match js_sys::Reflect::get(object, &JsValue::from_str(name)) {
                Ok(v) if v.is_undefined() || v.is_null() => Ok(None),
                Ok(v) => v.as_string().map(Some).ok_or_else(|| format!("tabteam-agent option {name}: expected a string")),
                Err(_) => Ok(None),
            }
        };
        let number = |name: &str| -> Result<Option<f64>, String> {
            match js_sys::Reflect::get(object, &JsValue::from_str(name)) {
                Ok(v) if v.is_undefined() || v.is_null() => Ok(None),
                Ok(v) => match v.as_f64() {
                    Some(n) if n.is_finite() => Ok(Some(n)),
                    _ => Err(format!("tabteam-agent option {name}: expected a number")),
                },
                Err(_) => Ok(None),
            }
        };
        let key_source = match text("keySource")?.as_deref() {
            None | Some("user") => KeySource::User,
            Some("host") => KeySource::Host,
            Some("none") => KeySource::None,
            Some(other) => return Err(format!("tabteam-agent option keySource: \"{other}\" is not user, host or none")),
        };
        let rounds = match number("rounds")? {
            Some(r) if r >= 1.0 && r.fract() == 0.0 && r <= 1000.0 => Some(r as u32),
            Some(_) => return Err("tabteam-agent option rounds: expected a whole number from 1 to 1000".into()),
            None => None,
        };
        let storage_key = match text("storageKey")? {
            Some(k) if k.trim().is_empty() => return Err("tabteam-agent option storageKey: expected a name, not an empty text".into()),
            k => k,
        };
        Ok(Self {
            storage_key,
            preset: text("preset")?,
            base_url: text("baseUrl")?,
            model: text("model")?,
            team: text("team")?,
            budget: number("budget")?,
            rounds,
            price_in: number("priceIn")?,
            price_out: number("priceOut")?,
            key_source,
        })
    }

    /// The run settings these options describe, or what is wrong with them.
    pub fn settings(&self) -> Result<Settings, String> {
        let mut s = Settings { team: TeamKind::Assistant, ..Settings::default() };
        if let Some(p) = &self.preset {
            if crate::core::llm::presets::preset(p).is_none() {
                return Err(format!("unknown provider preset \"{p}\""));
            }
            s.choose_preset(p);
        }
        if let Some(url) = &self.base_url {
            s.base_url = url.trim().to_string();
        }
        if let Some(model) = &self.model {
            s.model = model.trim().to_string();
        }
        if let Some(team) = &self.team {
            s.team = match team.as_str() {
                "assistant" => TeamKind::Assistant,
                "company" => TeamKind::Company,
                other => return Err(format!("unknown team \"{other}\" (use \"assistant\" or \"company\")")),
            };
        }
        if let Some(budget) = self.budget {
            s.budget = budget;
        }
        if let Some(rounds) = self.rounds {
            s.rounds = rounds;
        }
        match (self.price_in, self.price_out) {
            (Some(i), Some(o)) if i >= 0.0 && o >= 0.0 => s.custom_price = Some(Price::new(i, o)),
            (None, None) => {}
            _ => return Err("give both priceIn and priceOut (dollars per million tokens, ≥ 0)".into()),
        }
        Ok(s)
    }
}
