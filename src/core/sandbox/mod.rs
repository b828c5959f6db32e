//! Running what the team built: the `Sandbox` port (run the project's
//! JavaScript tests, show a live preview, read its console), the test
//! report and how it becomes text for the model and a message to the
//! engineer, the `Sandbox.*` commands, and the pure bundling that turns the
//! project's files into one document and self-contained modules.
//!
//! Nothing here runs code: the browser's sandbox (an opaque-origin frame
//! and a worker inside it, `web::sandbox`) does. The core decides what to
//! run and what the results mean; a fake sandbox drives the native tests.
//!
//! Layout:
//! - `report`: `TestReport`, `TestResult`, `Outcome`, `ConsoleLine`,
//!   `PreviewInfo`, and their texts for the model.
//! - `port`: the `Sandbox` trait, `NoSandbox` (the default), `SandboxError`.
//! - `bundle`: `FileMap`, the preview document with the project's scripts
//!   and styles inlined as `data:` URLs, test modules with their relative
//!   imports resolved, which files are tests.
//! - `packages`: bare imports → package-CDN URLs (`package.json`
//!   versions, subpaths, scoped names, one shared copy), Node-only imports
//!   refused in words.
//! - `prepare`: the `PackageHost` port (fetch a module, transform TS/JSX)
//!   and the loop that readies a `Project` before it is linked.
//! - `python`: Python projects' decisions (which files are tests, the
//!   program's entry, what `requirements.txt` asks that the tab cannot give).
//! - `protocol`: the names of the messages to and from the frames (the
//!   same strings as `www/sandbox/protocol.js`, checked by a test).
//! - `pick`: an element picked in the preview ("Select"), its source file
//!   and line, the chip and the follow-up's words about it.
//! - `base64`: the encoder for those `data:` URLs.
//! - `commands`: `HasSandbox` and `Sandbox.run_tests`, `Sandbox.preview`,
//!   `Sandbox.read_console`; failures go to the engineer for a few rounds.
//! - `fake` (tests): `FakeSandbox`, scripted reports.

mod base64;
pub mod bundle;
mod commands;
pub mod packages;
pub mod pick;
mod port;
pub mod prepare;
pub mod protocol;
pub mod python;
mod report;

#[cfg(test)]
pub(crate) mod fake;
#[cfg(test)]
mod tests;

pub use bundle::{snapshot, FileMap, Problem, Project};
pub use prepare::{prepare, PackageHost, TransformError};
pub use commands::{register_sandbox_commands, HasSandbox, SandboxRules, RUN_TESTS};
pub use port::{NoSandbox, Sandbox, SandboxError};
pub use report::{ConsoleLine, Outcome, PreviewInfo, SourceRef, TestReport, TestResult};
