//! The line diff between a version and the one before it: which files were
//! added, removed or changed, and for each change its lines with a little
//! context. The diffing itself is the `similar` crate's (Myers' algorithm,
//! well kept); this only decides what to compare and how much to show.
//!
//! It calls the algorithm itself over the lines, not `TextDiff`: `TextDiff`
//! builds Myers for every hook and integer width it may pick (17 copies,
//! ~180 KB of the run module's wasm), this one for lines of text.

use similar::algorithms::{myers, Capture, Replace};
use similar::{group_diff_ops, DiffTag};

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
    diffs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    Ok(diffs)
}

/// The changed lines of `old` → `new`, with context, hunks apart. Lines
/// keep their line break while compared (a last line without one differs
/// from the same line with one), and are shown without it.
fn lines_of(old: &str, new: &str) -> Vec<DiffLine> {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    // `Replace` joins a deletion and the insertion beside it, so removed
    // lines come before the lines that replace them.
    let mut ops = Replace::new(Capture::new());
    let Ok(()) = myers::diff(&mut ops, &old[..], 0..old.len(), &new[..], 0..new.len());
    let line = |tag: LineTag, text: &str| {
        let text = text.strip_suffix('\n').unwrap_or(text);
        DiffLine { tag, text: text.strip_suffix('\r').unwrap_or(text).to_string() }
    };
    let mut lines = Vec::new();
    for (i, group) in group_diff_ops(ops.into_inner().into_ops(), CONTEXT_LINES).iter().enumerate() {
        if i > 0 {
            lines.push(DiffLine { tag: LineTag::Gap, text: String::new() });
        }
        for op in group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                lines.extend(old[old_range].iter().map(|t| line(LineTag::Same, t)));
                continue;
            }
            lines.extend(old[old_range].iter().map(|t| line(LineTag::Removed, t)));
            lines.extend(new[new_range].iter().map(|t| line(LineTag::Added, t)));
        }
    }
    lines
}
