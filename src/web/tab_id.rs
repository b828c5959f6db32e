//! This tab's lease holder id (issue #6: two tabs on one session must not
//! both write it), unique among the tabs that are open.
//!
//! The id is kept in `sessionStorage`, so a reload of the tab finds it again
//! and takes its own lease back at once. But browsers copy `sessionStorage`
//! into a duplicated tab (Chromium's "Duplicate tab", a same-origin
//! `window.open`), so a stored id alone would let two live tabs share one
//! lease. Each document therefore *claims* its id with a Web Lock that it
//! holds for its whole life: a duplicate finds the lock held by its
//! original, makes a fresh id, stores it and claims that one instead.
//!
//! Not here: the lease itself (`session.rs`, `Store::acquire_lock`).

use std::cell::RefCell;

use futures::future::{FutureExt, LocalBoxFuture, Shared};
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

const TAB_ID: &str = "tabteam.tab";
const LOCK_PREFIX: &str = "tabteam.tab:";

/// How long a document waits for its stored id's lock before it takes
/// itself for a duplicate. Measured in Chromium 156: on a reload the old
/// document's locks are already free when the new one's first script runs
/// (granted at once, 5 reloads of 5, and in every reload of the e2e tests),
/// so only a duplicate pays this wait, once, at start-up; the margin is for
/// a slow teardown on a loaded machine.
pub const CLAIM_WAIT_MS: u32 = 1_500;

#[wasm_bindgen]
extern "C" {
    /// `navigator.locks` (Web Locks: Chromium 69, Firefox 96, Safari
    /// 15.4), bound by hand: web-sys has it only behind
    /// `web_sys_unstable_apis`.
    type LockManager;
    #[wasm_bindgen(method, catch)]
    fn request(this: &LockManager, name: &str, options: &Object, callback: &JsValue) -> Result<Promise, JsValue>;
}

thread_local! {
    /// The document's one claim, shared by everyone who asks for the id.
    static CLAIM: RefCell<Option<Shared<LocalBoxFuture<'static, String>>>> = const { RefCell::new(None) };
}

/// This tab's holder id: claimed once per document (the first call starts
/// the claim, later ones wait for the same), then stored for its reloads.
pub async fn tab_holder() -> String {
    let claim = CLAIM.with(|c| c.borrow_mut().get_or_insert_with(|| claim_stored().boxed_local().shared()).clone());
    claim.await
}

/// Start the claim now, so its wait (a duplicate's) runs beside the rest of
/// start-up rather than before the first lease.
pub fn start_claim() {
    wasm_bindgen_futures::spawn_local(async {
        tab_holder().await;
    });
}

async fn claim_stored() -> String {
    let storage = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
    let stored = storage.as_ref().and_then(|s| s.get_item(TAB_ID).ok().flatten());
    let id = claim_unique(stored, CLAIM_WAIT_MS).await;
    if let Some(s) = storage {
        let _ = s.set_item(TAB_ID, &id);
    }
    id
}

/// `wanted` if this document gets its lock within `wait_ms`, else a fresh
/// id whose lock it holds; either lock is held until the document goes.
/// Where Web Locks are missing (old browsers, insecure contexts; note that
/// http://127.0.0.1 and localhost are secure) or refuse (an opaque origin),
/// `wanted` (or a fresh id) unclaimed: the behaviour before claims, where a
/// duplicated tab shares its original's lease.
pub async fn claim_unique(wanted: Option<String>, wait_ms: u32) -> String {
    let mut id = wanted.unwrap_or_else(fresh_id);
    let Some(locks) = lock_manager() else { return id };
    // A fresh id's lock is free (ids are random): one more try is enough;
    // the bound only keeps a misbehaving browser from looping.
    for _ in 0..3 {
        match hold(&locks, &id, wait_ms).await {
            Hold::Held | Hold::Unsupported => return id,
            Hold::Taken => id = fresh_id(),
        }
    }
    id
}

enum Hold {
    Held,
    /// Another live document holds it (for longer than the wait).
    Taken,
    Unsupported,
}

/// Ask for `id`'s lock, waiting at most `wait_ms`; once granted it is held
/// for the document's life (the callback's promise never settles).
async fn hold(locks: &LockManager, id: &str, wait_ms: u32) -> Hold {
    let Ok(controller) = web_sys::AbortController::new() else { return Hold::Unsupported };
    let options = Object::new();
    let _ = Reflect::set(&options, &"mode".into(), &"exclusive".into());
    let _ = Reflect::set(&options, &"signal".into(), &controller.signal());
    // Resolved by the callback when the lock is granted; the request's own
    // promise rejects only if the wait is aborted first. Exactly one of the
    // two settles, so a late grant is never mistaken for a refusal.
    let mut grant: Option<Function> = None;
    let granted = Promise::new(&mut |resolve, _| grant = Some(resolve));
    let Some(grant) = grant else { return Hold::Unsupported };
    let callback = Closure::once_into_js(move |_lock: JsValue| {
        let _ = grant.call0(&JsValue::UNDEFINED);
        Promise::new(&mut |_, _| {})
    });
    let request = match locks.request(&format!("{LOCK_PREFIX}{id}"), &options, &callback) {
        Ok(request) => request,
        Err(_) => return Hold::Unsupported,
    };
    // Not `AbortSignal.timeout` (Safari 16): the controller's abort works
    // wherever Web Locks do.
    let abort = Closure::once_into_js(move || controller.abort());
    let Some(window) = web_sys::window() else { return Hold::Unsupported };
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), wait_ms as i32);
    match JsFuture::from(Promise::race(&js_sys::Array::of2(&granted, &request))).await {
        Ok(_) => Hold::Held,
        Err(e) if e.dyn_ref::<web_sys::DomException>().is_some_and(|e| e.name() == "AbortError") => Hold::Taken,
        Err(_) => Hold::Unsupported,
    }
}

fn lock_manager() -> Option<LockManager> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
    (!locks.is_undefined() && !locks.is_null()).then(|| locks.unchecked_into())
}

fn fresh_id() -> String {
    format!("tab-{:x}-{:x}", js_sys::Date::now() as u64, (js_sys::Math::random() * 1e12) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn unique(name: &str) -> String {
        format!("test-{name}-{}", fresh_id())
    }

    #[wasm_bindgen_test]
    async fn a_free_id_is_claimed_as_it_is() {
        let id = unique("free");
        assert_eq!(claim_unique(Some(id.clone()), 200).await, id);
    }

    #[wasm_bindgen_test]
    async fn an_id_held_by_another_claim_is_replaced_by_a_fresh_one_that_is_held_too() {
        let id = unique("held");
        assert_eq!(claim_unique(Some(id.clone()), 200).await, id);
        // A duplicated tab: same stored id, the first holder still alive.
        let second = claim_unique(Some(id.clone()), 200).await;
        assert_ne!(second, id);
        assert!(second.starts_with("tab-"), "a fresh id: {second}");
        // The duplicate's own id is held as well: a third claim of it (a
        // duplicate of the duplicate) gets yet another one.
        let third = claim_unique(Some(second.clone()), 200).await;
        assert!(third != second && third != id, "{third}");
    }

    #[wasm_bindgen_test]
    async fn the_claim_waits_for_a_lock_released_within_the_wait() {
        // An old document still holding the id for a moment (a slow reload).
        let id = unique("released");
        let locks = lock_manager().expect("Web Locks in Chromium");
        // Held for ~100 ms; requested first, so granted first.
        let holder = Closure::once_into_js(|_lock: JsValue| {
            Promise::new(&mut |resolve, _| {
                let _ = web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
            })
        });
        let _ = locks.request(&format!("{LOCK_PREFIX}{id}"), &Object::new(), &holder).unwrap();
        let start = js_sys::Date::now();
        assert_eq!(claim_unique(Some(id.clone()), 1_000).await, id, "granted once the other let go");
        assert!(js_sys::Date::now() - start >= 50.0, "it did wait for the other holder");
    }

    #[wasm_bindgen_test]
    async fn the_documents_holder_id_is_stable_and_stored() {
        let first = tab_holder().await;
        assert_eq!(tab_holder().await, first);
        let stored = web_sys::window().unwrap().session_storage().unwrap().unwrap().get_item(TAB_ID).unwrap();
        assert_eq!(stored, Some(first));
    }
}
