//! The `Sandbox` port: where the project's code runs, isolated from the
//! app. The browser implements it with an opaque-origin frame
//! (`web::sandbox`); `NoSandbox` is the default of a team that has none
//! (native runs, sessions without a page), and says so.

use futures::future::LocalBoxFuture;

use super::{ConsoleLine, FileMap, PreviewInfo, TestReport};

/// Why the sandbox could not do what was asked (not a failing test: that
/// is a report).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("there is no sandbox in this session to run code in")]
    Unavailable,
    /// Nothing to run: no HTML file, no test files. The text says what exists.
    #[error("{0}")]
    NothingToRun(String),
    /// The sandbox itself failed (the frame did not load or answer).
    #[error("the sandbox failed: {0}")]
    Failed(String),
}

/// Runs the project's code away from the app.
pub trait Sandbox {
    /// Run the test files under `path` (all tests when `None`) of this
    /// snapshot of the files, each with a time limit.
    fn run_tests(&self, files: FileMap, path: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>>;

    /// Rebuild the live preview from these files; resolves once it loaded
    /// (or a short wait passed), so the console then holds its first lines.
    fn preview(&self, files: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>>;

    /// What the current preview wrote to its console, oldest first.
    fn console(&self) -> Vec<ConsoleLine>;
}

/// No sandbox: every call says so.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSandbox;

impl Sandbox for NoSandbox {
    fn run_tests(&self, _: FileMap, _: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>> {
        Box::pin(std::future::ready(Err(SandboxError::Unavailable)))
    }

    fn preview(&self, _: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>> {
        Box::pin(std::future::ready(Err(SandboxError::Unavailable)))
    }

    fn console(&self) -> Vec<ConsoleLine> {
        Vec::new()
    }
}
