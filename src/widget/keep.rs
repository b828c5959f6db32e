//! Sessions that resume (`storageKey`): where the widget's team is kept.
//! The site's own store (`web::idb_store::IdbStore`), in a database of the
//! widget's own per storage key, holding that widget's one conversation
//! as one session (its latest).
//!
//! Not here: creating, leasing, restoring or saving the session (the
//! host's, `core::host`, as on the site), or any rule of a run. Only the
//! widget's choice of name: the database.

use std::rc::Rc;

use crate::core::store::StoreError;
use crate::web::idb_store::IdbStore;

/// The database of storage key `k` is `tabteam-widget.k`. (Versions before
/// the team was kept used `tabteam-widget-k` for a text transcript: a
/// different name, so the two never meet; the old transcript is not read.)
const DATABASE_PREFIX: &str = "tabteam-widget.";

/// The store of `storage_key`, opened (created the first time).
pub async fn open(storage_key: &str) -> Result<Rc<IdbStore>, StoreError> {
    Ok(Rc::new(IdbStore::open(&format!("{DATABASE_PREFIX}{storage_key}")).await?))
}
