//! Sessions that resume (`storageKey`): where the widget's team is kept.
//! The site's own store (`web::idb_store::IdbStore`), in a database of the
//! widget's own per storage key, holding that widget's one conversation
//! as one session (its latest).
//!
//! Here: the widget's choice of name for the database, and its opening
//! of the conversation at mount (waiting for a lease another tab holds).
//! Not here: creating, leasing, restoring or saving the session (the
//! host's, `core::host`, as on the site), or any rule of a run.

use std::rc::Rc;

use serde_json::Value;

use crate::core::store::{Store, StoreError};
use crate::web::idb_store::IdbStore;

use super::Inner;

/// How often a widget retries a conversation another tab holds.
const LEASE_RETRY_MS: u64 = 1_000;

/// The database of storage key `k` is `tabteam-widget.k`. (Versions before
/// the team was kept used `tabteam-widget-k` for a text transcript: a
/// different name, so the two never meet; the old transcript is not read.)
const DATABASE_PREFIX: &str = "tabteam-widget.";

/// The store of `storage_key`, opened (created the first time).
pub async fn open(storage_key: &str) -> Result<Rc<IdbStore>, StoreError> {
    Ok(Rc::new(IdbStore::open(&format!("{DATABASE_PREFIX}{storage_key}")).await?))
}

impl Inner {
    /// Open the conversation kept under `storage_key`, then tell the JS
    /// ("opened"): `mount` resolves then, so a `send` after it is not
    /// refused for a conversation still loading. A run the reload cut off
    /// carries on a task later: the page's code after `await mount(...)`
    /// (its tools, its context) comes first, so the call made again sees them.
    pub(super) async fn restore(self: Rc<Self>, storage_key: String) {
        let store = match open(&storage_key).await {
            Ok(store) => Some(store as Rc<dyn Store>),
            Err(e) => {
                self.problem(&format!("This conversation will not be kept over a reload: {e}"));
                None
            }
        };
        let host = self.make_host(store.clone());
        // Opened paused: the host carries a cut-off run on below.
        let mut quiet = self.settings.clone();
        quiet.auto_resume = false;
        host.configure(quiet, self.start_key("").to_string());
        if store.is_some() {
            // A tab closed a moment ago may still hold the lease (the
            // site's rule: `LEASE_MS` after its last renewal): wait for it.
            let mut waited = 0;
            loop {
                match host.open_latest().await {
                    Err(crate::core::host::Note::Storage(crate::core::store::StoreError::Locked { .. }))
                        if waited <= crate::core::host::LEASE_MS && !self.disposed.get() =>
                    {
                        self.waiting_for_lease.set(true);
                        host.note(None);
                        crate::web::transport::sleep(LEASE_RETRY_MS).await;
                        waited += LEASE_RETRY_MS;
                    }
                    Err(note) => {
                        self.problem(&format!("The saved conversation could not be opened: {note}"));
                        break;
                    }
                    Ok(_) => break,
                }
            }
        }
        self.waiting_for_lease.set(false);
        self.loading.set(false);
        self.render();
        self.emit("opened", &Value::Null);
        crate::web::transport::sleep(0).await;
        if self.disposed.get() {
            return;
        }
        host.configure(self.settings.clone(), self.start_key("").to_string());
        if host.state().phase == crate::core::host::Phase::Paused(crate::core::events::StopReason::Interrupted) {
            let _ = host.resume();
        }
    }
}
