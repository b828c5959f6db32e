//! The Leptos front end. Components render core values (`RunView`,
//! `Settings`, the plan, the files) and call core or `web` methods; they
//! hold no business logic (see ARCHITECTURE.md).
//!
//! Layout: `settings_panel` (provider, model, price, key, budget, rounds,
//! team), `run_view` (conversation, plan board, files, cost, Stop/Resume,
//! questions), `artifacts` (markdown with diagrams, highlighted code),
//! `theme` (system / light / dark), and here the page around them.

mod lazy;
mod preview;
mod progressive;
mod plan_edit;
mod replay;
mod role_models;
mod artifacts;
mod run_view;
mod sessions;
mod settings_panel;
mod theme;
mod versions;

use std::rc::Rc;

use leptos::prelude::*;

use crate::core::events::TeamEvent;
use crate::core::plan::Task;
use crate::core::view::RunView;
use crate::core::store::SessionRecord;
use crate::web::idb_store::IdbStore;
use crate::web::runner::Runner;
use crate::web::settings_store;

use replay::ReplayButton;
use sessions::SessionsPanel;
use settings_panel::SettingsPanel;

/// Mount the app into the page body (the site's entry point).
pub fn mount() {
    theme::apply_saved();
    leptos::mount::mount_to_body(App);
}

/// A finite number typed into a field, read by JavaScript's `Number()`
/// (Rust's float parser costs ~10 KB of wasm); `None` when blank or not a
/// number.
pub(crate) fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let n = text.parse::<js_sys::Number>().map_or(f64::NAN, |n| n.value_of());
    n.is_finite().then_some(n)
}

/// Everything the page shares between components. Signals are handles, so
/// this is `Copy`.
#[derive(Clone, Copy)]
pub struct Shared {
    pub settings: RwSignal<crate::core::settings::Settings>,
    pub key: RwSignal<String>,
    pub view: RwSignal<RunView>,
    pub plan: RwSignal<Vec<Task>>,
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
}

impl Shared {
    /// Re-read the plan and the file list from the running team's shared handles.
    pub(crate) fn refresh(&self) {
        self.runner.with_value(|runner| {
            let Some(runner) = runner else { return };
            if let Some(plan) = &runner.plan {
                if let Ok(plan) = plan.try_borrow() {
                    let tasks = plan.tasks().to_vec();
                    if self.plan.with_untracked(|p| *p != tasks) {
                        self.plan.set(tasks);
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
        plan: RwSignal::new(Vec::new()),
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
    };
    provide_context(shared);
    sessions::boot(shared);
    lazy::prefetch(shared);
    let first_visit = settings_store::first_visit();
    let idea = RwSignal::new(String::new());
    let notice = RwSignal::new(None::<String>);
    let problems = move || {
        let mut p = shared.settings.with(|s| shared.key.with(|k| s.problems(k)));
        let chars = idea.with(|i| i.trim().chars().count());
        if chars == 0 {
            p.insert(0, "Type your idea.".into());
        } else if chars > MAX_IDEA_CHARS {
            p.insert(0, format!("The idea is {chars} characters; keep it under {MAX_IDEA_CHARS}."));
        }
        p
    };
    let start = move |_| {
        if !problems().is_empty() || shared.running.get_untracked() {
            return;
        }
        let settings = shared.settings.get_untracked();
        let key = shared.key.get_untracked();
        if let Err(e) = settings_store::save(&settings, &key) {
            notice.set(Some(e));
        }
        shared.replay.set(false);
        shared.running.set(true);
        lazy::start(shared, settings, key, idea.get_untracked().trim().to_string());
    };
    view! {
        <main class="app">
            <header class="top">
                <div>
                    <h1>"tabteam"</h1>
                    <p>"A software company of AI agents that runs entirely in this tab."</p>
                </div>
                <theme::ThemeToggle/>
            </header>
            {first_visit.then(|| view! {
                <section class="card intro" aria-labelledby="what">
                    <h2 id="what">"What it does"</h2>
                    <p>
                        "Type one idea. A team leader, a product manager, an architect, a project manager, an engineer and a QA engineer "
                        "turn it into a PRD, a design with diagrams, a task list and code, here in your browser."
                    </p>
                    <p class="note">
                        "Your API key goes only from this browser to the provider you choose. There is no tabteam server. "
                        "The key is kept in memory unless you tick \u{201c}remember on this device\u{201d}."
                    </p>
                </section>
            })}
            <SettingsPanel/>
            <SessionsPanel/>
            <section class="card idea">
                <label for="idea">"Your idea"</label>
                <textarea
                    id="idea"
                    placeholder="A 2048 game in HTML and JavaScript"
                    prop:value=idea
                    on:input=move |ev| idea.set(event_target_value(&ev))
                ></textarea>
                <div class="row">
                    <button
                        class="primary"
                        data-testid="start"
                        disabled=move || !problems().is_empty() || shared.running.get()
                        on:click=start
                    >"Start the team"</button>
                    <ReplayButton/>
                    <span class="note" data-testid="idea-count">{move || format!("{} characters", idea.with(|i| i.trim().chars().count()))}</span>
                </div>
                <ul class="problems" data-testid="problems">
                    {move || problems().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
                </ul>
                {move || notice.get().map(|n| view! { <p class="error">{n}</p> })}
            </section>
            <lazy::RunArea/>
        </main>
    }
}

/// Ideas longer than this are refused with a message (a prompt that size
/// would cost a lot and help little).
pub const MAX_IDEA_CHARS: usize = 20_000;
