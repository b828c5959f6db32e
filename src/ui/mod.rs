//! The Leptos front end. Components render core values (`RunView`,
//! `Settings`, the plan, the files) and call core or `web` methods; they
//! hold no business logic (see ARCHITECTURE.md).
//!
//! Layout: `top_bar` (name, `sessions`' switcher, cost, Settings button),
//! `settings_dialog` (every setting: `settings_panel`, `role_models`,
//! `theme`), `first_card` (provider, model, key and the idea while no run
//! is open), `run_view` (status, Stop/Resume, conversation, plan board,
//! files) laid out by `workspace` (conversation left, tabs right),
//! `artifacts` (markdown with diagrams, highlighted code), and here the
//! page around them.

mod docs;
mod first_card;
mod lazy;
mod preview;
mod progressive;
mod plan_edit;
mod replay;
mod role_models;
mod artifacts;
mod run_view;
mod sessions;
mod settings_dialog;
mod settings_panel;
mod theme;
mod top_bar;
mod versions;
mod workspace;

use std::rc::Rc;

use leptos::prelude::*;

use crate::core::events::TeamEvent;
use crate::core::plan::Plan;
use crate::core::view::RunView;
use crate::core::store::SessionRecord;
use crate::web::idb_store::IdbStore;
use crate::web::runner::Runner;
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
/// this is `Copy`.
#[derive(Clone, Copy)]
pub struct Shared {
    pub settings: RwSignal<crate::core::settings::Settings>,
    pub key: RwSignal<String>,
    pub view: RwSignal<RunView>,
    pub plan: RwSignal<Plan>,
    /// (path, version) of every project file.
    pub files: RwSignal<Vec<(String, u32)>>,
    pub running: RwSignal<bool>,
    pub runner: StoredValue<Option<Rc<Runner>>, LocalStorage>,
    /// Where sessions are kept (none when the browser offers no IndexedDB).
    pub store: StoredValue<Option<Rc<IdbStore>>, LocalStorage>,
    /// The store is open (`store` itself is not reactive).
    pub store_ready: RwSignal<bool>,
    pub sessions: RwSignal<Vec<SessionRecord>>,
    /// The session shown, when it is kept.
    pub session_id: RwSignal<Option<String>>,
    /// What storage could not do, in words.
    pub storage_note: RwSignal<Option<String>>,
    /// Why Resume could not go on (no key after a reload, say); the key
    /// field is highlighted while it says so.
    pub resume_note: RwSignal<Option<String>>,
    /// The run is the sample replay (labelled as such; nothing is spent).
    pub replay: RwSignal<bool>,
    /// The run panel, once its code is loaded (`lazy`).
    pub run_panel: RwSignal<Option<ViewFn>>,
    /// The project's versions, oldest first (re-read by `refresh`).
    pub versions: RwSignal<Vec<crate::core::versions::ProjectVersion>>,
    /// Counts the runs that ended (the runner is not reactive: this tells
    /// the page a run has closed its version and the team is at rest).
    pub run_ends: RwSignal<u64>,
    /// The team stands still with work left for Resume (re-read by
    /// `refresh`; `Session::has_work_left`).
    pub work_left: RwSignal<bool>,
}

impl Shared {
    /// A run (or an opened session, or the replay) fills the page; until
    /// then the first card does.
    pub(crate) fn run_shown(&self) -> bool {
        self.running.get() || self.view.with(|v| v.state != crate::core::view::RunState::NotStarted)
    }

    /// Re-read the plan, the file list, the versions and whether work is
    /// left from the running team's shared handles.
    pub(crate) fn refresh(&self) {
        self.runner.with_value(|runner| {
            let Some(runner) = runner else { return };
            let work_left = runner.session.has_work_left();
            if self.work_left.get_untracked() != work_left {
                self.work_left.set(work_left);
            }
            if let Some(plan) = &runner.plan {
                if let Ok(plan) = plan.try_borrow() {
                    if self.plan.with_untracked(|p| *p != *plan) {
                        self.plan.set(plan.clone());
                    }
                }
            }
            if let Ok(files) = runner.files.try_borrow() {
                let list: Vec<(String, u32)> = files
                    .paths()
                    .into_iter()
                    .map(|p| (p.to_string(), files.version(p).unwrap_or_default()))
                    .collect();
                if self.files.with_untracked(|f| *f != list) {
                    self.files.set(list);
                }
            }
            if let Ok(project) = runner.project.try_borrow() {
                if self.versions.with_untracked(|v| *v != project.versions) {
                    self.versions.set(project.versions.clone());
                }
            }
        });
    }

    pub(crate) fn on_event(&self, event: &TeamEvent) {
        self.view.update(|v| v.apply(event));
        match event {
            TeamEvent::RoundStarted { .. } => self.running.set(true),
            TeamEvent::Stopped { .. } => {
                self.running.set(false);
                self.refresh();
            }
            TeamEvent::LlmDelta { .. } => {}
            _ => self.refresh(),
        }
    }
}

/// The site's root component.
#[component]
pub fn App() -> impl IntoView {
    let shared = Shared {
        settings: RwSignal::new(settings_store::load()),
        key: RwSignal::new(settings_store::remembered_key()),
        view: RwSignal::new(RunView::default()),
        plan: RwSignal::new(Plan::default()),
        files: RwSignal::new(Vec::new()),
        running: RwSignal::new(false),
        runner: StoredValue::new_local(None),
        store: StoredValue::new_local(None),
        store_ready: RwSignal::new(false),
        sessions: RwSignal::new(Vec::new()),
        session_id: RwSignal::new(None),
        storage_note: RwSignal::new(None),
        resume_note: RwSignal::new(None),
        replay: RwSignal::new(false),
        run_panel: RwSignal::new(None),
        versions: RwSignal::new(Vec::new()),
        run_ends: RwSignal::new(0),
        work_left: RwSignal::new(false),
    };
    provide_context(shared);
    settings_dialog::provide();
    sessions::boot(shared);
    lazy::prefetch(shared);
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
            {move || shared.storage_note.get().map(|n| view! {
                <p class="error banner" role="alert"><span data-testid="storage-note">{n}</span>
                    <button class="ghost small" aria-label="Dismiss" on:click=move |_| shared.storage_note.set(None)>"×"</button>
                </p>
            })}
            <main class="stage">
                <Show when=move || shared.run_shown() fallback=move || view! { <div class="first-wrap"><first_card::FirstCard idea/></div> }>
                    <lazy::RunArea/>
                </Show>
            </main>
            <settings_dialog::SettingsDialog/>
        </div>
    }
}

/// Ideas longer than this are refused with a message (a prompt that size
/// would cost a lot and help little).
pub const MAX_IDEA_CHARS: usize = 20_000;
