//! Issue #33's scenario: a long project on a small window. The company
//! builds a feature per request, 30 follow-ups after the idea, on a model
//! whose window is 16k tokens; the scripted model checks every request it
//! gets against that window. Also the same-error guard: a fix loop that
//! repeats itself stops after the second identical attempt.
//!
//! The project's script (`core::long_project_script`, which the token
//! bench measures too) answers as a pure function of the request, so a
//! session restored from any checkpoint gets the same answers as the
//! uninterrupted one.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::json;

use super::checkpoint::tests::outcome;
use super::checkpoint::{Checkpoints, Durable};
use super::keep_error::KeepError;
use super::snapshot::TeamSnapshot;
use super::cost::Price;
use super::events::{EventSink, StopReason};
use super::llm::scripted::ScriptedLlm;
use super::llm::ChatRequest;
use super::long_project_script::{answer, answer_for, cmd, end, prompt_tokens_per_request, request_text, FOLLOW_UPS};
use super::rolezero::condense::{is_summary_request, CONDENSED, SUMMARY_HEADING};
use super::session::{Models, Session};
use super::settings::{Settings, TeamKind};
use super::window::{estimate_messages, ModelWindow};
use crate::cross_test;

const MODEL: &str = "scripted";
const WINDOW: ModelWindow = ModelWindow::new(16_384, 4_096);

fn settings() -> Settings {
    Settings {
        team: TeamKind::Company,
        model: MODEL.into(),
        custom_price: Some(Price::new(1.0, 2.0)),
        custom_window: Some(WINDOW),
        budget: 1e6,
        rounds: 30,
        ..Settings::default()
    }
}

/// The scripted model; every request it gets is measured against the
/// window (the largest estimate so far is kept).
fn model(largest: Rc<RefCell<u64>>) -> ScriptedLlm {
    ScriptedLlm::answering(MODEL, move |_, request| {
        let tokens = estimate_messages(&request.messages);
        let mut largest = largest.borrow_mut();
        *largest = (*largest).max(tokens);
        answer_for(request)
    })
}

/// Keeps every checkpoint's snapshot (the store's own round trip is
/// `checkpoint::tests::Recorder`'s business; this run is long).
#[derive(Default)]
struct Snapshots(RefCell<Vec<TeamSnapshot>>);

impl Durable for Snapshots {
    fn keep(&self, team: Rc<Checkpoints>) -> futures::future::LocalBoxFuture<'static, Result<(), KeepError>> {
        self.0.borrow_mut().push(team.snapshot());
        Box::pin(std::future::ready(Ok(())))
    }
}

fn session(llm: &ScriptedLlm) -> Session {
    Session::new(&settings(), Models::Given(Rc::new(llm.clone())), EventSink::default())
}

/// Send request `n` and run it to the end.
async fn request(s: &Session, n: usize) {
    s.send(&request_text(n)).expect("the team is idle");
    let end = s.run().await.expect("the run ends");
    assert_eq!(end.outcome.stop, StopReason::Idle, "request {n}: {:?}", end.outcome.failures);
}

fn is_condensation(request: &ChatRequest) -> bool {
    is_summary_request(&request.messages)
}

cross_test! {
    async fn thirty_follow_ups_on_a_16k_window_fit_condense_and_resume_from_around_each_condensation() {
        let largest = Rc::new(RefCell::new(0));
        let llm = model(largest.clone());
        let s = session(&llm);
        let recorder = Rc::new(Snapshots::default());
        s.team().borrow_mut().keep_durable(recorder.clone());
        // (snapshot, the request it was taken in, whether that request is done)
        let mut checkpoints = Vec::new();
        // Which request each call was made for.
        let mut made_for = Vec::new();
        for n in 0..=FOLLOW_UPS {
            let before = recorder.0.borrow().len();
            request(&s, n).await;
            checkpoints.extend(recorder.0.borrow()[before..].iter().map(|snap| (snap.clone(), n)));
            made_for.resize(llm.calls(), n);
        }
        let requests = llm.requests();
        // A follow-up's cost stays flat: the 30th within 1.5 times the first
        // (the bench prints the same figures), and a project with one
        // follow-up pays no summary call.
        let tokens = prompt_tokens_per_request(made_for.iter().copied().zip(&requests));
        eprintln!("prompt tokens of follow-ups 1, 10, 20, 30: {} {} {} {}", tokens[1], tokens[10], tokens[20], tokens[30]);
        assert!(tokens[30] * 2 <= tokens[1] * 3, "follow-up 30 ({}) within 1.5x follow-up 1 ({})", tokens[30], tokens[1]);
        assert!(!made_for.iter().zip(&requests).any(|(&n, r)| n <= 1 && is_condensation(r)), "no summary call before the second follow-up");
        // Every request fits: the prompt within the budget, so the answer's
        // room is left too (the scripted model would have had to refuse).
        assert!(*largest.borrow() <= WINDOW.prompt_budget(), "largest prompt {} > budget {}", largest.borrow(), WINDOW.prompt_budget());
        let condensations: Vec<usize> = (0..requests.len()).filter(|&i| is_condensation(&requests[i])).collect();
        assert!(!condensations.is_empty(), "the history was condensed at least once");
        // The summary is in the session like any message, and later requests start from it.
        let team = s.team().borrow();
        let mike = team.env.roles().iter().find(|r| r.name() == "Mike").expect("Mike");
        assert!(mike.state.memory.all().iter().any(|m| m.cause_by.as_str() == CONDENSED));
        let last_mike = requests.iter().rev().find(|r| r.messages[0].content.contains("named Mike") && !is_condensation(r)).expect("Mike asked");
        assert!(last_mike.messages[1].content.starts_with(SUMMARY_HEADING), "{}", last_mike.messages[1].content);
        assert_eq!(team.env.world.files.borrow().paths().count(), FOLLOW_UPS + 1, "a file per feature");
        let want = outcome(&team);
        drop(team);

        // Restored from each checkpoint just before and after a condensation
        // call (the first and the last), the run goes on the same.
        let mut checked = 0;
        let near = [condensations[0], condensations[condensations.len() - 1]];
        for (k, (snapshot, n)) in checkpoints.into_iter().enumerate() {
            let finished = snapshot.ledger.total().calls as usize;
            if !near.iter().any(|&c| finished + 1 >= c && finished <= c + 1) {
                continue;
            }
            let rest = model(Rc::new(RefCell::new(0)));
            let restored = session(&rest);
            restored.team().borrow_mut().keep_durable(Rc::new(Snapshots::default()));
            restored.restore(snapshot).expect("restore");
            let end = restored.run().await.expect("the run goes on");
            assert_eq!(end.outcome.stop, StopReason::Idle, "checkpoint {k}: {:?}", end.outcome.failures);
            for m in n + 1..=FOLLOW_UPS {
                request(&restored, m).await;
            }
            assert_eq!(rest.calls(), requests.len() - finished, "checkpoint {k}: no finished call made again");
            let asked: Vec<_> = rest.requests().into_iter().map(|r| r.messages).collect();
            assert!(asked.iter().eq(requests[finished..].iter().map(|r| &r.messages)), "checkpoint {k}: the same requests");
            assert_eq!(outcome(&restored.team().borrow()), want, "checkpoint {k}");
            checked += 1;
        }
        assert!(checked >= 4, "{checked} checkpoints around condensations");
    }
}

/// The fix loop: Edward runs the tests, Alex "fixes" game.js with the same
/// code, Mike has the tests run again; the same failure comes back.
fn fix_loop_answer(request: &ChatRequest) -> String {
    let turns = &request.messages;
    let system = turns.first().map_or("", |m| m.content.as_str());
    let newest = turns.len().checked_sub(2).map_or("", |i| turns[i].content.as_str());
    if system.contains("decide what kind of request") {
        return "TASK".into();
    }
    if turns.first().is_some_and(|m| m.role != super::llm::ChatRole::System) {
        return "The tests still fail the same way.".into();
    }
    let publish = |to: &str, what: &str| cmd("TeamLeader.publish_team_message", json!({"content": what, "send_to": to}));
    if system.contains("named Mike") {
        if newest.starts_with("Follow-up request") || newest.contains("merge bug") && !newest.starts_with("[Message]") {
            return answer(
                "Edward first.",
                json!([
                    cmd("Plan.append_task", json!({"task_id": "1", "dependent_task_ids": [], "instruction": "Fix the merge bug", "assignee": "Alex"})),
                    publish("Edward", "Run the tests of game.js."),
                    end(),
                ]),
            );
        }
        if newest.starts_with("[Message] from Alex") {
            return answer("Again, Edward.", json!([publish("Edward", "Alex fixed game.js: run the tests again."), end()]));
        }
        return answer("Waiting.", json!([end()]));
    }
    if system.contains("named Edward") {
        if newest.starts_with("[Message] from Mike") {
            let test = "import { merge } from '../game.js';\ntest('merges equal tiles', () => expect(merge([2, 2, 0, 0])).toEqual([4, 0, 0, 0]));\n";
            // Thoughts that differ (as a model's do): the duplicate guard
            // compares whole answers; this guard, the commands and the error.
            let asked = turns.iter().filter(|m| m.content.starts_with("[Message] from Mike")).count();
            return answer(
                &format!("Running them ({asked} messages from Mike so far)."),
                json!([cmd("Editor.write", json!({"path": "tests/game.test.js", "content": test})), cmd("Sandbox.run_tests", json!({}))]),
            );
        }
        return answer("Reported.", json!([end()]));
    }
    // Alex: the same "fix" every time.
    answer(
        "Fixing merge.",
        json!([cmd("Editor.write", json!({"path": "game.js", "content": "export function merge(row) { return row; }\n"})), end()]),
    )
}

cross_test! {
    async fn a_fix_loop_that_meets_the_same_error_twice_pauses_for_the_person() {
        use super::sandbox::fake::FakeSandbox;
        use super::sandbox::{Outcome as TestOutcome, TestReport, TestResult};
        let failing = || TestReport {
            results: vec![TestResult::new("tests/game.test.js", "merges equal tiles", TestOutcome::Failed, "expected [4,0,0,0], got [2,2,0,0]")],
        };
        let llm = ScriptedLlm::answering(MODEL, |_, request| fix_loop_answer(request));
        let s = session(&llm);
        let sandbox = FakeSandbox::with_reports([failing(), failing(), failing()]);
        s.team().borrow_mut().env.world.sandbox = Rc::new(sandbox.clone());
        s.send("fix the merge bug in game.js").expect("idle");
        let end = s.run().await.expect("the run ends");
        assert_eq!(sandbox.runs.borrow().len(), 2, "no third run of the same tests");
        let StopReason::Failed { errors } = &end.outcome.stop else { panic!("paused: {:?}", end.outcome.stop) };
        assert!(end.outcome.stop.can_resume());
        let [(who, text)] = errors.as_slice() else { panic!("{errors:?}") };
        assert_eq!(who, "Edward");
        assert!(text.contains("got the same error twice in a row"), "{text}");
        assert!(text.contains("merges equal tiles"), "the error is quoted: {text}");
        assert!(text.contains("Resume to let it try again"), "{text}");
        // The files are what the single "fix" left: one version of game.js.
        assert_eq!(s.team().borrow().env.world.files.borrow().history("game.js").map(|h| h.len()).ok(), Some(1));
    }
}
