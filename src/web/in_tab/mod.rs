//! The "In this tab" provider's browser side (site only): a [`Transport`]
//! that hands requests for the in-tab preset's address
//! (`core::llm::in_tab::BASE_URL`) to the model runtime in the page
//! (`engine.mjs`: wllama, lazily loaded, running the model in its own
//! Worker) and every other request to `fetch`; and the calls Settings
//! makes: download a model with progress (cancellable), keep a file from
//! disk, ask whether a model is kept, whether the page is cross-origin
//! isolated (threads).
//!
//! The runtime answers as an OpenAI-compatible server would, so the core's
//! `HttpLlm` and OpenAI codec read it like any provider: streaming, usage,
//! Stop (the same abort signal), errors. Nothing here decides anything
//! about a run; the widget's build has none of it.

use futures::future::LocalBoxFuture;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal, File, Response};

use super::fetch::{self, FetchResponse, TransportError};
use super::transport::FetchTransport;
use crate::core::llm::client::{Body, Transport, TransportFailure};
use crate::core::llm::http::{HttpRequest, HttpResponseHead};
use crate::core::llm::in_tab::BASE_URL;

#[wasm_bindgen(module = "/src/web/in_tab/bridge.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = chat)]
    async fn js_chat(body: &str, signal: &AbortSignal) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = download)]
    async fn js_download(url: &str, on_progress: &js_sys::Function, signal: &AbortSignal) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = keepFile)]
    async fn js_keep_file(file: &File) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = isKept)]
    async fn js_is_kept(key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = isolated)]
    fn js_isolated() -> bool;
}

/// Loading a model of a few GB from the browser's cache takes a while: the
/// answer's head waits this long, not the network's time limit.
const LOAD_LIMIT_MS: u64 = 600_000;

/// `fetch`, except for the in-tab preset's requests.
pub struct InTabTransport {
    fetch: FetchTransport,
}

impl InTabTransport {
    /// Over `fetch` (whose Stop also stops the model in the tab).
    pub fn new(fetch: FetchTransport) -> Self {
        Self { fetch }
    }
}

impl Transport for InTabTransport {
    fn send(&self, request: HttpRequest, timeout_ms: u64) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        if !request.url.starts_with(BASE_URL) {
            return self.fetch.send(request, timeout_ms);
        }
        self.fetch.send_with(request, timeout_ms.max(LOAD_LIMIT_MS), answer_in_tab)
    }
}

fn answer_in_tab(request: HttpRequest, signal: AbortSignal) -> LocalBoxFuture<'static, Result<FetchResponse, TransportError>> {
    Box::pin(async move {
        let response = js_chat(&request.body, &signal).await.map_err(|e| fetch::rejected(Some(&signal), e))?;
        Ok(FetchResponse::from(response.unchecked_into::<Response>()))
    })
}

/// Whether the page may run the model on several threads (it is
/// cross-origin isolated); otherwise it runs on one.
pub fn isolated() -> bool {
    js_isolated()
}

/// Whether the model with this key (its URL, or a file's key) is kept in
/// this browser. False when the runtime cannot be reached.
pub async fn is_kept(key: &str) -> bool {
    js_is_kept(key).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Keeps a `.gguf` picked from disk; its key is the model name to use.
pub async fn keep_file(file: &File) -> Result<String, String> {
    js_keep_file(file).await.map(|v| v.as_string().unwrap_or_default()).map_err(|e| error_text(&e))
}

/// A download in progress; dropping it does not cancel it, `cancel` does.
#[derive(Clone)]
pub struct Download {
    controller: AbortController,
}

impl Download {
    pub fn cancel(&self) {
        self.controller.abort();
    }
}

/// Starts downloading `url` into the browser's model cache; `progress`
/// gets (bytes so far, total or 0), `done` the end: `Ok(bytes)`, or the
/// reason in words (`Err(None)` when cancelled).
pub fn download(url: &str, progress: impl Fn(f64, f64) + 'static, done: impl FnOnce(Result<f64, Option<String>>) + 'static) -> Option<Download> {
    let controller = AbortController::new().ok()?;
    let signal = controller.signal();
    let url = url.to_string();
    let on_progress = Closure::<dyn Fn(f64, f64)>::new(progress);
    wasm_bindgen_futures::spawn_local(async move {
        let result = js_download(&url, on_progress.as_ref().unchecked_ref(), &signal).await;
        drop(on_progress);
        done(match result {
            Ok(bytes) => Ok(bytes.as_f64().unwrap_or(0.0)),
            Err(_) if signal.aborted() => Err(None),
            Err(e) => Err(Some(error_text(&e))),
        });
    });
    Some(Download { controller })
}

fn error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|err| String::from(err.message())).or_else(|| e.as_string()).unwrap_or_else(|| "unknown error".into())
}
