//! The run controller's rules, with the scripted model: follow-ups for each
//! kind of team, versions and restores, hand edits, preview errors, tests
//! that break, and a two-request session resumed from every checkpoint.

use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::core::checkpoint::tests::{outcome, Recorder};
use crate::core::cost::Price;
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::mgx::tests::{answer, cmd, end};
use crate::core::mgx::ENGINEER;
use crate::core::sandbox::{Outcome as TestOutcome, TestResult};
use crate::core::versions::RequestKind;
use crate::cross_test;
use crate::core::events::TeamEvent;
use crate::core::llm::scripted::Turn;
use crate::core::llm::LlmError;

const MODEL: &str = "scripted";
const IDEA: &str = "a 2048 game in HTML/JS";

fn settings(team: TeamKind) -> Settings {
    Settings { team, model: MODEL.into(), custom_price: Some(Price::new(1.0, 2.0)), budget: 3.0, rounds: 30, ..Settings::default() }
}

fn session(team: TeamKind, llm: &ScriptedLlm) -> Session {
    Session::new(&settings(team), Models::Given(Rc::new(llm.clone())), EventSink::default())
}

/// The site's sample run: the company makes the 2048 game (12 calls).
pub(crate) fn first_run() -> Vec<String> {
    crate::core::mgx::tests::script()
}

/// The sample run's index.html (`recordings/company-2048.json`).
const INDEX_V1: &str = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>2048</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n<h1>2048</h1>\n<p id=\"score\">Score: 0</p>\n<div id=\"board\"></div>\n<p class=\"hint\">Use the arrow keys.</p>\n<script type=\"module\" src=\"main.js\"></script>\n</body>\n</html>\n";
const BOARD: &str = "<div id=\"board\"></div>";
const RESTART: &str = "<button id=\"restart\">Restart</button><div id=\"board\"></div>";

/// "add a restart button": Mike classifies, plans one task for Alex and
/// briefs him; Alex changes index.html in place and appends to game.js;
/// Mike finishes the task and tells the user.
pub(crate) fn restart_button() -> Vec<String> {
    vec![
        "TASK".into(),
        answer(
            "A small change for Alex.",
            json!([
                cmd("Plan.append_task", json!({"task_id": "6", "dependent_task_ids": [], "instruction": "Add a restart button", "assignee": ENGINEER})),
                cmd("TeamLeader.publish_team_message", json!({"content": "Add a restart button to index.html; game.js gets restart().", "send_to": ENGINEER})),
                cmd("RoleZero.reply_to_human", json!({"content": "Alex is adding the button."})),
                end(),
            ]),
        ),
        answer(
            "Two local changes.",
            json!([
                cmd("Editor.replace", json!({"path": "index.html", "old": BOARD, "new": RESTART})),
                cmd("Editor.append", json!({"path": "game.js", "content": "export function restart() { return []; }"})),
                end(),
            ]),
        ),
        answer(
            "Done.",
            json!([
                cmd("Plan.finish_current_task", json!({})),
                cmd("RoleZero.reply_to_human", json!({"content": "The restart button is in."})),
                end(),
            ]),
        ),
    ]
}

/// "make the title red": the same shape, one change to style.css.
pub(crate) fn red_title() -> Vec<String> {
    vec![
        "TASK".into(),
        answer(
            "For Alex.",
            json!([
                cmd("Plan.append_task", json!({"task_id": "7", "dependent_task_ids": [], "instruction": "Make the title red", "assignee": ENGINEER})),
                cmd("TeamLeader.publish_team_message", json!({"content": "Make the title red in style.css.", "send_to": ENGINEER})),
                end(),
            ]),
        ),
        answer(
            "One rule.",
            json!([cmd("Editor.append", json!({"path": "style.css", "content": "h1 { color: red; }"})), end()]),
        ),
        answer("Done.", json!([cmd("Plan.finish_current_task", json!({})), cmd("RoleZero.reply_to_human", json!({"content": "Red."})), end()])),
    ]
}

/// A durable sink whose keeps wait for a lock the test holds.
struct HeldKeep(Rc<futures::lock::Mutex<()>>);

impl crate::core::checkpoint::Durable for HeldKeep {
    fn keep(&self, _: Rc<crate::core::checkpoint::Checkpoints>) -> futures::future::LocalBoxFuture<'static, Result<(), crate::core::keep_error::KeepError>> {
        let gate = self.0.clone();
        Box::pin(async move {
            let _open = gate.lock().await;
            Ok(())
        })
    }
}

fn mike_requests(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests()
        .iter()
        .filter(|r| r.messages[0].content.contains("named Mike"))
        .map(|r| r.messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>().join("\n"))
        .collect()
}

cross_test! {
    async fn a_follow_up_to_the_company_appends_tasks_and_changes_only_what_it_needs() {
        let turns: Vec<String> = first_run().into_iter().chain(restart_button()).collect();
        let llm = ScriptedLlm::from_texts(MODEL, turns);
        let s = session(TeamKind::Company, &llm);
        s.send(IDEA).unwrap();
        let first = s.run().await.unwrap();
        assert_eq!(first.outcome.stop, StopReason::Idle, "{:?}", first.outcome.failures);
        let v1 = first.version.expect("the idea ends in version 1");
        assert_eq!((v1.number, v1.kind, v1.request.as_str()), (1, RequestKind::Idea, IDEA));
        assert_eq!(v1.spent.calls, 12);
        let before = s.files.borrow().clone();

        s.send("add a restart button").unwrap();
        let second = s.run().await.unwrap();
        assert_eq!(second.outcome.stop, StopReason::Idle, "{:?}", second.outcome.failures);
        assert_eq!(llm.remaining(), 0);
        let v2 = second.version.expect("the follow-up ends in version 2");
        assert_eq!((v2.number, v2.kind, v2.request.as_str()), (2, RequestKind::FollowUp, "add a restart button"));
        assert_eq!(v2.spent.calls, 4, "a follow-up costs 4 calls against the idea's 12");

        // Only index.html and game.js changed; the rest is byte-identical.
        let files = s.files.borrow();
        assert_eq!(files.read("index.html").unwrap(), INDEX_V1.replace(BOARD, RESTART));
        assert!(files.read("game.js").unwrap().ends_with("export function restart() { return []; }"));
        for path in ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "main.js", "style.css", "tests/game.test.js"] {
            assert_eq!(files.read(path).unwrap(), before.read(path).unwrap(), "{path} unchanged");
            assert_eq!(v2.files.get(path).unwrap(), v1.files.get(path).unwrap(), "{path}: same file version in both");
        }
        let changed: Vec<String> = s.diff(2).unwrap().into_iter().map(|d| d.path).collect();
        assert_eq!(changed, ["game.js", "index.html"]);

        // The plan grew by one task; the finished ones stayed finished.
        let plan = s.plan.as_ref().unwrap().borrow();
        assert_eq!(plan.tasks().len(), 6);
        assert!(plan.tasks().iter().all(|t| t.is_finished));
        assert_eq!(plan.tasks()[5].assignee, ENGINEER);

        // What Mike was told: the request, the project, the plan rule.
        let asked = mike_requests(&llm);
        let follow_up = asked.iter().find(|p| p.contains("Follow-up request from the user: add a restart button")).expect("Mike heard the follow-up");
        for part in ["- index.html (version 1)", "- docs/prd.md (version 1)", "The plan has 5 tasks, 5 finished", "append tasks for this change only"] {
            assert!(follow_up.contains(part), "missing {part:?} in Mike's prompt:\n{follow_up}");
        }
        // And Alex was told how to change existing files.
        let alex = llm.requests().into_iter().filter(|r| r.messages[0].content.contains("named Alex")).last().unwrap();
        assert!(alex.messages[0].content.contains("Editor.replace"), "the engineer's prompt names the edit command");
    }
}

cross_test! {
    async fn a_request_is_refused_while_the_team_works_and_accepted_when_stopped() {
        let llm = ScriptedLlm::from_texts(MODEL, first_run());
        let s = session(TeamKind::Company, &llm);
        assert_eq!(s.send("  "), Err(SessionError::Empty));
        s.send(IDEA).unwrap();
        // The first checkpoint waits until the test lets it go.
        let gate = Rc::new(futures::lock::Mutex::new(()));
        let held = gate.try_lock().unwrap();
        s.team().borrow_mut().keep_durable(Rc::new(HeldKeep(gate.clone())));
        let mut run = Box::pin(s.run());
        assert!(futures::poll!(run.as_mut()).is_pending(), "waiting on the checkpoint");
        assert!(s.is_running());
        assert_eq!(s.send("make it blue"), Err(SessionError::Busy));
        assert_eq!(s.edit_file("style.css", "x"), Err(SessionError::Busy));
        assert_eq!(s.restore_version(1).unwrap_err(), SessionError::Busy);
        assert!(s.run().await.is_none(), "a second run while one runs does nothing");
        drop(held);
        let end = run.await.unwrap();
        assert_eq!(end.status, SessionStatus::Finished);
        assert!(!s.is_running());
        assert_eq!(SessionError::Busy.to_string(), "The team is at work: wait for it to finish, or press Stop, then send this again.");
    }
}

cross_test! {
    async fn a_stopped_request_is_closed_when_the_next_one_is_sent() {
        // Two calls of the first run, then the script runs out: the run
        // pauses on the failure; the person sends a follow-up anyway.
        let llm = ScriptedLlm::from_texts(MODEL, first_run().into_iter().take(2));
        let s = session(TeamKind::Company, &llm);
        s.send(IDEA).unwrap();
        let end = s.run().await.unwrap();
        assert_ne!(end.outcome.stop, StopReason::Idle);
        assert!(end.version.is_none() && s.versions().is_empty(), "no version while the request is unfinished");
        // Why it stopped is kept with the session: a reopened one says so.
        let saved = s.team().borrow().snapshot();
        let reopened = session(TeamKind::Company, &ScriptedLlm::from_texts(MODEL, Vec::<String>::new()));
        reopened.restore(saved).unwrap();
        assert!(matches!(reopened.last_stop(), Some(StopReason::Failed { ref errors }) if errors[0].0 == "Alice"), "{:?}", reopened.last_stop());
        s.send("just the PRD, please").unwrap();
        let versions = s.versions();
        assert_eq!(versions.len(), 1);
        assert_eq!((versions[0].kind, versions[0].tests), (RequestKind::Idea, None));
        assert_eq!(s.project.borrow().open.as_ref().map(|o| o.text.as_str()), Some("just the PRD, please"));
    }
}

cross_test! {
    async fn the_assistant_continues_the_same_conversation() {
        let reply = |text: &str| answer("Answering.", json!([cmd("RoleZero.reply_to_human", json!({"content": text})), end()]));
        // Each request: a quick think (as MetaGPT's RoleZero does), then the answer.
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".into(), reply("Here is a haiku."), "TASK".into(), reply("Here is another.")]);
        let s = session(TeamKind::Assistant, &llm);
        s.send("write a haiku").unwrap();
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        s.send("another one").unwrap();
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        let last = llm.requests().pop().unwrap();
        let prompt: String = last.messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>().join("\n");
        for part in ["write a haiku", "Here is a haiku.", "Follow-up request from the user: another one"] {
            assert!(prompt.contains(part), "{part:?} missing from the second request:\n{prompt}");
        }
        assert_eq!(s.versions().iter().map(|v| v.kind).collect::<Vec<_>>(), [RequestKind::Idea, RequestKind::FollowUp]);
    }
}

cross_test! {
    async fn the_fixed_pipeline_hears_a_follow_up_as_a_requirement_with_the_project() {
        // The pipeline's whole run is its own test (`company::tests`); here
        // only what a follow-up publishes, on a team that has files.
        let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
        let s = session(TeamKind::FixedSop, &llm);
        s.send(IDEA).unwrap();
        s.files.borrow_mut().write("docs/prd.md", "# PRD").unwrap();
        s.send("add a dark mode").unwrap();
        let team = s.team().borrow();
        let last = team.env.history().last().unwrap().clone();
        assert_eq!(last.cause_by.as_str(), crate::core::message::USER_REQUIREMENT);
        assert!(last.content.starts_with("Follow-up request from the user: add a dark mode"));
        assert!(last.content.contains("- docs/prd.md (version 1)") && last.content.contains("rewrite only the files the change needs"), "{}", last.content);
    }
}

/// The fixed pipeline's 2048 run (7 calls), then "add a restart button"
/// (6 calls: the refined PRD, design and task list, two files, one test).
fn sop_turns() -> Vec<String> {
    use crate::core::company::tests::{RESTART_TURNS, TURNS};
    TURNS.iter().chain(RESTART_TURNS.iter()).map(|t| t.to_string()).collect()
}

/// Every turn of a request, as one text.
fn whole(request: &crate::core::llm::ChatRequest) -> String {
    request.messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>().join("\n")
}

/// The code block of a scripted answer, as the file holds it.
fn code_of(answer: &str) -> String {
    crate::core::company::extract_code(answer)
}

cross_test! {
    async fn a_follow_up_to_the_pipeline_refines_the_documents_and_rewrites_only_the_changed_files() {
        use crate::core::company::tests::{IDEA as SOP_IDEA, RESTART_TURNS, TURNS};
        let llm = ScriptedLlm::from_texts(MODEL, sop_turns());
        let s = session(TeamKind::FixedSop, &llm);
        s.send(SOP_IDEA).unwrap();
        let first = s.run().await.unwrap();
        assert_eq!(first.outcome.stop, StopReason::Idle, "{:?}", first.outcome.failures);
        let v1 = first.version.expect("the idea ends in version 1");
        assert_eq!(v1.spent.calls, 7);
        let before = s.files.borrow().clone();

        s.send("add a restart button").unwrap();
        let second = s.run().await.unwrap();
        assert_eq!(second.outcome.stop, StopReason::Idle, "{:?}", second.outcome.failures);
        assert_eq!(llm.remaining(), 0);
        let v2 = second.version.expect("the follow-up ends in version 2");
        assert_eq!(v2.spent.calls, 6, "a follow-up costs 6 calls against the idea's 7");
        println!(
            "pipeline cost: idea {} calls, {} prompt + {} completion tokens; follow-up {} calls, {} prompt + {} completion tokens",
            v1.spent.calls, v1.spent.prompt_tokens, v1.spent.completion_tokens, v2.spent.calls, v2.spent.prompt_tokens, v2.spent.completion_tokens
        );

        // The documents are refined, not rewritten from scratch.
        let files = s.files.borrow();
        let prd = files.read("docs/prd.md").unwrap();
        assert!(prd.starts_with("# Product Requirement Document: game_2048\n\n## Language\n\nen_us\n"), "{prd}");
        assert!(prd.contains("## Refined Requirements\n\nAdd a restart button"), "{prd}");
        assert!(prd.contains("- P0: Play again button on the game-over message\n"), "{prd}");
        assert!(prd.contains("- P0: 4x4 board with sliding and merging by the 2048 rules\n"), "the legacy requirements stay: {prd}");
        let design = files.read("docs/system_design.md").unwrap();
        assert!(design.contains("## Refined File list\n\n- index.html\n- style.css\n- game.js\n"), "{design}");
        let tasks = files.read("docs/tasks.md").unwrap();
        assert!(tasks.contains("## Incremental Change\n\n- index.html: Add <button id=\"restart\""), "{tasks}");
        assert!(tasks.contains("- game.js: GameView: wire #restart"), "{tasks}");

        // Only the two files of the change were rewritten; the rest is byte-identical.
        assert_eq!(files.read("index.html").unwrap(), code_of(RESTART_TURNS[3]));
        assert_eq!(files.read("game.js").unwrap(), code_of(RESTART_TURNS[4]));
        for path in ["style.css", "tests/test_game.js"] {
            assert_eq!(files.read(path).unwrap(), before.read(path).unwrap(), "{path} unchanged");
            assert_eq!(v2.files.get(path).unwrap(), v1.files.get(path).unwrap(), "{path}: the same file version in both");
        }
        let changed: Vec<String> = s.diff(2).unwrap().into_iter().map(|d| d.path).collect();
        assert_eq!(changed, ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "game.js", "index.html"]);

        // What each step was asked: the legacy document against the new one.
        let asked: Vec<String> = llm.requests().iter().skip(7).map(whole).collect();
        let (alice, bob, eve, index, game, edward) = (&asked[0], &asked[1], &asked[2], &asked[3], &asked[4], &asked[5]);
        let old_prd = before.read("docs/prd.md").unwrap();
        assert!(alice.contains(&format!("### Legacy Content\n{}\n\n### New Requirements\nFollow-up request from the user: add a restart button", old_prd.trim())), "{alice}");
        assert!(alice.contains("- Refined Requirement Pool: list[list[str]]"), "{alice}");
        assert!(bob.contains(&format!("### Legacy Content\n{}", before.read("docs/system_design.md").unwrap().trim())), "{bob}");
        assert!(bob.contains(&format!("### New Requirements\n{}", prd.trim())), "Bob reads the refined PRD: {bob}");
        assert!(eve.contains(&format!("### Legacy Content\n{}", before.read("docs/tasks.md").unwrap().trim())), "{eve}");
        assert!(eve.contains(&format!("### New Requirements\n{}", design.trim())) && eve.contains("- Incremental Change: list[list[str]]"), "{eve}");
        // Alex: the file's current code, the change, and the other files' code (new where already rewritten).
        assert!(index.contains("## Your file: index.html\nWhat changes in it: Add <button id=\"restart\""), "{index}");
        assert!(index.contains(&format!("The current code of `index.html`, to be rewritten:\n```html\n{}\n```", before.read("index.html").unwrap().trim_end())), "{index}");
        // The files not rewritten yet in this change go by reference (path, lines, digest), not in full.
        let reference = |path: &str| {
            let code = before.read(path).unwrap();
            format!("- {path}: {} lines, digest {:016x}", code.lines().count(), crate::core::digest::digest(code))
        };
        assert!(index.contains(&reference("game.js")) && index.contains(&reference("style.css")), "{index}");
        assert!(!index.contains(before.read("game.js").unwrap().trim_end()) && index.contains(tasks.trim()), "{index}");
        let listed = |prompt: &str, path: &str| prompt.lines().any(|l| l.starts_with(&format!("- {path}: ")) && l.contains(" lines, digest "));
        for absent in ["docs/prd.md", "tests/test_game.js", "index.html"] {
            assert!(!listed(index, absent) && !index.contains(&format!("### {absent}")), "{absent} is not legacy code: {index}");
        }
        assert!(game.contains(&reference("style.css")) && !listed(game, "index.html"), "index.html is shown, not listed: {game}");
        assert!(game.contains(&format!("### index.html\n```html\n{}\n```", code_of(RESTART_TURNS[3]).trim_end())), "game.js's prompt shows the new index.html");
        assert!(game.contains(&format!("The current code of `game.js`, to be rewritten:\n```javascript\n{}\n```", before.read("game.js").unwrap().trim_end())));
        assert!(edward.contains(&format!("## The code to test: game.js\n```javascript\n{}\n```", code_of(RESTART_TURNS[4]).trim_end())), "{edward}");
        // The first run's prompts were the first-run ones.
        let first_alice = whole(&llm.requests()[0]);
        assert!(!first_alice.contains("Legacy Content") && first_alice.contains("- Original Requirements: str"));
        assert_eq!(TURNS.len(), 7);
    }
}

cross_test! {
    async fn restores_and_hand_edits_are_told_with_the_next_request() {
        let turns: Vec<String> = first_run().into_iter().chain(restart_button()).chain(red_title()).collect();
        let llm = ScriptedLlm::from_texts(MODEL, turns);
        let s = session(TeamKind::Company, &llm);
        s.send(IDEA).unwrap();
        s.run().await.unwrap();
        s.send("add a restart button").unwrap();
        s.run().await.unwrap();

        let v3 = s.restore_version(1).unwrap();
        assert_eq!((v3.number, v3.kind), (3, RequestKind::Restore { from: 1 }));
        assert_eq!(s.files.borrow().read("index.html").unwrap(), INDEX_V1);
        assert_eq!(s.files.borrow().version("index.html").unwrap(), 3, "restored as a new version; 1 and 2 kept");
        assert_eq!(s.edit_file("game.js", "export const hand = 1;\n").unwrap(), 4);
        assert!(s.project.borrow().by_hand("game.js", 4) && !s.project.borrow().by_hand("game.js", 3));
        assert_eq!(s.edit_file("../x", "y").unwrap_err().to_string().split(':').next(), Some("invalid path '../x'"));

        s.send("make the title red").unwrap();
        let end = s.run().await.unwrap();
        assert_eq!(end.outcome.stop, StopReason::Idle, "{:?}", end.outcome.failures);
        let follow_up = mike_requests(&llm).into_iter().find(|p| p.contains("make the title red")).unwrap();
        assert!(follow_up.contains("restored the project to version 1"), "{follow_up}");
        assert!(follow_up.contains("edited game.js by hand"), "{follow_up}");
        assert!(s.project.borrow().notes.is_empty(), "said once");
        assert_eq!(s.files.borrow().read("game.js").unwrap(), "export const hand = 1;\n", "the hand edit kept");
        assert_eq!(end.version.unwrap().number, 4);
        assert_eq!(s.diff(4).unwrap().iter().map(|d| d.path.as_str()).collect::<Vec<_>>(), ["game.js", "style.css"]);
    }
}

cross_test! {
    async fn a_preview_error_goes_to_the_engineer_with_the_lines_around_it() {
        let fix = answer(
            "Fixing.",
            json!([cmd("Editor.replace", json!({"path": "game.js", "old": "row.filter((v) => v !== 0)", "new": "(row || []).filter((v) => v !== 0)"})), end()]),
        );
        let report = answer("Ok.", json!([cmd("RoleZero.reply_to_human", json!({"content": "Alex fixed the error."})), end()]));
        let turns: Vec<String> = first_run().into_iter().chain([fix, report]).collect();
        let llm = ScriptedLlm::from_texts(MODEL, turns);
        let s = session(TeamKind::Company, &llm);
        s.send(IDEA).unwrap();
        s.run().await.unwrap();

        let error = ConsoleLine::new("uncaught", "TypeError: row is undefined").at("game.js", 1);
        s.fix(&error).unwrap();
        {
            let team = s.team().borrow();
            let sent = team.env.history().last().unwrap().clone();
            assert_eq!(sent.cause_by.as_str(), PREVIEW_ERROR);
            assert_eq!(sent.send_to.iter().cloned().collect::<Vec<_>>(), [ENGINEER]);
            assert!(sent.content.contains("Error: TypeError: row is undefined\nAt: game.js:1\ngame.js:\n>001|export function slideRow(row) {"), "{}", sent.content);
        }
        let end = s.run().await.unwrap();
        assert_eq!(end.outcome.stop, StopReason::Idle, "{:?}", end.outcome.failures);
        assert_eq!(llm.remaining(), 0, "Alex fixed it and Mike answered his report; nobody else was asked");
        let v2 = end.version.unwrap();
        assert_eq!((v2.kind, v2.request.as_str()), (RequestKind::Fix, "Fix: TypeError: row is undefined (game.js:1)"));
        assert!(s.files.borrow().read("game.js").unwrap().contains("(row || [])"));
        assert_eq!(mike_requests(&llm).len(), 8, "Mike: 7 calls for the idea (a quick think and 6 steps) and one for Alex's report");
    }
}

cross_test! {
    async fn automatic_fixes_stop_after_three_until_the_person_asks_for_something_else() {
        let reply = |text: &str| answer("Answering.", json!([cmd("RoleZero.reply_to_human", json!({"content": text})), end()]));
        // The idea, three fixes that do not help, the person's fix, a
        // follow-up: a quick think and an answer each.
        let turns: Vec<String> = (0..6).flat_map(|i| ["TASK".to_string(), reply(&format!("Answer {i}."))]).collect();
        let llm = ScriptedLlm::from_texts(MODEL, turns);
        let s = session(TeamKind::Assistant, &llm);
        s.send("a page").unwrap();
        s.run().await.unwrap();
        let error = ConsoleLine::new("error", "boom");
        // Each fix ends in a version of its own, and the page still throws.
        for _ in 0..AUTO_FIXES_PER_VERSION {
            s.auto_fix(&error).unwrap();
            let end = s.run().await.unwrap();
            assert_eq!(end.version.map(|v| v.kind), Some(RequestKind::Fix));
        }
        assert_eq!(s.auto_fix(&error), Err(SessionError::TooManyFixes(3)), "three fixes that did not help: no fourth by itself");
        s.fix(&error).expect("the person may still ask");
        s.run().await.unwrap();
        assert_eq!(s.auto_fix(&error), Err(SessionError::TooManyFixes(3)));
        // The person asks for something else: the count starts again.
        s.send("make it blue").unwrap();
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        assert_eq!(llm.remaining(), 0);
        assert_eq!(s.project.borrow().auto_fixes, 0);
        assert!(s.auto_fix(&error).is_ok());
    }
}

cross_test! {
    async fn the_automatic_modes_are_kept_with_the_session() {
        let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
        let s = session(TeamKind::Assistant, &llm);
        assert_eq!(s.automatic(), Automatic::default(), "both off by default");
        s.send("a page").unwrap();
        s.set_automatic(Automatic { fix: true, rollback: true });
        let restored = session(TeamKind::Assistant, &llm);
        restored.restore(s.team().borrow().snapshot()).unwrap();
        assert_eq!(restored.automatic(), Automatic { fix: true, rollback: true });
    }
}

fn report(passed: usize, failed: usize) -> TestReport {
    let result = |i: usize, outcome| TestResult { file: "tests/game.test.js".into(), name: format!("t{i}"), outcome, message: String::new() };
    TestReport {
        results: (0..passed).map(|i| result(i, TestOutcome::Passed)).chain((0..failed).map(|i| result(passed + i, TestOutcome::Failed))).collect(),
    }
}

cross_test! {
    async fn a_follow_up_that_breaks_the_tests_is_marked_and_can_roll_back_by_itself() {
        use crate::core::sandbox::fake::FakeSandbox;
        let turns: Vec<String> = first_run().into_iter().chain(restart_button()).collect();
        for auto in [false, true] {
            let llm = ScriptedLlm::from_texts(MODEL, turns.clone());
            let s = session(TeamKind::Company, &llm);
            // The controller's run at each version's end (the sample's QA
            // engineer writes the test without running it).
            let sandbox = FakeSandbox::with_reports([report(1, 0), report(0, 1)]);
            s.team().borrow_mut().env.world.sandbox = Rc::new(sandbox.clone());
            s.set_automatic(Automatic { rollback: auto, ..Automatic::default() });
            s.send(IDEA).unwrap();
            let v1 = s.run().await.unwrap().version.unwrap();
            assert_eq!(v1.tests, Some(TestSummary { passed: 1, failed: 0 }));
            s.send("add a restart button").unwrap();
            let end = s.run().await.unwrap();
            let v2 = end.version.unwrap();
            assert!(v2.breaks_tests);
            assert_eq!(v2.tests, Some(TestSummary { passed: 0, failed: 1 }));
            if auto {
                assert_eq!(end.rolled_back_to, Some(1));
                assert_eq!(s.versions().last().unwrap().kind, RequestKind::Restore { from: 1 });
                assert_eq!(s.files.borrow().read("index.html").unwrap(), INDEX_V1);
            } else {
                assert_eq!(end.rolled_back_to, None);
                assert_eq!(s.versions().len(), 2);
                assert_eq!(s.project.borrow().last_passing().map(|v| v.number), Some(1), "what the one-click rollback offers");
            }
        }
    }
}

/// What the person does in the two-request session below.
#[derive(Clone)]
enum Step {
    Send(&'static str),
    Run,
    Edit(&'static str, &'static str),
    Restore(u32),
}

fn do_step<'a>(s: &'a Session, step: &Step) -> futures::future::LocalBoxFuture<'a, ()> {
    let step = step.clone();
    Box::pin(async move {
        match step {
            Step::Send(text) => s.send(text).unwrap(),
            Step::Run => {
                let end = s.run().await.unwrap();
                assert_eq!(end.outcome.stop, StopReason::Idle, "{:?}", end.outcome.failures);
            }
            Step::Edit(path, content) => {
                s.edit_file(path, content).unwrap();
            }
            Step::Restore(n) => {
                s.restore_version(n).unwrap();
            }
        }
    })
}

cross_test! {
    async fn a_session_with_follow_ups_a_restore_and_a_hand_edit_resumes_from_every_checkpoint() {
        let steps = [
            Step::Send(IDEA),
            Step::Run,
            Step::Send("add a restart button"),
            Step::Run,
            Step::Edit("style.css", "#grid { gap: 4px; }\n"),
            Step::Restore(1),
            Step::Send("make the title red"),
            Step::Run,
        ];
        let turns: Vec<String> = first_run().into_iter().chain(restart_button()).chain(red_title()).collect();
        resumes_from_every_checkpoint(TeamKind::Company, &steps, &turns).await;
    }
}

cross_test! {
    async fn a_pipeline_session_with_follow_ups_a_restore_and_a_hand_edit_resumes_from_every_checkpoint() {
        use crate::core::company::tests::{IDEA as SOP_IDEA, RESTART_TURNS};
        // After the restore the project is version 1's again, so the same
        // follow-up is refined again from the same documents.
        let steps = [
            Step::Send(SOP_IDEA),
            Step::Run,
            Step::Send("add a restart button"),
            Step::Run,
            Step::Edit("style.css", "#board { gap: 4px; }\n"),
            Step::Restore(1),
            Step::Send("add a restart button"),
            Step::Run,
        ];
        let turns: Vec<String> = sop_turns().into_iter().chain(RESTART_TURNS.iter().map(|t| t.to_string())).collect();
        resumes_from_every_checkpoint(TeamKind::FixedSop, &steps, &turns).await;
    }
}

/// Runs `steps` on a `kind` team with every checkpoint kept, then restores
/// each checkpoint into a fresh session and does the rest of the steps:
/// no finished call is made again, every remaining call asks the same, and
/// the outcome and the versions are the same as uninterrupted.
async fn resumes_from_every_checkpoint(kind: TeamKind, steps: &[Step], turns: &[String]) {

    // Uninterrupted, with every checkpoint kept; after each step that is
    // not a run, the page saves the team too (a checkpoint of its own).
    let llm = ScriptedLlm::from_texts(MODEL, turns.to_vec());
    let s = session(kind, &llm);
    let recorder = Rc::new(Recorder::default());
    s.team().borrow_mut().keep_durable(recorder.clone());
    // (snapshot, the step it was taken in, whether that step is done)
    let mut checkpoints = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let before = recorder.kept.borrow().len();
        do_step(&s, step).await;
        let kept = recorder.kept.borrow();
        checkpoints.extend(kept[before..].iter().map(|snap| (snap.clone(), i, false)));
        checkpoints.push((s.team().borrow().snapshot(), i, true));
    }
    assert_eq!(llm.remaining(), 0);
    let want = (outcome(&s.team().borrow()), s.versions());
    assert_eq!(want.1.len(), 4, "the idea, a follow-up, the restore, another follow-up");

    for (k, (snapshot, step, done)) in checkpoints.into_iter().enumerate() {
        let finished = snapshot.ledger.total().calls as usize;
        let rest = ScriptedLlm::from_texts(MODEL, turns[finished..].to_vec());
        let restored = session(kind, &rest);
        restored.team().borrow_mut().keep_durable(Rc::new(Recorder::default()));
        restored.restore(snapshot).unwrap();
        let from = if done { step + 1 } else { step };
        for step in &steps[from..] {
            do_step(&restored, step).await;
        }
        assert_eq!(rest.calls(), turns.len() - finished, "checkpoint {k}: no finished call made again");
        let asked: Vec<_> = rest.requests().into_iter().map(|r| r.messages).collect();
        let before: Vec<_> = llm.requests().into_iter().skip(finished).map(|r| r.messages).collect();
        for (i, (a, b)) in asked.iter().zip(&before).enumerate() {
            let (a, b): (Vec<String>, Vec<String>) = (a.iter().map(|m| m.content.to_string()).collect(), b.iter().map(|m| m.content.to_string()).collect());
            for (x, y) in a.iter().zip(&b).filter(|(x, y)| x != y) {
                let at = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
                let tail = |s: &str| s.chars().skip(at.saturating_sub(200)).take(500).collect::<String>();
                panic!("checkpoint {k}: call {} asked otherwise at char {at}:\nRESTORED: {}\nWANTED:   {}", finished + i, tail(x), tail(y));
            }
        }
        assert_eq!((outcome(&restored.team().borrow()), restored.versions()), want, "restored from checkpoint {k} (step {step})");
    }
}

cross_test! {
    /// A fault the next call would meet again (a rejected key) pauses the
    /// run in the round it happened: one round, one call, one error per
    /// run, for every kind of team, before and after a reopen (the round
    /// counter used to move by two: a second round only repeated the call).
    async fn a_run_that_meets_a_fault_takes_one_round_and_one_call() {
        for kind in TeamKind::ALL {
            let bad_key = || Turn::Fail(LlmError::BadKey { message: "no".into() });
            let llm = ScriptedLlm::new(MODEL, [bad_key(), bad_key(), bad_key()]);
            let seen = Rc::new(std::cell::RefCell::new(Vec::new()));
            let log = seen.clone();
            let sink = EventSink::new(move |e| match e {
                TeamEvent::RoundStarted { round } => log.borrow_mut().push(format!("round {round}")),
                TeamEvent::LlmStarted { .. } => log.borrow_mut().push("call".into()),
                TeamEvent::RoleFailed { .. } => log.borrow_mut().push("error".into()),
                TeamEvent::Stopped { .. } => log.borrow_mut().push("paused".into()),
                _ => {}
            });
            let s = Session::new(&settings(kind), Models::Given(Rc::new(llm.clone())), sink.clone());
            s.send(IDEA).unwrap();
            s.run().await.unwrap();
            s.run().await.unwrap();
            let reopened = Session::new(&settings(kind), Models::Given(Rc::new(llm.clone())), sink);
            reopened.restore(s.team().borrow().snapshot()).unwrap();
            let end = reopened.run().await.unwrap();
            assert!(matches!(end.outcome.stop, StopReason::Failed { .. }), "{kind:?}: {:?}", end.outcome.stop);
            let expected: Vec<String> = (1..=3).flat_map(|r| [format!("round {r}"), "call".into(), "error".into(), "paused".into()]).collect();
            assert_eq!(*seen.borrow(), expected, "{kind:?}");
        }
    }
}

cross_test! {
    async fn a_reopened_assistant_shows_its_quick_answers() {
        use crate::core::view::{EntryKind, RunView};
        // A quick answer (MetaGPT's QUICK) streams in and is sent to all;
        // the live view shows the streamed text as the reply.
        let llm = ScriptedLlm::from_texts(MODEL, ["QUICK", "See the Install page."]);
        let view = Rc::new(std::cell::RefCell::new(RunView::default()));
        let sink = view.clone();
        let s = Session::new(&settings(TeamKind::Assistant), Models::Given(Rc::new(llm.clone())), EventSink::new(move |e| sink.borrow_mut().apply(e)));
        s.send("How do I install?").unwrap();
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        let lines = |v: &RunView| -> Vec<(String, EntryKind, String)> { v.entries.iter().map(|e| (e.role.clone(), e.kind, e.text.trim().to_string())).collect() };
        let live = lines(&view.borrow());
        assert!(live.iter().any(|(_, kind, text)| *kind == EntryKind::Reply && text == "See the Install page."), "{live:?}");
        let restored = RunView::restored(&s.team().borrow().snapshot(), StopReason::Idle);
        assert_eq!(lines(&restored), live);
    }
}

cross_test! {
    /// A reopened session stands as it was left: interrupted when it was
    /// running, finished when nothing is left, else paused for the saved
    /// reason (stopped by the person when none was saved).
    async fn a_reopened_session_says_why_it_stands_still() {
        let llm = ScriptedLlm::from_texts(MODEL, ["QUICK", "Hello."]);
        let s = Session::new(&settings(TeamKind::Assistant), Models::Given(Rc::new(llm)), EventSink::default());
        s.send("Say hello").unwrap();
        assert_eq!(s.reopened(SessionStatus::Running), (StopReason::Interrupted, SessionStatus::Interrupted));
        assert_eq!(s.reopened(SessionStatus::Paused), (StopReason::Cancelled, SessionStatus::Paused), "a request waits, no reason saved");
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        assert_eq!(s.reopened(SessionStatus::Finished), (StopReason::Idle, SessionStatus::Finished));
        assert_eq!(s.reopened(SessionStatus::Interrupted), (StopReason::Interrupted, SessionStatus::Interrupted));
    }
}

cross_test! {
    /// While the finished request's tests run, the view hears of it (the
    /// status says the tests run): after the stop, before the version.
    async fn the_tests_of_a_version_are_told_before_they_run() {
        use crate::core::sandbox::fake::FakeSandbox;
        let llm = ScriptedLlm::from_texts(MODEL, first_run());
        let seen = Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        let sink = EventSink::new(move |e| match e {
            TeamEvent::Stopped { .. } => log.borrow_mut().push("stopped".to_string()),
            TeamEvent::TestsRunning { number } => log.borrow_mut().push(format!("tests of {number}")),
            TeamEvent::VersionReady { number, .. } => log.borrow_mut().push(format!("version {number}")),
            _ => {}
        });
        let s = Session::new(&settings(TeamKind::Company), Models::Given(Rc::new(llm)), sink);
        s.team().borrow_mut().env.world.sandbox = Rc::new(FakeSandbox::with_reports([report(2, 0)]));
        s.send(IDEA).unwrap();
        s.run().await.unwrap();
        assert_eq!(*seen.borrow(), ["stopped", "tests of 1", "version 1"]);
    }
}

cross_test! {
    /// Resume has work to carry on after a stop short of the end, or a plan
    /// edit after the end; not after a run that ended with every role idle.
    async fn work_is_left_after_a_stop_or_a_plan_edit_not_after_the_end() {
        use crate::core::plan_edit::PlanEdit;
        let llm = ScriptedLlm::from_texts(MODEL, first_run());
        let s = session(TeamKind::Company, &llm);
        s.send(IDEA).unwrap();
        assert!(s.has_work_left(), "a request not yet run");
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
        assert!(!s.has_work_left(), "done");
        let edit = PlanEdit::Append { task_id: "9".into(), dependent_task_ids: vec![], instruction: "Add a score".into(), assignee: ENGINEER.into() };
        s.edit_plan(&edit).unwrap();
        assert!(s.has_work_left(), "the leader has the edit to hear");
    }
}

/// Phrases of the texts the session writes for the model (requests,
/// notes, command names): none may reach what the person reads.
const PROMPT_PHRASES: [&str; 12] = [
    "Follow-up request from the user",
    "The project as it stands",
    "Since the last request",
    "Plan.append_task",
    "Plan.",
    "TeamLeader.",
    "RoleZero.",
    "[Plan edited by the user]",
    "The user restored the project",
    "by hand; read it before",
    "then use end",
    "The page shows an error when it runs in the preview",
];

cross_test! {
    /// Issue #32, item 1: every entry of a session with follow-ups, a hand
    /// edit, a restore, a fix request and a plan edit, live and reopened,
    /// shows the person's words; the model's framing stays in its prompt.
    async fn no_text_written_for_the_model_reaches_the_person() {
        use crate::core::plan_edit::PlanEdit;
        use crate::core::view::{EntryKind, RunView};
        let fix = answer(
            "Fixing.",
            json!([cmd("Editor.replace", json!({"path": "game.js", "old": "row.filter((v) => v !== 0)", "new": "(row || []).filter((v) => v !== 0)"})), end()]),
        );
        let report = answer("Ok.", json!([cmd("RoleZero.reply_to_human", json!({"content": "Alex fixed the error."})), end()]));
        let turns: Vec<String> = first_run().into_iter().chain(restart_button()).chain(red_title()).chain([fix, report]).collect();
        let llm = ScriptedLlm::from_texts(MODEL, turns);
        let view = Rc::new(std::cell::RefCell::new(RunView::default()));
        let sink = view.clone();
        let s = Session::new(&settings(TeamKind::Company), Models::Given(Rc::new(llm.clone())), EventSink::new(move |e| sink.borrow_mut().apply(e)));
        s.send(IDEA).unwrap();
        do_step(&s, &Step::Run).await;
        s.send("add a restart button").unwrap();
        do_step(&s, &Step::Run).await;
        s.edit_file("style.css", "#board { gap: 4px; }\n").unwrap();
        s.restore_version(1).unwrap();
        s.send("make the title red").unwrap();
        do_step(&s, &Step::Run).await;
        s.fix(&ConsoleLine::new("uncaught", "TypeError: row is undefined").at("game.js", 1)).unwrap();
        do_step(&s, &Step::Run).await;
        let edit = PlanEdit::Append { task_id: "9".into(), dependent_task_ids: vec![], instruction: "Add a score".into(), assignee: ENGINEER.into() };
        s.edit_plan(&edit).unwrap();
        assert_eq!(llm.remaining(), 0);

        let mine = |v: &RunView| -> Vec<String> { v.entries.iter().filter(|e| e.kind == EntryKind::User).map(|e| e.text.clone()).collect() };
        let restored = RunView::restored(&s.team().borrow().snapshot(), StopReason::Idle);
        for (when, v) in [("live", view.borrow().clone()), ("reopened", restored)] {
            assert_eq!(
                mine(&v),
                [
                    IDEA,
                    "add a restart button\n\n(About version 1.)",
                    "make the title red\n\n(About version 3: version 1 restored.)",
                    "Please fix this error from the preview: TypeError: row is undefined (game.js:1)",
                    "You added task 9 (Add a score) for Alex.",
                ],
                "{when}"
            );
            for e in &v.entries {
                for shown in std::iter::once(&e.text).chain(&e.deeds).chain(std::iter::once(&e.role)) {
                    if let Some(p) = PROMPT_PHRASES.iter().find(|p| shown.contains(*p)) {
                        panic!("{when}: {:?} entry of {} shows the model's text {p:?}: {shown}", e.kind, e.role);
                    }
                }
            }
            assert!(PROMPT_PHRASES.iter().all(|p| !v.status().contains(p)), "{when}: {}", v.status());
        }
        // The model was told all of it.
        let told = mike_requests(&llm).join("\n");
        for p in ["Follow-up request from the user: make the title red", "The user restored the project to version 1", "The plan has 6 tasks, 6 finished."] {
            assert!(told.contains(p), "{p}");
        }
    }
}

#[cfg(feature = "site")]
cross_test! {
    /// A small model may never say it is done: with a call limit in
    /// Settings the run pauses after that many calls, the files written so
    /// far are a version, and the request stays open: Resume goes on (as
    /// many calls again) and the run's end is the next version.
    async fn at_the_call_limit_the_files_so_far_are_a_version_and_resume_goes_on() {
        let write = answer("A page.", json!([cmd("Editor.write", json!({"path": "index.html", "content": "<h1>Hello</h1>"}))]));
        let finish = answer("Done.", json!([cmd("Plan.finish_current_task", json!({}))]));
        let style = answer("Some style.", json!([cmd("Editor.write", json!({"path": "style.css", "content": "h1 { color: red; }"}))]));
        // After `end` the assistant writes the person a report (call 6).
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".into(), write, finish, style, end_answer(), "Your page says hello.".into()]);
        let s = Session::new(&Settings { call_limit: 3, ..settings(TeamKind::Assistant) }, Models::Given(Rc::new(llm.clone())), EventSink::default());
        s.send("A web page that says hello").unwrap();
        let end = s.run().await.unwrap();
        assert_eq!(end.outcome.stop, StopReason::CallLimit { calls: 3 });
        assert_eq!(end.status, SessionStatus::Paused);
        assert_eq!(llm.requests().len(), 3, "no call past the limit");
        let v1 = end.version.expect("the work so far is a version");
        assert_eq!(v1.files.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["index.html"]);
        assert_eq!(s.project.borrow().open.as_ref().map(|o| o.text.as_str()), Some("A web page that says hello"), "the request stays open");
        assert!(crate::core::view::stop_text(&end.outcome.stop).starts_with("Paused: the team made the 3 model calls Settings allow a run."));
        assert!(end.outcome.stop.can_resume());
        // Resume: as many calls again; the model ends, and that is version 2.
        let end = s.run().await.unwrap();
        assert_eq!(end.outcome.stop, StopReason::Idle);
        assert_eq!(llm.requests().len(), 6);
        let v2 = end.version.expect("the end of the request is the next version");
        assert_eq!(v2.number, 2);
        assert_eq!(v2.files.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["index.html", "style.css"]);
        assert!(s.project.borrow().open.is_none());
        // No limit (0, the default): the same run is not cut.
        let page = answer("A page.", json!([cmd("Editor.write", json!({"path": "a.html", "content": "a"}))]));
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".into(), page, end_answer(), "Done.".into()]);
        let s = session(TeamKind::Assistant, &llm);
        s.send("A page").unwrap();
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
    }
}

cross_test! {
    /// A pause the person chose (the budget, the call limit) is said once,
    /// by the status line: the conversation holds no error bubble for it,
    /// live or reopened (issue #30: the call limit's words appeared twice).
    async fn a_chosen_pause_is_no_error_in_the_conversation() {
        let mut cases = vec![(Settings { custom_price: Some(Price::new(1000.0, 1000.0)), budget: 0.05, ..settings(TeamKind::Assistant) }, "Stopped: the budget is used up")];
        #[cfg(feature = "site")]
        cases.push((Settings { call_limit: 1, ..settings(TeamKind::Assistant) }, "Paused: the team made the 1 model call Settings allow a run."));
        for (settings, status) in cases {
            let llm = ScriptedLlm::from_texts(MODEL, ["TASK", "never asked"]);
            let view = Rc::new(std::cell::RefCell::new(crate::core::view::RunView::default()));
            let seen = view.clone();
            let sink = EventSink::new(move |e| seen.borrow_mut().apply(e));
            let s = Session::new(&settings, Models::Given(Rc::new(llm.clone())), sink);
            s.send("A web page that says hello").unwrap();
            let end = s.run().await.unwrap();
            assert!(crate::core::view::stop_text(&end.outcome.stop).starts_with(status), "{:?}", end.outcome.stop);
            let kinds: Vec<_> = view.borrow().entries.iter().map(|e| e.kind.clone()).collect();
            assert!(!kinds.contains(&crate::core::view::EntryKind::Error), "{status}: {kinds:?}");
            assert!(view.borrow().status().starts_with(status), "{}", view.borrow().status());
            assert!(s.project.borrow().errors.is_empty(), "a reopened session shows no error either");
        }
    }
}

#[cfg(feature = "site")]
fn end_answer() -> String {
    answer("All done.", json!([end()]))
}

cross_test! {
    /// Issue #33, Done-when 3, as the e2e plays it: the engineer's same
    /// failing command twice in a row (its thoughts differ) pauses the
    /// team after the second; Resume lets him try again.
    async fn the_same_failing_command_twice_pauses_the_team() {
        let bad = || cmd("Editor.replace", json!({"path": "index.html", "old": "<h1>", "new": "<h1 style=\"color:red\">"}));
        let turns = [
            "TASK".to_string(),
            answer("One task for Alex.", json!([
                cmd("Plan.append_task", json!({"task_id": "1", "dependent_task_ids": [], "instruction": "Make the title red", "assignee": "Alex"})),
                cmd("TeamLeader.publish_team_message", json!({"content": "Make the title red in index.html", "send_to": "Alex"})),
                end(),
            ])),
            answer("Making the title red.", json!([bad()])),
            answer("That did not work; trying the fix again.", json!([bad()])),
            answer("The page does not exist yet: writing it.", json!([cmd("Editor.write", json!({"path": "index.html", "content": "<h1>Hi</h1>"})), end()])),
            answer("Done.", json!([cmd("Plan.finish_current_task", json!({})), end()])),
        ];
        // Each role answers from its own queue (who asks is in the system prompt).
        let queue = |from: &[usize]| Rc::new(std::cell::RefCell::new(from.iter().map(|&i| turns[i].clone()).collect::<std::collections::VecDeque<String>>()));
        let (mike, alex) = (queue(&[0, 1, 5]), queue(&[2, 3, 4]));
        let (m, a) = (mike.clone(), alex.clone());
        let llm = ScriptedLlm::answering(MODEL, move |_, r| {
            let queue = if r.messages[0].content.contains("named Alex") { &a } else { &m };
            // Past its script, a role has nothing to do (Mike hears of the pause too).
            queue.borrow_mut().pop_front().unwrap_or_else(|| answer("Waiting.", json!([end()])))
        });
        let s = Session::new(&settings(TeamKind::Company), Models::Given(Rc::new(llm.clone())), EventSink::default());
        s.send("A page with a red title").unwrap();
        let end = s.run().await.unwrap();
        let StopReason::Failed { errors } = &end.outcome.stop else { panic!("not paused: {:?} after {} calls", end.outcome.stop, llm.calls()) };
        assert_eq!(alex.borrow().len(), 1, "no third attempt");
        assert!(errors[0].1.contains("Alex got the same error twice in a row"), "{errors:?}");
        assert!(end.outcome.stop.can_resume());
        assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle, "Resume: the third attempt works");
        assert!(alex.borrow().is_empty(), "Alex's third attempt ran");
    }
}
