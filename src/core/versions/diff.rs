//! The line diff between a version and the one before it: which files were
//! added, removed or changed, and for each change its lines with a little
//! context. The diffing itself is the `similar` crate's (Myers' algorithm,
//! well kept); this only decides what to compare and how much to show.

use similar::{ChangeTag, TextDiff};

use super::{ProjectLog, VersionError};
use crate::core::files::ProjectFiles;

/// Unchanged lines shown around each change.
const CONTEXT_LINES: usize = 3;

/// One file's difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    pub change: FileChange,
    /// The lines of the changed regions with their context; hunks are
    /// separated by a `LineTag::Gap` line.
    pub lines: Vec<DiffLine>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    Added,
    Removed,
    Changed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub tag: LineTag,
    /// The line's text, without its line break.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTag {
    Same,
    Added,
    Removed,
    /// Unchanged lines left out between two hunks.
    Gap,
}

/// What changed from the version before `number` (nothing, for the
/// first: every file is added) to version `number`. Files whose content
/// did not change are left out.
pub fn diff_versions(log: &ProjectLog, files: &ProjectFiles, number: u32) -> Result<Vec<FileDiff>, VersionError> {
    let after = log.version(number)?;
    let before = log.versions.iter().take_while(|v| v.number != number).last();
    let mut diffs = Vec::new();
    let empty = litemap::LiteMap::new();
    let old_files = before.map_or(&empty, |v| &v.files);
    for (path, file) in &after.files {
        match old_files.get(path) {
            Some(old) if old.digest == file.digest => {}
            Some(old) => {
                let old_text = log.content_of(files, before.map_or(0, |b| b.number), path, old)?;
                let new_text = log.content_of(files, after.number, path, file)?;
                diffs.push(FileDiff { path: path.clone(), change: FileChange::Changed, lines: lines_of(old_text, new_text) });
            }
            None => {
                let a = log.content_of(files, after.number, path, file)?;
                diffs.push(FileDiff { path: path.clone(), change: FileChange::Added, lines: lines_of("", a) });
            }
        }
    }
    if let Some(b) = before {
        for (path, old) in old_files {
            if !after.files.contains_key(path) {
                let old_text = log.content_of(files, b.number, path, old)?;
                diffs.push(FileDiff { path: path.clone(), change: FileChange::Removed, lines: lines_of(old_text, "") });
            }
        }
    }
    diffs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(diffs)
}

/// The changed lines of `old` → `new`, with context, hunks apart.
fn lines_of(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for (i, group) in diff.grouped_ops(CONTEXT_LINES).iter().enumerate() {
        if i > 0 {
            lines.push(DiffLine { tag: LineTag::Gap, text: String::new() });
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let tag = match change.tag() {
                    ChangeTag::Equal => LineTag::Same,
                    ChangeTag::Insert => LineTag::Added,
                    ChangeTag::Delete => LineTag::Removed,
                };
                let text = change.value().strip_suffix('\n').unwrap_or(change.value());
                lines.push(DiffLine { tag, text: text.strip_suffix('\r').unwrap_or(text).to_string() });
            }
        }
    }
    lines
}
