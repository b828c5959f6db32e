//! The run controller: the life of one session's team, the same for the
//! site and the widget. Start with an idea; run; stop; resume; answer a
//! question; edit the plan; send a follow-up, a preview error to fix, or
//! a file changed by hand; list, diff and restore project versions.
//!
//! It is generic over the ports the core already has: the model comes in
//! as an `Llm` (or a `Models` maker, for per-role models and new settings),
//! the person as the `HumanDesk`, the project's code runs in the world's
//! `Sandbox`, durability is the team's `Durable` sink (`keep_durable`),
//! and Stop reaches the calls in flight through a `Stopper` the caller
//! gives. Nothing here spawns a task, reads a clock or touches a browser:
//! the page drives `run` on its own event loop.
//!
//! Rules (each tested in `tests.rs`):
//! - A request (the idea, a follow-up, a fix) is refused while the team
//!   works; it is accepted when the team is done, stopped, or paused.
//! - Every request ends in a project version when the team is next idle;
//!   a request sent while another is unfinished closes that one first.
//! - A restore or a hand edit is told to the team with its next request,
//!   or when it resumes, never as a request of its own.
//! - A version whose tests fail where the version before passed is marked;
//!   with automatic rollback, the last passing version is restored at once.
//! - Automatic fixes send at most 3 preview errors since the person's last
//!   request, and none while the team works.

mod request;

#[cfg(test)]
pub(crate) mod tests;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::events::{EventSink, StopReason, TeamEvent};
use super::files::ProjectFiles;
use super::human::HumanDesk;
use super::llm::Llm;
use super::message::ActionKind;
use super::plan::Plan;
use super::plan_edit::PlanEdit;
use super::recipes::{assign_models, build_team};
use super::sandbox::ConsoleLine;
#[cfg(feature = "sandbox")]
use super::sandbox::{snapshot as files_snapshot, TestReport};
use super::settings::{Settings, TeamKind};
use super::snapshot::{SnapshotError, TeamSnapshot};
use super::store::SessionStatus;
use super::team::{RunOutcome, Team};
use super::versions::{diff_versions, Automatic, FileDiff, ProjectLog, ProjectVersion, RequestKind, Spend, TestSummary, VersionError, AUTO_FIXES_PER_VERSION};

pub use request::{fix_text, shown_of_legacy, PREVIEW_ERROR};

/// Makes the provider's model of a given name with the session's settings
/// and key (the page's HTTP client; a scripted model in tests).
pub type MakeModel = Rc<dyn Fn(&Settings, &str, &str) -> Rc<dyn Llm>>;

/// Where the models come from.
pub enum Models {
    /// One model for every role, whatever the settings say (a replay).
    Given(Rc<dyn Llm>),
    /// Made from the settings and the key, per role where the settings
    /// name another model.
    Made { key: String, make: MakeModel },
}

/// Aborts what is in flight when the person presses Stop (the page's
/// requests, a replay's typing). The controller cancels waiting questions
/// itself.
pub type Stopper = Rc<dyn Fn()>;

/// Why the controller refused, in words for the person.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("The team is at work: wait for it to finish, or press Stop, then send this again.")]
    Busy,
    #[error("Type what you want the team to do first.")]
    Empty,
    #[error("This team has no plan to edit.")]
    NoPlan,
    #[error("{0}")]
    PlanEdit(String),
    #[error("{0}")]
    File(String),
    #[error("{0}")]
    Version(#[from] VersionError),
    #[error("The preview's errors were sent to the team {0} times for this version already; ask for the fix yourself if you still want one.")]
    TooManyFixes(u32),
    #[error("This session cannot be opened: {0}")]
    Restore(#[from] SnapshotError),
}

/// How a run ended, for the page to save and show.
#[derive(Debug)]
pub struct RunEnd {
    pub outcome: RunOutcome,
    /// Where the session stands now.
    pub status: SessionStatus,
    /// The version this run's request ended in, if it ended.
    pub version: Option<ProjectVersion>,
    /// The version restored because the new one broke the tests.
    pub rolled_back_to: Option<u32>,
}

/// One session's team and what the person can do with it.
pub struct Session {
    team: Rc<RefCell<Team>>,
    desk: Rc<HumanDesk>,
    kind: TeamKind,
    running: Rc<Cell<bool>>,
    rounds: Cell<u32>,
    budget: Cell<f64>,
    /// Model calls a run may make (0: no limit; `Settings::call_limit`).
    #[cfg(feature = "site")]
    call_limit: Cell<u32>,
    /// The project's files, shared with the team (read them while it runs).
    pub files: Rc<RefCell<ProjectFiles>>,
    /// Versions, the open request, notes for the team (shared with the team,
    /// so it is saved with every checkpoint).
    pub project: Rc<RefCell<ProjectLog>>,
    /// The plan of the role that plans (the team leader, the assistant).
    pub plan: Option<Rc<RefCell<Plan>>>,
    planner: Option<String>,
    models: Option<(String, MakeModel)>,
    stopper: Option<Stopper>,
    /// The team's ledger (shared: read while the team runs).
    #[cfg(feature = "site")]
    ledger: Rc<RefCell<super::cost::CostLedger>>,
}

impl Session {
    /// The team `settings` choose, with its models; `events` sees everything.
    pub fn new(settings: &Settings, models: Models, events: EventSink) -> Self {
        let (llm, made) = match models {
            Models::Given(llm) => (llm, None),
            Models::Made { key, make } => (make(settings, &key, &settings.model), Some((key, make))),
        };
        let mut team = build_team(settings.team, llm, events.clone());
        if let Some((key, make)) = &made {
            assign_models(&mut team, settings, |model| make(settings, key, model));
        }
        team.ledger.borrow_mut().prices = settings.prices();
        *team.env.world.windows.borrow_mut() = settings.windows();
        team.invest(settings.budget);
        let desk = Rc::new(HumanDesk::new(events));
        team.env.world.human = desk.clone();
        let files = team.env.world.files.clone();
        let project = team.env.world.project.clone();
        #[cfg(feature = "site")]
        let ledger = team.ledger.clone();
        // The role that hears everything plans; a lone role (the assistant) too.
        let roles = team.env.roles();
        let planner = roles.iter().find(|r| r.spec.observe_all).or(if roles.len() == 1 { roles.first() } else { None });
        let plan = planner.map(|r| r.state.plan.clone());
        let planner = planner.map(|r| r.name().to_string());
        Self {
            team: Rc::new(RefCell::new(team)),
            desk,
            kind: settings.team,
            running: Rc::new(Cell::new(false)),
            rounds: Cell::new(settings.rounds),
            budget: Cell::new(settings.budget),
            #[cfg(feature = "site")]
            call_limit: Cell::new(settings.call_limit),
            files,
            project,
            plan,
            planner,
            models: made,
            stopper: None,
            #[cfg(feature = "site")]
            ledger,
        }
    }

    /// Also run `stop` when the person presses Stop.
    pub fn with_stopper(mut self, stop: Stopper) -> Self {
        self.stopper = Some(stop);
        self
    }

    /// The team itself, for what the page sets up once (durability, the
    /// sandbox) and for tests. Not while it runs.
    pub fn team(&self) -> &Rc<RefCell<Team>> {
        &self.team
    }

    pub fn kind(&self) -> TeamKind {
        self.kind
    }

    /// Continue from a saved session (the team must be of the same kind).
    pub fn restore(&self, snapshot: TeamSnapshot) -> Result<(), SessionError> {
        let mut team = self.team.try_borrow_mut().map_err(|_| SessionError::Busy)?;
        team.restore(snapshot)?;
        Ok(())
    }

    /// Why the last run stopped, as saved with the session (`None` before
    /// the first run ends).
    pub fn last_stop(&self) -> Option<StopReason> {
        self.project.borrow().last_stop.clone()
    }

    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    /// A saved session just restored: why it stands still and the status to
    /// keep it with. One that was running when its tab went away is
    /// interrupted; otherwise it is finished when nothing is left to do, or
    /// paused for the reason saved with it (sessions saved before that
    /// reason was kept count as stopped by the person).
    pub fn reopened(&self, saved: SessionStatus) -> (StopReason, SessionStatus) {
        if matches!(saved, SessionStatus::Running | SessionStatus::Interrupted) {
            (StopReason::Interrupted, SessionStatus::Interrupted)
        } else if self.is_idle() {
            (StopReason::Idle, SessionStatus::Finished)
        } else {
            (self.last_stop().unwrap_or(StopReason::Cancelled), SessionStatus::Paused)
        }
    }

    /// Work is left for Resume to carry on: the team stands still and a
    /// role has news (a run stopped short, a plan edit the leader has yet
    /// to hear). Notes of restores and hand edits wait for the next request.
    pub fn has_work_left(&self) -> bool {
        !self.is_running() && !self.is_idle()
    }

    /// Nothing left to do: no role has news or a pending reaction.
    pub fn is_idle(&self) -> bool {
        self.team.try_borrow().is_ok_and(|team| team.env.is_idle())
    }

    /// Whether the team has had a request yet.
    pub fn has_started(&self) -> bool {
        self.team.try_borrow().is_ok_and(|team| !team.idea.is_empty())
    }

    /// New settings and key for the next run (a key typed after a reload,
    /// a price entered, more rounds). A given model (a replay) stays.
    pub fn reconfigure(&self, settings: &Settings, key: &str) -> Result<(), SessionError> {
        let mut team = self.team.try_borrow_mut().map_err(|_| SessionError::Busy)?;
        if let Some((stored_key, make)) = &self.models {
            let key = if key.is_empty() { stored_key.as_str() } else { key };
            team.env.world.llm = make(settings, key, &settings.model);
            for role in team.env.roles_mut() {
                role.clear_llm();
            }
            assign_models(&mut team, settings, |model| make(settings, key, model));
            team.ledger.borrow_mut().prices.merge(&settings.prices());
        }
        // A window given in Settings applies to the next request, a given
        // model's (a replay's) too.
        *team.env.world.windows.borrow_mut() = settings.windows();
        self.rounds.set(settings.rounds);
        self.budget.set(settings.budget);
        #[cfg(feature = "site")]
        self.call_limit.set(settings.call_limit);
        Ok(())
    }

    /// The budget for the next run, in dollars.
    pub fn set_budget(&self, budget: f64) {
        self.budget.set(budget);
    }

    /// A request from the person: the idea when the team has none yet,
    /// otherwise a follow-up about the project as it stands. Call `run` to
    /// have the team work on it.
    pub fn send(&self, text: &str) -> Result<(), SessionError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SessionError::Empty);
        }
        if !self.has_started() {
            let mut team = self.idle_team()?;
            self.start(&mut team, text);
            team.run_project(text);
            return Ok(());
        }
        self.request(RequestKind::FollowUp, text, |kind, version, files, plan, notes| request::follow_up(kind, text, version, files, plan, notes))
            .map(|(routed, mut team)| routed.publish(&mut team))
    }

    /// As [`send`](Self::send), with images (`data:` URLs, checked by
    /// `core::image_check::check`), which the request's message keeps.
    #[cfg(feature = "images")]
    pub fn send_with_images(&self, text: &str, images: &[String]) -> Result<(), SessionError> {
        let text = text.trim();
        if images.is_empty() {
            return self.send(text);
        }
        if text.is_empty() {
            return Err(SessionError::Empty);
        }
        let images = images.join("\n");
        if !self.has_started() {
            let mut team = self.idle_team()?;
            self.start(&mut team, text);
            let message = crate::core::message::Message::new(team.env.world.new_id(), text).with_meta(crate::core::image::IMAGES, images);
            team.run_project_message(message);
            return Ok(());
        }
        self.request(RequestKind::FollowUp, text, |kind, version, files, plan, notes| request::follow_up(kind, text, version, files, plan, notes))
            .map(|(routed, mut team)| routed.publish_with_images(&mut team, &images))
    }

    /// The first request opens the project's first version; the caller
    /// publishes it to everyone, as MetaGPT's idea is.
    fn start(&self, team: &mut Team, idea: &str) {
        let spent = Spend::of(&team.ledger.borrow().total());
        self.project.borrow_mut().open(RequestKind::Idea, idea, spent);
    }

    /// An error of the running preview, sent to the engineer to fix.
    pub fn fix(&self, error: &ConsoleLine) -> Result<(), SessionError> {
        let summary = request::error_summary(error);
        self.request(RequestKind::Fix, &summary, |kind, _, files, _, notes| request::Routed::fix(kind, &fix_text(error, files), &summary, notes))
            .map(|(routed, mut team)| routed.publish(&mut team))
    }

    /// The automatic modes (kept with the session, so saved with it).
    pub fn automatic(&self) -> Automatic {
        self.project.borrow().automatic
    }

    /// Turn the automatic modes on or off; the page saves the session.
    pub fn set_automatic(&self, automatic: Automatic) {
        self.project.borrow_mut().automatic = automatic;
    }

    /// As [`fix`](Self::fix), for the automatic mode: at most
    /// [`AUTO_FIXES_PER_VERSION`] since the person's last request (a fix's
    /// own version does not start the count again); never while the team
    /// works.
    pub fn auto_fix(&self, error: &ConsoleLine) -> Result<(), SessionError> {
        let sent = self.project.borrow().auto_fixes;
        if sent >= AUTO_FIXES_PER_VERSION {
            return Err(SessionError::TooManyFixes(sent));
        }
        self.fix(error)?;
        self.project.borrow_mut().auto_fixes = sent + 1;
        Ok(())
    }

    /// Close the open request, open one of `kind` and route it; the
    /// caller publishes it into the team it is handed.
    fn request(
        &self,
        kind: RequestKind,
        shown: &str,
        route: impl FnOnce(TeamKind, Option<String>, &ProjectFiles, Option<&Plan>, Vec<String>) -> request::Routed,
    ) -> Result<(request::Routed, std::cell::RefMut<'_, Team>), SessionError> {
        let team = self.idle_team()?;
        let spent = Spend::of(&team.ledger.borrow().total());
        let mut project = self.project.borrow_mut();
        // An unfinished request ends here, in a version of what it made.
        project.close(&self.files.borrow(), spent, None);
        let notes = project.take_notes();
        let plan = self.plan.as_ref().map(|p| p.borrow());
        let version = project.latest().map(|v| match v.kind {
            RequestKind::Restore { from } => format!("version {}: version {from} restored", v.number),
            _ => format!("version {}", v.number),
        });
        let routed = route(self.kind, version, &self.files.borrow(), plan.as_deref(), notes);
        drop(plan);
        project.open(kind, shown, spent);
        drop(project);
        Ok((routed, team))
    }

    /// The team, borrowed, when it is not at work.
    fn idle_team(&self) -> Result<std::cell::RefMut<'_, Team>, SessionError> {
        if self.running.get() {
            return Err(SessionError::Busy);
        }
        self.team.try_borrow_mut().map_err(|_| SessionError::Busy)
    }

    /// The person edits the plan with the leader's `Plan.*` commands; the
    /// planning role is told. Only while the team is not at work.
    pub fn edit_plan(&self, edit: &PlanEdit) -> Result<String, SessionError> {
        let (Some(plan), Some(planner)) = (&self.plan, &self.planner) else {
            return Err(SessionError::NoPlan);
        };
        let mut team = self.idle_team()?;
        let result = edit.apply(plan).map_err(SessionError::PlanEdit)?;
        team.publish_user_message_shown(&edit.note(&result), &[planner.as_str()], &edit.shown());
        Ok(result)
    }

    /// The person saves `content` into `path`: a new file version written
    /// by "you"; the team hears of it with its next request. Returns the
    /// file's new version. Only while the team is not at work.
    pub fn edit_file(&self, path: &str, content: &str) -> Result<u32, SessionError> {
        let _team = self.idle_team()?;
        let mut files = self.files.borrow_mut();
        if files.read(path).is_ok_and(|now| now == content) {
            return files.version(path).map_err(|e| SessionError::File(e.to_string()));
        }
        let version = files.write(path, content).map_err(|e| SessionError::File(e.to_string()))?;
        let path = super::files::normalize_path(path).map_err(|e| SessionError::File(e.to_string()))?;
        self.project.borrow_mut().hand_edit(&files, &path, version);
        Ok(version)
    }

    /// Put the files back as version `number` had them (a new version
    /// records it; the team hears of it with its next request).
    pub fn restore_version(&self, number: u32) -> Result<ProjectVersion, SessionError> {
        let _team = self.idle_team()?;
        let mut files = self.files.borrow_mut();
        Ok(self.project.borrow_mut().restore(&mut files, number)?.clone())
    }

    /// Every version, oldest first.
    pub fn versions(&self) -> Vec<ProjectVersion> {
        self.project.borrow().versions.clone()
    }

    /// What each version cost, per role (the ledger's calls, as billed).
    #[cfg(feature = "site")]
    pub fn bills(&self) -> Vec<super::versions::VersionBill> {
        super::versions::bills(&self.project.borrow(), self.ledger.borrow().entries())
    }

    /// What changed from the version before `number` to it.
    pub fn diff(&self, number: u32) -> Result<Vec<FileDiff>, SessionError> {
        Ok(diff_versions(&self.project.borrow(), &self.files.borrow(), number)?)
    }

    /// Abort the calls in flight and cancel waiting questions; the team
    /// stops at once with its work kept, ready to resume.
    pub fn stop(&self) {
        if let Some(stop) = &self.stopper {
            stop();
        }
        self.desk.cancel_all();
    }

    /// The person answered question `id`.
    pub fn answer(&self, id: u64, text: &str) -> bool {
        self.desk.answer(id, text)
    }

    /// Run up to the configured rounds (again, after a stop); `None` when
    /// the team already runs. When the team ends idle, the open request
    /// becomes a version (with the project's tests run in the sandbox, if
    /// it has any). The caller saves the snapshot with `status`.
    pub async fn run(&self) -> Option<RunEnd> {
        if self.running.replace(true) {
            return None;
        }
        let end = self.run_now().await;
        self.running.set(false);
        end
    }

    async fn run_now(&self) -> Option<RunEnd> {
        let mut team = self.team.try_borrow_mut().ok()?;
        team.invest(self.budget.get());
        #[cfg(feature = "site")]
        team.ledger.borrow_mut().limit_calls(Some(self.call_limit.get()).filter(|&n| n > 0));
        self.deliver_notes(&mut team);
        let outcome = team.run(self.rounds.get()).await;
        self.project.borrow_mut().last_stop = Some(outcome.stop.clone());
        let mut end = RunEnd { status: SessionStatus::after(&outcome.stop), outcome, version: None, rolled_back_to: None };
        // At the call limit the work so far is a version too, and the
        // request stays open: Resume goes on, and its end is the next one.
        #[cfg(feature = "site")]
        let reopen = match end.outcome.stop {
            StopReason::CallLimit { .. } => self.project.borrow().open.clone(),
            _ => None,
        };
        #[cfg(not(feature = "site"))]
        let reopen: Option<crate::core::versions::OpenRequest> = None;
        if (end.outcome.stop != StopReason::Idle && reopen.is_none()) || self.project.borrow().open.is_none() {
            return Some(end);
        }
        let tests = self.run_tests(&team).await;
        let spent = Spend::of(&team.ledger.borrow().total());
        let version = self.project.borrow_mut().close(&self.files.borrow(), spent, tests).cloned();
        if let Some(open) = reopen {
            self.project.borrow_mut().open(open.kind, &open.text, spent);
        }
        if let Some(v) = &version {
            end.rolled_back_to = self.roll_back_if_broken(v);
            let restored = end.rolled_back_to;
            team.env.world.events.emit_with(|| TeamEvent::VersionReady { number: v.number, tests: v.tests, restored });
        }
        end.version = version;
        Some(end)
    }

    /// With automatic rollback, a version that broke the tests is followed by
    /// a restore of the last passing one; returns its number.
    #[cfg(feature = "sandbox")]
    fn roll_back_if_broken(&self, version: &ProjectVersion) -> Option<u32> {
        if !(version.breaks_tests && self.automatic().rollback) {
            return None;
        }
        let target = self.project.borrow().last_passing()?.number;
        let mut files = self.files.borrow_mut();
        self.project.borrow_mut().restore(&mut files, target).ok().map(|_| target)
    }

    /// Without a sandbox (the widget) no test runs, so none can break.
    #[cfg(not(feature = "sandbox"))]
    fn roll_back_if_broken(&self, _: &ProjectVersion) -> Option<u32> {
        None
    }

    /// Notes left since the last request (a restore, hand edits) reach the
    /// planning role when the team resumes without a new request.
    fn deliver_notes(&self, team: &mut Team) {
        let Some(planner) = &self.planner else { return };
        let notes = self.project.borrow_mut().take_notes();
        if !notes.is_empty() {
            // The person made these changes and sees them in Versions and
            // Code; the conversation does not repeat them.
            team.publish_user_message_shown(&notes.join("\n"), &[planner.as_str()], "");
        }
    }

    /// The project's tests, when it has any and a sandbox can run them.
    /// Only builds with the sandbox (the site) have one to run them in.
    #[cfg(not(feature = "sandbox"))]
    async fn run_tests(&self, _: &Team) -> Option<TestSummary> {
        None
    }

    /// The project's tests, when it has any and a sandbox can run them.
    #[cfg(feature = "sandbox")]
    async fn run_tests(&self, team: &Team) -> Option<TestSummary> {
        let files = files_snapshot(&self.files.borrow());
        if !files.keys().any(|p| super::sandbox::bundle::is_test(p)) {
            return None;
        }
        // The person sees the tests run (they take seconds) rather than a
        // run that looks over before its version is named.
        let number = self.project.borrow().next_number();
        team.env.world.events.emit_with(|| TeamEvent::TestsRunning { number });
        let report: TestReport = team.env.world.sandbox.run_tests(files, None).await.ok()?;
        (!report.results.is_empty()).then(|| TestSummary::of(&report))
    }
}

/// The action kind of a preview error sent to the engineer.
pub fn preview_error_kind() -> ActionKind {
    ActionKind::new(PREVIEW_ERROR)
}
