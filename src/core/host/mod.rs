//! The session host: the whole life of a session, the same for the site
//! and the widget. Create one from an idea or open a saved one (taking
//! the tab's lease), send requests, answer, stop, resume, edit the plan or
//! a file, restore a version, close; every run's end is saved, except one
//! the page itself cut off by going away. One place decides whether an
//! action may go (a missing key, settings problems, a busy team, a session
//! open in another tab) and says why in a typed `Refusal`.
//!
//! The page hears everything through its `Listener`: the team's events (to
//! fold into its `RunView`), a new view when another session is shown, and
//! one typed `HostState` (the phase, the plan, the files, the versions,
//! the cost, the note) each time it changes. It keeps no copy of its own.
//!
//! Generic over the ports: the `Store`, and an `Edge` for what only the
//! page has (time, tasks, the tab's id, the team's models over its
//! transport, the sandbox). Nothing here touches a browser or reads a
//! clock; `tests.rs` drives it natively with `MemoryStore` and the
//! scripted model.
//!
//! Not here: the rules of a run (`core::session`), the words of a run's
//! status (`view::status`), and the store's list actions (rename, export…),
//! which need no team.

mod keeper;
mod note;

#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use futures::future::LocalBoxFuture;

use super::events::{EventSink, StopReason, TeamEvent};
use super::plan::Plan;
use super::plan_edit::PlanEdit;
#[cfg(feature = "sandbox")]
use super::sandbox::ConsoleLine;
use super::session::{Session, SessionError};
use super::settings::Settings;
use super::store::{MayKeep, NewSession, SessionSettings, SessionStatus, Store, StoreError};
use super::versions::{Automatic, ProjectVersion, Spend};
use super::view::RunView;

pub use keeper::{Keeper, KeeperSink, LEASE_MS};
pub use note::{Note, Refusal};

/// How long a session title may be (taken from the idea).
pub const TITLE_CHARS: usize = 60;

/// What only the page has.
pub trait Edge {
    /// Milliseconds since the epoch (saved times, leases).
    fn now_ms(&self) -> u64;
    /// This tab's lease holder id.
    fn holder(&self) -> LocalBoxFuture<'static, String>;
    /// Run `task` on the page's event loop.
    fn spawn(&self, task: LocalBoxFuture<'static, ()>);
    /// Wait `ms` milliseconds.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
    /// The page is going away: the requests it aborts are no failure of
    /// the run, so a run's end is not saved then (the next load finds the
    /// session running and reopens it interrupted).
    fn leaving(&self) -> bool {
        false
    }
    /// A team for `settings`, its models made with `key` over the page's
    /// transport, Stop reaching its requests, its events going to `events`
    /// (the page may follow them too), with the page's sandbox and tools.
    fn session(&self, settings: &Settings, key: &str, events: EventSink) -> Session;
    /// Just before each run (the page lets its requests go again after a Stop).
    fn before_run(&self) {}
    /// The session now kept (or none): the page follows its answers
    /// streaming, to show them after a reload.
    fn kept(&self, _session_id: Option<&str>) {}
    /// What was streaming in session `id` when the page last went away, by
    /// role (taken: shown once).
    fn abandoned(&self, _session_id: &str) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// Who hears the host.
pub trait Listener {
    /// Each of the team's events (fold it into the view).
    fn event(&self, event: &TeamEvent);
    /// Show this view from now on (a new, opened or closed session).
    fn view(&self, view: RunView);
    /// Where the session stands now.
    fn state(&self, state: &HostState);
}

/// Where the open session stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Phase {
    /// No session is open (the first card).
    #[default]
    Empty,
    /// The team is at work.
    Working,
    /// The team waits for the person's answer to a question.
    Asking,
    /// A request (or Resume) waits for what only the person can give: it
    /// goes as soon as the refusal is gone (the key typed, say). Stop
    /// drops it. Nothing is saved as running meanwhile.
    Waiting(Refusal),
    /// The team stands still with work left; Resume carries on.
    Paused(StopReason),
    /// Every request is answered (or none was made yet).
    Done,
}

/// One typed state, pushed to the page each time it changes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostState {
    pub phase: Phase,
    /// The session, when it is kept.
    pub session_id: Option<String>,
    /// The open session is the sample replay (nothing is kept or spent).
    pub replay: bool,
    /// The team has had a request.
    pub started: bool,
    /// The team has a role that plans (its plan can be edited).
    pub has_plan: bool,
    pub plan: Plan,
    /// (path, version) of every project file.
    pub files: Vec<(String, u32)>,
    /// The project's versions, oldest first.
    pub versions: Vec<ProjectVersion>,
    pub automatic: Automatic,
    /// Dollars spent so far in this session.
    pub spent: f64,
    /// What storage, opening or a request could not do, in words.
    pub note: Option<Note>,
    /// Saves that landed in the store (the page's list of sessions is read
    /// again when this moves).
    pub saves: u64,
}

impl HostState {
    /// A session (or the replay) is open.
    pub fn is_open(&self) -> bool {
        self.phase != Phase::Empty
    }

    /// The team is at work (or asking the person).
    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Working | Phase::Asking)
    }

    /// Stop has something to stop: the team at work, or a request waiting.
    pub fn can_stop(&self) -> bool {
        self.running() || matches!(self.phase, Phase::Waiting(_))
    }

    /// A request may be sent now.
    pub fn at_rest(&self) -> bool {
        matches!(self.phase, Phase::Paused(_) | Phase::Done) && !self.replay
    }

    /// Resume has something to carry on.
    pub fn can_resume(&self) -> bool {
        matches!(self.phase, Phase::Paused(_))
    }

    /// The status line, the same on the site and in the widget, live or
    /// reopened: once every request is answered, what the versions say
    /// (`view::done_text`: a restore or a reload changes nothing of it);
    /// otherwise the run's own (`RunView::status`).
    pub fn status(&self, view: &RunView) -> String {
        match self.phase {
            Phase::Done if !self.replay => super::view::done_text(&self.versions).unwrap_or_else(|| view.status()),
            _ => view.status(),
        }
    }

    /// The project's files are exactly as version `number` has them (so
    /// restoring it would change nothing).
    pub fn is_current(&self, number: u32) -> bool {
        self.versions.iter().find(|v| v.number == number).is_some_and(|v| {
            v.files.len() == self.files.len() && self.files.iter().all(|(path, n)| v.files.get(path).is_some_and(|f| f.version == *n))
        })
    }

    /// The key is what is missing.
    pub fn needs_key(&self) -> bool {
        self.phase == Phase::Waiting(Refusal::NeedsKey)
    }
}

/// A request from the person (or the automatic fix mode).
#[derive(Debug, Clone)]
pub enum Request {
    /// The idea of a team that has none, or a follow-up.
    Text(String),
    /// As `Text`, with images (`data:` URLs; site only).
    #[cfg(feature = "images")]
    WithImages(String, Vec<String>),
    /// A preview error the person sends to be fixed (only a build with a
    /// preview has one: the `sandbox` feature).
    #[cfg(feature = "sandbox")]
    Fix(ConsoleLine),
    /// A preview error the automatic fix mode sends.
    #[cfg(feature = "sandbox")]
    AutoFix(ConsoleLine),
}

/// What waits for the refusal to go.
enum Pending {
    Request(Request),
    Resume,
}

/// The open session.
struct Open<S: ?Sized + Store> {
    session: Rc<Session>,
    keeper: Option<Rc<Keeper<S>>>,
    replay: bool,
    /// Why the team last stopped (`None` before its first run ends).
    stopped: Option<StopReason>,
    pending: Option<Pending>,
}

impl<S: ?Sized + Store + MayKeep> Open<S> {
    /// The keeper, read as `Inner::store` is.
    fn keeper(&self) -> Option<Rc<Keeper<S>>> {
        if S::KEEPS {
            self.keeper.clone()
        } else {
            None
        }
    }
}

/// The session host. Cheap to clone (one host per page or widget).
///
/// Generic over the store's type: `dyn Store` where sessions may be kept
/// (the site, the keeping widget), [`NoStore`] where they never are (the
/// plain widget), so that no saving code is built into it.
pub struct Host<S: ?Sized + Store = dyn Store> {
    inner: Rc<Inner<S>>,
}

impl<S: ?Sized + Store> Clone for Host<S> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

struct Inner<S: ?Sized + Store> {
    edge: Rc<dyn Edge>,
    store: Option<Rc<S>>,
    listener: Rc<dyn Listener>,
    settings: RefCell<Settings>,
    key: RefCell<String>,
    /// The person gave a key for the open session (saved with it): after
    /// a reload without it, the key is asked for whatever the preset says.
    key_given: Cell<bool>,
    open: RefCell<Option<Open<S>>>,
    /// A run is going (from the moment it is asked for to its saved end).
    going: Cell<bool>,
    /// Questions waiting for the person's answer (a few at most: a `Vec`
    /// builds smaller than a set).
    asking: RefCell<Vec<u64>>,
    /// The last state pushed.
    state: RefCell<HostState>,
    /// What the page is told about storage, opening and requests.
    note: RefCell<Option<Note>>,
    /// The session, when it is kept.
    session_id: RefCell<Option<String>>,
    /// Saves that landed (see `HostState::saves`).
    saves: Cell<u64>,
    /// Bumped by every open and close: a task of a session no longer
    /// shown does not touch the one shown now.
    generation: Cell<u64>,
}

impl<S: ?Sized + Store + MayKeep + 'static> Host<S> {
    /// A host keeping sessions in `store` (none: sessions run unsaved).
    pub fn new(
        edge: Rc<dyn Edge>,
        store: Option<Rc<S>>,
        listener: Rc<dyn Listener>,
        settings: Settings,
        key: String,
    ) -> Self {
        let inner = Inner {
            edge,
            store,
            listener,
            settings: RefCell::new(settings),
            key: RefCell::new(key),
            key_given: Cell::new(false),
            open: RefCell::default(),
            going: Cell::new(false),
            asking: RefCell::default(),
            state: RefCell::default(),
            note: RefCell::default(),
            session_id: RefCell::default(),
            saves: Cell::new(0),
            generation: Cell::new(0),
        };
        Self { inner: Rc::new(inner) }
    }

    /// Where the session stands (the last state pushed).
    pub fn state(&self) -> HostState {
        self.inner.state.borrow().clone()
    }

    /// The open session's controller, for what the page reads (a file's
    /// text, a diff, the zip, the sandbox's preview).
    pub fn session(&self) -> Option<Rc<Session>> {
        self.inner.open.borrow().as_ref().map(|o| o.session.clone())
    }

    /// The settings and key the next run takes.
    pub fn settings(&self) -> Settings {
        self.inner.settings.borrow().clone()
    }

    /// Whether the store is there.
    pub fn keeps_sessions(&self) -> bool {
        self.inner.store().is_some()
    }

    /// New settings or key (typed in Settings): taken by the next run; a
    /// request waiting for them goes now.
    pub fn configure(&self, settings: Settings, key: String) {
        let inner = &self.inner;
        *inner.settings.borrow_mut() = settings;
        *inner.key.borrow_mut() = key;
        inner.let_pending_go();
        inner.push();
    }

    /// Start a new session on `idea` with `settings` and `key`, kept in
    /// the store when there is one (a session that cannot be saved does
    /// not start: nothing is lost yet).
    pub async fn create(&self, idea: &str, settings: Settings, key: String) -> Result<(), Note> {
        let inner = &self.inner;
        let result = inner.create(idea, &[], settings, key).await;
        inner.noted(result)
    }

    /// As [`create`](Self::create), with images that go with the idea
    /// (refused in words when the settings' models take none).
    #[cfg(feature = "images")]
    pub async fn create_with_images(&self, idea: &str, images: &[String], settings: Settings, key: String) -> Result<(), Note> {
        let inner = &self.inner;
        let result = inner.create(idea, images, settings, key).await;
        inner.noted(result)
    }

    /// Open saved session `id`: its team restored, paused (or carried on,
    /// with `auto_resume`, when its run was cut off), its lease taken.
    pub async fn open(&self, id: &str) -> Result<(), Note> {
        let result = self.inner.open_saved(id).await;
        self.inner.noted(result)
    }

    /// Open the latest session in the store, if there is one (the widget's
    /// one conversation). `Ok(false)` when there is none.
    pub async fn open_latest(&self) -> Result<bool, Note> {
        let Some(store) = self.inner.store() else { return Ok(false) };
        let list = store.list_sessions().await.map_err(Note::Storage);
        let list = self.inner.noted(list)?;
        let Some(last) = list.iter().max_by_key(|s| s.updated_ms) else { return Ok(false) };
        self.open(&last.id.clone()).await.map(|_| true)
    }

    /// Play a team the page made (the sample replay) on its `idea`: not
    /// kept, no key.
    pub async fn play(&self, make: impl FnOnce(EventSink) -> Session, idea: &str) -> Result<(), Note> {
        let inner = &self.inner;
        if inner.going.get() {
            return inner.noted(Err(Refusal::Busy.into()));
        }
        inner.release().await;
        let session = Rc::new(make(inner.events()));
        inner.show(
            Open { session: session.clone(), keeper: None, replay: true, stopped: None, pending: None },
            RunView::default(),
        );
        if let Err(e) = session.send(idea) {
            return inner.noted(Err(e.into()));
        }
        inner.run();
        Ok(())
    }

    /// Send a request. It goes at once, or waits in the state (`Waiting`)
    /// for what only the person can give; refused while the team works.
    /// A refusal comes back to the caller, who shows it where it was asked.
    pub fn send(&self, request: Request) -> Result<(), Refusal> {
        self.inner.send(request)
    }

    /// Continue the open session (it waits, as a request does, for a key).
    pub fn resume(&self) -> Result<(), Refusal> {
        self.inner.resume()
    }

    /// Stop the team (its work kept, ready to resume), or drop the request
    /// waiting for a key.
    pub fn stop(&self) {
        let inner = &self.inner;
        let had = inner.open.borrow_mut().as_mut().and_then(|o| o.pending.take()).is_some();
        if let Some(open) = inner.open.borrow().as_ref() {
            open.session.stop();
        }
        if had {
            *inner.note.borrow_mut() = None;
            inner.push();
        }
    }

    /// The person answered question `id`.
    pub fn answer(&self, id: u64, text: &str) -> Result<(), Refusal> {
        let inner = &self.inner;
        let session = inner.current().ok_or(Refusal::NoSession)?;
        if !session.answer(id, text) {
            return Err(Refusal::NoQuestion);
        }
        inner.asking.borrow_mut().retain(|asked| *asked != id);
        inner.push();
        Ok(())
    }

    /// The person edits the plan (see `Session::edit_plan`); saved.
    pub fn edit_plan(&self, edit: &PlanEdit) -> Result<String, SessionError> {
        let out = self.inner.current().ok_or(SessionError::NoPlan)?.edit_plan(edit)?;
        self.inner.saved_change();
        Ok(out)
    }

    /// Put the files back as version `number` had them; saved.
    pub fn restore(&self, number: u32) -> Result<ProjectVersion, SessionError> {
        let version = self.inner.current().ok_or(SessionError::Busy)?.restore_version(number)?;
        self.inner.saved_change();
        Ok(version)
    }

    /// The person saves `content` into `path`; saved. Returns the file's version.
    pub fn edit_file(&self, path: &str, content: &str) -> Result<u32, SessionError> {
        let version = self.inner.current().ok_or(SessionError::Busy)?.edit_file(path, content)?;
        self.inner.saved_change();
        Ok(version)
    }

    /// Switch the automatic modes; saved with the session when the team
    /// is at rest (else with its next checkpoint).
    pub fn set_automatic(&self, automatic: Automatic) {
        let Some(session) = self.inner.current() else { return };
        session.set_automatic(automatic);
        if session.has_started() && !self.inner.going.get() {
            self.inner.saved_change();
        } else {
            self.inner.push();
        }
    }

    /// Close the open session (kept as it is) for a new one. Refused while
    /// the team works.
    pub async fn close(&self) -> Result<(), Note> {
        let inner = &self.inner;
        if inner.going.get() {
            return inner.noted(Err(Refusal::Busy.into()));
        }
        inner.release().await;
        inner.listener.view(RunView::default());
        *inner.note.borrow_mut() = None;
        inner.push();
        Ok(())
    }

    /// The page is done with the host (a widget unmounted): the team is
    /// stopped and the session let go at once, whatever it was doing.
    pub async fn leave(&self) {
        let inner = &self.inner;
        inner.stop_now();
        inner.release().await;
        inner.push();
    }

    /// Close session `id` if it is the one open (it is being deleted).
    pub async fn forget(&self, id: &str) {
        let inner = &self.inner;
        if inner.session_id.borrow().as_deref() == Some(id) {
            inner.stop_now();
            inner.release().await;
            inner.listener.view(RunView::default());
            inner.push();
        }
    }

    /// Show `note` (or none): what the page itself could not do.
    pub fn note(&self, note: Option<Note>) {
        self.inner.set_note(note);
    }
}

impl<S: ?Sized + Store + MayKeep + 'static> Inner<S> {
    /// The store, read only where one may be (`MayKeep`): elsewhere every
    /// saving path is known dead when compiling, and left out.
    fn store(&self) -> Option<Rc<S>> {
        if S::KEEPS {
            self.store.clone()
        } else {
            None
        }
    }

    fn current(&self) -> Option<Rc<Session>> {
        self.open.borrow().as_ref().map(|o| o.session.clone())
    }

    fn noted<T>(&self, result: Result<T, Note>) -> Result<T, Note> {
        match &result {
            Err(e) => self.set_note(Some(e.clone())),
            Ok(_) => {}
        }
        result
    }

    fn set_note(&self, note: Option<Note>) {
        *self.note.borrow_mut() = note;
        self.push();
    }

    /// The team's events go to the listener; the state follows them.
    fn events(self: &Rc<Self>) -> EventSink {
        let weak: Weak<Inner<S>> = Rc::downgrade(self);
        let generation = self.generation.get();
        EventSink::new(move |event| {
            let Some(inner) = weak.upgrade() else { return };
            // A team no longer shown (closed a moment ago) is not heard.
            if inner.generation.get() != generation {
                return;
            }
            inner.listener.event(event);
            match event {
                TeamEvent::LlmDelta { .. } => return,
                TeamEvent::AskHuman { id, .. } => {
                    inner.asking.borrow_mut().push(*id);
                }
                TeamEvent::Stopped { .. } => inner.asking.borrow_mut().clear(),
                _ => {}
            }
            inner.push();
        })
    }

    /// Why a run may not go now with the settings and key at hand.
    fn blocked(&self) -> Option<Refusal> {
        let settings = self.settings.borrow();
        let key = self.key.borrow();
        let no_key = key.trim().is_empty();
        let problems = settings.problems(&key);
        let key_needed = no_key && (self.key_given.get() || settings.preset().is_some_and(|p| p.needs_key));
        if key_needed {
            return Some(Refusal::NeedsKey);
        }
        (!problems.is_empty()).then(|| Refusal::Settings(problems))
    }

    async fn create(self: &Rc<Self>, idea: &str, images: &[String], settings: Settings, key: String) -> Result<(), Note> {
        if self.going.get() {
            return Err(Refusal::Busy.into());
        }
        let idea = idea.trim().to_string();
        if idea.is_empty() {
            return Err(SessionError::Empty.into());
        }
        *self.settings.borrow_mut() = settings.clone();
        *self.key.borrow_mut() = key.clone();
        self.key_given.set(!key.trim().is_empty());
        if let Some(refusal) = self.blocked() {
            return Err(refusal.into());
        }
        #[cfg(feature = "images")]
        crate::core::image_check::check(images, &settings).map_err(Refusal::from)?;
        self.release().await;
        let session = Rc::new(self.edge.session(&settings, &key, self.events()));
        // Shown first: the idea's own events go to the new view.
        self.show(
            Open { session: session.clone(), keeper: None, replay: false, stopped: None, pending: None },
            RunView::default(),
        );
        #[cfg(feature = "images")]
        session.send_with_images(&idea, images)?;
        #[cfg(not(feature = "images"))]
        {
            let _ = images;
            session.send(&idea)?;
        }
        if let Some(store) = self.store() {
            let mut kept = SessionSettings::of(&settings);
            kept.key_given = self.key_given.get();
            let new = NewSession {
                title: title_of(&idea),
                idea: idea.clone(),
                team_kind: settings.team.id().to_string(),
                settings: kept,
                now_ms: self.edge.now_ms(),
            };
            let generation = self.generation.get();
            let keeper = match Keeper::create(store, self.edge.clone(), new).await {
                Ok(keeper) => Rc::new(keeper),
                Err(e) => return Err(Note::NotStarted(e)),
            };
            if self.generation.get() != generation {
                keeper.release().await;
                return Ok(());
            }
            if let Err(e) = self.keep(&session, keeper, SessionStatus::Running).await {
                return Err(Note::NotStarted(e));
            }
        }
        *self.note.borrow_mut() = None;
        self.run();
        Ok(())
    }

    async fn open_saved(self: &Rc<Self>, id: &str) -> Result<(), Note> {
        let Some(store) = self.store() else {
            return Err(Note::Storage(StoreError::Unavailable("no store".into())));
        };
        if self.going.get() {
            return Err(Refusal::Busy.into());
        }
        self.release().await;
        let (keeper, data) = Keeper::open(store, self.edge.clone(), id).await?;
        let keeper = Rc::new(keeper);
        let mut snapshot = match data.snapshot() {
            Ok(Some(snapshot)) => snapshot,
            Ok(None) => {
                keeper.release().await;
                return Err(Note::NothingSaved);
            }
            Err(e) => {
                keeper.release().await;
                return Err(Note::Storage(e));
            }
        };
        // What was streaming when the tab closed: read from the page once,
        // kept in the session from here on (saved by `keep` below).
        for (role, text) in self.edge.abandoned(id) {
            snapshot.project.abandoned_answer(snapshot.ids.peek(), &role, &text);
        }
        let saved = &data.session;
        let settings = saved.settings.apply_to(&self.settings.borrow(), &saved.team_kind, &snapshot.ledger.prices);
        *self.settings.borrow_mut() = settings.clone();
        self.key_given.set(saved.settings.key_given);
        let session = self.edge.session(&settings, &self.key.borrow().clone(), self.events());
        if let Err(e) = session.restore(snapshot.clone()) {
            keeper.release().await;
            return Err(Note::CannotOpen(e));
        }
        let (reason, status) = session.reopened(saved.status);
        let view = RunView::restored(&snapshot, reason.clone());
        let session = Rc::new(session);
        self.show(
            Open {
                session: session.clone(),
                keeper: None,
                replay: false,
                stopped: Some(reason.clone()),
                pending: None,
            },
            view,
        );
        let kept = self.keep(&session, keeper, status).await;
        *self.note.borrow_mut() = kept.as_ref().err().map(|e| Note::Storage(e.clone()));
        self.push();
        if reason == StopReason::Interrupted && settings.auto_resume {
            let _ = self.resume();
        }
        kept.map_err(Note::Storage)
    }

    /// Keep `session` in `keeper` from now on; saved as it stands first.
    async fn keep(&self, session: &Session, keeper: Rc<Keeper<S>>, status: SessionStatus) -> Result<(), StoreError> {
        if !S::KEEPS {
            // Before the first await, so the rest is left out of the build.
            return Err(StoreError::Unavailable("no store".into()));
        }
        let snapshot = {
            let mut team = session.team().borrow_mut();
            team.keep_durable(Rc::new(keeper.sink()));
            team.snapshot()
        };
        self.edge.kept(Some(&keeper.session_id));
        if let Some(open) = self.open.borrow_mut().as_mut() {
            open.keeper = Some(keeper.clone());
        }
        *self.session_id.borrow_mut() = Some(keeper.session_id.clone());
        keeper.save(snapshot, status).await
    }

    /// Show `open` from now on, with `view`.
    fn show(self: &Rc<Self>, open: Open<S>, view: RunView) {
        self.asking.borrow_mut().clear();
        *self.open.borrow_mut() = Some(open);
        *self.session_id.borrow_mut() = None;
        *self.note.borrow_mut() = None;
        self.listener.view(view);
        self.push();
    }

    /// Let the open session go (its lease released), if there is one.
    async fn release(&self) {
        self.generation.set(self.generation.get() + 1);
        self.going.set(false);
        self.asking.borrow_mut().clear();
        let open = self.open.borrow_mut().take();
        *self.session_id.borrow_mut() = None;
        self.edge.kept(None);
        if let Some(keeper) = open.and_then(|o| o.keeper()) {
            keeper.release().await;
        }
    }

    /// Stop at once what runs (the session is being deleted).
    fn stop_now(&self) {
        if let Some(session) = self.current() {
            session.stop();
        }
    }

    fn send(self: &Rc<Self>, request: Request) -> Result<(), Refusal> {
        let replay = {
            let open = self.open.borrow();
            let Some(open) = open.as_ref() else { return Err(Refusal::NoSession) };
            open.replay
        };
        if replay {
            return Err(Refusal::Replay);
        }
        if self.going.get() {
            return Err(Refusal::Busy);
        }
        if matches!(&request, Request::Text(text) if text.trim().is_empty()) {
            return Err(SessionError::Empty.into());
        }
        #[cfg(feature = "images")]
        if let Request::WithImages(text, images) = &request {
            if text.trim().is_empty() {
                return Err(SessionError::Empty.into());
            }
            crate::core::image_check::check(images, &self.settings.borrow())?;
        }
        if let Some(refusal) = self.blocked() {
            self.wait(Pending::Request(request), refusal);
            return Ok(());
        }
        self.go(Pending::Request(request))
    }

    fn resume(self: &Rc<Self>) -> Result<(), Refusal> {
        let replay = {
            let open = self.open.borrow();
            let Some(open) = open.as_ref() else { return Err(Refusal::NoSession) };
            open.replay
        };
        if self.going.get() {
            return Err(Refusal::Busy);
        }
        if let Some(refusal) = (!replay).then(|| self.blocked()).flatten() {
            self.wait(Pending::Resume, refusal);
            return Ok(());
        }
        self.go(Pending::Resume)
    }

    /// `pending` waits for `refusal` to go; the state says why.
    fn wait(&self, pending: Pending, refusal: Refusal) {
        if let Some(open) = self.open.borrow_mut().as_mut() {
            open.pending = Some(pending);
        }
        *self.note.borrow_mut() = Some(Note::Refused(refusal));
        self.push();
    }

    /// What waited goes, if nothing stands in its way any more.
    fn let_pending_go(self: &Rc<Self>) {
        let waiting = self.open.borrow().as_ref().is_some_and(|o| o.pending.is_some());
        if !waiting || self.going.get() {
            return;
        }
        match self.blocked() {
            Some(refusal) => *self.note.borrow_mut() = Some(Note::Refused(refusal)),
            None => {
                let pending = self.open.borrow_mut().as_mut().and_then(|o| o.pending.take());
                *self.note.borrow_mut() = None;
                if let Some(pending) = pending {
                    if let Err(e) = self.go(pending) {
                        *self.note.borrow_mut() = Some(Note::Refused(e));
                    }
                }
            }
        }
    }

    /// Hand the request to the team with the settings at hand and run.
    fn go(self: &Rc<Self>, pending: Pending) -> Result<(), Refusal> {
        let (session, replay) = {
            let open = self.open.borrow();
            let Some(open) = open.as_ref() else { return Err(Refusal::NoSession) };
            (open.session.clone(), open.replay)
        };
        if !replay {
            // The key, prices or budget may have been fixed meanwhile.
            session.reconfigure(&self.settings.borrow(), &self.key.borrow())?;
        }
        match pending {
            Pending::Request(Request::Text(text)) => session.send(&text)?,
            #[cfg(feature = "images")]
            Pending::Request(Request::WithImages(text, images)) => session.send_with_images(&text, &images)?,
            #[cfg(feature = "sandbox")]
            Pending::Request(Request::Fix(error)) => session.fix(&error)?,
            #[cfg(feature = "sandbox")]
            Pending::Request(Request::AutoFix(error)) => session.auto_fix(&error)?,
            Pending::Resume => {}
        }
        *self.note.borrow_mut() = None;
        self.run();
        Ok(())
    }

    /// Run the open team on the page's event loop: saved as running first
    /// (a reload finds the request), its end saved unless the page itself
    /// cut it off.
    fn run(self: &Rc<Self>) {
        let Some((session, keeper)) = self.open.borrow().as_ref().map(|o| (o.session.clone(), o.keeper())) else {
            return;
        };
        self.going.set(true);
        self.push();
        let (this, generation) = (self.clone(), self.generation.get());
        self.edge.spawn(Box::pin(async move {
            if let Some(keeper) = &keeper {
                let snapshot = session.team().try_borrow().ok().map(|team| team.snapshot());
                if let Some(snapshot) = snapshot {
                    if let Err(e) = keeper.save(snapshot, SessionStatus::Running).await {
                        *this.note.borrow_mut() = Some(Note::Storage(e));
                    }
                }
            }
            this.edge.before_run();
            let end = session.run().await;
            if this.generation.get() != generation {
                return;
            }
            let Some(end) = end else {
                this.going.set(false);
                this.push();
                return;
            };
            if this.edge.leaving() {
                return;
            }
            if let Some(keeper) = &keeper {
                let snapshot = session.team().try_borrow().ok().map(|team| team.snapshot());
                if let Some(snapshot) = snapshot {
                    match keeper.save(snapshot, end.status).await {
                        Ok(()) => this.saves.set(this.saves.get() + 1),
                        Err(e) => *this.note.borrow_mut() = Some(Note::Storage(e)),
                    }
                }
            }
            if this.generation.get() != generation {
                return;
            }
            if let Some(open) = this.open.borrow_mut().as_mut() {
                open.stopped = Some(end.outcome.stop.clone());
            }
            this.going.set(false);
            this.push();
        }));
    }

    /// After a change made without the team (a restore, a hand edit, a
    /// plan edit): saved as it stands, and shown.
    fn saved_change(self: &Rc<Self>) {
        self.push();
        let Some((session, Some(keeper))) = self.open.borrow().as_ref().map(|o| (o.session.clone(), o.keeper()))
        else {
            return;
        };
        if self.going.get() {
            return;
        }
        let status = if session.is_idle() { SessionStatus::Finished } else { SessionStatus::Paused };
        let Ok(snapshot) = session.team().try_borrow().map(|team| team.snapshot()) else { return };
        let this = self.clone();
        self.edge.spawn(Box::pin(async move {
            match keeper.save(snapshot, status).await {
                Ok(()) => {
                    this.saves.set(this.saves.get() + 1);
                    this.push();
                }
                Err(e) => this.set_note(Some(Note::Storage(e))),
            }
        }));
    }

    /// The state as it stands; pushed when it changed.
    fn push(&self) {
        let next = self.read_state();
        if *self.state.borrow() == next {
            return;
        }
        *self.state.borrow_mut() = next.clone();
        self.listener.state(&next);
    }

    fn read_state(&self) -> HostState {
        let mut state = HostState {
            session_id: self.session_id.borrow().clone(),
            note: self.note.borrow().clone(),
            saves: self.saves.get(),
            ..HostState::default()
        };
        let open = self.open.borrow();
        let Some(open) = open.as_ref() else {
            return state;
        };
        let session = &open.session;
        state.replay = open.replay;
        state.phase = if self.going.get() {
            if self.asking.borrow().is_empty() {
                Phase::Working
            } else {
                Phase::Asking
            }
        } else if let Some(Note::Refused(refusal)) = state.note.clone().filter(|_| open.pending.is_some()) {
            Phase::Waiting(refusal)
        } else if session.has_work_left() {
            Phase::Paused(open.stopped.clone().unwrap_or(StopReason::Cancelled))
        } else {
            Phase::Done
        };
        // While the team runs it is borrowed: what it holds is as last read.
        let last = self.state.borrow();
        state.started = if session.team().try_borrow().is_ok() { session.has_started() } else { last.started };
        drop(last);
        state.has_plan = session.plan.is_some();
        if let Some(plan) = &session.plan {
            if let Ok(plan) = plan.try_borrow() {
                state.plan = plan.clone();
            }
        }
        if let Ok(files) = session.files.try_borrow() {
            state.files =
                files.paths().into_iter().map(|p| (p.to_string(), files.version(p).unwrap_or_default())).collect();
        }
        if let Ok(project) = session.project.try_borrow() {
            state.versions = project.versions.clone();
            state.automatic = project.automatic;
        }
        if let Ok(team) = session.team().try_borrow() {
            state.spent = Spend::of(&team.ledger.borrow().total()).cost;
        } else {
            state.spent = self.state.borrow().spent;
        }
        state
    }
}

/// A session's title: the idea's first line, cut at `TITLE_CHARS`.
pub fn title_of(idea: &str) -> String {
    let line = idea.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}
