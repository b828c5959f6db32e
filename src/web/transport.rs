//! The browser's side of `core::llm::client`: a [`Transport`] over `fetch`
//! with a time limit on the response head, a [`Runtime`] over `setTimeout`,
//! `Date.now()` and `Math.random()`, and the [`StopSwitch`] behind the Stop
//! button, which aborts every request in flight.
//!
//! Nothing here decides anything: retries, errors and decoding are the
//! core's.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use futures::future::LocalBoxFuture;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::fetch::{self, FetchResponse, TransportError};
use crate::core::llm::client::{Body, Runtime, Transport, TransportFailure};
use crate::core::llm::http::{HttpRequest, HttpResponseHead};

/// Aborts every request in flight when pressed (the Stop button).
#[derive(Clone, Default)]
pub struct StopSwitch {
    live: Rc<RefCell<Vec<Weak<AbortController>>>>,
    /// Pressed and not yet reset: a request about to start (after a retry
    /// pause) is refused, and a retry pause ends early.
    pressed: Rc<Cell<bool>>,
}

impl StopSwitch {
    /// Abort every request still in flight, and any started before `reset`.
    pub fn stop(&self) {
        self.pressed.set(true);
        for controller in self.live.borrow_mut().drain(..).filter_map(|w| w.upgrade()) {
            controller.abort();
        }
    }

    /// Allow requests again (the team resumes).
    pub fn reset(&self) {
        self.pressed.set(false);
    }

    pub fn is_pressed(&self) -> bool {
        self.pressed.get()
    }

    fn register(&self, controller: &Rc<AbortController>) {
        let mut live = self.live.borrow_mut();
        live.retain(|w| w.strong_count() > 0);
        live.push(Rc::downgrade(controller));
    }
}

/// `fetch`, with a time limit on the response head.
#[derive(Clone, Default)]
pub struct FetchTransport {
    pub stop: StopSwitch,
}

struct FetchBody {
    response: FetchResponse,
    controller: Rc<AbortController>,
}

impl Body for FetchBody {
    fn next_chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, TransportFailure>> {
        Box::pin(async move {
            let signal = self.controller.signal();
            self.response.next_chunk(Some(&signal)).await.map_err(|e| match e {
                TransportError::Aborted => TransportFailure::Aborted,
                TransportError::Network(m) => TransportFailure::Network(m),
            })
        })
    }
}

/// What answers a request in place of `fetch` (the model in the tab):
/// the request and the signal Stop and the time limit abort.
pub type Sender = fn(HttpRequest, AbortSignal) -> LocalBoxFuture<'static, Result<FetchResponse, TransportError>>;

impl Transport for FetchTransport {
    fn send(
        &self,
        request: HttpRequest,
        timeout_ms: u64,
    ) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        self.send_with(request, timeout_ms, |request, signal| Box::pin(async move { fetch::send(&request, Some(&signal)).await }))
    }
}

impl FetchTransport {
    /// [`Transport::send`] through `sender` instead of `fetch`, with the
    /// same time limit on the head and the same Stop.
    pub fn send_with(
        &self,
        request: HttpRequest,
        timeout_ms: u64,
        sender: Sender,
    ) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>> {
        let stop = self.stop.clone();
        Box::pin(async move {
            if stop.is_pressed() {
                return Err(TransportFailure::Aborted);
            }
            let controller = Rc::new(AbortController::new().map_err(|_| TransportFailure::Network("AbortController unavailable".into()))?);
            stop.register(&controller);
            let timed_out = Rc::new(Cell::new(false));
            let timer = {
                let controller = controller.clone();
                let timed_out = timed_out.clone();
                set_timeout(timeout_ms, move || {
                    timed_out.set(true);
                    controller.abort();
                })
            };
            let signal = controller.signal();
            let result = sender(request, signal).await;
            clear_timeout(timer);
            match result {
                Ok(response) => {
                    let head = response.head.clone();
                    Ok((head, Box::new(FetchBody { response, controller }) as Box<dyn Body>))
                }
                Err(_) if timed_out.get() => Err(TransportFailure::Timeout),
                Err(TransportError::Aborted) => Err(TransportFailure::Aborted),
                Err(TransportError::Network(m)) => Err(TransportFailure::Network(m)),
            }
        })
    }
}

/// Browser time and chance.
#[derive(Clone, Copy, Default)]
pub struct BrowserRuntime;

impl Runtime for BrowserRuntime {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(sleep(ms))
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }
}

/// [`BrowserRuntime`] whose pauses end early when Stop is pressed, so a
/// team waiting out a rate limit stops at once, not after the wait.
#[derive(Clone)]
pub struct StoppableRuntime(pub StopSwitch);

/// How often a pause looks at the Stop switch.
const STOP_POLL_MS: u64 = 100;

impl Runtime for StoppableRuntime {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let stop = self.0.clone();
        Box::pin(async move {
            let mut left = ms;
            while left > 0 && !stop.is_pressed() {
                let step = left.min(STOP_POLL_MS);
                sleep(step).await;
                left -= step;
            }
        })
    }

    fn now_ms(&self) -> u64 {
        BrowserRuntime.now_ms()
    }

    fn jitter(&self) -> f64 {
        BrowserRuntime.jitter()
    }
}

/// Wait `ms` milliseconds on the browser's timer.
pub async fn sleep(ms: u64) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout(ms, move || {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
    });
    let _ = JsFuture::from(promise).await;
}

fn set_timeout(ms: u64, f: impl FnOnce() + 'static) -> JsValue {
    let callback = Closure::once_into_js(f);
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &JsValue::from_str("setTimeout"))
        .ok()
        .and_then(|st| st.dyn_into::<js_sys::Function>().ok())
        .and_then(|st| st.call2(&global, &callback, &JsValue::from_f64(ms as f64)).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

fn clear_timeout(id: JsValue) {
    let global = js_sys::global();
    if let Some(ct) = js_sys::Reflect::get(&global, &JsValue::from_str("clearTimeout")).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
        let _ = ct.call1(&global, &id);
    }
}
