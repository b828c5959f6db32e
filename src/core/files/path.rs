//! What a project path is: `normalize_path` turns what a model wrote into
//! the one spelling the files are stored under.
//!
//! Lenient where the meaning is clear: backslashes become slashes, a
//! leading `/` means the project root (models write `/docs/prd.md`),
//! repeated slashes, `.` segments and spaces around segments go away, and `..`
//! is resolved. Refused: a path that is empty after that, that climbs
//! above the root, or that holds control characters. Case is kept: two
//! paths differing in case are two files.

use super::{FileError, PathProblem};

/// The normalized form of a file path: `a/b.md`, never empty, no leading
/// or trailing slash, no `.` or `..` segments.
pub fn normalize_path(raw: &str) -> Result<String, FileError> {
    let normalized = normalize(raw)?;
    if normalized.is_empty() {
        return Err(invalid(raw, PathProblem::Empty));
    }
    Ok(normalized)
}

/// Like `normalize_path`, but the root (empty, `.`, `/`) is allowed and
/// comes back as "".
pub(super) fn normalize_dir(raw: &str) -> Result<String, FileError> {
    normalize(raw)
}

fn normalize(raw: &str) -> Result<String, FileError> {
    if raw.chars().any(char::is_control) {
        return Err(invalid(raw, PathProblem::ControlCharacter));
    }
    let unified = raw.trim().replace('\\', "/");
    let mut segments: Vec<&str> = Vec::new();
    for segment in unified.split('/').map(str::trim) {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(invalid(raw, PathProblem::EscapesRoot));
                }
            }
            _ => segments.push(segment),
        }
    }
    Ok(segments.join("/"))
}

fn invalid(raw: &str, problem: PathProblem) -> FileError {
    FileError::InvalidPath { path: raw.to_owned(), problem }
}
