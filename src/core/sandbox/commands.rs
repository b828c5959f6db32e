//! The `Sandbox.*` commands: `run_tests`, `preview`, `read_console`, for
//! any context that lends the files, the sandbox and a way to message a
//! team member.
//!
//! When tests fail and the rules name an engineer, the failures also go to
//! that engineer as a message (MetaGPT's write test → run → debug loop),
//! at most `max_rounds` times per session; after that the QA engineer is
//! told to report to the team leader instead. The rounds are counted from
//! the messages already sent, so a restored session counts on.

use std::rc::Rc;

use serde_json::Value;

use super::report::console_text;
use super::{snapshot, FileMap, Sandbox};
use crate::core::commands::{Args, CommandSpec, Param, ParamType, Registry};
use crate::core::files::HasFiles;

/// The `cause_by` of the failure report sent to the engineer, and the
/// command's name.
pub const RUN_TESTS: &str = "Sandbox.run_tests";
/// Console lines shown to the model at most.
const CONSOLE_LINES: usize = 50;

/// Who hears about failing tests, and for how many rounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxRules {
    /// The member who fixes the code; `None`: nobody is told.
    pub engineer: Option<String>,
    /// Failure reports sent to the engineer per session at most.
    pub max_rounds: usize,
}

impl Default for SandboxRules {
    fn default() -> Self {
        Self { engineer: None, max_rounds: 3 }
    }
}

/// A context the `Sandbox.*` commands run in.
pub trait HasSandbox: HasFiles {
    fn sandbox(&self) -> Rc<dyn Sandbox>;
    /// Failure reports already sent (messages caused by `Sandbox.run_tests`).
    fn reports_sent(&self) -> usize;
    /// Queue a message to a team member.
    fn send(&mut self, to: &str, content: String);
    /// A failure the command reports as its result (tests that fail), for
    /// the caller's loop guard; ignored unless the caller keeps it.
    fn note_error(&mut self, _text: String) {}
}

/// Registers `Sandbox.run_tests`, `Sandbox.preview` and `Sandbox.read_console`.
pub fn register_sandbox_commands<C: HasSandbox + 'static>(registry: &mut Registry<C>, rules: SandboxRules) {
    let rules = Rc::new(rules);
    registry.register_async(
        CommandSpec::new(
            RUN_TESTS,
            "Run the project's JavaScript tests in the sandbox (a worker with a time limit) and get passed / failed per test. \
             path: a test file or a directory; empty runs every test file (*.test.js / *.test.ts, or scripts under tests/). \
             A test file calls test(name, fn) with assert(cond, msg), assert.equal(a, b), expect(x).toBe(y) / .toEqual(y), \
             or is a module whose top-level code throws on failure; it imports the code with relative paths.",
        )
        .param(Param::new("path", ParamType::Str).with_default(Value::from(""))),
        move |cx: &mut C, args: Args| {
            let rules = rules.clone();
            Box::pin(async move {
                let path = args.str("path")?.trim().to_owned();
                let (sandbox, files) = (cx.sandbox(), files_of(cx));
                let report = sandbox.run_tests(files, (!path.is_empty()).then_some(path)).await.map_err(|e| e.to_string())?;
                let mut text = report.text();
                if report.all_passed() || report.results.is_empty() {
                    return Ok(text);
                }
                cx.note_error(text.clone());
                let Some(engineer) = rules.engineer.clone() else { return Ok(text) };
                let sent = cx.reports_sent();
                if sent >= rules.max_rounds {
                    text.push_str(&format!(
                        "\nThe failures went to {engineer} {sent} times already, the most this session allows; \
                         report what still fails to your team leader with end."
                    ));
                    return Ok(text);
                }
                let round = sent + 1;
                cx.send(&engineer, failure_message(&report.text(), round, rules.max_rounds));
                text.push_str(&format!("\nSent the failures to {engineer} to fix (round {round} of {}). Run the tests again once they answer.", rules.max_rounds));
                Ok(text)
            })
        },
    );

    registry.register_async(
        CommandSpec::new(
            "Sandbox.preview",
            "Rebuild the live preview of the project's web page (index.html with its scripts and styles) in the sandbox, \
             and get what it shows and its first console lines.",
        ),
        |cx: &mut C, _args: Args| {
            Box::pin(async move {
                let (sandbox, files) = (cx.sandbox(), files_of(cx));
                let info = sandbox.preview(files).await.map_err(|e| e.to_string())?;
                Ok(format!("{}\nconsole:\n{}", info.text(), console_text(&sandbox.console(), CONSOLE_LINES)))
            })
        },
    );

    registry.register_fn(
        CommandSpec::new("Sandbox.read_console", "Read what the live preview wrote to its console, with uncaught errors."),
        |cx: &mut C, _args: Args| Ok(console_text(&cx.sandbox().console(), CONSOLE_LINES)),
    );
}

/// The message the engineer gets.
pub fn failure_message(report: &str, round: usize, max_rounds: usize) -> String {
    format!(
        "The tests fail (round {round} of {max_rounds}). Fix the code so they pass; change a test only if it is wrong. \
         Then use end.\n{report}"
    )
}

fn files_of<C: HasFiles>(cx: &mut C) -> FileMap {
    snapshot(&cx.files())
}
