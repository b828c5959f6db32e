//! The write-through promise, checked the hard way: a team is run once with
//! every checkpoint recorded; then, for *each* checkpoint, a fresh team is
//! restored from it (as a reloaded tab would be) and run to the end. Each
//! must finish with the same transcript, the same files and the same cost as
//! the uninterrupted run, making every call that had not finished exactly
//! once and no finished call again.
//!
//! The team recipes call [`resumes_from_every_checkpoint`] from their own
//! tests (the MGX company, the fixed-SOP company, the plan-and-act
//! pipeline, an assistant that asks the user).

use crate::core::sorted_map::SortedSet;
use std::cell::RefCell;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::FutureExt;

use super::{Checkpoints, Durable};
use crate::core::keep_error::KeepError;
use crate::core::human::{Human, ScriptedHuman};
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::snapshot::TeamSnapshot;
use crate::core::store::{Batch, MemoryStore, NewSession, SessionWriter, Store};
use crate::core::team::Team;

/// Keeps every checkpoint; fails the keeps listed in `fail_at` (0-based).
///
/// Like the browser's sink it reads the team only when it gets to write
/// (here: after yielding once, so other roles may move on meanwhile), and
/// it also writes through a `SessionWriter` into a `MemoryStore`: each
/// checkpoint's incremental batch must equal the diff of the composed
/// snapshots, and the session loaded back must be that snapshot.
pub(crate) struct Recorder {
    pub kept: Rc<RefCell<Vec<TeamSnapshot>>>,
    pub fail_at: RefCell<Vec<usize>>,
    attempts: RefCell<usize>,
    mirror: Rc<Mirror>,
}

struct Mirror {
    store: MemoryStore,
    writer: futures::lock::Mutex<SessionWriter>,
    last: RefCell<Option<TeamSnapshot>>,
}

impl Default for Recorder {
    fn default() -> Self {
        let store = MemoryStore::default();
        let new = NewSession {
            title: "mirror".into(),
            idea: String::new(),
            team_kind: "test".into(),
            settings: Default::default(),
            now_ms: 1,
        };
        let record = store.create_session(new).now_or_never().expect("the memory store is ready").expect("create");
        let writer = futures::lock::Mutex::new(SessionWriter::new(record.id, "tab", None));
        Self {
            kept: Rc::default(),
            fail_at: RefCell::default(),
            attempts: RefCell::default(),
            mirror: Rc::new(Mirror { store, writer, last: RefCell::default() }),
        }
    }
}

impl Durable for Recorder {
    fn keep(&self, team: Rc<Checkpoints>) -> LocalBoxFuture<'static, Result<(), KeepError>> {
        let attempt = {
            let mut n = self.attempts.borrow_mut();
            *n += 1;
            *n - 1
        };
        let fail = self.fail_at.borrow().contains(&attempt);
        let (kept, mirror) = (self.kept.clone(), self.mirror.clone());
        Box::pin(async move {
            yield_once().await;
            if fail {
                return Err(KeepError::Quota);
            }
            let mut writer = mirror.writer.lock().await;
            let snapshot = team.snapshot();
            let changes = team.with_frame(|frame| writer.changes(frame));
            let want = Batch::between(mirror.last.borrow().as_ref(), &snapshot);
            assert_eq!(changes.batch, want, "checkpoint {attempt}: the incremental batch is the diff of the snapshots");
            writer.commit(&mirror.store, changes, None, 2 + attempt as u64).await.expect("commit");
            let data = mirror.store.load_session(writer.session_id()).await.expect("load");
            // Through JSON as the store's rows are (its float parsing may
            // move a total's last bit).
            let want: TeamSnapshot = serde_json::from_str(&serde_json::to_string(&snapshot).expect("json")).expect("json");
            assert_eq!(data.snapshot().expect("consistent"), Some(want), "checkpoint {attempt}: saved as composed");
            *mirror.last.borrow_mut() = Some(snapshot.clone());
            kept.borrow_mut().push(snapshot);
            Ok(())
        })
    }
}

/// Pending once, then ready: lets other tasks of the round run first.
async fn yield_once() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

/// What must come out the same: every published message (id, sender,
/// cause, receivers, content), every file version, and the calls paid for.
#[derive(Debug, PartialEq)]
pub(crate) struct Outcome {
    pub transcript: Vec<String>,
    pub files: Vec<(String, Vec<String>)>,
    pub calls: u64,
}

pub(crate) fn outcome(team: &Team) -> Outcome {
    let transcript = team
        .env
        .history()
        .iter()
        .map(|m| format!("#{} {} [{}] → {:?}: {}", m.id, m.sent_from, m.cause_by, m.send_to, m.content))
        .collect();
    let files = team.env.world.files.borrow();
    let files = files.paths().map(|p| (p.to_string(), files.history(p).unwrap_or_default().to_vec())).collect();
    Outcome { transcript, files, calls: team.ledger.borrow().total().calls }
}

/// Run `build`'s team on `turns` once uninterrupted, then restored from
/// each of its checkpoints; returns how many checkpoints were checked.
pub(crate) async fn resumes_from_every_checkpoint(
    build: &dyn Fn(&ScriptedLlm) -> Team,
    model: &str,
    idea: &str,
    turns: &[String],
    human_answers: &[&str],
    rounds: u32,
) -> usize {
    let with_human = |team: &mut Team| {
        if !human_answers.is_empty() {
            team.env.world.human = Rc::new(ScriptedHuman::new(human_answers.iter().copied())) as Rc<dyn Human>;
        }
    };

    // Without write-through, for reference.
    let llm = ScriptedLlm::from_texts(model, turns.to_vec());
    let mut plain = build(&llm);
    with_human(&mut plain);
    plain.run_project(idea);
    plain.run(rounds).await;
    let want = outcome(&plain);
    assert_eq!(llm.remaining(), 0, "the script fits the run");

    // With write-through: the same run, checkpoint by checkpoint.
    let llm = ScriptedLlm::from_texts(model, turns.to_vec());
    let recorder = Rc::new(Recorder::default());
    let mut team = build(&llm);
    with_human(&mut team);
    team.keep_durable(recorder.clone());
    team.run_project(idea);
    team.run(rounds).await;
    assert_eq!(outcome(&team), want, "keeping checkpoints changes nothing");
    let kept = recorder.kept.borrow().clone();
    let count = kept.len();
    assert!(count >= turns.len(), "a checkpoint before every call: {count} for {} calls", turns.len());

    for (k, snapshot) in kept.into_iter().enumerate() {
        let finished = snapshot.ledger.total().calls as usize;
        let rest = ScriptedLlm::from_texts(model, turns[finished..].to_vec());
        let mut restored = build(&rest);
        with_human(&mut restored);
        restored.keep_durable(Rc::new(Recorder::default()));
        restored.restore(snapshot).unwrap();
        restored.run(rounds * 2).await;
        assert_eq!(outcome(&restored), want, "restored from checkpoint {k}");
        assert_eq!(rest.calls(), turns.len() - finished, "checkpoint {k}: each unfinished call made once, no finished call again");
        // And asked exactly as before: nothing a prompt is made of was lost.
        let asked: Vec<_> = rest.requests().into_iter().map(|r| r.messages).collect();
        let before: Vec<_> = llm.requests().into_iter().skip(finished).map(|r| r.messages).collect();
        assert!(asked == before, "checkpoint {k}: the restored team asks what the uninterrupted one asked");
    }
    count
}

/// A checkpoint that cannot be kept stops the call waiting on it; the
/// run pauses with the storage error, and resumes once storage works.
pub(crate) async fn a_failed_keep_pauses_and_loses_nothing(
    build: &dyn Fn(&ScriptedLlm) -> Team,
    model: &str,
    idea: &str,
    turns: &[String],
    rounds: u32,
) {
    let llm = ScriptedLlm::from_texts(model, turns.to_vec());
    let mut plain = build(&llm);
    plain.run_project(idea);
    plain.run(rounds).await;
    let want = outcome(&plain);

    let llm = ScriptedLlm::from_texts(model, turns.to_vec());
    let recorder = Rc::new(Recorder::default());
    recorder.fail_at.borrow_mut().push(2);
    let mut team = build(&llm);
    team.keep_durable(recorder.clone());
    team.run_project(idea);
    let paused = team.run(rounds).await;
    let errors = match &paused.stop {
        crate::core::events::StopReason::Failed { errors } => errors.clone(),
        other => panic!("expected a pause on the storage error, got {other:?}"),
    };
    assert!(errors.iter().any(|(_, e)| e.contains("storage for this site is full")), "{errors:?}");
    assert_eq!(llm.calls(), 2, "the call waiting on the failed checkpoint was not made");
    team.run(rounds * 2).await;
    assert_eq!(outcome(&team), want);
    assert_eq!(llm.calls(), turns.len());
}

#[test]
fn a_checkpoint_is_the_team_as_it_stands() {
    // Built straight from the parts: equal to `Team::snapshot` when every
    // role has just been captured.
    let llm = ScriptedLlm::from_texts("m", Vec::<String>::new());
    let mut team = crate::core::recipes::build_team(
        crate::core::settings::TeamKind::Company,
        Rc::new(llm),
        crate::core::events::EventSink::default(),
    );
    team.keep_durable(Rc::new(Recorder::default()));
    team.run_project("make 2048");
    let checkpoints: Rc<Checkpoints> = team.env.world.checkpoints.clone().unwrap();
    assert_eq!(checkpoints.snapshot(), team.snapshot());
}

/// Fails every keep with its error.
struct Refusing(KeepError);

impl Durable for Refusing {
    fn keep(&self, _: Rc<Checkpoints>) -> LocalBoxFuture<'static, Result<(), KeepError>> {
        let error = self.0.clone();
        Box::pin(async move { Err(error) })
    }
}

/// Past the checkpoint, each way the store can fail to keep the team
/// stays its own kind up to the paused run: a full quota, a session
/// another tab took, a deleted session and any other failure each reach
/// the person's status line in their own words, and no call is made.
#[test]
fn each_keep_failure_reaches_the_person_in_its_own_words() {
    use crate::core::action::AskAction;
    use crate::core::events::{EventSink, StopReason};
    use crate::core::role::{Role, RoleSpec};
    use crate::core::role_error::RoleError;
    use crate::core::store::StoreError;
    use crate::core::view::stop_text;

    let aborted = StoreError::Other("the transaction was aborted".into());
    let failures = [
        (StoreError::QuotaExceeded, KeepError::Quota, "storage for this site is full"),
        (StoreError::Locked { by: "tab 7".into() }, KeepError::LeaseLost { by: "tab 7".into() }, "open in another tab (tab 7)"),
        (StoreError::NotFound("s-1".into()), KeepError::SessionGone, "This session was deleted"),
        (aborted.clone(), KeepError::Other(aborted.to_string()), "Saving failed (the transaction was aborted)"),
    ];
    let mut statuses = Vec::new();
    for (store_error, kind, words) in failures {
        let kept = KeepError::from(store_error);
        assert_eq!(kept, kind, "the store's failure keeps its kind");
        let llm = ScriptedLlm::from_texts("gpt-4o", vec!["an answer".to_string()]);
        let mut team = Team::new("", Rc::new(llm.clone()), EventSink::default());
        team.hire([Role::new(RoleSpec::new("Alice", "Engineer"), vec![Rc::new(AskAction::new("Write", "write it"))])]);
        team.keep_durable(Rc::new(Refusing(kept.clone())));
        team.run_project("make a game");
        let outcome = futures::executor::block_on(team.run(3));
        assert_eq!(llm.calls(), 0, "{kept:?}: the call waiting on the checkpoint was not made");
        let failed: Vec<&RoleError> = outcome.failures.iter().map(|(_, _, e)| e).collect();
        assert_eq!(failed, vec![&RoleError::Storage(kept.clone())], "the run controller gets the kind");
        let StopReason::Failed { errors } = &outcome.stop else { panic!("{kept:?}: expected a pause, got {:?}", outcome.stop) };
        assert_eq!(errors, &vec![("Alice".to_string(), kept.to_string())]);
        let status = stop_text(&outcome.stop);
        assert!(status.contains(words), "{kept:?}: {status}");
        statuses.push(status);
    }
    let distinct: SortedSet<&String> = statuses.iter().collect();
    assert_eq!(distinct.len(), statuses.len(), "{statuses:#?}");
}
