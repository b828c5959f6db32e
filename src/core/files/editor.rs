//! The `Editor.*` commands over `ProjectFiles`, for any context that can
//! lend out its files: write, append, read (with line numbers, as
//! MetaGPT's editor shows files), list, delete, rename.
//!
//! Each is a thin wrapper: `ProjectFiles` checks and refuses with
//! `FileError` texts, which become the failure output. There is no line
//! editing (replace lines, insert at line) yet; a role rewrites a file with
//! `Editor.write`.

use std::ops::DerefMut;

use serde_json::Value;

use super::ProjectFiles;
use crate::core::commands::{Args, CommandSpec, Param, ParamType, Registry};

/// A context whose files the `Editor.*` commands edit.
/// The files are lent as a guard, so a context may keep them in a
/// `RefCell` shared with the rest of the session (a `RefMut`) or own them
/// (a plain `&mut`).
pub trait HasFiles {
    fn files(&mut self) -> impl DerefMut<Target = ProjectFiles> + '_;
}

impl HasFiles for ProjectFiles {
    fn files(&mut self) -> impl DerefMut<Target = ProjectFiles> + '_ {
        self
    }
}

impl HasFiles for std::rc::Rc<std::cell::RefCell<ProjectFiles>> {
    fn files(&mut self) -> impl DerefMut<Target = ProjectFiles> + '_ {
        self.borrow_mut()
    }
}

/// Registers `Editor.write`, `Editor.replace`, `Editor.append`,
/// `Editor.read`, `Editor.list`, `Editor.delete` and `Editor.rename`.
pub fn register_editor_commands<C: HasFiles + 'static>(registry: &mut Registry<C>) {
    let text = |name: &str| Param::new(name, ParamType::Str);

    registry.register_fn(
        CommandSpec::new(
            "Editor.write",
            "Write the whole content of a file, creating it (and its directories) or replacing what it held. \
             Paths are relative to the project root, such as docs/prd.md.",
        )
        .param(text("path"))
        .param(text("content")),
        |cx: &mut C, args: Args| {
            let path = args.str("path")?;
            let content = args.str("content")?;
            let version = cx.files().write(path, content).map_err(|e| e.to_string())?;
            Ok(format!("wrote {} ({}, version {version})", shown(path), line_count(content)))
        },
    );

    registry.register_fn(
        CommandSpec::new(
            "Editor.replace",
            "Change part of an existing file: replace the text `old` (copied exactly from the file, with enough lines \
             around the change to occur only once) by `new`. Use it for a local change instead of writing the whole file again.",
        )
        .param(text("path"))
        .param(text("old"))
        .param(text("new")),
        |cx: &mut C, args: Args| {
            let path = args.str("path")?;
            let (old, new) = (args.str("old")?, args.str("new")?);
            let mut files = cx.files();
            let version = files.replace(path, old, new).map_err(|e| e.to_string())?;
            let total = files.read(path).map(line_count).unwrap_or_default();
            Ok(format!("replaced in {} ({total}, version {version})", shown(path)))
        },
    );

    registry.register_fn(
        CommandSpec::new("Editor.append", "Add content at the end of an existing file, on a new line.")
            .param(text("path"))
            .param(text("content")),
        |cx: &mut C, args: Args| {
            let path = args.str("path")?;
            let mut files = cx.files();
            let version = files.append(path, args.str("content")?).map_err(|e| e.to_string())?;
            let total = files.read(path).map(line_count).unwrap_or_default();
            Ok(format!("appended to {} ({total}, version {version})", shown(path)))
        },
    );

    registry.register_fn(
        CommandSpec::new("Editor.read", "Read a file; each line is shown with its number, as 001|text.")
            .param(text("path")),
        |cx: &mut C, args: Args| {
            let path = args.str("path")?;
            let files = cx.files();
            let content = files.read(path).map_err(|e| e.to_string())?;
            let version = files.version(path).map_err(|e| e.to_string())?;
            Ok(numbered(&shown(path), content, version))
        },
    );

    registry.register_fn(
        CommandSpec::new("Editor.list", "List the project's files, all of them or those under a directory.")
            .param(text("dir").with_default(Value::from(""))),
        |cx: &mut C, args: Args| {
            let dir = args.str("dir")?;
            let files = cx.files();
            let listed = files.list(Some(dir)).map_err(|e| e.to_string())?;
            let root = super::path::normalize_dir(dir).is_ok_and(|d| d.is_empty());
            Ok(match (listed.is_empty(), root) {
                (false, _) => listed.join("\n"),
                (true, true) => "the project has no files yet".to_owned(),
                (true, false) => {
                    let all: Vec<&str> = files.paths().collect();
                    let existing = if all.is_empty() { "none".to_owned() } else { all.join(", ") };
                    format!("no files under {dir}; existing files: {existing}")
                }
            })
        },
    );

    registry.register_fn(
        CommandSpec::new("Editor.delete", "Delete a file and its history.").param(text("path")),
        |cx: &mut C, args: Args| {
            let path = args.str("path")?;
            cx.files().delete(path).map_err(|e| e.to_string())?;
            Ok(format!("deleted {}", shown(path)))
        },
    );

    registry.register_fn(
        CommandSpec::new("Editor.rename", "Move a file to a new path that is not taken; its history moves with it.")
            .param(text("path"))
            .param(text("new_path")),
        |cx: &mut C, args: Args| {
            let (from, to) = (args.str("path")?, args.str("new_path")?);
            cx.files().rename(from, to).map_err(|e| e.to_string())?;
            Ok(format!("renamed {} to {}", shown(from), shown(to)))
        },
    );
}

/// The path as stored (the command already succeeded, so it normalizes).
fn shown(path: &str) -> String {
    super::normalize_path(path).unwrap_or_else(|_| path.to_owned())
}

/// "1 line" / "3 lines".
fn line_count(content: &str) -> String {
    match content.lines().count() {
        1 => "1 line".to_owned(),
        n => format!("{n} lines"),
    }
}

/// MetaGPT's editor view: a header, then `001|first line`.
fn numbered(path: &str, content: &str, version: u32) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let mut out = format!("[File: {path} ({} lines total, version {version})]", lines.len());
    if lines.is_empty() {
        out.push_str("\n(empty file)");
    }
    for (i, line) in lines.iter().enumerate() {
        out.push_str(&format!("\n{:03}|{line}", i + 1));
    }
    out
}
