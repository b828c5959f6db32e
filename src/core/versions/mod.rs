//! Project versions: what the project looked like at the end of each
//! request (the idea, every follow-up, every fix, every restore), so a
//! person can see what changed, and go back.
//!
//! A version does not copy the files: it names, per path, the file version
//! (`ProjectFiles` keeps every version) and a digest of its content, so a
//! file deleted and written again since (whose version numbers start over)
//! is caught instead of silently restored wrong. The log also holds the
//! request being worked on (opened when it is sent, closed into a version
//! when the team is done), the notes the team must hear on its next turn
//! (a restore, the person's own edits), and which file versions the person
//! wrote by hand.
//!
//! Deliberately absent: any IO, the diff's rendering (the UI's), and the
//! decision of when a request is done (the run controller's, `session`).

mod diff;
#[cfg(feature = "site")]
mod bill;

#[cfg(test)]
mod tests;

use litemap::LiteMap;

use serde::{Deserialize, Serialize};

use super::cost::Tally;
use super::digest::digest;
use super::files::{FileError, ProjectFiles};
use super::sandbox::TestReport;

pub use diff::{diff_versions, DiffLine, FileChange, FileDiff, LineTag};
#[cfg(feature = "site")]
pub use bill::{bills, grouped, RoleBill, VersionBill};

/// How many preview errors may be sent to the team automatically per version.
pub const AUTO_FIXES_PER_VERSION: u32 = 3;

/// Everything the session keeps about versions (saved with the session).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProjectLog {
    /// Oldest first; `number` counts from 1.
    pub versions: Vec<ProjectVersion>,
    /// The request the team works on, until it is closed into a version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<OpenRequest>,
    /// What the team is told with its next request (or on resume).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// File versions the person wrote by hand.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand_edits: Vec<FileRef>,
    /// Preview errors sent to the team automatically since the person's
    /// last request (the fixes' own versions do not start the count again).
    #[serde(skip_serializing_if = "is_zero")]
    pub auto_fixes: u32,
    /// The person's automatic modes, kept with the session.
    #[serde(skip_serializing_if = "Automatic::is_off")]
    pub automatic: Automatic,
    /// Files a restore removed, with every version they had: deleting a
    /// file forgets its history in `ProjectFiles`, and a restore must lose
    /// nothing (a later version may be restored again).
    #[serde(skip_serializing_if = "LiteMap::is_empty")]
    #[serde(with = "crate::core::sorted_map::map")]
    pub removed: LiteMap<String, Vec<String>>,
    /// Why the last run stopped, so a reopened session says what happened
    /// (an error, the budget, the person's Stop) instead of guessing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_stop: Option<crate::core::stop_reason::StopReason>,
    /// The errors the conversation showed (the last [`SHOWN_ERRORS`]), so a
    /// reopened session shows them where they were.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ShownError>,
    /// The conversation a share link carried into this copy of its
    /// project (`SharedProject::copy_document`): text the conversation
    /// shows above everything else, and that no role ever reads (it is in
    /// no history and no memory: a link cannot write the team's memory).
    #[cfg(feature = "site")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<SharedLine>,
}

/// One entry of a conversation a share link carries (`core::share`):
/// who, and what they said or did, as text.
#[cfg(feature = "site")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedLine {
    pub who: String,
    pub text: String,
}

/// How many errors a session keeps for its conversation: enough for every
/// pause a person would scroll back to, small enough for every checkpoint.
pub const SHOWN_ERRORS: usize = 50;

/// An error bubble of the conversation: who failed, the text the person
/// saw, the last message id given out before it (its place), and what had
/// arrived of an answer the error cut off (shown above it, marked so).
/// `abandoned`: no error, an answer the closing tab cut off (`partial`,
/// shown marked so; its call is made again on resume), kept here once the
/// reopened session has read it from the page, so every later reload shows
/// it too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShownError {
    pub after: u64,
    pub role: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub partial: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abandoned: bool,
}

impl ProjectLog {
    /// Keep an error the conversation shows, after message `after`, with
    /// the `partial` answer it cut off (empty: none).
    pub fn shown_error(&mut self, after: u64, role: &str, text: &str, partial: &str) {
        self.keep_shown(ShownError { after, role: role.to_owned(), text: text.to_owned(), partial: partial.to_owned(), abandoned: false });
    }

    /// Keep the answer `role` was streaming when the tab closed, after
    /// message `after`.
    pub fn abandoned_answer(&mut self, after: u64, role: &str, partial: &str) {
        self.keep_shown(ShownError { after, role: role.to_owned(), text: String::new(), partial: partial.to_owned(), abandoned: true });
    }

    fn keep_shown(&mut self, error: ShownError) {
        if self.errors.len() >= SHOWN_ERRORS {
            self.errors.remove(0);
        }
        self.errors.push(error);
    }
}

/// What the controller does by itself (both off by default): send the
/// preview's errors to the team, and restore the last passing version
/// when a request breaks the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Automatic {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fix: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rollback: bool,
}

impl Automatic {
    fn is_off(&self) -> bool {
        !self.fix && !self.rollback
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One version of the project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectVersion {
    pub number: u32,
    pub kind: RequestKind,
    /// The person's words (or, for a restore, what was restored).
    pub request: String,
    /// Every file at that moment.
    #[serde(with = "crate::core::sorted_map::map")]
    pub files: LiteMap<String, FileRef>,
    /// The project's tests at that moment, when it has any and they ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<TestSummary>,
    /// What the request cost, from its start to this version.
    #[serde(default)]
    pub spent: Spend,
    /// Tests that passed in the version before fail in this one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub breaks_tests: bool,
}

/// What a version was made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// The session's first request.
    Idea,
    /// A change asked for later.
    FollowUp,
    /// An error of the running preview, sent to the team to fix.
    Fix,
    /// The files put back as an earlier version had them.
    Restore { from: u32 },
}

/// One file version, named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    pub version: u32,
    /// FNV-1a of the content, to tell a later file of the same path apart.
    pub digest: u64,
}

/// A test run's outcome, in numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestSummary {
    pub passed: u32,
    pub failed: u32,
}

impl TestSummary {
    pub fn of(report: &TestReport) -> Self {
        let passed = report.passed();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self { passed: count(passed), failed: count(report.results.len() - passed) }
    }

    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.passed > 0
    }
}

/// Calls, tokens and dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost: f64,
    /// Where these calls start among the ledger's entries (how many came
    /// before), for a span of the ledger (`since`); `None` for totals and
    /// for versions saved before it was kept. The site reads each
    /// version's bill per role from the entries there (`bill.rs`); the
    /// widget shows no bill, so it neither keeps nor reads it.
    #[cfg(feature = "site")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_call: Option<u64>,
}

impl Spend {
    pub fn of(tally: &Tally) -> Self {
        Self { calls: tally.calls, prompt_tokens: tally.prompt_tokens, completion_tokens: tally.completion_tokens, cost: tally.cost, #[cfg(feature = "site")] from_call: None }
    }

    /// What was spent between `before` and `self`.
    pub fn since(&self, before: &Spend) -> Spend {
        Spend {
            calls: self.calls.saturating_sub(before.calls),
            prompt_tokens: self.prompt_tokens.saturating_sub(before.prompt_tokens),
            completion_tokens: self.completion_tokens.saturating_sub(before.completion_tokens),
            cost: (self.cost - before.cost).max(0.0),
            #[cfg(feature = "site")]
            from_call: Some(before.calls),
        }
    }
}

/// The request being worked on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenRequest {
    pub kind: RequestKind,
    pub text: String,
    /// The ledger's totals when it was sent.
    pub spent_before: Spend,
}

/// Why a version could not be read or restored, for the person.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VersionError {
    #[error("there is no version {0}")]
    NoSuchVersion(u32),
    #[error("version {number}'s copy of {path} is no longer kept (the file was deleted since), so that version cannot be shown or restored")]
    Lost { number: u32, path: String },
}

impl ProjectLog {
    pub fn latest(&self) -> Option<&ProjectVersion> {
        self.versions.last()
    }

    pub fn version(&self, number: u32) -> Result<&ProjectVersion, VersionError> {
        self.versions.iter().find(|v| v.number == number).ok_or(VersionError::NoSuchVersion(number))
    }

    /// The latest version whose tests all passed, if any.
    pub fn last_passing(&self) -> Option<&ProjectVersion> {
        self.versions.iter().rev().find(|v| v.tests.is_some_and(|t| t.all_passed()))
    }

    /// A request starts; the ledger's totals now are `spent`.
    pub fn open(&mut self, kind: RequestKind, text: &str, spent: Spend) {
        self.open = Some(OpenRequest { kind, text: text.to_string(), spent_before: spent });
    }

    /// The open request is done: record the project as it stands. Returns
    /// the new version; `None` when no request was open.
    pub fn close(&mut self, files: &ProjectFiles, spent: Spend, tests: Option<TestSummary>) -> Option<&ProjectVersion> {
        let open = self.open.take()?;
        Some(self.push(open.kind, open.text, files, spent.since(&open.spent_before), tests))
    }

    /// The number the next version will get.
    pub fn next_number(&self) -> u32 {
        self.latest().map_or(1, |v| v.number + 1)
    }

    fn push(&mut self, kind: RequestKind, request: String, files: &ProjectFiles, spent: Spend, tests: Option<TestSummary>) -> &ProjectVersion {
        // Tests the version before passed fail now.
        let breaks_tests = matches!(
            (self.latest().and_then(|v| v.tests), tests),
            (Some(before), Some(now)) if before.all_passed() && !now.all_passed()
        );
        let number = self.next_number();
        // A fix's version still counts the automatic fixes that led to it:
        // an error the team cannot fix is sent at most that many times,
        // until the person asks for something else.
        if kind != RequestKind::Fix {
            self.auto_fixes = 0;
        }
        self.versions.push(ProjectVersion { number, kind, request, files: refs_of(files), tests, spent, breaks_tests });
        self.versions.last().expect("just pushed")
    }

    /// Put the files back as version `number` had them, as new file
    /// versions (no history is lost), and record that as a new version; the
    /// team hears of it with its next request. Files that version did not
    /// have are deleted. Checks everything before it changes anything.
    pub fn restore(&mut self, files: &mut ProjectFiles, number: u32) -> Result<&ProjectVersion, VersionError> {
        let target = self.version(number)?.clone();
        let mut contents = Vec::with_capacity(target.files.len());
        for (path, file) in &target.files {
            contents.push((path.clone(), self.content_of(files, number, path, file)?.to_string()));
        }
        let stale: Vec<String> = files.paths().filter(|p| !target.files.contains_key(*p)).map(str::to_string).collect();
        for path in &stale {
            if let Ok(history) = files.history(path) {
                self.removed.insert(path.clone(), history.to_vec());
            }
            // Exists: it was just listed.
            let _ = files.delete(path);
        }
        for (path, content) in contents {
            let unchanged = files.read(&path).is_ok_and(|now| now == content);
            if !unchanged {
                files.write(&path, content).map_err(|e| lost(number, &path, e))?;
            }
        }
        self.notes.push(format!(
            "The user restored the project to version {number} (\u{201c}{}\u{201d}): every file is now as it was then{}.",
            target.request,
            if stale.is_empty() { String::new() } else { format!("; removed: {}", stale.join(", ")) }
        ));
        self.open = None;
        let request = format!("Restored version {number}");
        Ok(self.push(RequestKind::Restore { from: number }, request, files, Spend::default(), target.tests))
    }

    /// The person wrote `path` by hand (now at `version`); the team hears
    /// of it with its next request.
    pub fn hand_edit(&mut self, files: &ProjectFiles, path: &str, version: u32) {
        if let Ok(content) = files.read_version(path, version) {
            self.hand_edits.push(FileRef { path: path.to_string(), version, digest: digest(content) });
        }
        let note = format!("The user edited {path} by hand; read it before you change it.");
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Whether the person wrote this file version.
    pub fn by_hand(&self, path: &str, version: u32) -> bool {
        self.hand_edits.iter().any(|f| f.path == path && f.version == version)
    }

    /// The notes for the team, taken (they are said once).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

impl ProjectLog {
    /// Version `number`'s content of `path`: from the files, or from what a
    /// restore removed; checked against its digest.
    pub fn content_of<'a>(&'a self, files: &'a ProjectFiles, number: u32, path: &str, file: &FileRef) -> Result<&'a str, VersionError> {
        let index = usize::try_from(file.version).ok().and_then(|v| v.checked_sub(1));
        let candidates = [
            files.read_version(path, file.version).ok(),
            index.and_then(|i| self.removed.get(path).and_then(|h| h.get(i))).map(String::as_str),
        ];
        candidates
            .into_iter()
            .flatten()
            .find(|content| digest(content) == file.digest)
            .ok_or_else(|| VersionError::Lost { number, path: path.to_string() })
    }
}

fn lost(number: u32, path: &str, _: FileError) -> VersionError {
    VersionError::Lost { number, path: path.to_string() }
}

/// Every file's current version, named.
fn refs_of(files: &ProjectFiles) -> LiteMap<String, FileRef> {
    let mut refs = LiteMap::new();
    for path in files.paths() {
        if let (Ok(version), Ok(content)) = (files.version(path), files.read(path)) {
            refs.insert(path.to_string(), FileRef { path: String::new(), version, digest: digest(content) });
        }
    }
    refs
}
