//! Python in the sandbox: a project's Python tests (for `Sandbox.run_tests`)
//! and its program in the Terminal, each in a fresh sandbox frame whose
//! module worker runs Pyodide (`python_worker.js`, with the runner
//! `python_runner.py`). The page reads Pyodide's files (`python.js`, the
//! site's `lazy/pyodide/`, kept in Cache Storage) and hands them to the
//! frame with the job: the frame keeps its no-network policy.
//!
//! Deliberately not here: which files are tests, the program's entry,
//! what a requirement means (`core::sandbox::python`), the time limits'
//! enforcement (the frame terminates the worker).

use futures::channel::mpsc;
use futures::StreamExt;
use wasm_bindgen::prelude::*;

use super::{cut, document, field, js_error, next_data, object, own_origin, read_results, Frame, WebSandbox, READY_MS};
use crate::core::sandbox::protocol::{COMMAND, PYTHON, READY, REPORT, STDIN, TERMINAL};
use crate::core::sandbox::python::{python_entry, requirement_problems, DISPLAY_MODULES};
use crate::core::sandbox::{ConsoleLine, FileMap, Outcome, SandboxError, SourceRef, TestResult};

const WORKER: &str = include_str!("python_worker.js");
const RUNNER: &str = include_str!("python_runner.py");
/// How long Pyodide may take to start (read from the cache, compiled)
/// before the run gives up; the tests' own limit starts after it.
const LOAD_MS: u32 = 60_000;
/// A program may compute this long between two waits for input.
const PROGRAM_LIMIT_MS: u32 = 30_000;
/// Characters of program output kept (the latest).
const OUTPUT_KEEP: usize = 200_000;

#[wasm_bindgen(module = "/src/web/sandbox/python.js")]
extern "C" {
    #[wasm_bindgen(js_name = pythonRuntime, catch)]
    async fn python_runtime() -> Result<JsValue, JsValue>;
}

/// Where the Terminal's program is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TerminalState {
    /// Nothing ran yet.
    #[default]
    Idle,
    /// Reading Pyodide and starting it.
    Starting,
    Running,
    /// `input()` waits for the person's line.
    Waiting,
    /// Ended, with what the person reads about how.
    Ended(String),
}

/// What the Terminal shows: the program's output (stdout, stderr and the
/// person's lines, in order) and its errors with their place.
#[derive(Debug, Clone, Default)]
pub struct Terminal {
    pub state: TerminalState,
    /// The file that runs.
    pub entry: Option<String>,
    /// (stream, text): "out", "err", "in" (a line the person typed), "note".
    pub output: Vec<(String, String)>,
    /// Uncaught errors (a Python traceback), each with its project file and
    /// line when known: the page offers "Ask the team to fix".
    pub errors: Vec<ConsoleLine>,
    /// Counts runs: a run replaced by a newer one stops where it is.
    run: u64,
    /// How the program exited, when it called `sys.exit` with a status.
    exit: Option<String>,
}

impl Terminal {
    fn write(&mut self, stream: &str, text: &str) {
        match self.output.last_mut() {
            Some((last, was)) if last == stream => was.push_str(text),
            _ => self.output.push((stream.to_owned(), text.to_owned())),
        }
        let total: usize = self.output.iter().map(|(_, t)| t.len()).sum();
        if total > OUTPUT_KEEP && self.output.len() > 1 {
            self.output.remove(0);
        }
    }
}

/// The project's files as a plain object for the worker's file system.
fn files_object(files: &FileMap) -> JsValue {
    let pairs: Vec<(&str, JsValue)> = files.iter().map(|(p, t)| (p.as_str(), JsValue::from_str(t))).collect();
    object(&pairs)
}

fn strings(list: &[&str]) -> JsValue {
    list.iter().map(|s| JsValue::from_str(s)).collect::<js_sys::Array>().into()
}

fn load_error(e: JsValue) -> String {
    field(&e, "message").or_else(|| e.as_string()).unwrap_or_else(|| "Python could not be loaded".into())
}

impl WebSandbox {
    /// The Python test files, all in one worker (one start of Pyodide).
    pub(super) async fn run_python_tests(&self, files: &FileMap, paths: &[String]) -> Result<Vec<TestResult>, SandboxError> {
        let runtime = match python_runtime().await {
            Ok(runtime) => runtime,
            Err(e) => {
                let message = load_error(e);
                return Ok(paths.iter().map(|f| TestResult::new(f, "(loading Python)", Outcome::Error, &message)).collect());
            }
        };
        let host = document()?.body().ok_or_else(|| SandboxError::Failed("the page has no body".into()))?;
        let (tx, mut rx) = mpsc::unbounded::<(String, JsValue)>();
        let frame = Frame::open(&host, "Python test runner", move |kind, data| {
            let _ = tx.unbounded_send((kind, data));
        })?;
        let _ = frame.iframe.set_attribute("style", "display:none");
        next_data(&mut rx, READY, READY_MS).await.ok_or_else(|| SandboxError::Failed("the test frame did not load".into()))?;
        let limit = self.inner.limit_ms.saturating_mul(paths.len().max(1) as u32);
        let path_list: Vec<&str> = paths.iter().map(String::as_str).collect();
        let message = object(&[
            (COMMAND, PYTHON.into()),
            ("mode", "tests".into()),
            ("worker", WORKER.into()),
            ("runner", RUNNER.into()),
            ("runtime", runtime),
            ("files", files_object(files)),
            ("paths", strings(&path_list)),
            ("display", strings(DISPLAY_MODULES)),
            ("limitMs", limit.into()),
            ("loadMs", LOAD_MS.into()),
        ]);
        frame.window()?.post_message(&message, &own_origin()?).map_err(js_error)?;
        let backstop = u64::from(LOAD_MS) + u64::from(limit) + 5_000;
        let answer = next_data(&mut rx, REPORT, backstop).await;
        drop(frame);
        Ok(match answer {
            Some(data) => read_results(&data, paths),
            None => paths
                .iter()
                .map(|file| TestResult::new(file, "(time limit)", Outcome::TimedOut, "the sandbox stopped answering; its frame was removed"))
                .collect(),
        })
    }

    /// What the Terminal shows now.
    pub fn terminal(&self) -> Terminal {
        self.inner.terminal.borrow().clone()
    }

    /// Runs the project's program (its entry, `core::sandbox::python`) in
    /// the Terminal, ending one still running. Errs in words when there is
    /// nothing to run.
    pub fn run_program(&self, files: FileMap) -> Result<(), String> {
        let entry = python_entry(&files)
            .ok_or("there is no Python program to run: the Terminal runs main.py (or the one module with an `if __name__ == \"__main__\":` block)")?
            .to_owned();
        self.stop_program_quietly();
        let run = {
            let mut terminal = self.inner.terminal.borrow_mut();
            let run = terminal.run + 1;
            *terminal = Terminal { state: TerminalState::Starting, entry: Some(entry.clone()), run, ..Terminal::default() };
            for problem in requirement_problems(&files) {
                terminal.write("note", &format!("Note: {problem}.\n"));
            }
            run
        };
        self.changed();
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = this.start_program(files, entry, run).await {
                if this.inner.terminal.borrow().run == run {
                    this.end_program(e);
                }
            }
        });
        Ok(())
    }

    async fn start_program(&self, files: FileMap, entry: String, run: u64) -> Result<(), String> {
        let runtime = python_runtime().await.map_err(load_error)?;
        let current = { let t = self.inner.terminal.borrow(); t.run == run && t.state == TerminalState::Starting };
        if !current {
            return Ok(()); // Stopped, or run again, while Pyodide's files were read.
        }
        let host = document().map_err(|e| e.to_string())?.body().ok_or("the page has no body")?;
        let (tx, mut rx) = mpsc::unbounded::<(String, JsValue)>();
        let frame = Frame::open(&host, "Python program", move |kind, data| {
            let _ = tx.unbounded_send((kind, data));
        })
        .map_err(|e| e.to_string())?;
        let _ = frame.iframe.set_attribute("style", "display:none");
        let window = frame.window().map_err(|e| e.to_string())?;
        *self.inner.program.borrow_mut() = Some(frame);
        next_data(&mut rx, READY, READY_MS).await.ok_or("the sandbox frame did not load")?;
        let message = object(&[
            (COMMAND, PYTHON.into()),
            ("mode", "program".into()),
            ("worker", WORKER.into()),
            ("runner", RUNNER.into()),
            ("runtime", runtime),
            ("files", files_object(&files)),
            ("entry", entry.as_str().into()),
            ("display", strings(DISPLAY_MODULES)),
            ("limitMs", PROGRAM_LIMIT_MS.into()),
            ("loadMs", LOAD_MS.into()),
        ]);
        window.post_message(&message, &own_origin().map_err(|e| e.to_string())?).map_err(|e| js_error(e).to_string())?;
        while let Some((kind, data)) = rx.next().await {
            if kind == TERMINAL && self.on_terminal(&data) {
                break;
            }
        }
        Ok(())
    }

    /// One message of the running program; true once it ended.
    fn on_terminal(&self, data: &JsValue) -> bool {
        let get = |name: &str| js_sys::Reflect::get(data, &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined() && !v.is_null());
        let mut ended = None;
        {
            let mut terminal = self.inner.terminal.borrow_mut();
            if get("loaded").is_some() {
                terminal.state = TerminalState::Running;
            }
            if let Some(text) = field(data, "out") {
                let stream = if field(data, "stream").as_deref() == Some("err") { "err" } else { "out" };
                terminal.write(stream, &cut(&text, 20_000));
            }
            if let Some(waiting) = get("waiting").and_then(|v| v.as_bool()) {
                terminal.state = if waiting { TerminalState::Waiting } else { TerminalState::Running };
            }
            if let Some(error) = field(data, "error") {
                let line = get("line").and_then(|v| v.as_f64()).filter(|l| *l >= 1.0 && *l < f64::from(u32::MAX));
                let source = field(data, "file").zip(line).map(|(path, line)| SourceRef { path: cut(&path, 300), line: line as u32 });
                let text = cut(&error, 4000);
                terminal.write("err", &format!("{text}\n"));
                terminal.errors.push(ConsoleLine { level: "uncaught".into(), text, source });
            }
            if let Some(code) = field(data, "exit") {
                terminal.exit = Some(format!("The program exited with status {}.", cut(&code, 40)));
            }
            if get("done").is_some() {
                ended = Some(if let Some(why) = field(data, "timedOut") {
                    format!("Stopped: {}.", cut(&why, 300))
                } else if let Some(why) = field(data, "failed") {
                    format!("Python could not run the program: {}", cut(&why, 500))
                } else if let Some(exit) = terminal.exit.take() {
                    exit
                } else if terminal.errors.is_empty() {
                    "The program ended.".into()
                } else {
                    "The program ended with an error.".into()
                });
            }
        }
        let done = ended.is_some();
        if let Some(text) = ended {
            self.end_program(text);
        }
        self.changed();
        done
    }

    fn end_program(&self, text: String) {
        self.inner.program.borrow_mut().take();
        self.inner.terminal.borrow_mut().state = TerminalState::Ended(text);
        self.changed();
    }

    /// A line the person typed, for the program's `input()`.
    pub fn send_line(&self, line: &str) {
        let program = self.inner.program.borrow();
        let Some(window) = program.as_ref().and_then(|f| f.window().ok()) else { return };
        let line = cut(line, 10_000);
        let message = object(&[(COMMAND, STDIN.into()), ("line", line.as_str().into())]);
        if let Ok(origin) = own_origin() {
            let _ = window.post_message(&message, &origin);
        }
        drop(program);
        self.inner.terminal.borrow_mut().write("in", &format!("{line}\n"));
        self.changed();
    }

    /// Stop: the program's frame is removed, which ends its worker.
    pub fn stop_program(&self) {
        if self.stop_program_quietly() {
            self.inner.terminal.borrow_mut().state = TerminalState::Ended("Stopped.".into());
            self.changed();
        }
    }

    fn stop_program_quietly(&self) -> bool {
        let running = self.inner.program.borrow_mut().take().is_some();
        let starting = self.inner.terminal.borrow().state == TerminalState::Starting;
        if starting {
            self.inner.terminal.borrow_mut().state = TerminalState::Ended("Stopped.".into());
        }
        running || starting
    }
}
