//! `SessionData`: everything saved for one session, as a store loads it,
//! and the way back to a `TeamSnapshot` that `Team::restore` resumes.
//!
//! The message log keeps every message ever committed; a snapshot needs
//! only those the history and the roles still point to, so turning the data
//! into a snapshot picks exactly those (as `Team::snapshot` does) and
//! checks that every pointer resolves.

use crate::core::sorted_map::SortedSet;

use litemap::LiteMap;

use serde::{Deserialize, Serialize};

use crate::core::cost::CostEntry;
use crate::core::files::{normalize_path, ProjectFiles};
use crate::core::message::{Message, MessageId};
use crate::core::snapshot::{RoleSnapshot, TeamSnapshot, SCHEMA_VERSION as SNAPSHOT_VERSION};

use super::record::{FileVersion, LedgerRecord, MetaRecord, SessionRecord};
use super::StoreError;

/// One session, loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionData {
    pub session: SessionRecord,
    /// `None` until the team's state is first committed.
    #[serde(default)]
    pub meta: Option<MetaRecord>,
    #[serde(default)]
    pub ledger: Option<LedgerRecord>,
    /// In the team's order.
    #[serde(default)]
    pub roles: Vec<RoleSnapshot>,
    /// The whole log, by id.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// By path, then version.
    #[serde(default)]
    pub files: Vec<FileVersion>,
    /// By sequence number.
    #[serde(default)]
    pub costs: Vec<CostEntry>,
}

impl SessionData {
    /// A session with no team state yet.
    pub fn new(session: SessionRecord) -> Self {
        Self { session, meta: None, ledger: None, roles: Vec::new(), messages: Vec::new(), files: Vec::new(), costs: Vec::new() }
    }

    /// The session as it would be saved from `snapshot`.
    pub fn from_snapshot(session: SessionRecord, snapshot: &TeamSnapshot) -> Self {
        Self {
            session,
            meta: Some(MetaRecord::of(snapshot)),
            ledger: Some(LedgerRecord::of(&snapshot.ledger)),
            roles: snapshot.roles.clone(),
            messages: snapshot.messages.clone(),
            files: file_versions(&snapshot.files),
            costs: snapshot.ledger.entries().to_vec(),
        }
    }

    /// The team state to restore, or `None` if none was committed yet.
    /// `Corrupt` when the records do not fit together.
    pub fn snapshot(&self) -> Result<Option<TeamSnapshot>, StoreError> {
        let Some(meta) = &self.meta else {
            if self.roles.is_empty() && self.messages.is_empty() && self.files.is_empty() && self.costs.is_empty() {
                return Ok(None);
            }
            return Err(StoreError::Corrupt("the session has team state but no meta record".into()));
        };
        let head = self.ledger.as_ref().ok_or_else(|| StoreError::Corrupt("the session has no cost ledger record".into()))?;
        check_costs(&self.costs)?;
        if head.total.calls != self.costs.len() as u64 {
            return Err(StoreError::Corrupt(format!(
                "the ledger counts {} calls but {} cost entries were saved",
                head.total.calls,
                self.costs.len()
            )));
        }
        let ledger = head.to_ledger(&self.costs)?;
        let mut wanted: SortedSet<MessageId> = SortedSet::new();
        wanted.extend(meta.history.iter().copied());
        let mut names = SortedSet::new();
        for r in &self.roles {
            if !names.insert(r.name.as_str()) {
                return Err(StoreError::Corrupt(format!("the role \"{}\" is saved twice", r.name)));
            }
            for list in r.lists() {
                wanted.extend(list.iter().copied());
            }
        }
        let mut table: LiteMap<MessageId, &Message> = LiteMap::new();
        table.extend(self.messages.iter().map(|m| (m.id, m)));
        let messages = wanted
            .iter()
            .map(|id| {
                table.get(id).map(|m| (*m).clone()).ok_or_else(|| {
                    StoreError::Corrupt(format!("message {id} is referenced but was not saved"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(TeamSnapshot {
            schema_version: SNAPSHOT_VERSION,
            idea: meta.idea.clone(),
            round: meta.round,
            ids: meta.ids.clone(),
            ledger,
            messages,
            history: meta.history.clone(),
            roles: self.roles.clone(),
            files: self.project_files()?,
            experience: meta.experience.clone(),
            project: meta.project.clone(),
        }))
    }

    /// The project's files, every version.
    pub fn project_files(&self) -> Result<ProjectFiles, StoreError> {
        let mut by_path: LiteMap<&str, Vec<&FileVersion>> = LiteMap::new();
        for v in &self.files {
            by_path.entry(v.path.as_str()).or_default().push(v);
        }
        let mut files = ProjectFiles::default();
        for (path, mut versions) in by_path {
            if normalize_path(path).ok().as_deref() != Some(path) {
                return Err(StoreError::Corrupt(format!("the file path \"{path}\" is not a valid project path")));
            }
            versions.sort_unstable_by_key(|v| v.version);
            for (i, v) in versions.iter().enumerate() {
                if usize::try_from(v.version).ok() != Some(i + 1) {
                    return Err(StoreError::Corrupt(format!("file \"{path}\" is missing version {}", i + 1)));
                }
                files.write(path, v.content.clone()).map_err(|e| StoreError::corrupt("a saved file", e))?;
            }
        }
        Ok(files)
    }
}

impl MetaRecord {
    pub fn of(snapshot: &TeamSnapshot) -> Self {
        Self {
            idea: snapshot.idea.clone(),
            round: snapshot.round,
            ids: snapshot.ids.clone(),
            history: snapshot.history.clone(),
            experience: snapshot.experience.clone(),
            project: snapshot.project.clone(),
        }
    }
}

/// Every version of every file, by path then version.
pub fn file_versions(files: &ProjectFiles) -> Vec<FileVersion> {
    let mut out = Vec::new();
    for path in files.paths() {
        if let Ok(history) = files.history(path) {
            out.extend(versions_of(path, history, 0));
        }
    }
    out
}

/// The versions of `path` after the first `skip`.
pub(crate) fn versions_of<'a>(path: &'a str, history: &'a [String], skip: usize) -> impl Iterator<Item = FileVersion> + 'a {
    history.iter().enumerate().skip(skip).map(move |(i, content)| FileVersion {
        path: path.to_string(),
        version: u32::try_from(i + 1).unwrap_or(u32::MAX),
        content: content.clone(),
    })
}

/// Cost entries are numbered 1, 2, 3… with none missing.
fn check_costs(costs: &[CostEntry]) -> Result<(), StoreError> {
    for (i, entry) in costs.iter().enumerate() {
        if entry.seq != i as u64 + 1 {
            return Err(StoreError::Corrupt(format!(
                "the cost entries are not numbered 1, 2, 3… (entry {} has number {})",
                i + 1,
                entry.seq
            )));
        }
    }
    Ok(())
}
