//! The exported session: one JSON document, versioned, that any tabteam
//! of the same or a newer schema imports back.
//!
//! Shape: `{"format": "tabteam-session", "schema_version": N, "session":
//! …, "meta": …, "ledger": …, "roles": […], "messages": […], "files": […],
//! "costs": […], "bill": […]}` (the fields of `SessionData`; on the site,
//! `bill`, what each version cost per role, derived and ignored on
//! import). There is no API key in it:
//! nothing it is built from has a field for one. Older documents are
//! migrated step by step, newer ones refused, and an imported document is
//! checked (it must restore) before it is saved.

use serde_json::{Map, Value};

use super::data::SessionData;
use super::record::{FileVersion, SCHEMA_VERSION};
use super::StoreError;

/// The value of an export's `format` field.
pub const EXPORT_FORMAT: &str = "tabteam-session";

/// The session as an export document.
pub fn export_json(data: &SessionData) -> Result<String, StoreError> {
    let mut doc = Map::new();
    doc.insert("format".into(), EXPORT_FORMAT.into());
    doc.insert("schema_version".into(), SCHEMA_VERSION.into());
    // Through a compact string, not `serde_json::to_value`: the site then
    // has one serializer of the session's types (the store's), not two.
    let compact = serde_json::to_string(data).map_err(|e| StoreError::corrupt("the session could not be exported", e))?;
    match serde_json::from_str(&compact).map_err(|e| StoreError::corrupt("the session could not be exported", e))? {
        Value::Object(fields) => doc.extend(fields),
        _ => return Err(StoreError::Other("a session did not export as a JSON object".into())),
    }
    // What each version cost, per role: for the person reading the file
    // (derived from the ledger and the versions, so import ignores it).
    #[cfg(feature = "site")]
    if let Some(meta) = &data.meta {
        let bill = crate::core::versions::bills(&meta.project, &data.costs);
        doc.insert("bill".into(), serde_json::to_value(bill).map_err(|e| StoreError::corrupt("the session could not be exported", e))?);
    }
    serde_json::to_string_pretty(&Value::Object(doc)).map_err(|e| StoreError::corrupt("the session could not be exported", e))
}

/// Reads an export document, migrating an older schema; the data is
/// checked to restore cleanly.
pub fn import_json(json: &str) -> Result<SessionData, StoreError> {
    let doc: Value = serde_json::from_str(json).map_err(|e| StoreError::corrupt("this file is not JSON", e))?;
    let Value::Object(mut doc) = doc else {
        return Err(StoreError::Corrupt("this file is not a tabteam session (not a JSON object)".into()));
    };
    if doc.get("format").and_then(Value::as_str) != Some(EXPORT_FORMAT) {
        return Err(StoreError::Corrupt(format!("this file is not a tabteam session (no \"format\": \"{EXPORT_FORMAT}\")")));
    }
    let found = doc
        .get("schema_version")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| StoreError::Corrupt("this session file has no schema_version".into()))?;
    doc.remove("format");
    doc.remove("schema_version");
    doc.remove("bill");
    let doc = migrate_export(Value::Object(doc), found)?;
    // Read from text, as the store reads its rows, rather than with
    // `serde_json::from_value`: one deserializer of the session's types.
    let text = serde_json::to_string(&doc).map_err(|e| StoreError::corrupt("this session file does not fit the schema", e))?;
    let data: SessionData = serde_json::from_str(&text).map_err(|e| StoreError::corrupt("this session file does not fit the schema", e))?;
    data.snapshot()?;
    Ok(data)
}

/// Brings an export document's fields (without `format` and
/// `schema_version`) from schema `from` to `SCHEMA_VERSION`, one step at
/// a time. Refuses a newer schema.
pub fn migrate_export(mut doc: Value, from: u32) -> Result<Value, StoreError> {
    if from > SCHEMA_VERSION {
        return Err(StoreError::TooNew { found: from, supported: SCHEMA_VERSION });
    }
    if from == 0 {
        return Err(StoreError::Corrupt("schema_version 0 was never written".into()));
    }
    for version in from..SCHEMA_VERSION {
        doc = match version {
            1 => files_per_version(doc)?,
            _ => doc,
        };
    }
    Ok(doc)
}

/// v1 → v2: `files` was the whole `ProjectFiles` (`{"files": {path:
/// [content, …]}}`); it becomes a list of file versions.
fn files_per_version(mut doc: Value) -> Result<Value, StoreError> {
    let Some(fields) = doc.as_object_mut() else {
        return Err(StoreError::Corrupt("this session file is not a JSON object".into()));
    };
    let mut versions = Vec::new();
    match fields.remove("files") {
        None | Some(Value::Null) => {}
        Some(Value::Object(project)) => {
            let by_path = match project.get("files") {
                Some(Value::Object(by_path)) => by_path.clone(),
                None => Map::new(),
                Some(_) => return Err(StoreError::Corrupt("the v1 files are not a map of paths".into())),
            };
            for (path, history) in by_path {
                let history: Vec<String> =
                    serde_json::from_value(history).map_err(|e| StoreError::corrupt("a v1 file's versions", e))?;
                versions.extend(history.into_iter().enumerate().map(|(i, content)| FileVersion {
                    path: path.clone(),
                    version: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    content,
                }));
            }
        }
        Some(_) => return Err(StoreError::Corrupt("the v1 files are not an object".into())),
    }
    let versions = serde_json::to_value(versions).map_err(|e| StoreError::corrupt("the migrated files", e))?;
    fields.insert("files".into(), versions);
    Ok(doc)
}

/// A file name for a session titled `title`: lower-case letters, digits
/// and dashes, at most eight words ("tabteam" when nothing is left).
pub fn file_stem(title: &str) -> String {
    let lowered: String = title.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let words: Vec<&str> = lowered.split('-').filter(|s| !s.is_empty()).take(8).collect();
    if words.is_empty() {
        "tabteam".into()
    } else {
        words.join("-")
    }
}

#[cfg(test)]
mod file_stem_tests {
    use super::file_stem;

    #[test]
    fn titles_become_safe_file_names() {
        assert_eq!(file_stem("A 2048 game in HTML/JS!"), "a-2048-game-in-html-js");
        assert_eq!(file_stem("../../etc/passwd"), "etc-passwd");
        assert_eq!(file_stem("   "), "tabteam");
        assert_eq!(file_stem("one two three four five six seven eight nine"), "one-two-three-four-five-six-seven-eight");
    }
}
