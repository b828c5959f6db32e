//! The HTTP transport: sends a codec's [`HttpRequest`] with the browser's
//! `fetch` and hands back the response head and its body chunk by chunk.
//!
//! It knows no provider and parses no body: decoding belongs to the codecs
//! in `core::llm`. Cancellation is an `AbortSignal` the caller owns (the
//! Stop button aborts it).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestInit, RequestMode, Response};

use crate::core::llm::http::{HttpRequest, HttpResponseHead};

/// Why bytes did not arrive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// `fetch` rejected: the network is down, the host unreachable, or the
    /// browser blocked the response (CORS); script cannot tell which.
    #[error("the request did not get through: {0}")]
    Network(String),
    #[error("the request was aborted")]
    Aborted,
}

/// A response whose body is read incrementally.
pub struct FetchResponse {
    pub head: HttpResponseHead,
    reader: Option<ReadableStreamDefaultReader>,
}

/// Send `request`; resolves when the response head has arrived.
pub async fn send(request: &HttpRequest, signal: Option<&AbortSignal>) -> Result<FetchResponse, TransportError> {
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_mode(RequestMode::Cors);
    let headers = Headers::new().map_err(js_error)?;
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(js_error)?;
    }
    init.set_headers(&headers);
    if !request.body.is_empty() {
        init.set_body(&JsValue::from_str(&request.body));
    }
    if let Some(signal) = signal {
        init.set_signal(Some(signal));
    }
    let req = Request::new_with_str_and_init(&request.url, &init).map_err(js_error)?;
    let global = js_sys::global();
    let fetch = Reflect::get(&global, &JsValue::from_str("fetch")).map_err(js_error)?;
    let fetch: js_sys::Function = fetch.dyn_into().map_err(|_| TransportError::Network("fetch is not available".into()))?;
    let promise: js_sys::Promise = fetch.call1(&global, &req).map_err(js_error)?.unchecked_into();
    let response: Response = JsFuture::from(promise).await.map_err(|e| aborted_or(signal, e))?.unchecked_into();
    Ok(FetchResponse::from(response))
}

impl From<Response> for FetchResponse {
    /// A `Response` made by the page itself (the model in the tab) read
    /// like one that came over the network.
    fn from(response: Response) -> Self {
        let head = HttpResponseHead::new(response.status(), header_pairs(&response.headers()));
        let reader = response.body().map(|body| body.get_reader().unchecked_into::<ReadableStreamDefaultReader>());
        FetchResponse { head, reader }
    }
}

/// A rejected promise as a [`TransportError`] (aborted when `signal` is).
pub fn rejected(signal: Option<&AbortSignal>, e: JsValue) -> TransportError {
    aborted_or(signal, e)
}

impl FetchResponse {
    /// The next chunk of the body; `None` at its end.
    pub async fn next_chunk(&mut self, signal: Option<&AbortSignal>) -> Result<Option<Vec<u8>>, TransportError> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(|e| aborted_or(signal, e))?;
        let done = Reflect::get(&result, &JsValue::from_str("done")).map_err(js_error)?.as_bool().unwrap_or(true);
        if done {
            self.reader = None;
            return Ok(None);
        }
        let value = Reflect::get(&result, &JsValue::from_str("value")).map_err(js_error)?;
        Ok(Some(Uint8Array::new(&value).to_vec()))
    }

    /// The whole remaining body as text (lossy UTF-8).
    pub async fn text(mut self, signal: Option<&AbortSignal>) -> Result<String, TransportError> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_chunk(signal).await? {
            bytes.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

fn header_pairs(headers: &Headers) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    if let Ok(Some(iter)) = js_sys::try_iter(headers) {
        for entry in iter.flatten() {
            let entry: js_sys::Array = entry.unchecked_into();
            if let (Some(k), Some(v)) = (entry.get(0).as_string(), entry.get(1).as_string()) {
                pairs.push((k, v));
            }
        }
    }
    pairs
}

fn aborted_or(signal: Option<&AbortSignal>, e: JsValue) -> TransportError {
    if signal.is_some_and(AbortSignal::aborted) {
        TransportError::Aborted
    } else {
        js_error(e)
    }
}

fn js_error(e: JsValue) -> TransportError {
    let text = e
        .dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    TransportError::Network(text)
}
