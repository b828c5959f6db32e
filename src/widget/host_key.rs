//! A transport that asks the host page for the API key on every call: for
//! hosts that proxy the provider themselves, or hand out short-lived
//! tokens. The host's function returns the key or a Promise of it.
//!
//! The key is put into the request's credential header just before `fetch`
//! and kept nowhere: not in the settings, not in storage, not in a log (a
//! request's `Debug` masks credential headers).

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use crate::core::llm::client::{Body, Transport, TransportFailure};
use crate::core::llm::http::{HttpRequest, HttpResponseHead};
use crate::web::transport::FetchTransport;

/// The key the runner is built with when the host supplies it: the codecs
/// then write their credential header, whose value this transport replaces.
pub const PLACEHOLDER_KEY: &str = "host-supplied";

pub struct HostKeyTransport {
    pub inner: FetchTransport,
    pub get_key: Rc<js_sys::Function>,
}

impl Transport for HostKeyTransport {
    fn send(&self, mut request: HttpRequest, timeout_ms: u64) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        let inner = self.inner.clone();
        let get_key = self.get_key.clone();
        Box::pin(async move {
            let key = ask_host(&get_key).await.map_err(TransportFailure::Network)?;
            put_key(&mut request.headers, &key);
            inner.send(request, timeout_ms).await
        })
    }
}

/// Call the host's function and await its answer (a string or a Promise of one).
pub async fn ask_host(get_key: &js_sys::Function) -> Result<String, String> {
    let answer = get_key.call0(&JsValue::NULL).map_err(|e| format!("the host page's getKey failed: {}", describe(&e)))?;
    let answer = JsFuture::from(js_sys::Promise::resolve(&answer)).await.map_err(|e| format!("the host page's getKey failed: {}", describe(&e)))?;
    match answer.as_string() {
        Some(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
        _ => Err("the host page's getKey gave no key (it must return a non-empty string or a Promise of one)".into()),
    }
}

/// Replace the value of the credential header the codec wrote.
fn put_key(headers: &mut [(String, String)], key: &str) {
    for (name, value) in headers.iter_mut() {
        if name.eq_ignore_ascii_case("authorization") {
            *value = format!("Bearer {key}");
        } else if name.eq_ignore_ascii_case("x-api-key") {
            *value = key.to_string();
        }
    }
}

/// An error's message, without echoing arbitrary host objects.
fn describe(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "an error without a message".into())
}
