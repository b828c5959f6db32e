//! `ProjectFiles`: the project's text files by normalized path, each with
//! all its versions.
//!
//! Every write adds a version (numbered from 1), so any earlier content can
//! be read back; files are small text, so keeping them all is cheap. A
//! path is either a file or a directory (a prefix of other files), never
//! both, so the files can always be written out to a real disk. Deleting a
//! file forgets its history; renaming keeps it. Directories cannot be
//! renamed or deleted as such. Every operation checks before it changes
//! anything.

use litemap::LiteMap;

use crate::core::sorted_map::entries_from;

use serde::{Deserialize, Serialize};

use super::path::normalize_dir;
use super::{normalize_path, FileError, PathProblem};
use crate::core::commands::closest;

/// The files of one project.
///
/// Architecture Invariant: every key is a normalized path, every file has
/// at least one version, and no path is both a file and a prefix
/// directory of another file. Deserializing checks the same.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FilesRecord")]
pub struct ProjectFiles {
    /// Path -> versions, oldest first; the last is the current content.
    #[serde(with = "crate::core::sorted_map::map")]
    files: LiteMap<String, Vec<String>>,
}

impl ProjectFiles {
    /// Creates or replaces the file; returns its new version number.
    pub fn write(&mut self, path: &str, content: impl Into<String>) -> Result<u32, FileError> {
        let path = normalize_path(path)?;
        if !self.files.contains_key(&path) {
            self.check_free(&path)?;
        }
        let versions = self.files.entry(path).or_default();
        versions.push(content.into());
        Ok(version_number(versions.len()))
    }

    /// Adds `content` at the end of an existing file, on a new line if the
    /// file does not end with one; returns the new version number. A file
    /// that does not exist is an error (most likely a wrong path), not
    /// created.
    pub fn append(&mut self, path: &str, content: &str) -> Result<u32, FileError> {
        let path = normalize_path(path)?;
        let current = self.current(&path)?;
        let mut next = String::with_capacity(current.len() + content.len() + 1);
        next.push_str(current);
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(content);
        self.write(&path, next)
    }

    /// Replaces the one occurrence of `old` by `new` in an existing file;
    /// returns the new version number. `old` must occur exactly once (a
    /// snippet found twice would change the wrong place).
    pub fn replace(&mut self, path: &str, old: &str, new: &str) -> Result<u32, FileError> {
        let path = normalize_path(path)?;
        let current = self.current(&path)?;
        let found = if old.is_empty() { 0 } else { current.matches(old).count() };
        if found != 1 {
            return Err(FileError::NoUniqueMatch { path, found });
        }
        let next = current.replacen(old, new, 1);
        self.write(&path, next)
    }

    /// The current content.
    pub fn read(&self, path: &str) -> Result<&str, FileError> {
        self.current(&normalize_path(path)?)
    }

    /// The current version number.
    pub fn version(&self, path: &str) -> Result<u32, FileError> {
        Ok(version_number(self.versions(&normalize_path(path)?)?.len()))
    }

    /// The content of one version, counting from 1.
    pub fn read_version(&self, path: &str, version: u32) -> Result<&str, FileError> {
        let path = normalize_path(path)?;
        let versions = self.versions(&path)?;
        usize::try_from(version)
            .ok()
            .and_then(|v| v.checked_sub(1))
            .and_then(|i| versions.get(i))
            .map(String::as_str)
            .ok_or(FileError::NoSuchVersion { path, version, latest: version_number(versions.len()) })
    }

    /// Every version's content, oldest first.
    pub fn history(&self, path: &str) -> Result<&[String], FileError> {
        self.versions(&normalize_path(path)?)
    }

    /// Whether a file (not a directory) has this path.
    pub fn exists(&self, path: &str) -> bool {
        normalize_path(path).is_ok_and(|p| self.files.contains_key(&p))
    }

    /// The file paths in sorted order, all of them or those under
    /// directory `under` (root: `None`, "", "." or "/").
    pub fn list(&self, under: Option<&str>) -> Result<Vec<&str>, FileError> {
        let dir = normalize_dir(under.unwrap_or(""))?;
        if dir.is_empty() {
            return Ok(self.paths().collect());
        }
        let prefix = format!("{dir}/");
        Ok(entries_from(&self.files, &prefix).map(|(p, _)| p.as_str()).take_while(|p| p.starts_with(&prefix)).collect())
    }

    /// Every file path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Removes the file and its history.
    pub fn delete(&mut self, path: &str) -> Result<(), FileError> {
        let path = normalize_path(path)?;
        self.versions(&path)?;
        self.files.remove(&path);
        Ok(())
    }

    /// Moves a file, with its history, to a path that is free.
    pub fn rename(&mut self, from: &str, to: &str) -> Result<(), FileError> {
        let from = normalize_path(from)?;
        let to = normalize_path(to)?;
        self.versions(&from)?;
        if from == to {
            return Ok(());
        }
        if self.files.contains_key(&to) {
            return Err(FileError::AlreadyExists { path: to });
        }
        // `from` itself may be in the way (a/b -> a/b/c): check without it.
        let versions = self.files.remove(&from).unwrap_or_default();
        if let Err(error) = self.check_free(&to) {
            self.files.insert(from, versions);
            return Err(error);
        }
        self.files.insert(to, versions);
        Ok(())
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn versions(&self, path: &str) -> Result<&[String], FileError> {
        match self.files.get(path) {
            Some(versions) => Ok(versions),
            None => Err(self.not_found(path)),
        }
    }

    fn current(&self, path: &str) -> Result<&str, FileError> {
        self.versions(path)?.last().map(String::as_str).ok_or_else(|| FileError::NoVersions { path: path.to_owned() })
    }

    fn not_found(&self, path: &str) -> FileError {
        if let Some(example) = self.first_under(path) {
            return FileError::IsDirectory { path: path.to_owned(), example: example.to_owned() };
        }
        FileError::NotFound {
            path: path.to_owned(),
            suggestion: closest(path, self.files.keys().map(String::as_str), '/').map(str::to_owned),
            existing: self.paths().map(str::to_owned).collect(),
        }
    }

    /// The first file inside directory `path`, if it is one.
    fn first_under(&self, path: &str) -> Option<&str> {
        let prefix = format!("{path}/");
        entries_from(&self.files, &prefix).next().map(|(p, _)| p.as_str()).filter(|p| p.starts_with(&prefix))
    }

    /// A new file may go at `path`: no ancestor is a file and it is not a
    /// directory of other files.
    fn check_free(&self, path: &str) -> Result<(), FileError> {
        for (at, _) in path.match_indices('/') {
            let ancestor = &path[..at];
            if self.files.contains_key(ancestor) {
                return Err(FileError::ParentIsFile { path: path.to_owned(), file: ancestor.to_owned() });
            }
        }
        match self.first_under(path) {
            Some(example) => Err(FileError::IsDirectory { path: path.to_owned(), example: example.to_owned() }),
            None => Ok(()),
        }
    }
}

/// The stored form, checked on the way in.
#[derive(Deserialize)]
struct FilesRecord {
    #[serde(with = "crate::core::sorted_map::map")]
    files: LiteMap<String, Vec<String>>,
}

impl TryFrom<FilesRecord> for ProjectFiles {
    type Error = FileError;

    fn try_from(record: FilesRecord) -> Result<Self, FileError> {
        let mut files = ProjectFiles::default();
        for (path, versions) in record.files {
            if normalize_path(&path)? != path {
                return Err(FileError::InvalidPath { path, problem: PathProblem::NotNormalized });
            }
            if versions.is_empty() {
                return Err(FileError::NoVersions { path });
            }
            files.check_free(&path)?;
            files.files.insert(path, versions);
        }
        Ok(files)
    }
}

/// Version numbers are u32; a file written four billion times saturates.
fn version_number(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}
