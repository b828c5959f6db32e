//! Settings in `localStorage`: the choices, and — only if the user ticked
//! "remember" — the key, under its own entry so nothing else can carry it.
//! Failures (private mode, storage full) are reported, never fatal: the
//! site works with defaults and an in-memory key.

use crate::core::settings::Settings;

const SETTINGS: &str = "tabteam.settings.v1";
const KEY: &str = "tabteam.key.v1";
const VISITED: &str = "tabteam.visited.v1";
/// The session this tab last had open (none after "New session"), in the
/// tab's `sessionStorage`: a reload reopens it, another tab does not.
const LAST_OPEN: &str = "tabteam.open.v1";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

pub fn load() -> Settings {
    storage()
        .and_then(|s| s.get_item(SETTINGS).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// Save the settings; the key is saved only when `remember_key` is set,
/// and removed otherwise.
pub fn save(settings: &Settings, key: &str) -> Result<(), String> {
    let s = storage().ok_or("this browser does not let the site keep settings (private mode?)")?;
    let json = serde_json::to_string(settings).map_err(|e| e.to_string())?;
    s.set_item(SETTINGS, &json).map_err(|_| "the browser refused to save the settings (storage full?)".to_string())?;
    if settings.remember_key && !key.is_empty() {
        s.set_item(KEY, key).map_err(|_| "the browser refused to save the key".to_string())?;
    } else {
        let _ = s.remove_item(KEY);
    }
    Ok(())
}

/// Forget the key now (the person unticked "remember"): its entry is
/// removed and the stored settings say "do not remember", so a reload
/// neither fills the key in nor ticks the box again. Only that one choice
/// of the stored settings changes; other edits still wait for Start.
pub fn forget_key() -> Result<(), String> {
    let s = storage().ok_or("this browser does not let the site keep settings (private mode?)")?;
    let _ = s.remove_item(KEY);
    let Some(json) = s.get_item(SETTINGS).ok().flatten() else { return Ok(()) };
    let Ok(mut stored) = serde_json::from_str::<Settings>(&json) else { return Ok(()) };
    if !stored.remember_key {
        return Ok(());
    }
    stored.remember_key = false;
    let json = serde_json::to_string(&stored).map_err(|e| e.to_string())?;
    s.set_item(SETTINGS, &json).map_err(|_| "the browser refused to save the settings (storage full?)".to_string())
}

/// Remember the key now (the person ticked "remember", or typed a key
/// with it ticked): kept under its own entry, and the stored settings say
/// "remember", so a reload fills the key in and ticks the box. As with
/// [`forget_key`], only that one choice of the stored settings changes.
pub fn remember_key(key: &str) -> Result<(), String> {
    let s = storage().ok_or("this browser does not let the site keep settings (private mode?)")?;
    let mut stored = s.get_item(SETTINGS).ok().flatten().and_then(|json| serde_json::from_str::<Settings>(&json).ok()).unwrap_or_default();
    if !stored.remember_key {
        stored.remember_key = true;
        let json = serde_json::to_string(&stored).map_err(|e| e.to_string())?;
        s.set_item(SETTINGS, &json).map_err(|_| "the browser refused to save the settings (storage full?)".to_string())?;
    }
    if !key.is_empty() {
        s.set_item(KEY, key).map_err(|_| "the browser refused to save the key".to_string())?;
    }
    Ok(())
}

/// The remembered key, if the user asked for it to be kept.
pub fn remembered_key() -> String {
    storage().and_then(|s| s.get_item(KEY).ok().flatten()).unwrap_or_default()
}

/// True on the first visit (and marks the visit).
pub fn first_visit() -> bool {
    let Some(s) = storage() else { return true };
    let first = s.get_item(VISITED).ok().flatten().is_none();
    let _ = s.set_item(VISITED, "1");
    first
}

fn tab_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// The session this tab last had open, to reopen on the next load
/// (`core::store::session_to_reopen` decides).
pub fn last_open() -> Option<String> {
    tab_storage()?.get_item(LAST_OPEN).ok().flatten().filter(|id| !id.is_empty())
}

/// Note the session open now (`None`: the first card, by "New session").
pub fn set_last_open(id: Option<&str>) {
    let Some(s) = tab_storage() else { return };
    let _ = match id {
        Some(id) => s.set_item(LAST_OPEN, id),
        None => s.remove_item(LAST_OPEN),
    };
}
