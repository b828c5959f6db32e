//! The host driven as the page drives it, natively: `MemoryStore`, the
//! scripted model, a test edge whose tasks run on a local pool. The whole
//! life of a session (create → run → reload → follow-up → stop → resume →
//! restore → close), the missing-key follow-up, a second tab holding the
//! lease, storage failing mid-run.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::executor::{LocalPool, LocalSpawner};
use futures::future::LocalBoxFuture;
use futures::stream::{LocalBoxStream, StreamExt};
use futures::task::LocalSpawnExt;

use super::*;
use crate::core::cost::Price;
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::llm::{ChatRequest, Llm, LlmError, StreamEvent};
use crate::core::session::tests::{first_run, red_title, restart_button};
use crate::core::session::Models;
use crate::core::settings::TeamKind;
use crate::core::store::{InjectFault, MemoryStore};
use crate::core::versions::RequestKind;

const IDEA: &str = "a 2048 game in HTML/JS";
const KEY: &str = "sk-test";

fn settings() -> Settings {
    Settings {
        team: TeamKind::Company,
        model: "scripted".into(),
        custom_price: Some(Price::new(1.0, 2.0)),
        budget: 3.0,
        rounds: 30,
        ..Settings::default()
    }
}

/// The scripted model, held at its next call while the test holds `gate`,
/// and failing as cancelled once Stop was pressed (as the page's aborted
/// requests do).
#[derive(Clone)]
struct Model {
    scripted: ScriptedLlm,
    gate: Rc<futures::lock::Mutex<()>>,
    stopped: Rc<Cell<bool>>,
    /// Calls made so far, and (call, characters): that call's stream
    /// breaks off after so many characters, as a cut connection does.
    calls: Rc<Cell<usize>>,
    cut: Rc<Cell<Option<(usize, usize)>>>,
}

impl Llm for Model {
    fn model(&self) -> &str {
        self.scripted.model()
    }

    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        let (scripted, gate, stopped) = (self.scripted.clone(), self.gate.clone(), self.stopped.clone());
        let call = self.calls.get();
        self.calls.set(call + 1);
        let cut = self.cut.get().and_then(|(at, chars)| (at == call).then_some(chars));
        futures::stream::once(async move {
            drop(gate.lock().await);
            if stopped.get() {
                return futures::stream::once(async { Err(LlmError::Cancelled) }).boxed_local();
            }
            let Some(chars) = cut else { return scripted.stream(request) };
            // What arrived before the cut, then the error the client gives.
            let mut text = String::new();
            for event in scripted.stream(request).collect::<Vec<_>>().await {
                if let Ok(StreamEvent::Delta(delta)) = event {
                    text.push_str(&delta);
                }
            }
            let partial: String = text.chars().take(chars).collect();
            futures::stream::iter([Ok(StreamEvent::Delta(partial.clone())), Err(LlmError::Truncated { partial_text: partial })]).boxed_local()
        })
        .flatten()
        .boxed_local()
    }
}

/// One tab: its holder id, a clock that moves a millisecond a call, tasks
/// on the test's pool; the teams it makes use `model` and note their key.
struct TestEdge {
    holder: String,
    now: Cell<u64>,
    spawner: LocalSpawner,
    model: Model,
    keys: Rc<RefCell<Vec<String>>>,
    leaving: Cell<bool>,
    /// What the page kept of answers streaming when it went away (taken).
    abandoned: RefCell<Vec<(String, String)>>,
}

impl Edge for TestEdge {
    fn now_ms(&self) -> u64 {
        self.now.set(self.now.get() + 1);
        self.now.get()
    }

    fn holder(&self) -> LocalBoxFuture<'static, String> {
        Box::pin(std::future::ready(self.holder.clone()))
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        self.spawner.spawn_local(task).expect("the pool is there");
    }

    /// Time does not pass in these tests: a lease is never renewed.
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        Box::pin(futures::future::pending())
    }

    fn leaving(&self) -> bool {
        self.leaving.get()
    }

    fn session(&self, settings: &Settings, key: &str, events: EventSink) -> Session {
        let (model, keys) = (self.model.clone(), self.keys.clone());
        let make = Rc::new(move |_: &Settings, key: &str, _: &str| -> Rc<dyn Llm> {
            keys.borrow_mut().push(key.to_string());
            Rc::new(model.clone())
        });
        let stopped = self.model.stopped.clone();
        Session::new(settings, Models::Made { key: key.to_string(), make }, events)
            .with_stopper(Rc::new(move || stopped.set(true)))
    }

    fn before_run(&self) {
        self.model.stopped.set(false);
    }

    fn abandoned(&self, _session_id: &str) -> Vec<(String, String)> {
        self.abandoned.take()
    }
}

/// What the page heard.
#[derive(Default)]
struct Page {
    states: RefCell<Vec<HostState>>,
    views: Cell<usize>,
    events: Cell<usize>,
    /// What the person's messages said, since the view was last replaced.
    said: RefCell<Vec<String>>,
    /// The view the page shows, as the site and the widget fold it.
    shown: RefCell<RunView>,
}

impl Page {
    /// The conversation the page shows, an entry a line: "role [kind] text".
    fn entries(&self) -> Vec<String> {
        self.shown.borrow().entries.iter().map(|e| format!("{} [{}] {}", e.role, e.kind.class(), e.text)).collect()
    }

    /// The status line the page shows.
    fn status(&self) -> String {
        let state = self.states.borrow().last().cloned().unwrap_or_default();
        state.status(&self.shown.borrow())
    }
}

impl Listener for Page {
    fn event(&self, event: &TeamEvent) {
        self.events.set(self.events.get() + 1);
        self.shown.borrow_mut().apply(event);
        if let TeamEvent::Published { message } = event {
            self.said.borrow_mut().push(message.content.to_string());
        }
    }

    fn view(&self, view: RunView) {
        *self.shown.borrow_mut() = view;
        self.views.set(self.views.get() + 1);
        self.said.borrow_mut().clear();
    }

    fn state(&self, state: &HostState) {
        self.states.borrow_mut().push(state.clone());
    }
}

struct Tab {
    host: Host,
    edge: Rc<TestEdge>,
    page: Rc<Page>,
}

struct World {
    pool: LocalPool,
    store: Rc<MemoryStore>,
    model: Model,
}

impl World {
    fn new(turns: Vec<String>) -> Self {
        let model = Model {
            scripted: ScriptedLlm::from_texts("scripted", turns),
            gate: Rc::default(),
            stopped: Rc::default(),
            calls: Rc::default(),
            cut: Rc::default(),
        };
        Self { pool: LocalPool::new(), store: Rc::default(), model }
    }

    /// A tab (a page load) with `key` at hand (empty: not remembered).
    fn tab(&self, holder: &str, key: &str) -> Tab {
        let edge = Rc::new(TestEdge {
            holder: holder.into(),
            now: Cell::new(1_000),
            spawner: self.pool.spawner(),
            model: self.model.clone(),
            keys: Rc::default(),
            leaving: Cell::new(false),
            abandoned: RefCell::default(),
        });
        let page = Rc::new(Page::default());
        let store: Rc<dyn Store> = self.store.clone();
        let host = Host::new(edge.clone(), Some(store), page.clone(), settings(), key.into());
        Tab { host, edge, page }
    }

    fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    /// The idea sent in `tab`, the pool settled: the new session's id.
    fn create(&mut self, tab: &Tab) -> String {
        self.block(tab.host.create(IDEA, settings(), KEY.into())).unwrap();
        self.settle();
        tab.host.state().session_id.unwrap()
    }

    /// The idea sent in a tab whose page goes away during the first call
    /// (its requests abort): the session's id.
    fn run_the_page_leaves(&mut self) -> String {
        let tab = self.tab("tab-1", KEY);
        let gate = self.model.gate.clone();
        let held = gate.try_lock().unwrap();
        let id = self.create(&tab);
        tab.edge.leaving.set(true);
        tab.host.stop();
        drop(held);
        self.settle();
        id
    }

    /// A follow-up held at its first call and stopped by the person.
    fn stop_follow_up(&mut self, tab: &Tab, text: &str) {
        let gate = self.model.gate.clone();
        let held = gate.try_lock().unwrap();
        tab.host.send(Request::Text(text.into())).unwrap();
        self.settle();
        tab.host.stop();
        drop(held);
        self.settle();
    }

    fn block<T>(&mut self, f: impl std::future::Future<Output = T>) -> T {
        self.pool.run_until(f)
    }

    fn status(&mut self, id: &str) -> SessionStatus {
        let store = self.store.clone();
        self.block(async move { store.session(id).await.unwrap().status })
    }

    fn saved_versions(&mut self, id: &str) -> usize {
        let store = self.store.clone();
        self.block(
            async move { store.load_session(id).await.unwrap().snapshot().unwrap().unwrap().project.versions.len() },
        )
    }
}

fn kinds(state: &HostState) -> Vec<RequestKind> {
    state.versions.iter().map(|v| v.kind).collect()
}

#[test]
fn a_session_lives_from_create_to_close_across_a_reload() {
    let turns = first_run().into_iter().chain(restart_button()).chain(red_title()).collect();
    let mut world = World::new(turns);
    let tab = world.tab("tab-1", "");

    // Create: refused without the key, in words; nothing is made.
    let refused = world.block(tab.host.create(IDEA, settings(), String::new()));
    assert_eq!(refused, Err(Note::Refused(Refusal::NeedsKey)));
    assert_eq!(tab.host.state().phase, Phase::Empty);
    let store = world.store.clone();
    assert!(world.block(store.list_sessions()).unwrap().is_empty());

    world.block(tab.host.create(IDEA, settings(), KEY.into())).unwrap();
    assert!(tab.host.state().running(), "the team is at work at once");
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Done);
    assert_eq!(kinds(&state), [RequestKind::Idea]);
    assert!(state.files.iter().any(|(p, v)| p == "index.html" && *v == 1));
    assert!(state.plan.tasks().len() >= 5 && state.has_plan && state.started);
    assert!(state.spent > 0.0);
    let id = state.session_id.clone().expect("kept");
    assert_eq!(world.status(&id), SessionStatus::Finished);
    assert!(tab.page.states.borrow().iter().any(HostState::running), "the page heard it run");
    assert!(tab.page.events.get() > 0);
    assert!(tab.page.said.borrow().iter().any(|m| m.contains(IDEA)), "the idea is in the view shown");

    // Reload: the page goes, the key was not remembered.
    drop(tab);
    let tab = world.tab("tab-1", "");
    world.block(tab.host.open(&id)).unwrap();
    let state = tab.host.state();
    assert_eq!((state.phase.clone(), state.session_id.as_deref()), (Phase::Done, Some(id.as_str())));
    assert_eq!(state.versions.len(), 1);
    assert_eq!(tab.page.views.get(), 1, "the restored view is shown");

    // The follow-up waits for the key: said so, nothing sent or saved as running.
    let calls = world.model.scripted.calls();
    tab.host.send(Request::Text("add a restart button".into())).unwrap();
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Waiting(Refusal::NeedsKey));
    assert!(state.needs_key() && state.can_stop() && !state.running() && !state.at_rest());
    assert_eq!(
        state.note.as_ref().map(ToString::to_string).as_deref(),
        Some("Enter your API key to carry on: nothing is sent without it.")
    );
    assert_eq!(world.model.scripted.calls(), calls);
    assert_eq!(world.status(&id), SessionStatus::Finished, "not saved as running meanwhile");

    // Typing the key lets it go, with that key.
    tab.host.configure(settings(), KEY.into());
    assert!(tab.host.state().running());
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Done, "{:?}", state.note);
    assert_eq!(kinds(&state), [RequestKind::Idea, RequestKind::FollowUp]);
    assert_eq!(tab.edge.keys.borrow().last().map(String::as_str), Some(KEY));
    assert_eq!(state.note, None);

    // Stop mid-run: held at the next call, stopped, paused with its work kept.
    let gate = world.model.gate.clone();
    let held = gate.try_lock().unwrap();
    tab.host.send(Request::Text("make the title red".into())).unwrap();
    world.settle();
    assert_eq!(tab.host.state().phase, Phase::Working);
    assert_eq!(tab.host.send(Request::Text("more".into())), Err(Refusal::Busy));
    assert_eq!(world.block(tab.host.close()), Err(Note::Refused(Refusal::Busy)));
    assert_eq!(world.status(&id), SessionStatus::Running, "saved as running before the run");
    tab.host.stop();
    drop(held);
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Paused(StopReason::Cancelled));
    assert!(state.can_resume() && state.at_rest());
    assert_eq!(world.status(&id), SessionStatus::Paused);

    // Resume carries on to the version.
    tab.host.resume().unwrap();
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Done);
    assert_eq!(state.versions.len(), 3);
    assert_eq!(world.model.scripted.remaining(), 0);

    // Restore version 1: a new version, saved.
    let restored = tab.host.restore(1).unwrap();
    assert_eq!(restored.kind, RequestKind::Restore { from: 1 });
    world.settle();
    assert_eq!(tab.host.state().versions.len(), 4);
    assert_eq!(world.saved_versions(&id), 4);
    let pushed = tab.page.states.borrow().last().cloned().unwrap();
    assert_eq!(pushed.saves, tab.host.state().saves, "the page heard the restore's save land");

    // Close: the first card again; the lease is let go.
    world.block(tab.host.close()).unwrap();
    assert_eq!(tab.host.state().phase, Phase::Empty);
    assert_eq!(tab.host.state().session_id, None);
    let other = world.tab("tab-2", KEY);
    world.block(other.host.open(&id)).unwrap();
    assert_eq!(other.host.state().versions.len(), 4);
}

/// Issue #32, items 2 and 3: the status a page shows is the same live,
/// after a reload and after a restore: what the versions say.
#[test]
fn the_status_after_a_reload_or_a_restore_is_the_live_one() {
    let turns = first_run().into_iter().chain(restart_button()).collect();
    let mut world = World::new(turns);
    let tab = world.tab("tab-1", KEY);
    let id = world.create(&tab);
    assert_eq!(tab.page.status(), "Done: version 1 is ready.");
    let reload = |world: &mut World, tab: Tab| {
        drop(tab);
        let tab = world.tab("tab-1", KEY);
        world.block(tab.host.open(&id)).unwrap();
        tab
    };
    let tab = reload(&mut world, tab);
    assert_eq!(tab.page.status(), "Done: version 1 is ready.", "reopened");

    // Stopped by the person: the same words after a reload.
    world.stop_follow_up(&tab, "add a restart button");
    let paused = tab.page.status();
    assert!(paused.starts_with("Stopped by you."), "{paused}");
    let tab = reload(&mut world, tab);
    assert_eq!(tab.page.status(), paused, "reopened paused");
    tab.host.resume().unwrap();
    world.settle();
    assert_eq!(tab.page.status(), "Done: version 2 is ready.");

    // A restore is the newest version: the status says so, before and after a reload.
    tab.host.restore(1).unwrap();
    world.settle();
    assert_eq!(tab.page.status(), "Done: version 3 (version 1 restored) is ready.");
    let state = tab.host.state();
    assert!(state.is_current(3) && !state.is_current(2) && !state.is_current(9), "restoring version 3 would change nothing");
    let tab = reload(&mut world, tab);
    assert_eq!(tab.page.status(), "Done: version 3 (version 1 restored) is ready.", "reopened after the restore");
}

/// Issue #32, item 7: an answer whose stream broke off keeps what arrived,
/// marked as cut off, under it the error that says what to do; a reload
/// shows the same, and Resume asks again and finishes.
#[test]
fn a_cut_off_answer_keeps_what_arrived_live_and_after_a_reload() {
    // Mike's first answer (call 1, after the quiet classification) breaks
    // off 20 characters in; Resume gets it whole.
    let mut turns = first_run();
    turns.insert(1, turns[1].clone());
    let arrived: String = turns[1].chars().take(20).collect();
    let mut world = World::new(turns);
    world.model.cut.set(Some((1, 20)));
    let tab = world.tab("tab-1", KEY);
    let id = world.create(&tab);
    let live = tab.page.entries();
    let cut = format!("Mike [answer] {} {}", arrived.trim_end(), crate::core::view::CUT_OFF);
    let error = "Mike [error] The answer broke off after 20 characters, before the provider said it was done. Resume to ask again.";
    assert_eq!(live[live.len() - 2..], [cut.clone(), error.to_string()], "{live:#?}");
    assert!(tab.page.status().starts_with("Paused after an error."), "{}", tab.page.status());

    // Reloaded: the same conversation, what arrived included.
    drop(tab);
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.open(&id)).unwrap();
    assert_eq!(tab.page.entries(), live, "reopened");
    tab.host.resume().unwrap();
    world.settle();
    assert_eq!(tab.page.status(), "Done: version 1 is ready.");
    let done = tab.page.entries();
    assert_eq!(done[..live.len()], live[..], "the cut-off answer and its error stay where they were");
}

#[test]
fn stop_drops_a_request_waiting_for_the_key() {
    let mut world = World::new(first_run());
    let tab = world.tab("tab-1", KEY);
    let id = world.create(&tab);
    drop(tab);
    let tab = world.tab("tab-1", "");
    world.block(tab.host.open(&id)).unwrap();
    tab.host.send(Request::Text("add a restart button".into())).unwrap();
    assert!(tab.host.state().needs_key());
    tab.host.stop();
    let state = tab.host.state();
    assert_eq!((state.phase, state.note), (Phase::Done, None));
    // The key typed later sends nothing: the request was dropped.
    tab.host.configure(settings(), KEY.into());
    world.settle();
    assert_eq!(tab.host.state().versions.len(), 1);
    assert_eq!(world.status(&id), SessionStatus::Finished);
}

#[test]
fn a_key_given_for_the_session_is_asked_for_after_a_reload_whatever_the_preset_says() {
    // A proxy whose key is optional: the person gave one all the same.
    let mut proxy = settings();
    proxy.choose_preset("litellm");
    proxy.model = "scripted".into();
    proxy.custom_price = Some(Price::new(1.0, 2.0));
    assert!(proxy.problems("").is_empty(), "the preset needs no key");
    let mut world = World::new(first_run().into_iter().take(3).collect());
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.create(IDEA, proxy.clone(), KEY.into())).unwrap();
    world.settle();
    assert!(tab.host.state().can_resume(), "the script ran out: paused");
    let id = tab.host.state().session_id.unwrap();
    drop(tab);

    let tab = world.tab("tab-1", "");
    world.block(tab.host.open(&id)).unwrap();
    let calls = world.model.scripted.calls();
    tab.host.resume().unwrap();
    world.settle();
    assert!(tab.host.state().needs_key(), "{:?}", tab.host.state().phase);
    assert_eq!(world.model.scripted.calls(), calls, "no request went out without the key");

    // Without a key given, the same preset resumes without one.
    let mut world = World::new(first_run().into_iter().take(3).collect());
    let tab = world.tab("tab-9", "");
    world.block(tab.host.create(IDEA, proxy, String::new())).unwrap();
    world.settle();
    let id = tab.host.state().session_id.unwrap();
    drop(tab);
    let tab = world.tab("tab-9", "");
    world.block(tab.host.open(&id)).unwrap();
    let calls = world.model.scripted.calls();
    tab.host.resume().unwrap();
    world.settle();
    assert!(!tab.host.state().needs_key());
    assert_eq!(world.model.scripted.calls(), calls + 1, "Resume went without a key");
}

#[test]
fn a_session_open_in_another_tab_is_refused_with_its_reason() {
    let mut world = World::new(first_run());
    let first = world.tab("tab-1", KEY);
    world.block(first.host.create(IDEA, settings(), KEY.into())).unwrap();
    world.settle();
    let id = first.host.state().session_id.unwrap();

    let second = world.tab("tab-2", KEY);
    let refused = world.block(second.host.open(&id));
    assert!(matches!(refused, Err(Note::Storage(StoreError::Locked { .. }))), "{refused:?}");
    let state = second.host.state();
    assert_eq!(state.phase, Phase::Empty);
    assert!(state.note.unwrap().to_string().contains("another tab"), "said in words");

    // A tab that leaves mid-run (a widget unmounted) lets it go at once.
    let gate = world.model.gate.clone();
    let held = gate.try_lock().unwrap();
    first.host.send(Request::Text("add a restart button".into())).unwrap();
    world.settle();
    assert!(first.host.state().running());
    world.block(first.host.leave());
    drop(held);
    world.settle();
    world.block(second.host.open(&id)).unwrap();
    assert_eq!(second.host.state().session_id, Some(id.clone()));
    world.block(second.host.close()).unwrap();

    // Once the first tab lets it go, the second opens it.
    world.block(first.host.open(&id)).unwrap();
    world.block(first.host.close()).unwrap();
    world.block(second.host.open(&id)).unwrap();
    assert_eq!(second.host.state().session_id, Some(id));
}

#[test]
fn storage_failing_mid_run_pauses_the_team_and_resume_carries_on() {
    let mut world = World::new(first_run());
    let tab = world.tab("tab-1", KEY);
    let gate = world.model.gate.clone();
    let held = gate.try_lock().unwrap();
    world.block(tab.host.create(IDEA, settings(), KEY.into())).unwrap();
    world.settle();
    // The next write fails, as a full disk would.
    world.store.fail_after_writes(0);
    drop(held);
    world.settle();
    let state = tab.host.state();
    assert!(matches!(state.phase, Phase::Paused(StopReason::Failed { .. })), "{:?}", state.phase);
    assert!(state.can_resume());
    let id = state.session_id.clone().unwrap();

    // The disk has room again: Resume carries on to the end, saved.
    tab.host.resume().unwrap();
    world.settle();
    let state = tab.host.state();
    assert_eq!(state.phase, Phase::Done, "{:?}", state.note);
    assert_eq!(world.status(&id), SessionStatus::Finished);
    assert_eq!(world.saved_versions(&id), 1);
}

#[test]
fn a_run_the_page_cut_off_is_not_saved_as_ended() {
    let mut world = World::new(first_run());
    let id = world.run_the_page_leaves();
    assert_eq!(world.status(&id), SessionStatus::Running, "the next load reopens it interrupted");
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.open(&id)).unwrap();
    assert_eq!(tab.host.state().phase, Phase::Paused(StopReason::Interrupted));
    assert_eq!(world.status(&id), SessionStatus::Interrupted);
}

/// Issue #32, item 7: what was streaming when the tab closed is shown
/// after the reload, and after every later one (the page hands it over
/// once), under the conversation as it was.
#[test]
fn an_answer_the_closing_tab_cut_off_is_shown_after_every_reload() {
    let mut world = World::new(first_run());
    let id = world.run_the_page_leaves();
    let streamed = "I will plan the game first, then hand the board to Alex";
    let abandoned = format!("Mike [answer] {streamed} …(abandoned when the tab closed; asked again on resume)");

    let tab = world.tab("tab-1", KEY);
    tab.edge.abandoned.borrow_mut().push(("Mike".into(), streamed.into()));
    world.block(tab.host.open(&id)).unwrap();
    world.settle();
    let first = tab.page.entries();
    assert_eq!(first.last(), Some(&abandoned), "{first:#?}");
    drop(tab);

    // The page has nothing left to hand over: the session kept it.
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.open(&id)).unwrap();
    world.settle();
    assert_eq!(tab.page.entries(), first, "the second reload shows the same");
}

#[test]
fn answers_and_edits_are_refused_without_a_session() {
    let world = World::new(Vec::new());
    let tab = world.tab("tab-1", KEY);
    assert_eq!(tab.host.send(Request::Text("hi".into())), Err(Refusal::NoSession));
    assert_eq!(tab.host.resume(), Err(Refusal::NoSession));
    assert_eq!(tab.host.answer(1, "yes"), Err(Refusal::NoSession));
    assert_eq!(tab.host.state().note, None, "said to the caller, not in the state");
}

#[test]
fn titles_are_the_first_line_cut() {
    assert_eq!(title_of("\n  make 2048 \nmore"), "make 2048");
    let long = "x".repeat(TITLE_CHARS + 5);
    assert_eq!(title_of(&long).chars().count(), TITLE_CHARS + 1);
}

/// Images with the idea (site only): refused in words for a model not
/// known to take them, with nothing made or sent; otherwise they reach
/// the model as image parts of the person's turn, and the conversation
/// shows them live, after a reload and from an export imported again.
#[cfg(feature = "images")]
#[test]
fn images_go_with_the_idea_and_stay_with_the_session() {
    const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==";
    let mut world = World::new(first_run());
    // The model names itself as the settings name it (its price is theirs).
    world.model.scripted = ScriptedLlm::from_texts("gpt-4o-scripted", first_run());
    let tab = world.tab("tab-1", KEY);
    let images = vec![PNG.to_string()];

    let refused = world.block(tab.host.create_with_images(IDEA, &images, settings(), KEY.into()));
    assert_eq!(refused, Err(Note::Refused(Refusal::Images(crate::core::image::ImageProblem::ModelRefuses("scripted".into())))));
    assert_eq!(tab.host.state().phase, Phase::Empty);
    assert_eq!(world.model.scripted.calls(), 0, "nothing was sent");
    let store = world.store.clone();
    assert!(world.block(store.list_sessions()).unwrap().is_empty());

    let seeing = Settings { preset: "custom".into(), model: "gpt-4o-scripted".into(), ..settings() };
    world.block(tab.host.create_with_images(IDEA, &images, seeing, KEY.into())).unwrap();
    world.settle();
    assert_eq!(tab.host.state().phase, Phase::Done);
    let with_image: Vec<ChatRequest> = world.model.scripted.requests().into_iter().filter(|r| r.messages.iter().any(|m| m.images == images)).collect();
    assert!(!with_image.is_empty(), "the image reached the model");
    let requests = world.model.scripted.requests();
    assert!(requests.iter().all(|r| r.messages.iter().all(|m| m.images.is_empty() || m.content.contains(IDEA))), "only with the idea's turn");
    // The team leader's first calls carry it; the request's estimate counts it.
    assert!(with_image[0].prompt_bytes() >= crate::core::image::TOKENS_PER_IMAGE as usize * 4);
    let shown = |view: &RunView| view.entries.iter().filter(|e| e.kind == crate::core::view::EntryKind::User).map(|e| e.images.clone()).next();
    assert_eq!(shown(&tab.page.shown.borrow()), Some(images.clone()), "shown live");

    let id = tab.host.state().session_id.expect("kept");
    drop(tab);
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.open(&id)).unwrap();
    assert_eq!(shown(&tab.page.shown.borrow()), Some(images.clone()), "shown after a reload");

    let store = world.store.clone();
    let exported = world.block(async move { crate::core::store::export_json(&store.load_session(&id).await.unwrap()).unwrap() });
    let imported = crate::core::store::import_json(&exported).unwrap();
    let snapshot = imported.snapshot().unwrap().unwrap();
    let view = RunView::restored(&snapshot, StopReason::Idle);
    assert_eq!(shown(&view), Some(images), "shown from an export imported again");
}

/// Issue #33, item 6: each version's bill per role is the same live,
/// after a reload, and in the export; a request stopped and resumed bills
/// both runs to its one version.
#[cfg(feature = "site")]
#[test]
fn each_version_bills_its_roles_the_same_after_a_reload_and_in_the_export() {
    let turns = first_run().into_iter().chain(restart_button()).collect();
    let mut world = World::new(turns);
    let tab = world.tab("tab-1", KEY);
    let id = world.create(&tab);
    // The follow-up, stopped at its first call and resumed.
    world.stop_follow_up(&tab, "add a restart button");
    tab.host.resume().unwrap();
    world.settle();
    assert_eq!(tab.host.state().phase, Phase::Done);
    let live = tab.host.session().unwrap().bills();
    assert_eq!(live.len(), 2);
    let spent: Vec<f64> = tab.host.state().versions.iter().map(|v| v.spent.cost).collect();
    for (bill, spent) in live.iter().zip(&spent) {
        assert!(bill.roles.len() >= 2, "version {} was made by more than one role: {:?}", bill.version, bill.roles);
        assert!(bill.total.cost > 0.0 && (bill.total.cost - spent).abs() < 1e-12);
        assert!(bill.roles.iter().all(|r| r.tally.calls > 0 && r.tally.prompt_tokens > 0));
    }
    let calls: u64 = live.iter().map(|b| b.total.calls).sum();
    assert_eq!(calls, world.model.scripted.calls() as u64, "every call is on a version");

    drop(tab);
    let tab = world.tab("tab-1", KEY);
    world.block(tab.host.open(&id)).unwrap();
    assert_eq!(tab.host.session().unwrap().bills(), live, "the same bill after a reload");

    let store = world.store.clone();
    let export = world.block(async move { store.export_session(&id).await.unwrap() });
    let doc: serde_json::Value = serde_json::from_str(&export).unwrap();
    assert_eq!(doc["bill"], serde_json::to_value(&live).unwrap());
    assert_eq!(doc["bill"][1]["roles"][0]["cached_tokens"], serde_json::json!(0));
    assert!(crate::core::store::import_json(&export).is_ok(), "an export with its bill imports");
}
