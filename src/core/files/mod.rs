//! The project's files, kept in the tab as part of the session state: what
//! the agents write (PRD, design, code) with every version, and the
//! `Editor.*` commands through which a role edits them.
//!
//! This is a map from normalized paths to text, not a file system: there
//! are no directories of their own (a directory is a path prefix), no
//! permissions, no binary content and no IO. Saving it is the store's job
//! (it serializes with serde); exporting it to disk or a zip is the UI's.
//!
//! Layout:
//! - `path`: `normalize_path`, the one place that decides what a path is.
//! - `error`: `FileError`, `PathProblem`: texts a model can act on.
//! - `project`: `ProjectFiles`, the files and their versions.
//! - `editor`: `HasFiles` and the `Editor.*` commands.

mod editor;
mod error;
mod path;
mod project;
mod zip;

#[cfg(test)]
mod tests;

pub use editor::{register_editor_commands, HasFiles};
pub use error::{FileError, PathProblem};
pub use path::normalize_path;
pub use project::ProjectFiles;
