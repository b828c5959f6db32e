//! The browser's sandbox: the `Sandbox` port on an opaque-origin frame.
//!
//! The sandbox frame's document (`frame_document`: its policy and
//! `frame.js`) is shown by the host frame (`www/sandbox/host.html`, the
//! app's origin, so the service worker serves it offline) in `<iframe
//! sandbox="allow-scripts" srcdoc>` (no `allow-same-origin`), so whatever
//! runs there has an opaque origin: no access to the app's IndexedDB,
//! localStorage, key or DOM, and its own Content-Security-Policy allows no
//! network; nothing it needs comes from the network either, so it works
//! offline. The host passes messages both ways. The preview is the project's
//! page written into such a frame (with `bridge.js` first in its head,
//! forwarding console output); tests run in a fresh hidden frame, each
//! file in its own Worker (with `harness.js`), terminated at the time
//! limit, and the frame is removed when the run ends, so nothing outlives it.
//!
//! Messages (named in `core::sandbox::protocol`, the same strings as
//! `www/sandbox/protocol.js`) are accepted only from the host frame's own
//! window in the app's origin, and read as untrusted data: typed fields, cut to a size, never HTML. This module
//! does no bundling (that is `core::sandbox::bundle`) and decides nothing
//! about what a result means.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::mpsc;
use futures::future::{select, Either, LocalBoxFuture};
use futures::StreamExt;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::sandbox::bundle::{project_document, project_module_url, single_file, test_files, PreviewDoc, Project};
use crate::core::sandbox::{prepare, PackageHost, TransformError};
use crate::core::sandbox::pick::PickedElement;
use crate::core::sandbox::protocol::{COMMAND, CONSOLE, EVENT, HOST_READY, LOADED, OPEN, PICKED, PREVIEW, READY, REPORT, SELECT, SELECT_END, TAB_READY, TESTS};
use crate::core::sandbox::python::is_python;
use crate::core::sandbox::{ConsoleLine, FileMap, Outcome, PreviewInfo, Sandbox, SandboxError, SourceRef, TestReport, TestResult};
use crate::web::transport::sleep;

/// Where the host frame's page is, relative to the app.
const HOST_URL: &str = "sandbox/host.html";
const TAB_URL: &str = "sandbox/tab.html";
/// The message names, defined once for every script of the frames.
const PROTOCOL: &str = include_str!("../../../www/sandbox/protocol.js");
const FRAME_JS: &str = include_str!("frame.js");
const BRIDGE: &str = include_str!("bridge.js");
/// The sandbox frame's policy: the project's code runs (inline scripts,
/// eval, data:/blob: modules and workers) but reaches no network at all.
const FRAME_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' data: blob:; style-src 'unsafe-inline' data: blob:; img-src data: blob:; font-src data: blob:; media-src data: blob:; worker-src blob:; connect-src 'none'; form-action 'none'";
const HARNESS: &str = include_str!("harness.js");
/// How long a frame may take to load before the sandbox gives up.
const READY_MS: u64 = 10_000;
/// How long the preview waits for its page's `load` before answering.
const LOADED_MS: u64 = 3_000;
/// Console lines kept (the latest).
const CONSOLE_KEEP: usize = 500;

#[wasm_bindgen(module = "/src/web/sandbox/packages.js")]
extern "C" {
    #[wasm_bindgen(js_name = fetchPackage, catch)]
    async fn fetch_package(url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = transform, catch)]
    async fn transform_source(path: &str, source: &str, jsx_import_source: &str) -> Result<JsValue, JsValue>;
}

mod python;
pub use python::{Terminal, TerminalState};

/// The package cache and the lazily loaded transformer (`packages.js`).
struct BrowserPackages;

impl PackageHost for BrowserPackages {
    fn fetch(&self, url: String) -> LocalBoxFuture<'_, Result<String, String>> {
        Box::pin(async move {
            match fetch_package(&url).await {
                Ok(text) => text.as_string().ok_or_else(|| "the package cache returned no text".to_owned()),
                Err(e) => Err(cut(&js_error(e).to_string().trim_start_matches("the sandbox failed: ").to_owned(), 300)),
            }
        })
    }

    fn transform(&self, path: String, source: String, jsx_import_source: String) -> LocalBoxFuture<'_, Result<String, TransformError>> {
        Box::pin(async move {
            match transform_source(&path, &source, &jsx_import_source).await {
                Ok(code) => code.as_string().ok_or(TransformError { line: 1, message: "the transformer returned no text".into() }),
                Err(e) => {
                    let line = js_sys::Reflect::get(&e, &JsValue::from_str("line")).ok().and_then(|v| v.as_f64()).unwrap_or(1.0);
                    let message = field(&e, "message").unwrap_or_else(|| "the transformer failed".into());
                    Err(TransformError { line: line.clamp(1.0, f64::from(u32::MAX)) as u32, message: cut(&message, 1000) })
                }
            }
        })
    }
}

/// The project's files ready to link: TypeScript/JSX transformed, packages
/// fetched through the package CDN the settings name (or the cache).
async fn ready(files: FileMap) -> Project {
    let cdn = crate::web::settings_store::load().package_cdn;
    prepare(files, &cdn, &BrowserPackages).await
}

/// The project as one HTML file that runs from disk with no network
/// (`core::sandbox::bundle::single_file`), its packages from the package
/// cache (or the CDN, for one the preview has not fetched yet).
pub async fn one_file(files: FileMap) -> Result<PreviewDoc, SandboxError> {
    single_file(&ready(files).await)
}

/// A `message` listener on the app's window.
type MessageListener = Closure<dyn FnMut(web_sys::MessageEvent)>;

/// The sandbox of this tab. Cheap to clone (a handle).
#[derive(Clone)]
pub struct WebSandbox {
    inner: Rc<Inner>,
}

struct Inner {
    /// Time limit per test file.
    limit_ms: u32,
    /// Where the preview frame lives; the UI puts it in its pane.
    host: web_sys::Element,
    preview: RefCell<Option<Frame>>,
    /// Counts previews; a newer one supersedes a preview still loading.
    previews: Cell<u64>,
    /// The current preview's document, for "open in a new tab".
    preview_html: RefCell<Option<String>>,
    console: RefCell<Vec<ConsoleLine>>,
    last_report: RefCell<Option<TestReport>>,
    /// Bumped on every change the UI may want to show.
    revision: Cell<u64>,
    on_change: RefCell<Option<Rc<dyn Fn()>>>,
    /// Listeners of tabs opened with the preview, until they said ready.
    tabs: RefCell<Vec<MessageListener>>,
    /// The Python program the person runs in the Terminal, and its frame.
    terminal: RefCell<Terminal>,
    program: RefCell<Option<Frame>>,
    /// "Select" mode is on in the preview.
    selecting: Cell<bool>,
    /// The element last picked in "Select" mode, until the page takes it.
    picked: RefCell<Option<PickedElement>>,
}

impl WebSandbox {
    /// A sandbox whose test files each get `limit_ms` to finish.
    pub fn new(limit_ms: u32) -> Result<Self, SandboxError> {
        let host = document()?.create_element("div").map_err(js_error)?;
        host.set_class_name("preview-host");
        Ok(Self {
            inner: Rc::new(Inner {
                limit_ms,
                host,
                preview: RefCell::new(None),
                previews: Cell::new(0),
                preview_html: RefCell::new(None),
                console: RefCell::new(Vec::new()),
                last_report: RefCell::new(None),
                revision: Cell::new(0),
                on_change: RefCell::new(None),
                tabs: RefCell::new(Vec::new()),
                terminal: RefCell::new(Terminal::default()),
                program: RefCell::new(None),
                selecting: Cell::new(false),
                picked: RefCell::new(None),
            }),
        })
    }

    /// The element that holds the preview frame (put it in the page once;
    /// moving a frame reloads it).
    pub fn host(&self) -> &web_sys::Element {
        &self.inner.host
    }

    /// Called after every change to the console, the preview or the report.
    pub fn on_change(&self, f: impl Fn() + 'static) {
        *self.inner.on_change.borrow_mut() = Some(Rc::new(f));
    }

    pub fn revision(&self) -> u64 {
        self.inner.revision.get()
    }

    pub fn last_report(&self) -> Option<TestReport> {
        self.inner.last_report.borrow().clone()
    }

    pub fn has_preview(&self) -> bool {
        self.inner.preview_html.borrow().is_some()
    }

    /// Open the current preview in a tab of its own (`sandbox/tab.html`,
    /// which holds the same host and sandbox frame; it gets the frame's
    /// document with the page, so it needs no network either).
    pub fn open_in_tab(&self) -> Result<(), String> {
        let Some(html) = self.inner.preview_html.borrow().clone() else {
            return Err("there is no preview yet".into());
        };
        let window = web_sys::window().ok_or("no window")?;
        let tab = window
            .open_with_url_and_target(TAB_URL, "_blank")
            .map_err(|_| "the browser did not open a tab".to_string())?
            .ok_or("the browser blocked the new tab")?;
        let origin = window.location().origin().unwrap_or_default();
        let expected = tab.clone();
        let listener = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let from_tab = event.source().is_some_and(|s| js_sys::Object::is(&s, &expected));
            if from_tab && event.origin() == origin && field(&event.data(), EVENT).as_deref() == Some(TAB_READY) {
                let message = object(&[(COMMAND, PREVIEW.into()), ("html", html.as_str().into()), ("doc", frame_document().into())]);
                let _ = expected.post_message(&message, &origin);
            }
        });
        window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref()).map_err(|_| "cannot listen to the tab")?;
        self.inner.tabs.borrow_mut().push(listener);
        Ok(())
    }

    /// Start or leave "Select" mode in the preview (its bridge outlines
    /// what the pointer is over; a click picks it).
    pub fn select(&self, on: bool) {
        let window = self.inner.preview.borrow().as_ref().and_then(|f| f.window().ok());
        let Some(window) = window else { return };
        let Ok(origin) = own_origin() else { return };
        if window.post_message(&object(&[(COMMAND, SELECT.into()), ("on", on.into())]), &origin).is_ok() {
            self.inner.selecting.set(on);
            self.changed();
        }
    }

    pub fn selecting(&self) -> bool {
        self.inner.selecting.get()
    }

    /// The element picked last, once.
    pub fn take_picked(&self) -> Option<PickedElement> {
        self.inner.picked.borrow_mut().take()
    }

    fn changed(&self) {
        self.inner.revision.set(self.inner.revision.get() + 1);
        let callback = self.inner.on_change.borrow().clone();
        if let Some(callback) = callback {
            callback();
        }
    }

    async fn show(&self, files: FileMap) -> Result<PreviewInfo, SandboxError> {
        // Counted before the packages are fetched: a newer preview that is
        // ready first is not replaced by this older one.
        let mine = self.inner.previews.get() + 1;
        self.inner.previews.set(mine);
        let written = Rc::new(files.clone());
        let project = ready(files).await;
        let doc = project_document(&project, &format!("<script>{PROTOCOL}\n{BRIDGE}</script>"))?;
        if self.inner.previews.get() != mine {
            let problems = doc.problems.iter().map(|p| p.text.clone()).collect();
            return Ok(PreviewInfo { entry: doc.entry, included: doc.included, missing: doc.missing, problems });
        }
        self.inner.console.borrow_mut().clear();
        for problem in &doc.problems {
            self.push_console("error".into(), cut(&problem.text, 4000), problem.source.clone());
        }
        if !self.inner.host.is_connected() {
            // Nobody placed the host: keep it in the page, out of sight.
            let _ = self.inner.host.set_attribute("style", "position:absolute;left:-10000px;width:400px;height:300px");
            document()?.body().ok_or_else(|| SandboxError::Failed("the page has no body".into()))?.append_child(&self.inner.host).map_err(js_error)?;
        }
        let (tx, mut rx) = mpsc::unbounded::<String>();
        let this = self.clone();
        // Only what maps an error's place back to a file (not the page).
        let places = Rc::new(doc.clone().without_html());
        let frame = Frame::open(&self.inner.host, "The project's page (sandboxed)", move |kind, data| match kind.as_str() {
            CONSOLE => {
                let level = field(&data, "level").unwrap_or_else(|| "log".into());
                let text = field(&data, "text").unwrap_or_default();
                let line = js_sys::Reflect::get(&data, &JsValue::from_str("line")).ok().and_then(|v| v.as_f64()).filter(|l| *l >= 1.0 && *l < f64::from(u32::MAX));
                let source = field(&data, "file").zip(line).and_then(|(file, line)| places.source_of(&file, line as u32));
                this.push_console(cut(&level, 16), cut(&places.readable(&text), 4000), source);
            }
            PICKED => {
                let text = |name: &str| field(&data, name).map(|t| cut(&t, 20_000)).unwrap_or_default();
                let picked = PickedElement::from_frame(&text("tag"), &text("text"), &text("selector"), &text("html"), &written);
                *this.inner.picked.borrow_mut() = Some(picked);
                this.inner.selecting.set(false);
                this.changed();
            }
            SELECT_END => {
                this.inner.selecting.set(false);
                this.changed();
            }
            _ => {
                let _ = tx.unbounded_send(kind);
            }
        })?;
        let window = frame.window()?;
        *self.inner.preview.borrow_mut() = Some(frame);
        // A new page starts outside "Select" mode.
        self.inner.selecting.set(false);
        *self.inner.preview_html.borrow_mut() = Some(doc.html.clone());
        self.changed();
        let problems = doc.problems.iter().map(|p| p.text.clone()).collect();
        let info = PreviewInfo { entry: doc.entry, included: doc.included, missing: doc.missing, problems };
        if wait_for(&mut rx, READY, READY_MS).await.is_err() {
            // Replaced by a newer preview of newer files (its frame is gone): not a failure.
            return if self.inner.previews.get() != mine { Ok(info) } else { Err(SandboxError::Failed("the preview frame did not load".into())) };
        }
        let message = object(&[(COMMAND, PREVIEW.into()), ("html", doc.html.as_str().into())]);
        window.post_message(&message, &own_origin()?).map_err(js_error)?;
        // A page that never finishes loading still shows; the wait only
        // lets its first console lines arrive before answering.
        let _ = wait_for(&mut rx, LOADED, LOADED_MS).await;
        Ok(info)
    }

    fn push_console(&self, level: String, text: String, source: Option<SourceRef>) {
        {
            let mut console = self.inner.console.borrow_mut();
            console.push(ConsoleLine { level, text, source });
            let extra = console.len().saturating_sub(CONSOLE_KEEP);
            console.drain(..extra);
        }
        self.changed();
    }

    async fn test(&self, files: FileMap, path: Option<String>) -> Result<TestReport, SandboxError> {
        let (python, paths): (Vec<String>, Vec<String>) = test_files(&files, path.as_deref())?.into_iter().partition(|p| is_python(p));
        let mut report = TestReport::default();
        if !python.is_empty() {
            report.results.extend(self.run_python_tests(&files, &python).await?);
        }
        if !paths.is_empty() {
            report.results.extend(self.test_scripts(files, paths).await?);
        }
        *self.inner.last_report.borrow_mut() = Some(report.clone());
        self.changed();
        Ok(report)
    }

    /// The JavaScript test files, each in its own worker.
    async fn test_scripts(&self, files: FileMap, paths: Vec<String>) -> Result<Vec<TestResult>, SandboxError> {
        let project = ready(files).await;
        let mut report = TestReport::default();
        // What cannot run (a Node-only import, a file the transformer
        // refused) fails the run in words the engineer can act on.
        for problem in &project.problems {
            let file = problem.source.as_ref().map_or("(the project)", |s| s.path.as_str());
            report.results.push(TestResult::new(file, "(cannot run in the tab)", Outcome::Error, &problem.text));
        }
        let jobs = js_sys::Array::new();
        let mut count = 0u64;
        for file in &paths {
            match project_module_url(&project, file) {
                Ok(url) => {
                    jobs.push(&object(&[("file", file.as_str().into()), ("url", url.as_str().into())]));
                    count += 1;
                }
                Err(e) => report.results.push(TestResult::new(file, "(loading the file)", Outcome::Error, &e.to_string())),
            }
        }
        if count > 0 {
            let results = self.run_jobs(jobs, &paths, count).await?;
            report.results.extend(results);
        }
        Ok(report.results)
    }

    async fn run_jobs(&self, jobs: js_sys::Array, paths: &[String], count: u64) -> Result<Vec<TestResult>, SandboxError> {
        let host = document()?.body().ok_or_else(|| SandboxError::Failed("the page has no body".into()))?;
        let (tx, mut rx) = mpsc::unbounded::<(String, JsValue)>();
        let frame = Frame::open(&host, "Test runner", move |kind, data| {
            let _ = tx.unbounded_send((kind, data));
        })?;
        let _ = frame.iframe.set_attribute("style", "display:none");
        next_data(&mut rx, READY, READY_MS).await.ok_or_else(|| SandboxError::Failed("the test frame did not load".into()))?;
        let limit = self.inner.limit_ms;
        let message = object(&[(COMMAND, TESTS.into()), ("jobs", jobs.into()), ("harness", HARNESS.into()), ("limitMs", limit.into())]);
        frame.window()?.post_message(&message, &own_origin()?).map_err(js_error)?;
        // The frame enforces the limit per file; this is the backstop if
        // the frame itself stops answering. Removing it ends its workers.
        let backstop = u64::from(limit) * count + 5_000;
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
}

impl Sandbox for WebSandbox {
    fn run_tests(&self, files: FileMap, path: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>> {
        Box::pin(self.test(files, path))
    }

    fn preview(&self, files: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>> {
        Box::pin(self.show(files))
    }

    fn console(&self) -> Vec<ConsoleLine> {
        self.inner.console.borrow().clone()
    }
}

/// One host frame (with its sandboxed child) and its message listener;
/// dropping it removes both, and so ends the child and its workers.
struct Frame {
    iframe: web_sys::HtmlIFrameElement,
    listener: MessageListener,
}

impl Frame {
    /// A new host frame in `parent` showing the sandbox frame's document
    /// in its sandboxed child; `on_message(kind, data)` sees the child's
    /// messages (through the host) and nothing else.
    fn open(parent: &web_sys::Element, title: &str, mut on_message: impl FnMut(String, JsValue) + 'static) -> Result<Self, SandboxError> {
        let iframe: web_sys::HtmlIFrameElement = document()?.create_element("iframe").map_err(js_error)?.dyn_into().map_err(|_| SandboxError::Failed("not an iframe".into()))?;
        iframe.set_attribute("title", title).map_err(js_error)?;
        iframe.set_attribute("data-testid", "sandbox-frame").map_err(js_error)?;
        iframe.set_src(HOST_URL);
        let origin = own_origin()?;
        let source = iframe.clone();
        let title = title.to_owned();
        let listener = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(window) = source.content_window() else { return };
            if event.origin() != origin || !event.source().is_some_and(|s| js_sys::Object::is(&s, &window)) {
                return;
            }
            let data = event.data();
            match field(&data, EVENT) {
                Some(kind) if kind == HOST_READY => {
                    let open = object(&[(COMMAND, OPEN.into()), ("doc", frame_document().into()), ("title", title.as_str().into())]);
                    let _ = window.post_message(&open, &origin);
                }
                Some(kind) => on_message(cut(&kind, 32), data),
                None => {}
            }
        });
        web_sys::window()
            .ok_or_else(|| SandboxError::Failed("no window".into()))?
            .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())
            .map_err(js_error)?;
        parent.append_child(&iframe).map_err(js_error)?;
        Ok(Self { iframe, listener })
    }

    fn window(&self) -> Result<web_sys::Window, SandboxError> {
        self.iframe.content_window().ok_or_else(|| SandboxError::Failed("the frame has no window".into()))
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback("message", self.listener.as_ref().unchecked_ref());
        }
        self.iframe.remove();
    }
}

async fn wait_for(rx: &mut mpsc::UnboundedReceiver<String>, kind: &str, ms: u64) -> Result<(), ()> {
    let wanted = async {
        while let Some(k) = rx.next().await {
            if k == kind {
                return Ok(());
            }
        }
        Err(())
    };
    match select(Box::pin(wanted), Box::pin(sleep(ms))).await {
        Either::Left((result, _)) => result,
        Either::Right(_) => Err(()),
    }
}

async fn next_data(rx: &mut mpsc::UnboundedReceiver<(String, JsValue)>, kind: &str, ms: u64) -> Option<JsValue> {
    let wanted = async {
        while let Some((k, data)) = rx.next().await {
            if k == kind {
                return Some(data);
            }
        }
        None
    };
    match select(Box::pin(wanted), Box::pin(sleep(ms))).await {
        Either::Left((data, _)) => data,
        Either::Right(_) => None,
    }
}

/// The results the frame sent, as far as they are well-formed; anything
/// else becomes an error result naming the files.
fn read_results(data: &JsValue, paths: &[String]) -> Vec<TestResult> {
    #[derive(Deserialize)]
    struct Wire {
        results: Vec<TestResult>,
    }
    match serde_wasm_bindgen::from_value::<Wire>(data.clone()) {
        Ok(wire) => wire
            .results
            .into_iter()
            .take(1000)
            .map(|r| TestResult { file: cut(&r.file, 300), name: cut(&r.name, 300), outcome: r.outcome, message: cut(&r.message, 4000) })
            .collect(),
        Err(e) => paths.iter().map(|f| TestResult::new(f, "(the report)", Outcome::Error, &format!("the sandbox sent a report that could not be read: {e}"))).collect(),
    }
}

/// The sandbox frame's document: its policy, then the message names and
/// `frame.js` (inline: the frame is a `srcdoc` document and loads nothing).
fn frame_document() -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{FRAME_POLICY}\"><title>sandbox</title><script>{PROTOCOL}\n{FRAME_JS}</script></head><body></body></html>"
    )
}

/// This page's origin: the host frame's, the only one whose messages count.
fn own_origin() -> Result<String, SandboxError> {
    web_sys::window().and_then(|w| w.location().origin().ok()).ok_or_else(|| SandboxError::Failed("the page has no origin".into()))
}

fn field(data: &JsValue, name: &str) -> Option<String> {
    js_sys::Reflect::get(data, &JsValue::from_str(name)).ok()?.as_string()
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let object = js_sys::Object::new();
    for (name, value) in fields {
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), value);
    }
    object.into()
}

fn cut(text: &str, max_chars: usize) -> String {
    text.chars().take(max_chars).collect()
}

fn document() -> Result<web_sys::Document, SandboxError> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| SandboxError::Failed("no document".into()))
}

fn js_error(e: JsValue) -> SandboxError {
    SandboxError::Failed(e.as_string().or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message()))).unwrap_or_else(|| "a browser call failed".into()))
}
