//! The Leptos front end. Components render core values (`RunView`,
//! `Settings`, the host's `HostState`) and call the session host; they
//! hold no business logic (see ARCHITECTURE.md).
//!
//! Layout: `host` (the page's side of the session host), `top_bar` (name, `sessions`' switcher, cost, Settings button),
//! `settings_dialog` (every setting: `settings_panel`, `role_models`,
//! `theme`), `first_card` (provider, model, key and the idea while no run
//! is open), `run_view` (status, Stop/Resume, conversation, plan board,
//! files) laid out by `workspace` (conversation left, tabs right),
//! `artifacts` (markdown with diagrams, highlighted code), and here the
//! page around them.

mod docs;
mod first_card;
mod host;
mod in_tab_model;
mod lazy;
mod lazy_project;
mod preview;
mod progressive;
mod plan_edit;
mod replay;
mod role_models;
mod artifacts;
mod attach;
mod run_view;
mod sessions;
mod settings_dialog;
mod settings_panel;
mod share;
mod theme;
mod top_bar;
mod versions;
mod workspace;

use std::rc::Rc;

use leptos::prelude::*;

use crate::core::host::{Host, HostState, Phase};
use crate::core::plan::Plan;
use crate::core::store::SessionRecord;
use crate::core::versions::ProjectVersion;
use crate::core::view::RunView;
use crate::web::edge::BrowserEdge;
use crate::web::idb_store::IdbStore;
use crate::web::settings_store;


/// Mount the app into the page body (the site's entry point).
pub fn mount() {
    theme::apply_saved();
    leptos::mount::mount_to_body(App);
}

/// A finite number typed into a field; `None` when blank or not a number.
pub(crate) fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Everything the page shares between components. Signals are handles, so
/// this is `Copy`. What a session is and does is the host's
/// (`core::host::Host`): the page holds its last pushed `state` and reads
/// the rest from it; it keeps no copy of its own.
#[derive(Clone, Copy)]
pub struct Shared {
    pub settings: RwSignal<crate::core::settings::Settings>,
    pub key: RwSignal<String>,
    /// The conversation and status, folded from the team's events.
    pub view: RwSignal<RunView>,
    /// Where the open session stands, as the host pushed it last.
    pub state: RwSignal<HostState>,
    pub plan: Memo<Plan>,
    /// (path, version) of every project file.
    pub files: Memo<Vec<(String, u32)>>,
    /// The project's versions, oldest first.
    pub versions: Memo<Vec<ProjectVersion>>,
    /// The team is at work (or asking).
    pub running: Memo<bool>,
    /// The session shown, when it is kept.
    pub session_id: Memo<Option<String>>,
    /// The run is the sample replay (labelled as such; nothing is spent).
    pub replay: Memo<bool>,
    /// The session host, made with the run module (`lazy`).
    pub host: StoredValue<Option<Host>, LocalStorage>,
    /// The host's browser ports (the preview shows their sandbox).
    pub edge: StoredValue<Option<Rc<BrowserEdge>>, LocalStorage>,
    /// Where sessions are kept (none when the browser offers no IndexedDB).
    pub store: StoredValue<Option<Rc<IdbStore>>, LocalStorage>,
    /// The store is open (`store` itself is not reactive).
    pub store_ready: RwSignal<bool>,
    pub sessions: RwSignal<Vec<SessionRecord>>,
    /// What the page itself could not do (a file not read, the run's code
    /// not loaded, storage not opened), in words.
    pub storage_note: RwSignal<Option<String>>,
    /// The run panel, once its code is loaded (`lazy`).
    pub run_panel: RwSignal<Option<ViewFn>>,
    /// The page a share link opened (`share`), in place of everything else.
    pub share_view: RwSignal<Option<ViewFn>>,
    /// The module `project` (the Project side's tabs, the share page, the
    /// sandbox's work): see `lazy_project`.
    pub project: RwSignal<lazy_project::ProjectLoad>,
    /// The element picked in the preview, the composer's chip until sent.
    pub picked: RwSignal<Option<crate::core::sandbox::pick::PickedElement>>,
    /// The images of the request being written (the first card's, then
    /// the composer's), until it goes.
    pub attached: attach::Attached,
}

impl Shared {
    /// A run (or an opened session, or the replay) fills the page; until
    /// then the first card does.
    pub(crate) fn run_shown(&self) -> bool {
        self.state.with(HostState::is_open) || self.view.with(|v| v.state != crate::core::view::RunState::NotStarted)
    }

    /// The host, when the run module has made it.
    pub(crate) fn host(&self) -> Option<Host> {
        self.host.get_value()
    }

    /// The open session's files (the host's; read, never kept).
    pub(crate) fn project_files(&self) -> Option<Rc<std::cell::RefCell<crate::core::files::ProjectFiles>>> {
        self.host.with_value(|h| h.as_ref().and_then(Host::session)).map(|s| s.files.clone())
    }

    /// The text of project file `path`, as it stands.
    pub(crate) fn read_file(&self, path: &str) -> Option<String> {
        self.project_files()?.try_borrow().ok()?.read(path).ok().map(str::to_string)
    }

    /// What the banner says: the page's own note, else the host's (a
    /// request waiting for a key is said beside Resume instead).
    pub(crate) fn banner(&self) -> Option<String> {
        self.storage_note.get().or_else(|| {
            self.state.with(|s| match (&s.phase, &s.note) {
                (Phase::Waiting(_), _) => None,
                (_, note) => note.as_ref().map(ToString::to_string),
            })
        })
    }

    /// Why a request or Resume waits (the key, say), in words.
    pub(crate) fn waiting(&self) -> Option<String> {
        self.state.with(|s| match &s.phase {
            Phase::Waiting(why) => Some(why.to_string()),
            _ => None,
        })
    }
}

/// The site's root component.
#[component]
pub fn App() -> impl IntoView {
    let state = RwSignal::new(HostState::default());
    let shared = Shared {
        settings: RwSignal::new(settings_store::load()),
        key: RwSignal::new(settings_store::remembered_key()),
        view: RwSignal::new(RunView::default()),
        state,
        plan: Memo::new(move |_| state.with(|s| s.plan.clone())),
        files: Memo::new(move |_| state.with(|s| s.files.clone())),
        versions: Memo::new(move |_| state.with(|s| s.versions.clone())),
        running: Memo::new(move |_| state.with(HostState::running)),
        session_id: Memo::new(move |_| state.with(|s| s.session_id.clone())),
        replay: Memo::new(move |_| state.with(|s| s.replay)),
        host: StoredValue::new_local(None),
        edge: StoredValue::new_local(None),
        store: StoredValue::new_local(None),
        store_ready: RwSignal::new(false),
        sessions: RwSignal::new(Vec::new()),
        storage_note: RwSignal::new(None),
        run_panel: RwSignal::new(None),
        share_view: RwSignal::new(None),
        project: RwSignal::new(Default::default()),
        picked: RwSignal::new(None),
        attached: attach::Attached::new(),
    };
    provide_context(shared);
    settings_dialog::provide();
    host::boot(shared);
    lazy::prefetch(shared);
    if let Some(hash) = crate::web::share::current() {
        lazy::open_share(shared, hash);
    }
    // Remembered for the next visit; the first card is the same either way.
    let _ = settings_store::first_visit();
    let idea = RwSignal::new(String::new());
    // Once a run is under way its idea is in the conversation: the next
    // first card ("New session") starts empty.
    Effect::new(move |_| {
        let started = shared.view.with(|v| v.state != crate::core::view::RunState::NotStarted);
        if started && !idea.with_untracked(String::is_empty) {
            idea.set(String::new());
        }
    });
    view! {
        <div class="app">
            <top_bar::TopBar/>
            {move || shared.banner().map(|n| view! {
                <p class="error banner" role="alert"><span data-testid="storage-note">{n}</span>
                    <button class="ghost small" aria-label="Dismiss" on:click=move |_| lazy::dismiss(shared)>"×"</button>
                </p>
            })}
            <main class="stage">
                {move || match shared.share_view.get() {
                    Some(page) => page.run(),
                    None => view! {
                        <Show when=move || shared.run_shown() fallback=move || view! { <div class="first-wrap"><first_card::FirstCard idea/></div> }>
                            <lazy::RunArea/>
                        </Show>
                    }.into_any(),
                }}
            </main>
            <settings_dialog::SettingsDialog/>
        </div>
    }
}

/// Ideas longer than this are refused with a message (a prompt that size
/// would cost a lot and help little).
pub const MAX_IDEA_CHARS: usize = 20_000;
