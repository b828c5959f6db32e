//! The two ports `HttpLlm` runs over: [`Transport`] moves bytes (the
//! browser's `fetch` in `web::transport`; recorded bytes in tests) and
//! [`Runtime`] sleeps, tells the time and draws jitter (the browser's
//! timers; a fake clock in tests).
//!
//! Only the shapes: no implementation lives in the core.

use futures::future::LocalBoxFuture;

use super::http::{HttpRequest, HttpResponseHead};

/// Why a transport produced no (more) bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportFailure {
    /// The request did not get through (network down, DNS, CORS block).
    Network(String),
    /// No response head within the time limit.
    Timeout,
    /// The caller cancelled (the Stop button).
    Aborted,
}

/// A response body, read chunk by chunk.
pub trait Body {
    /// The next chunk, `None` at the end.
    fn next_chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, TransportFailure>>;
}

/// Sends requests. Implementations send exactly the headers given.
pub trait Transport {
    /// Send; resolve with the head once it arrives, or fail after
    /// `timeout_ms` without one.
    fn send(&self, request: HttpRequest, timeout_ms: u64) -> LocalBoxFuture<'static, Result<(HttpResponseHead, Box<dyn Body>), TransportFailure>>;
}

/// Time and chance, injected.
pub trait Runtime {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
    /// Unix time in milliseconds (for HTTP-date `Retry-After`).
    fn now_ms(&self) -> u64;
    /// A number in `0..1` for backoff jitter.
    fn jitter(&self) -> f64;
}
