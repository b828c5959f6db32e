//! Sessions that resume (`storageKey`): where the widget's team is kept.
//! The site's own store and lease (`web::idb_store::IdbStore`,
//! `web::session::Keeper`), in a database of the widget's own per storage
//! key, holding that widget's one conversation as one session.
//!
//! Not here: restoring the team and its conversation (`Runner::restored_*`,
//! `RunView::restored`, in `mod.rs` as the site's `ui::sessions` does it),
//! or any rule of a run. Only the widget's choices of names: the database,
//! which session is "the conversation", its title.

use std::rc::Rc;

use crate::core::settings::Settings;
use crate::core::store::{NewSession, SessionData, SessionSettings, Store, StoreError};
use crate::web::idb_store::IdbStore;
use crate::web::session::{now_ms, Keeper};

/// The database of storage key `k` is `tabteam-widget.k`. (Versions before
/// the team was kept used `tabteam-widget-k` for a text transcript: a
/// different name, so the two never meet; the old transcript is not read.)
const DATABASE_PREFIX: &str = "tabteam-widget.";

/// How much of the first message names the session.
const TITLE_CHARS: usize = 60;

/// The store of `storage_key`, opened (created the first time).
pub async fn open(storage_key: &str) -> Result<Rc<IdbStore>, StoreError> {
    Ok(Rc::new(IdbStore::open(&format!("{DATABASE_PREFIX}{storage_key}")).await?))
}

/// The conversation kept in `store` (its latest session, if there are
/// several), leased to this tab, with what it holds; `None` before the
/// first message.
pub async fn latest(store: &Rc<IdbStore>) -> Result<Option<(Keeper, SessionData)>, StoreError> {
    let list = store.list_sessions().await?;
    let Some(last) = list.iter().max_by_key(|s| s.updated_ms) else { return Ok(None) };
    Keeper::open(store.clone(), &last.id).await.map(Some)
}

/// A new session for the conversation that starts with `idea`.
pub async fn create(store: &Rc<IdbStore>, settings: &Settings, idea: &str) -> Result<Keeper, StoreError> {
    let new = NewSession {
        title: idea.chars().take(TITLE_CHARS).collect(),
        idea: idea.to_string(),
        team_kind: settings.team.id().to_string(),
        settings: SessionSettings::of(settings),
        now_ms: now_ms(),
    };
    Keeper::create(store.clone(), new).await
}
