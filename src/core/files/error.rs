//! `FileError`: why a file operation was refused, written for a model to
//! read and fix its command ("no file docs/prd.md; existing files: ...").
//!
//! A refused operation changes nothing, so the errors carry no state to
//! recover, only what is needed to say what went wrong and what exists.

use std::fmt;

use thiserror::Error;

/// At most this many paths are listed in a message.
const LISTED: usize = 20;

/// Why a file operation was refused; the files are unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FileError {
    #[error("invalid path '{path}': {problem}")]
    InvalidPath { path: String, problem: PathProblem },

    #[error(
        "no file {path};{} {}",
        suggestion.as_ref().map(|s| format!(" did you mean {s}?")).unwrap_or_default(),
        listing(existing)
    )]
    NotFound {
        path: String,
        /// An existing path that looks like the one asked for.
        suggestion: Option<String>,
        existing: Vec<String>,
    },

    #[error("a file {path} already exists; delete it first or choose another name")]
    AlreadyExists { path: String },

    #[error("cannot create {path}: {file} is a file, not a directory")]
    ParentIsFile { path: String, file: String },

    #[error("{path} is a directory (it holds {example}); give the path of a file")]
    IsDirectory { path: String, example: String },

    #[error("{path} has no version {version}; its versions are 1 to {latest}")]
    NoSuchVersion { path: String, version: u32, latest: u32 },

    #[error(
        "{path} {}: copy `old` exactly from the file (read it first), with enough surrounding lines to be unique",
        if *found == 0 { "does not contain that text".to_string() } else { format!("contains that text {found} times") }
    )]
    NoUniqueMatch { path: String, found: usize },

    /// A stored file has no versions; only a corrupt record can say so.
    #[error("{path} has no content versions")]
    NoVersions { path: String },
}

/// What is wrong with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathProblem {
    Empty,
    EscapesRoot,
    ControlCharacter,
    /// Stored under a spelling that is not its normalized form (only a
    /// corrupt record can hold one).
    NotNormalized,
}

impl fmt::Display for PathProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathProblem::Empty => "it names no file; give a path such as docs/prd.md",
            PathProblem::EscapesRoot => "'..' climbs above the project root; paths are relative to the project",
            PathProblem::ControlCharacter => "it contains a control character such as a line break",
            PathProblem::NotNormalized => "it is not in normalized form",
        })
    }
}

/// "existing files: a, b" / "the project has no files yet".
fn listing(existing: &[String]) -> String {
    if existing.is_empty() {
        return "the project has no files yet".to_owned();
    }
    let shown: Vec<&str> = existing.iter().take(LISTED).map(String::as_str).collect();
    let more = existing.len().saturating_sub(LISTED);
    if more > 0 {
        format!("existing files: {} and {more} more", shown.join(", "))
    } else {
        format!("existing files: {}", shown.join(", "))
    }
}
