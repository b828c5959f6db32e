//! A share link with no server: the project's files in the URL's fragment,
//! `#p=1.<base64url of the deflate-raw compressed payload>`, never sent to
//! any server. This module owns the format: the versioned header, the
//! limits (how long a link may be made, how long one is read, how much it
//! may inflate to), the payload (`{"title", "idea", "files": {path: text}}`)
//! and its checks, and the new session "Make a copy" makes of it, checked
//! by the same import the store runs on an exported session (with the
//! conversation, when the link has one, as text the copy shows and no
//! role reads: `ProjectLog::shared`).
//!
//! It does not compress: the browser's `CompressionStream` does, in
//! `web::share`, which stops reading at [`MAX_INFLATED`] bytes. It carries
//! no key and no settings: the copy runs with the receiver's own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::cost::CostLedger;
use crate::core::files::{normalize_path, ProjectFiles};
use crate::core::settings::Settings;
use crate::core::snapshot::{TeamSnapshot, SCHEMA_VERSION as SNAPSHOT_VERSION};
use crate::core::store::{export_json, import_json, SessionData, SessionRecord, SessionSettings, SessionStatus};
use crate::core::versions::{ProjectLog, RequestKind, Spend};

/// What a share link's fragment starts with (after `#`).
pub const FRAGMENT_KEY: &str = "p=";
/// The format's version, the fragment's header (`p=1.`).
pub const VERSION: u32 = 1;
/// The longest link "Copy share link" makes (the fragment's characters):
/// longer, the one-file download is offered instead.
pub const MAX_LINK_CHARS: usize = 64 * 1024;
/// The longest fragment read: anything longer was not made here.
pub const MAX_READ_CHARS: usize = 2 * MAX_LINK_CHARS;
/// How many bytes a link may inflate to: decompression stops past this.
pub const MAX_INFLATED: usize = 4 * 1024 * 1024;
/// How many files a shared project may hold.
pub const MAX_FILES: usize = 500;
const MAX_TITLE_CHARS: usize = 200;

/// What a share link carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedProject {
    pub title: String,
    pub idea: String,
    /// Path → current text.
    pub files: BTreeMap<String, String>,
    /// The conversation as the sender read it, when they chose to include
    /// it: shown to the receiver as text, and kept by a copy as text only
    /// (never as the team's history or memory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conversation: Vec<SharedLine>,
}

/// One entry of a shared conversation (kept with a copy's versions, so
/// it lives there: `versions` importing `share` would be a cycle).
pub use crate::core::versions::SharedLine;

/// The most entries a shared conversation may have.
pub const MAX_LINES: usize = 2_000;

/// The conversation of `view` as the person reads it: each entry's text
/// and the words for what its commands did; empty entries left out.
pub fn conversation_of(view: &crate::core::view::RunView) -> Vec<SharedLine> {
    view.entries
        .iter()
        .filter(|e| !e.live)
        .filter_map(|e| {
            let text = std::iter::once(e.text.trim()).chain(e.deeds.iter().map(|d| d.trim())).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n");
            (!text.is_empty()).then(|| SharedLine { who: e.role.clone(), text })
        })
        .collect()
}

/// Why a link was not made or not read, in the person's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    #[error("This project is {} as a link, more than the {} a link can carry. Download it as one file instead.", kb(*.0), kb(MAX_LINK_CHARS))]
    TooLongToShare(usize),
    #[error("This link is not a tabteam share link (it has no #p= part).")]
    NotALink,
    #[error("This share link was made by a newer tabteam (format {0}); this one reads format {VERSION}. Ask for the one-file download instead.")]
    TooNew(u32),
    #[error("This share link is {} long, more than a tabteam link can be ({} at most). It was not opened.", kb(*.0), kb(MAX_READ_CHARS))]
    TooLongToRead(usize),
    #[error("This share link is damaged (perhaps cut short when it was copied): {0}. Ask the sender to copy it again.")]
    Damaged(String),
    #[error("This share link unpacks to more than {} (a link that size is not a project but an attack, or a mistake). It was not opened.", kb(MAX_INFLATED))]
    TooLargeInside,
    #[error("This share link does not hold a project: {0}. Nothing was opened or saved.")]
    NotAProject(String),
}

/// A size as a person reads it: KB, or MB from 1 MB.
fn kb(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MB", bytes.div_ceil(1024 * 1024))
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}

impl SharedProject {
    /// The payload to compress: compact JSON.
    pub fn payload(&self) -> Vec<u8> {
        // A map of strings always serializes.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads an inflated payload and checks it: JSON of the right shape,
    /// at least one file, at most [`MAX_FILES`], every path a valid
    /// project path as written.
    pub fn read(bytes: &[u8]) -> Result<Self, ShareError> {
        if bytes.len() > MAX_INFLATED {
            return Err(ShareError::TooLargeInside);
        }
        let mut project: SharedProject = serde_json::from_slice(bytes).map_err(|e| ShareError::NotAProject(format!("its contents are not a project's ({e})")))?;
        if project.files.is_empty() {
            return Err(ShareError::NotAProject("it has no files".into()));
        }
        if project.files.len() > MAX_FILES {
            return Err(ShareError::NotAProject(format!("it has {} files, more than {MAX_FILES}", project.files.len())));
        }
        for path in project.files.keys() {
            if normalize_path(path).ok().as_deref() != Some(path.as_str()) {
                return Err(ShareError::NotAProject(format!("\"{}\" is not a file path a project can have", path.chars().take(80).collect::<String>())));
            }
        }
        if project.conversation.len() > MAX_LINES {
            return Err(ShareError::NotAProject(format!("its conversation has {} entries, more than {MAX_LINES}", project.conversation.len())));
        }
        project.title = project.title.chars().take(MAX_TITLE_CHARS).collect();
        if project.title.trim().is_empty() {
            project.title = "Shared project".into();
        }
        Ok(project)
    }

    /// The new session "Make a copy" makes, as an export document for the
    /// store's import (which checks it again as it saves it): the files as
    /// version 1 of the idea, nothing spent, the link's conversation as
    /// text only (`ProjectLog::shared`: no role reads it), no messages,
    /// and the receiver's `settings` (no key is ever in a session).
    pub fn copy_document(&self, settings: &Settings) -> Result<String, ShareError> {
        let mut files = ProjectFiles::default();
        for (path, text) in &self.files {
            files.write(path, text.clone()).map_err(|e| ShareError::NotAProject(e.to_string()))?;
        }
        let mut project = ProjectLog::default();
        project.open(RequestKind::Idea, &self.idea, Spend::default());
        project.close(&files, Spend::default(), None);
        project.shared = self.conversation.clone();
        let snapshot = TeamSnapshot {
            schema_version: SNAPSHOT_VERSION,
            idea: self.idea.clone(),
            round: 0,
            ids: Default::default(),
            ledger: CostLedger::new(settings.budget, settings.prices()),
            messages: Vec::new(),
            history: Vec::new(),
            roles: Vec::new(),
            files,
            experience: Default::default(),
            project,
        };
        let record = SessionRecord {
            id: String::new(),
            title: format!("{} (copy)", self.title),
            idea: self.idea.clone(),
            team_kind: settings.team.id().to_string(),
            settings: SessionSettings { key_given: false, ..SessionSettings::of(settings) },
            status: SessionStatus::Idle,
            created_ms: 0,
            updated_ms: 0,
        };
        let json = export_json(&SessionData::from_snapshot(record, &snapshot)).map_err(|e| ShareError::NotAProject(e.to_string()))?;
        import_json(&json).map_err(|e| ShareError::NotAProject(e.to_string()))?;
        Ok(json)
    }
}

/// The fragment (with its `#`) for `compressed` (the deflate-raw payload);
/// refused when longer than [`MAX_LINK_CHARS`].
pub fn fragment(compressed: &[u8]) -> Result<String, ShareError> {
    let out = format!("#{FRAGMENT_KEY}{VERSION}.{}", base64url(compressed));
    if out.len() > MAX_LINK_CHARS {
        return Err(ShareError::TooLongToShare(out.len()));
    }
    Ok(out)
}

/// Whether `hash` (a URL's fragment, `#` included or not) is a share link.
pub fn is_share(hash: &str) -> bool {
    hash.trim_start_matches('#').starts_with(FRAGMENT_KEY)
}

/// The compressed payload of a share link's fragment: the header checked,
/// its length bounded, the base64url decoded.
pub fn compressed_of(hash: &str) -> Result<Vec<u8>, ShareError> {
    let body = hash.trim_start_matches('#').strip_prefix(FRAGMENT_KEY).ok_or(ShareError::NotALink)?;
    if body.len() > MAX_READ_CHARS {
        return Err(ShareError::TooLongToRead(body.len()));
    }
    let (version, data) = body.split_once('.').ok_or_else(|| ShareError::Damaged("its header is missing".into()))?;
    let version: u32 = version.parse().map_err(|_| ShareError::Damaged("its header is not a version number".into()))?;
    if version > VERSION {
        return Err(ShareError::TooNew(version));
    }
    if version == 0 {
        return Err(ShareError::Damaged("format 0 was never made".into()));
    }
    let bytes = from_base64url(data).ok_or_else(|| ShareError::Damaged("it holds characters a link's data never has".into()))?;
    if bytes.is_empty() {
        return Err(ShareError::Damaged("it is empty".into()));
    }
    Ok(bytes)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5).
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// The bytes of unpadded base64url; `None` for any other character or an
/// impossible length.
pub fn from_base64url(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut bits, mut count) = (0u32, 0u32);
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|a| *a == c)? as u32;
        bits = (bits << 6) | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> SharedProject {
        SharedProject {
            title: "2048".into(),
            idea: "a 2048 game".into(),
            files: [("index.html", "<script type=module src=game.js></script>"), ("game.js", "console.log('é 2048');"), ("tests/game.test.js", "test('x', () => {});")]
                .into_iter()
                .map(|(p, c)| (p.to_owned(), c.to_owned()))
                .collect(),
            conversation: Vec::new(),
        }
    }

    #[test]
    fn base64url_round_trips_every_length_and_refuses_other_characters() {
        let bytes: Vec<u8> = (0..=255).collect();
        for n in 0..40 {
            let text = base64url(&bytes[..n]);
            assert!(!text.contains(['+', '/', '=']), "{text}");
            assert_eq!(from_base64url(&text).as_deref(), Some(&bytes[..n]), "length {n}");
        }
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert_eq!(from_base64url("ab+/"), None);
        assert_eq!(from_base64url("abcde"), None, "an impossible length");
    }

    #[test]
    fn a_fragment_carries_its_version_and_reads_back() {
        let link = fragment(&[1, 2, 3, 250]).unwrap();
        assert_eq!(link, "#p=1.AQID-g");
        assert!(is_share(&link) && is_share("p=1.x") && !is_share("#/settings"));
        assert_eq!(compressed_of(&link), Ok(vec![1, 2, 3, 250]));
    }

    #[test]
    fn damaged_foreign_and_oversized_links_are_refused_in_words() {
        let check = |hash: &str, expected: ShareError| assert_eq!(compressed_of(hash), Err(expected), "{hash}");
        check("#q=1.AQID", ShareError::NotALink);
        check("#p=2.AQID", ShareError::TooNew(2));
        check("#p=AQID", ShareError::Damaged("its header is missing".into()));
        check("#p=x.AQID", ShareError::Damaged("its header is not a version number".into()));
        check("#p=1.AQ!D", ShareError::Damaged("it holds characters a link's data never has".into()));
        check("#p=1.", ShareError::Damaged("it is empty".into()));
        let long = format!("#p=1.{}", "A".repeat(MAX_READ_CHARS));
        check(&long, ShareError::TooLongToRead(MAX_READ_CHARS + 2));
        assert_eq!(fragment(&vec![7; MAX_LINK_CHARS]), Err(ShareError::TooLongToShare(MAX_LINK_CHARS / 3 * 4 + 7)));
        let said = ShareError::TooLongToShare(91 * 1024).to_string();
        assert_eq!(said, "This project is 91 KB as a link, more than the 64 KB a link can carry. Download it as one file instead.");
        assert!(ShareError::TooLargeInside.to_string().starts_with("This share link unpacks to more than 4 MB ("));
    }

    #[test]
    fn the_payload_reads_back_and_is_checked_like_an_import() {
        let project = game();
        assert_eq!(SharedProject::read(&project.payload()), Ok(project.clone()));
        let bad = |json: &str| SharedProject::read(json.as_bytes()).unwrap_err().to_string();
        assert!(bad("not json").starts_with("This share link does not hold a project: its contents are not a project's"), "{}", bad("not json"));
        assert_eq!(bad(r#"{"title":"x","idea":"y","files":{}}"#), "This share link does not hold a project: it has no files. Nothing was opened or saved.");
        assert!(bad(r#"{"title":"x","idea":"y","files":{"../etc/passwd":"x"}}"#).contains("\"../etc/passwd\" is not a file path a project can have"));
        assert!(bad(r#"{"title":"x","idea":"y","files":{"/abs.js":"x"}}"#).contains("is not a file path"));
        let many: BTreeMap<String, String> = (0..=MAX_FILES).map(|i| (format!("f{i}.js"), String::new())).collect();
        let too_many = SharedProject { files: many, ..game() };
        assert!(SharedProject::read(&too_many.payload()).unwrap_err().to_string().contains("501 files"));
        assert_eq!(SharedProject::read(&vec![b' '; MAX_INFLATED + 1]), Err(ShareError::TooLargeInside));
        let untitled = SharedProject { title: "  ".into(), ..game() };
        assert_eq!(SharedProject::read(&untitled.payload()).unwrap().title, "Shared project");
    }

    #[test]
    fn the_conversation_travels_only_when_included_and_into_the_copy_as_text_only() {
        let plain = String::from_utf8(game().payload()).unwrap();
        assert!(!plain.contains("conversation"), "{plain}");
        let said = SharedProject { conversation: vec![SharedLine { who: "Mike".into(), text: "<b>Your game is ready</b>".into() }], ..game() };
        assert_eq!(SharedProject::read(&said.payload()), Ok(said.clone()));
        let copy = import_json(&said.copy_document(&Settings::default()).unwrap()).unwrap();
        let snapshot = copy.snapshot().unwrap().unwrap();
        assert!(snapshot.messages.is_empty() && snapshot.history.is_empty() && snapshot.roles.is_empty(), "no role reads it");
        assert_eq!(snapshot.project.shared, said.conversation);
        // The copy's conversation shows it, first, as text.
        let view = crate::core::view::RunView::restored(&snapshot, crate::core::events::StopReason::Idle);
        let first = &view.entries[0];
        assert_eq!((first.role.as_str(), first.kind, first.text.as_str()), ("Mike", crate::core::view::EntryKind::Shared, "<b>Your game is ready</b>"));
        // Without one, the copy has none.
        let plain = import_json(&game().copy_document(&Settings::default()).unwrap()).unwrap().snapshot().unwrap().unwrap();
        assert!(plain.project.shared.is_empty());
        let long = SharedProject { conversation: vec![SharedLine { who: "a".into(), text: "b".into() }; MAX_LINES + 1], ..game() };
        assert!(SharedProject::read(&long.payload()).unwrap_err().to_string().contains("2001 entries"));
    }

    #[test]
    fn the_copy_is_a_session_with_the_same_files_the_receiver_s_settings_and_no_key() {
        let mut settings = Settings::default();
        settings.model = "receiver-model".into();
        let json = game().copy_document(&settings).unwrap();
        let data = import_json(&json).unwrap();
        assert_eq!(data.session.title, "2048 (copy)");
        assert_eq!(data.session.settings.model, "receiver-model");
        assert!(!data.session.settings.key_given);
        assert!(!json.to_lowercase().contains("key\":\"") && !json.contains("sk-"), "no key field in the copy");
        let snapshot = data.snapshot().unwrap().unwrap();
        let files: BTreeMap<String, String> = snapshot.files.paths().map(|p| (p.to_owned(), snapshot.files.read(p).unwrap().to_owned())).collect();
        assert_eq!(files, game().files);
        assert_eq!(snapshot.project.latest().map(|v| v.number), Some(1), "the files are version 1");
        assert!(snapshot.messages.is_empty() && snapshot.roles.is_empty());
    }
}
