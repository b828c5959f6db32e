//! IndexedDB as futures, straight over web-sys: a request's outcome, a
//! transaction's end, and opening a database (with its upgrade and its
//! `blocked` event); and the two IndexedDB calls web-sys lacks (a write
//! transaction with options, `commit()`). The store (`web::idb_store`) and
//! the browser tests issue the requests themselves with web-sys's
//! `IdbObjectStore` methods and await them here.
//!
//! Deliberately small and not generic: every future is the one `Pending`
//! type with a `JsValue` outcome, so the code is compiled once, not once
//! per row type and call site (a generic wrapper such as the `idb` crate
//! was ~110 KB of the site's wasm, see docs/decisions/storage-no-crate.md).
//! It knows nothing of the store's rows, schemas or errors: what a
//! `JsValue` means is the caller's business.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::{Array, Object};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbVersionChangeEvent};

/// The outcome of something IndexedDB will tell later: a request's
/// `result` or its `error` (a DOMException); a transaction's end
/// (`true`: committed, `false`: aborted, its `error` says why); an open
/// request's `blocked` event.
///
/// Its handler is registered when it is made, so an event cannot be
/// missed; dropping it unregisters the handler. It uses the target's
/// `on…` properties, so make one per request or transaction (a second
/// would take the first's place).
pub struct Pending {
    slot: Rc<RefCell<Slot>>,
    source: Source,
    _handler: Closure<dyn FnMut(Event)>,
}

/// What a [`Pending`] listens to.
#[derive(Clone)]
enum Source {
    Request(IdbRequest),
    Transaction(IdbTransaction),
    Blocked(IdbOpenDbRequest),
}

impl Source {
    /// Point the events this future waits for at `f` (`None`: at nothing).
    fn listen(&self, f: Option<&js_sys::Function>) {
        match self {
            Source::Request(r) => {
                r.set_onsuccess(f);
                r.set_onerror(f);
            }
            Source::Transaction(tx) => {
                tx.set_oncomplete(f);
                tx.set_onabort(f);
            }
            Source::Blocked(r) => r.set_onblocked(f),
        }
    }
}

#[derive(Default)]
struct Slot {
    outcome: Option<Result<JsValue, JsValue>>,
    waker: Option<Waker>,
}

/// The outcome of `request`: its `result` (`undefined` for a missing row)
/// or its `error`.
pub fn request(request: &IdbRequest) -> Pending {
    Pending::new(Source::Request(request.clone()))
}

/// [`request`] of a call that may throw before it makes a request (a bad
/// key, a transaction no longer active): the throw is its outcome.
pub fn issued(made: Result<IdbRequest, JsValue>) -> Result<Pending, JsValue> {
    made.map(|r| request(&r))
}

/// The end of `tx`: `Ok(true)` once committed, `Ok(false)` once aborted.
/// Make it when the transaction is made (before its first request).
pub fn transaction_end(tx: &IdbTransaction) -> Pending {
    Pending::new(Source::Transaction(tx.clone()))
}

impl Pending {
    fn new(source: Source) -> Self {
        let slot: Rc<RefCell<Slot>> = Rc::default();
        let (inner, from) = (slot.clone(), source.clone());
        let handler = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let outcome = match &from {
                // An error event leaves `error` set; a success leaves it null.
                Source::Request(r) => match r.error() {
                    Ok(Some(error)) => Err(error.into()),
                    _ => Ok(r.result().unwrap_or(JsValue::UNDEFINED)),
                },
                Source::Transaction(_) => Ok(JsValue::from_bool(event.type_() == "complete")),
                Source::Blocked(_) => Ok(JsValue::NULL),
            };
            let mut slot = inner.borrow_mut();
            slot.outcome.get_or_insert(outcome);
            if let Some(waker) = slot.waker.take() {
                waker.wake();
            }
        });
        source.listen(Some(handler.as_ref().unchecked_ref()));
        Self { slot, source, _handler: handler }
    }
}

impl Future for Pending {
    type Output = Result<JsValue, JsValue>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.borrow_mut();
        match slot.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // The handler dies with this; the event must not call it after.
        self.source.listen(None);
    }
}

/// The page's `indexedDB` (`None`: this browser, or this window, has none).
pub fn factory() -> Option<IdbFactory> {
    web_sys::window()?.indexed_db().ok().flatten()
}

/// What an upgrade is handed: the database, the upgrade's transaction and
/// the version it upgrades from (0: a new database).
pub type Upgrade = Box<dyn FnMut(IdbDatabase, IdbTransaction, u32)>;

/// A database being opened: await it for the connection (or the error
/// that failed the open, an aborted upgrade's among them).
pub struct Opening {
    opened: Pending,
    request: IdbOpenDbRequest,
    _upgrade: Option<Closure<dyn FnMut(IdbVersionChangeEvent)>>,
}

/// Opens `name` at `version` (`None`: whatever version it has, without
/// upgrading), running `upgrade` if it is older.
pub fn open(
    factory: &IdbFactory,
    name: &str,
    version: Option<u32>,
    upgrade: Option<Upgrade>,
) -> Result<Opening, JsValue> {
    let req = match version {
        Some(v) => factory.open_with_u32(name, v)?,
        None => factory.open(name)?,
    };
    let upgrade = upgrade.map(|mut step| {
        let r = req.clone();
        let handler = Closure::<dyn FnMut(IdbVersionChangeEvent)>::new(move |event: IdbVersionChangeEvent| {
            let (Ok(db), Some(tx)) = (r.result(), r.transaction()) else {
                return;
            };
            step(db.unchecked_into(), tx, event.old_version() as u32);
        });
        req.set_onupgradeneeded(Some(handler.as_ref().unchecked_ref()));
        handler
    });
    Ok(Opening { opened: request(&req), request: req, _upgrade: upgrade })
}

impl Opening {
    /// Resolves when another connection blocks this open (an upgrade or
    /// a deletion waiting for it to close).
    pub fn blocked(&self) -> Pending {
        Pending::new(Source::Blocked(self.request.clone()))
    }
}

impl Future for Opening {
    type Output = Result<IdbDatabase, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.opened).poll(cx).map(|r| r.map(JsCast::unchecked_into))
    }
}

/// Deletes the database `name`, once no connection holds it open.
pub async fn delete(factory: &IdbFactory, name: &str) -> Result<(), JsValue> {
    let deleting: IdbRequest = factory.delete_database(name)?.into();
    request(&deleting).await.map(drop)
}

#[wasm_bindgen]
extern "C" {
    /// An `IDBDatabase`, for `transaction(names, mode, options)`, which
    /// web-sys has only behind `web_sys_unstable_apis`.
    type DatabaseWithOptions;
    #[wasm_bindgen(method, catch, js_name = transaction)]
    fn transaction_with_options(this: &DatabaseWithOptions, names: &Array, mode: &str, options: &Object) -> Result<IdbTransaction, JsValue>;

    /// An `IDBTransaction`, for `commit()` (IndexedDB 3.0: Chromium 76,
    /// Firefox 74, Safari 15), which web-sys marks deprecated.
    type TransactionCommit;
    #[wasm_bindgen(method, catch)]
    fn commit(this: &TransactionCommit) -> Result<(), JsValue>;
}

/// `db.transaction(names, "readwrite", options)`: a write transaction
/// over the stores `names`, with `options` (e.g. `{durability}`).
pub fn write_transaction(db: &IdbDatabase, names: &Array, options: &Object) -> Result<IdbTransaction, JsValue> {
    db.unchecked_ref::<DatabaseWithOptions>().transaction_with_options(names, "readwrite", options)
}

/// Asks `tx` to commit once its requests are done, instead of once
/// IndexedDB has seen the page make no new request. It throws when `tx`
/// has ended already, and where the browser has no `commit()`: there the
/// transaction commits by itself once its requests are done.
pub fn commit(tx: &IdbTransaction) -> Result<(), JsValue> {
    tx.unchecked_ref::<TransactionCommit>().commit()
}
