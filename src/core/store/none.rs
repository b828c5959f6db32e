//! `NoStore`: the store of a host that never keeps sessions (the plain
//! widget). It has no values, so a `Host<NoStore>` always holds `None`
//! for its store, and every method below is unreachable: the compiler
//! drops the saving code behind them (leases, the writer, snapshots), which
//! `Rc<dyn Store>` would keep linked. Deliberately not a store that
//! forgets what it is given: there is nothing to call.

use super::{Batch, LockRecord, NewSession, SessionData, SessionRecord, Store, StoreFuture};

/// A store that cannot exist (see the module's doc).
pub enum NoStore {}

/// Whether a store type can hold sessions, known when compiling: the host
/// reads its store and keeper only where it can, so that a `Host<NoStore>`
/// is built without the code that saves (an `async fn`'s later steps are
/// kept even after a call that cannot return: the check must come first).
pub trait MayKeep {
    const KEEPS: bool;
}

impl MayKeep for dyn Store {
    const KEEPS: bool = true;
}

impl MayKeep for NoStore {
    const KEEPS: bool = false;
}

impl Store for NoStore {
    fn list_sessions(&self) -> StoreFuture<'_, Vec<SessionRecord>> {
        match *self {}
    }
    fn session<'a>(&'a self, _: &'a str) -> StoreFuture<'a, SessionRecord> {
        match *self {}
    }
    fn insert_session(&self, _: SessionData) -> StoreFuture<'_, SessionRecord> {
        match *self {}
    }
    fn rename_session<'a>(&'a self, _: &'a str, _: &'a str, _: u64) -> StoreFuture<'a, ()> {
        match *self {}
    }
    fn delete_session<'a>(&'a self, _: &'a str, _: u64) -> StoreFuture<'a, ()> {
        match *self {}
    }
    fn load_session<'a>(&'a self, _: &'a str) -> StoreFuture<'a, SessionData> {
        match *self {}
    }
    fn commit<'a>(&'a self, _: &'a str, _: Batch) -> StoreFuture<'a, ()> {
        match *self {}
    }
    fn acquire_lock<'a>(&'a self, _: &'a str, _: &'a str, _: u64, _: u64) -> StoreFuture<'a, LockRecord> {
        match *self {}
    }
    fn release_lock<'a>(&'a self, _: &'a str, _: &'a str) -> StoreFuture<'a, ()> {
        match *self {}
    }
    // The provided methods too: their bodies would run before the
    // unreachable call they make.
    fn create_session(&self, _: NewSession) -> StoreFuture<'_, SessionRecord> {
        match *self {}
    }
    fn duplicate_session<'a>(&'a self, _: &'a str, _: &'a str, _: u64) -> StoreFuture<'a, SessionRecord> {
        match *self {}
    }
    fn renew_lock<'a>(&'a self, _: &'a str, _: &'a str, _: u64, _: u64) -> StoreFuture<'a, LockRecord> {
        match *self {}
    }
    fn export_session<'a>(&'a self, _: &'a str) -> StoreFuture<'a, String> {
        match *self {}
    }
    fn import_session<'a>(&'a self, _: &'a str, _: u64) -> StoreFuture<'a, SessionRecord> {
        match *self {}
    }
}
