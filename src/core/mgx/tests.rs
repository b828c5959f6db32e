//! A whole "2048 game in HTML/JS" run of the MGX-style company with a
//! scripted model: who talks to whom, how the plan evolves, which files
//! come out, what it costs.

use std::rc::Rc;

use serde_json::{json, Value};

use super::{mgx_team, LEADER, MEMBERS};
use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason};
use crate::core::human::ScriptedHuman;
use crate::core::llm::scripted::ScriptedLlm;
use crate::cross_test;

const MODEL: &str = "scripted";

/// A RoleZero answer: a thought, then its commands in a json block.
pub(crate) fn answer(thought: &str, commands: Value) -> String {
    format!("{thought}\n```json\n{}\n```", serde_json::to_string_pretty(&commands).unwrap())
}

pub(crate) fn cmd(name: &str, args: Value) -> Value {
    json!({"command_name": name, "args": args})
}

pub(crate) fn end() -> Value {
    json!({"command_name": "end"})
}

fn write(path: &str, content: &str) -> Value {
    cmd("Editor.write", json!({"path": path, "content": content}))
}

/// Mike's step: finish the current task (unless first), brief the next member.
fn lead(finish: bool, to: &str, brief: &str, status: &str) -> String {
    let mut list = Vec::new();
    if finish {
        list.push(cmd("Plan.finish_current_task", json!({})));
    }
    list.push(cmd("TeamLeader.publish_team_message", json!({"content": brief, "send_to": to})));
    list.push(cmd("RoleZero.reply_to_human", json!({"content": status})));
    list.push(end());
    answer("Next step.", Value::Array(list))
}

/// The scripted answers, in call order: the recorded sample run the site
/// replays (`recordings/company-2048.json`, one source for both), also used
/// by the browser run in `web::team_run_tests`.
pub(crate) fn script() -> Vec<String> {
    crate::core::llm::replay::Recording::sample().turns.into_iter().map(|t| t.text).collect()
}

cross_test! {
    async fn a_2048_game_by_the_mgx_company() {
        let llm = ScriptedLlm::from_texts(MODEL, script());
        let mut team = priced_mgx(&llm);
        let human = ScriptedHuman::default();
        team.env.world.human = Rc::new(human.clone());
        team.run_project("a 2048 game in HTML/JS");
        let outcome = team.run(20).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(outcome.stop, StopReason::Idle);
        assert_eq!(llm.remaining(), 0, "every scripted answer used");

        // Who talked to whom, in order.
        let routed: Vec<String> = team
            .env
            .history()
            .iter()
            .map(|m| format!("{} -> {}", if m.sent_from.is_empty() { "user" } else { &m.sent_from }, m.send_to.iter().cloned().collect::<Vec<_>>().join(",")))
            .collect();
        let expected: Vec<&str> = vec![
            "user -> <all>",
            "Mike -> Alice", "Mike -> <all>",
            "Alice -> Mike",
            "Mike -> Bob", "Mike -> <all>",
            "Bob -> Mike",
            "Mike -> Eve", "Mike -> <all>",
            "Eve -> Mike",
            "Mike -> Alex", "Mike -> <all>",
            "Alex -> Mike",
            "Mike -> Edward", "Mike -> <all>",
            "Edward -> Mike",
            "Mike -> <all>",
        ];
        assert_eq!(routed, expected);

        // The plan's evolution, as Mike saw it at each step.
        let mike_prompts: Vec<String> = llm
            .requests()
            .iter()
            .filter(|r| r.messages[0].content.contains("You are a Team Leader, named Mike"))
            .map(|r| r.messages.last().unwrap().content.to_string())
            .collect();
        assert!(mike_prompts[1].contains("No Plan"), "before planning");
        for (step, finished) in [(2, 0), (3, 1), (4, 2), (5, 3), (6, 4)] {
            let text = &mike_prompts[step];
            let count = text.matches("(finished)").count();
            assert_eq!(count, finished, "Mike's step {step}:\n{text}");
        }
        let mike = team.env.role(LEADER).unwrap();
        let plan = mike.state.plan.borrow();
        assert!(plan.is_finished());
        let assignees: Vec<&str> = plan.tasks().iter().map(|t| t.assignee.as_str()).collect();
        assert_eq!(assignees, ["Alice", "Bob", "Eve", "Alex", "Edward"]);
        assert_eq!(plan.task("1").unwrap().task_type, "other");

        // The files.
        let files = team.env.world.files.borrow();
        assert_eq!(files.list(None).unwrap(), ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "game.js", "index.html", "main.js", "style.css", "tests/game.test.js"]);
        assert!(files.read("docs/prd.md").unwrap().contains("```mermaid\nquadrantChart"));
        let design = files.read("docs/system_design.md").unwrap();
        assert!(design.contains("classDiagram") && design.contains("sequenceDiagram"));
        // A game that runs: the page loads main.js, which draws the board from game.js's rules.
        assert!(files.read("index.html").unwrap().contains(r#"<script type="module" src="main.js">"#));
        assert!(files.read("main.js").unwrap().contains("import { newBoard, move, addTile } from './game.js'"));
        assert!(files.read("game.js").unwrap().contains("export function move(board, dir)"));

        // Each member got its brief and the requirement reached Alice.
        let alice = llm.requests().into_iter().find(|r| r.messages[0].content.contains("named Alice")).unwrap();
        assert!(alice.messages.iter().any(|m| m.content.contains("[Message] from Mike: Write the PRD for: a 2048 game in HTML/JS")));

        // The user heard from Mike only, at every step.
        assert_eq!(human.replies.borrow().len(), 6);
        assert!(human.replies.borrow().last().unwrap().starts_with("Your 2048 game is ready"));

        // Cost: one entry per call, per role.
        let ledger = team.ledger.borrow();
        assert_eq!(ledger.total().calls as usize, script().len());
        assert_eq!(ledger.per_role().get("Mike").unwrap().calls, 7);
        for member in ["Alice", "Bob", "Eve", "Alex", "Edward"] {
            assert_eq!(ledger.per_role().get(member).unwrap().calls, 1, "{member}");
        }
        assert!(ledger.total().cost > 0.0 && ledger.total().cost < 3.0);
    }
}

/// The MGX company on `llm`, the model priced, $3 to spend.
fn priced_mgx(llm: &ScriptedLlm) -> crate::core::team::Team {
    priced_mgx_with(llm, EventSink::default())
}

fn priced_mgx_with(llm: &ScriptedLlm, events: EventSink) -> crate::core::team::Team {
    let mut team = mgx_team(Rc::new(llm.clone()), events);
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 2.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(3.0);
    team
}

/// `team` with a desk where its questions wait for the person, as in the tab.
fn with_desk(mut team: crate::core::team::Team) -> crate::core::team::Team {
    team.env.world.human = Rc::new(crate::core::human::HumanDesk::new(team.env.world.events.clone()));
    team
}

/// The priced company with a desk, the conversation a person would see
/// (folded from its events), and the sink, for a team restored later.
fn viewed_mgx(llm: &ScriptedLlm) -> (crate::core::team::Team, Rc<std::cell::RefCell<crate::core::view::RunView>>, EventSink) {
    let view = Rc::new(std::cell::RefCell::new(crate::core::view::RunView::default()));
    let sink = view.clone();
    let events = EventSink::new(move |e| sink.borrow_mut().apply(e));
    (with_desk(priced_mgx_with(llm, events.clone())), view, events)
}

cross_test! {
    async fn the_company_resumes_from_every_checkpoint_without_paying_twice() {
        use crate::core::checkpoint::tests::resumes_from_every_checkpoint;
        let kept = resumes_from_every_checkpoint(&priced_mgx, MODEL, "a 2048 game in HTML/JS", &script(), &[], 30).await;
        assert_eq!(kept, script().len(), "one checkpoint before each call");
    }
}

cross_test! {
    async fn a_checkpoint_that_cannot_be_kept_pauses_the_company() {
        use crate::core::checkpoint::tests::a_failed_keep_pauses_and_loses_nothing;
        a_failed_keep_pauses_and_loses_nothing(&priced_mgx, MODEL, "a 2048 game in HTML/JS", &script(), 30).await;
    }
}

cross_test! {
    async fn a_reopened_session_shows_the_conversation_it_had() {
        use crate::core::view::{EntryKind, RunView};
        let llm = ScriptedLlm::from_texts(MODEL, script());
        let (mut team, view, _) = viewed_mgx(&llm);
        team.run_project("a 2048 game in HTML/JS");
        team.run(30).await;

        let live = view.borrow().clone();
        let restored = RunView::restored(&team.snapshot(), StopReason::Idle);
        let lines = |v: &RunView| -> Vec<(String, EntryKind, String, Option<String>, Vec<String>)> {
            v.entries.iter().map(|e| (e.role.clone(), e.kind, e.text.clone(), e.commands.clone(), e.deeds.clone())).collect()
        };
        assert_eq!(lines(&restored), lines(&live));
        assert_eq!(restored.cost, live.cost);
        assert!((restored.total_dollars - live.total_dollars).abs() < 1e-12);
        assert_eq!(restored.state, live.state);
    }
}

cross_test! {
    /// A model that answers plain text (no command list): after the repair
    /// note and the duplicate guard, the team pauses with a diagnosis (no
    /// question to the person); a reopened session shows exactly what the
    /// live one showed, error included, and Resume asks the model again.
    async fn a_model_that_answers_plain_text_pauses_with_a_diagnosis_and_reopens_the_same() {
        use crate::core::view::{EntryKind, RunView};
        const PLAIN: &str = "Sure! I will build a 2048 game for you in HTML and JavaScript.";
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK", PLAIN, PLAIN, PLAIN, PLAIN]);
        let (mut team, view, events) = viewed_mgx(&llm);
        team.run_project("a 2048 game in HTML/JS");
        let outcome = team.run(30).await;

        let diagnosis = "The model's answers are not in the format the team needs: 4 answers in a row. \
                         Try a stronger model in Settings, or see its last answer; Resume asks it again.";
        assert_eq!(outcome.stop, StopReason::Failed { errors: vec![(LEADER.into(), diagnosis.into())] });
        assert_eq!((llm.calls(), team.round), (5, 1), "four answers, in one round");
        let lines = |v: &RunView| -> Vec<(String, EntryKind, String, Option<String>)> {
            v.entries.iter().map(|e| (e.role.clone(), e.kind, e.text.clone(), e.commands.clone())).collect()
        };
        let live = view.borrow().clone();
        let mut expected = vec![("You".to_string(), EntryKind::User, "a 2048 game in HTML/JS".to_string(), None)];
        expected.extend((0..4).map(|_| (LEADER.to_string(), EntryKind::Answer, PLAIN.to_string(), None)));
        expected.push((LEADER.into(), EntryKind::Error, diagnosis.into(), None));
        assert_eq!(lines(&live), expected, "no question to the person");
        assert!(live.open_questions().is_empty());
        let reopened = RunView::restored(&team.snapshot(), outcome.stop.clone());
        assert_eq!(lines(&reopened), lines(&live));
        assert_eq!((&reopened.state, reopened.round), (&live.state, live.round));
        // The model's history keeps each answer once: the repeats it was
        // asked to redo are shown to the person, not fed back to it.
        let last = llm.requests().pop().unwrap();
        let shown = last.messages.iter().filter(|m| m.content.contains(PLAIN)).count();
        assert_eq!(shown, 2, "the answers acted on (parsed, refused), not the repeats");

        // Resume: the same model, one more answer, paused again at once
        // (the count goes on); then a model that follows the format goes on.
        let mut team = {
            let mut again = with_desk(priced_mgx_with(&llm, events.clone()));
            again.restore(team.snapshot()).unwrap();
            again
        };
        *view.borrow_mut() = RunView::restored(&team.snapshot(), outcome.stop.clone());
        llm.push(crate::core::llm::scripted::Turn::text(PLAIN));
        let outcome = team.run(30).await;
        assert!(matches!(&outcome.stop, StopReason::Failed { errors } if errors[0].1.contains("5 answers in a row")), "{:?}", outcome.stop);
        assert_eq!((llm.calls(), team.round), (6, 2), "one call, one round");
        let live = view.borrow().clone();
        assert_eq!(lines(&RunView::restored(&team.snapshot(), outcome.stop.clone())), lines(&live));
        llm.push(crate::core::llm::scripted::Turn::text(answer("Building it myself is not my job; done for now.", json!([end()]))));
        llm.push(crate::core::llm::scripted::Turn::text("Nothing was built yet."));
        let outcome = team.run(30).await;
        assert_eq!(outcome.stop, StopReason::Idle, "{:?}", outcome.failures);
    }
}

cross_test! {
    /// The sample run as a person reads it: each answer's text, what its
    /// commands did in words (from the real commands' results), and no
    /// model-facing bookkeeping ("Command … executed").
    async fn the_sample_run_speaks_to_a_person() {
        use crate::core::view::EntryKind;
        let llm = ScriptedLlm::from_texts(MODEL, script());
        let (mut team, view, _) = viewed_mgx(&llm);
        team.run_project("a 2048 game in HTML/JS");
        team.run(30).await;
        let view = view.borrow();
        let deeds: Vec<&str> = view.entries.iter().flat_map(|e| e.deeds.iter().map(String::as_str)).collect();
        for said in [
            "Mike assigned 'Write the PRD' to Alice",
            "Mike assigned 'Write the code' to Alex",
            "Mike messaged Alice",
            "Alice wrote docs/prd.md (version 1)",
            "Mike marked the current task done; next: 'Design the system'",
            "Alex wrote game.js (version 1)",
            "Edward wrote tests/game.test.js (version 1)",
            "Mike marked the last task done",
        ] {
            assert!(deeds.contains(&said), "{said:?} not in {deeds:#?}");
        }
        for e in &view.entries {
            assert!(!e.text.contains("executed") && !e.text.contains("command_name"), "{e:?}");
        }
        let reports: Vec<&str> = view.entries.iter().filter(|e| e.role == "Alice → Mike").map(|e| e.text.as_str()).collect();
        assert_eq!(reports, ["Finished the task and handed it back."]);
        assert!(view.entries.iter().any(|e| e.kind == EntryKind::Reply && e.text.starts_with("Your 2048 game is ready")));
    }
}

const BUGGY_JS: &str = "export function merge(row) { return row.filter(Boolean); }\n";
const FIXED_JS: &str = "export function merge(row) { const v = row.filter(Boolean); for (let i = 0; i + 1 < v.length; i++) if (v[i] === v[i + 1]) { v[i] *= 2; v.splice(i + 1, 1); } return v; }\n";
const MERGE_TEST: &str = "import { merge } from '../game.js';\ntest('merges equal tiles', () => expect(merge([2, 2, 0, 0])).toEqual([4]));\n";

/// QA writes a test that fails, the failure goes to the engineer, who
/// fixes the code; QA runs the tests again and they pass (in call order).
pub(crate) fn debug_loop_script() -> Vec<String> {
    let run_tests = || cmd("Sandbox.run_tests", json!({}));
    vec![
        "TASK".into(),
        answer(
            "Plan: code, then tests.",
            json!([
                cmd("Plan.append_task", json!({"task_id": "1", "dependent_task_ids": [], "instruction": "Write the code", "assignee": "Alex"})),
                cmd("Plan.append_task", json!({"task_id": "2", "dependent_task_ids": ["1"], "instruction": "Test the code", "assignee": "Edward"})),
                cmd("TeamLeader.publish_team_message", json!({"content": "Write game.js with merge(row)", "send_to": "Alex"})),
                cmd("RoleZero.reply_to_human", json!({"content": "Alex is coding."})),
                end(),
            ]),
        ),
        answer("Coding.", json!([write("game.js", BUGGY_JS), end()])),
        lead(true, "Edward", "Test game.js", "Edward is testing."),
        answer("Testing.", json!([write("tests/game.test.js", MERGE_TEST), run_tests(), end()])),
        // Mike and Alex react in the same round, Mike first (hire order).
        answer("Waiting for the fix.", json!([cmd("RoleZero.reply_to_human", json!({"content": "A test fails; Alex is fixing it."})), end()])),
        answer("Fixing the merge.", json!([write("game.js", FIXED_JS), end()])),
        lead(false, "Edward", "Alex fixed game.js; run the tests again", "Edward is re-running the tests."),
        answer("Re-running.", json!([run_tests(), end()])),
        answer(
            "All done.",
            json!([
                cmd("Plan.finish_current_task", json!({})),
                cmd("RoleZero.reply_to_human", json!({"content": "game.js is done and its tests pass."})),
                end(),
            ]),
        ),
    ]
}

cross_test! {
    async fn a_failing_test_goes_to_the_engineer_and_passes_after_the_fix() {
        use crate::core::sandbox::{Outcome, TestReport, TestResult};
        use crate::core::sandbox::fake::FakeSandbox;

        let llm = ScriptedLlm::from_texts(MODEL, debug_loop_script());
        let mut team = priced_mgx(&llm);
        let human = ScriptedHuman::default();
        team.env.world.human = Rc::new(human.clone());
        let result = |outcome, message: &str| TestResult::new("tests/game.test.js", "merges equal tiles", outcome, message);
        let sandbox = FakeSandbox::with_reports([
            TestReport { results: vec![result(Outcome::Failed, "expected [4] but got [2,2]")] },
            TestReport { results: vec![result(Outcome::Passed, "")] },
        ]);
        team.env.world.sandbox = Rc::new(sandbox.clone());
        team.run_project("game.js with a merge function, tested");
        let outcome = team.run(20).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(outcome.stop, StopReason::Idle);
        assert_eq!(llm.remaining(), 0, "every scripted answer used");

        // The failure went from Edward to Alex, in the conversation.
        let history = team.env.history();
        let report = history.iter().find(|m| m.cause_by.as_str() == "Sandbox.run_tests").expect("a failure report");
        assert_eq!(report.sent_from, "Edward");
        assert_eq!(report.send_to.iter().cloned().collect::<Vec<_>>(), ["Alex"]);
        assert!(report.content.contains("The tests fail (round 1 of 3)"), "{}", report.content);
        assert!(report.content.contains("FAILED tests/game.test.js › merges equal tiles: expected [4] but got [2,2]"));
        // Alex saw it when he fixed the code.
        let alex_fix = llm.requests().into_iter().filter(|r| r.messages[0].content.contains("named Alex")).nth(1).expect("Alex's second call");
        assert!(alex_fix.messages.iter().any(|m| m.content.contains("[Message] from Edward: The tests fail")));

        // The sandbox ran the buggy code first, then the fixed code.
        let runs = sandbox.runs.borrow();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].0["game.js"], BUGGY_JS);
        assert_eq!(runs[0].0["tests/game.test.js"], MERGE_TEST);
        assert_eq!(runs[1].0["game.js"], FIXED_JS);
        // Edward's second run told him they pass.
        let outputs: Vec<String> = team.env.role("Edward").unwrap().state.memory.all().iter().map(|m| m.content.clone()).collect();
        assert!(outputs.iter().any(|o| o.contains("Command Sandbox.run_tests executed: tests: 1 passed")), "{outputs:?}");
        assert_eq!(history.iter().filter(|m| m.cause_by.as_str() == "Sandbox.run_tests").count(), 1, "one failure report, no more after the pass");

        assert!(team.env.role(LEADER).unwrap().state.plan.borrow().is_finished());
        assert_eq!(human.replies.borrow().last().unwrap(), "game.js is done and its tests pass.");
    }
}

cross_test! {
    /// Issue #22: every role's requests keep a prefix a provider can cache.
    /// Each step of a role sends the same system prompt, a history that
    /// extends the one it sent before, and last the turn that changes (the
    /// example, the plan, the rules); every RoleZero's system prompt opens
    /// with the same framework text; the Anthropic codec marks the system
    /// prompt and the end of the history, and nothing after it.
    async fn every_request_is_laid_out_for_prompt_caches() {
        use crate::core::llm::anthropic;
        use crate::core::rolezero::zero::REPLY_TO_HUMAN;
        let llm = ScriptedLlm::from_texts(MODEL, script());
        let mut team = priced_mgx(&llm);
        team.env.world.human = Rc::new(ScriptedHuman::default());
        team.run_project("a 2048 game in HTML/JS");
        team.run(20).await;
        let requests = llm.requests();
        let steps: Vec<_> = requests.iter().filter(|r| r.messages[0].content.starts_with("# Task types")).collect();
        assert_eq!(steps.len(), requests.len() - 1, "every call but the quick think is a step");

        let common = steps.iter().map(|r| r.messages[0].content.to_string()).reduce(|a, b| {
            let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            a[..n].to_string()
        });
        let common = common.unwrap_or_default();
        assert!(common.contains("# Commands you can use") && common.contains(REPLY_TO_HUMAN), "shared by every role:\n{common}");
        assert!(!common.contains("You are a"), "the role's identity comes after the shared text");

        let mut previous: std::collections::BTreeMap<String, &crate::core::llm::ChatRequest> = Default::default();
        for request in &steps {
            let system = request.messages[0].content.to_string();
            let name = MEMBERS.iter().map(|m| m.name).find(|n| system.contains(&format!("named {n}"))).unwrap();
            let last = request.messages.last().unwrap();
            assert!(last.content.starts_with("# An example from past experience\n"), "{name}: {}", &*last.content);
            assert!(last.content.contains("# Current plan") && last.content.contains("# Output format"));
            assert!(!system.contains("past experience"), "{name}: the example is not in the system prompt");
            if let Some(before) = previous.get(name) {
                let history = &before.messages[..before.messages.len() - 1];
                assert_eq!(&request.messages[..history.len()], history, "{name}: the prefix it sent before is kept");
            }
            previous.insert(name.to_string(), request);

            let http = anthropic::build_request("https://api.anthropic.com", None, request, true);
            let body: Value = serde_json::from_str(&http.body).unwrap();
            assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
            let marked: Vec<String> = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["content"].as_array().cloned().unwrap_or_default())
                .filter(|b| b.get("cache_control").is_some())
                .map(|b| b["text"].as_str().unwrap_or_default().to_string())
                .collect();
            let end_of_history = request.messages[request.messages.len() - 2].content.to_string();
            assert_eq!(marked, [end_of_history], "{name}: one breakpoint, at the end of the history");
        }
        assert_eq!(previous.len(), MEMBERS.len() - 1, "every member but David worked");
    }
}
