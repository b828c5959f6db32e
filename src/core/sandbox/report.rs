//! What running tests and the preview produced, as plain data, and the
//! texts the model reads about it. The browser fills these in from its
//! frame's messages; nothing here trusts their content beyond being text.

use serde::{Deserialize, Serialize};

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    /// An assertion did not hold (or the test threw).
    Failed,
    /// The file could not load or run (syntax error, missing import).
    Error,
    /// Stopped by the time limit (an endless loop, a promise that never settles).
    TimedOut,
}

/// One test of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    pub file: String,
    pub name: String,
    pub outcome: Outcome,
    /// Why it failed; empty when it passed.
    #[serde(default)]
    pub message: String,
}

impl TestResult {
    pub fn new(file: &str, name: &str, outcome: Outcome, message: &str) -> Self {
        Self { file: file.to_owned(), name: name.to_owned(), outcome, message: message.to_owned() }
    }
}

/// Everything one `run_tests` produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestReport {
    pub results: Vec<TestResult>,
}

impl TestReport {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.results.iter().filter(|r| r.outcome == outcome).count()
    }

    pub fn passed(&self) -> usize {
        self.count(Outcome::Passed)
    }

    /// Failed, errors and time-outs: everything that is not a pass.
    pub fn problems(&self) -> impl Iterator<Item = &TestResult> {
        self.results.iter().filter(|r| r.outcome != Outcome::Passed)
    }

    pub fn all_passed(&self) -> bool {
        !self.results.is_empty() && self.problems().next().is_none()
    }

    /// "3 passed, 1 failed, 1 error, 0 timed out" (only the non-zero kinds
    /// after "passed").
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} passed", self.passed())];
        for (outcome, word) in [(Outcome::Failed, "failed"), (Outcome::Error, "errors"), (Outcome::TimedOut, "timed out")] {
            let n = self.count(outcome);
            if n > 0 {
                parts.push(format!("{n} {word}"));
            }
        }
        parts.join(", ")
    }

    /// One line per test that did not pass: "FAILED tests/a.test.js › merges: expected 4, got 2".
    pub fn problem_lines(&self) -> Vec<String> {
        self.problems()
            .map(|r| {
                let tag = match r.outcome {
                    Outcome::Failed => "FAILED",
                    Outcome::Error => "ERROR",
                    Outcome::TimedOut => "TIMED OUT",
                    Outcome::Passed => "passed",
                };
                let message = one_line(&r.message, 300);
                if message.is_empty() {
                    format!("{tag} {} › {}", r.file, r.name)
                } else {
                    format!("{tag} {} › {}: {message}", r.file, r.name)
                }
            })
            .collect()
    }

    /// The whole report for the model.
    pub fn text(&self) -> String {
        if self.results.is_empty() {
            return "no tests ran".to_owned();
        }
        let mut out = format!("tests: {}", self.summary());
        for line in self.problem_lines() {
            out.push('\n');
            out.push_str(&line);
        }
        out
    }
}

/// A line the preview wrote to its console, or an uncaught error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleLine {
    /// "log", "info", "warn", "error", or "uncaught" for an uncaught error
    /// or rejected promise.
    pub level: String,
    pub text: String,
    /// The project file and line it came from, when the frame could tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
}

/// A place in a project file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRef {
    pub path: String,
    pub line: u32,
}

impl ConsoleLine {
    pub fn new(level: &str, text: &str) -> Self {
        Self { level: level.to_owned(), text: text.to_owned(), source: None }
    }

    /// The same line, placed at `path`:`line`.
    pub fn at(mut self, path: &str, line: u32) -> Self {
        self.source = Some(SourceRef { path: path.to_owned(), line });
        self
    }
}

/// What the preview shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewInfo {
    /// The HTML file shown.
    pub entry: String,
    /// Project files the document pulled in (scripts, styles, modules).
    pub included: Vec<String>,
    /// Relative references to files the project does not have.
    pub missing: Vec<String>,
    /// What cannot run in the tab (a Node-only import, a package that
    /// could not be fetched, a file the transformer refused), in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

impl PreviewInfo {
    pub fn text(&self) -> String {
        let mut out = format!("the preview shows {}", self.entry);
        if !self.included.is_empty() {
            out.push_str(&format!(" with {}", self.included.join(", ")));
        }
        if !self.missing.is_empty() {
            out.push_str(&format!("; these referenced files do not exist: {}", self.missing.join(", ")));
        }
        for problem in &self.problems {
            out.push_str(&format!("\n- cannot run: {problem}"));
        }
        out
    }
}

/// The console as text for the model, at most `max` lines (the latest).
pub fn console_text(lines: &[ConsoleLine], max: usize) -> String {
    if lines.is_empty() {
        return "the console is empty".to_owned();
    }
    let skip = lines.len().saturating_sub(max);
    let mut out = String::new();
    if skip > 0 {
        out.push_str(&format!("({skip} earlier lines not shown)\n"));
    }
    let shown: Vec<String> = lines[skip..].iter().map(|l| format!("[{}] {}", l.level, one_line(&l.text, 500))).collect();
    out.push_str(&shown.join("\n"));
    out
}

/// Collapses whitespace and cuts long texts (model output and stack
/// traces can be long).
fn one_line(text: &str, max_chars: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        flat
    } else {
        let cut: String = flat.chars().take(max_chars).collect();
        format!("{cut}…")
    }
}
