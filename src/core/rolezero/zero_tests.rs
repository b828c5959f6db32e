//! RoleZero's loop with a scripted model and a scripted human.

use std::rc::Rc;

use super::zero::{RoleZero, ZeroConfig};
use crate::core::cost::{Price, PriceTable};
use crate::core::events::EventSink;
use crate::core::human::{HumanDesk, ScriptedHuman};
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::role::RoleSpec;
use crate::core::team::Team;
use crate::core::yield_now::yield_now;
use crate::cross_test;

const MODEL: &str = "scripted";

fn make_team(llm: &ScriptedLlm, max_loop: u32) -> Team {
    let mut team = Team::new("a software company", Rc::new(llm.clone()), EventSink::default());
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 1.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(100.0);
    let mut role = RoleZero::new(ZeroConfig::default(), |_| {}).into_role(RoleSpec::new("Mike", "Team Leader").goal("help"));
    role.spec.max_react_loop = max_loop;
    team.hire([role]);
    team
}

fn with_human(team: &mut Team, answers: &[&str]) -> ScriptedHuman {
    let human = ScriptedHuman::new(answers.iter().copied());
    team.env.world.human = Rc::new(human.clone());
    human
}

/// An answer with thoughts and one JSON block of commands.
fn cmds(json: &str) -> String {
    format!("Let me think about it.\n```json\n{json}\n```")
}

const END: &str = r#"[{"command_name": "end"}]"#;

fn last_prompt(llm: &ScriptedLlm, call: usize) -> String {
    llm.requests()[call].messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>().join("\n")
}

cross_test! {
    async fn a_quick_question_gets_a_direct_answer() {
        let llm = ScriptedLlm::from_texts(MODEL, ["**QUICK**", "Hello! How can I help?"]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &[]);
        team.run_project("hi there");
        team.run(3).await;
        assert_eq!(*human.replies.borrow(), ["Hello! How can I help?"]);
        assert_eq!(llm.calls(), 2);
        assert!(last_prompt(&llm, 0).contains("Answer with the word only"));
    }
}

cross_test! {
    async fn quick_think_in_odd_formats() {
        // (classifier answer, is it answered directly?)
        for (answer, direct) in [("quick", true), ("Intent: AMBIGUOUS.", true), ("[TASK]", false), ("I think SEARCH", false), ("no idea", false)] {
            let llm = ScriptedLlm::from_texts(MODEL, [answer.to_string(), "direct answer".into(), cmds(END), "report".into()]);
            let mut team = make_team(&llm, 50);
            let human = with_human(&mut team, &[]);
            team.run_project("something");
            team.run(3).await;
            let got_direct = human.replies.borrow().first().map(String::as_str) == Some("direct answer");
            assert_eq!(got_direct, direct, "{answer}");
        }
    }
}

cross_test! {
    async fn a_task_runs_commands_until_end_and_is_remembered_as_experience() {
        let llm = ScriptedLlm::from_texts(MODEL, [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "Plan.append_task", "args": {"task_id": "1", "dependent_task_ids": [], "instruction": "write the game", "assignee": "Mike"}},
                     {"command_name": "Editor.write", "args": {"path": "index.html", "content": "<h1>2048</h1>"}}]"#),
            cmds(r#"[{"command_name": "Plan.finish_current_task", "args": {}},
                     {"command_name": "RoleZero.reply_to_human", "args": {"content": "Your game is in index.html"}}]"#),
            cmds(END),
        ]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &[]);
        team.run_project("make a 2048 game");
        team.run(3).await;
        assert_eq!(llm.calls(), 4, "no report call: the human already had a reply");
        assert_eq!(*human.replies.borrow(), ["Your game is in index.html"]);
        assert_eq!(team.env.world.files.borrow().read("index.html").unwrap(), "<h1>2048</h1>");
        let mike = team.env.role("Mike").unwrap();
        assert!(mike.state.plan.borrow().is_finished());
        // Each command's output went back to the model in the next prompt.
        let third = last_prompt(&llm, 2);
        assert!(third.contains("Command Plan.append_task executed") && third.contains("Command Editor.write executed"), "{third}");
        assert!(third.contains("[TASK_ID 1]"), "the plan is in the prompt");
        // What worked is kept and offered to a later, similar request.
        let experience = team.env.world.experience.borrow();
        assert_eq!(experience.len(), 1);
        let kind = &mike.spec.kind;
        assert!(experience.best_match(kind, "make a 2048 game in html", 1.0).is_some_and(|e| e.commands.contains("Editor.write")));
        assert!(experience.best_match("Engineer2", "make a 2048 game in html", 0.0).is_none(), "the leader's example is his alone");
    }
}

cross_test! {
    async fn end_without_an_earlier_reply_reports_to_the_human() {
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".to_string(), cmds(END), "All done: see docs/prd.md".into()]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &[]);
        team.run_project("write a prd");
        team.run(3).await;
        assert_eq!(*human.replies.borrow(), ["All done: see docs/prd.md"]);
        assert!(last_prompt(&llm, 2).contains("Write a short reply to the user"));
        // The batch that held `end` is recorded, and is the response.
        let last = team.env.history().last().unwrap().content.clone();
        assert!(last.starts_with("I have finished the task") && last.contains("Command end executed"), "{last}");
    }
}

cross_test! {
    async fn hopeless_json_gets_one_repair_round_by_the_model() {
        let broken = "```json\n[{\"command_name\": \"end\" \"args\": {}}]\n```";
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".to_string(), broken.into(), END.into(), "report".into()]);
        let mut team = make_team(&llm, 50);
        with_human(&mut team, &[]);
        team.run_project("x");
        team.run(3).await;
        let repair = last_prompt(&llm, 2);
        assert!(repair.contains("\"command_name\": \"end\" \"args\""), "the broken text is sent for repair: {repair}");
        assert_eq!(llm.remaining(), 0, "the repaired `end` ran and reported");
    }
}

cross_test! {
    async fn unknown_commands_and_bad_arguments_are_fed_back_not_raised() {
        let llm = ScriptedLlm::from_texts(MODEL, [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "Plan.apend_task", "args": {}}, {"command_name": "end"}]"#),
            cmds(r#"[{"command_name": "Plan.append_task", "args": {"task_id": true, "instruction": 5}}]"#),
            cmds(END),
            "report".into(),
        ]);
        let mut team = make_team(&llm, 50);
        with_human(&mut team, &[]);
        team.run_project("x");
        let outcome = team.run(3).await;
        assert!(outcome.failures.is_empty());
        let second = last_prompt(&llm, 2);
        assert!(second.contains("Command Plan.apend_task failed") && second.contains("Did you mean Plan.append_task?"), "{second}");
        assert!(second.contains("Not run because an earlier command failed: end"), "the rest of the list is skipped: {second}");
        let third = last_prompt(&llm, 3);
        assert!(third.contains("Command Plan.append_task failed") && third.contains("task_id"), "{third}");
        assert!(team.env.role("Mike").unwrap().state.plan.borrow().is_empty());
    }
}

const LIST: &str = r#"[{"command_name": "Editor.list", "args": {}}]"#;
const FINISH: &str = r#"[{"command_name": "Plan.finish_current_task", "args": {}}]"#;

cross_test! {
    async fn the_duplicate_guard_regenerates_then_asks_the_human() {
        // A; A again (regenerate → A, accepted); A a third time → ask the
        // human, who says stop → end → report.
        let a = cmds(LIST);
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".to_string(), a.clone(), a.clone(), a.clone(), a.clone(), "report".into()]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &["please stop"]);
        team.run_project("x");
        team.run(3).await;
        assert!(last_prompt(&llm, 3).contains("going in circles"), "stage 1: regenerate");
        assert_eq!(human.asked.borrow().len(), 1);
        assert!(human.asked.borrow()[0].contains("repeating myself"), "stage 3: ask the human");
        assert_eq!(llm.remaining(), 0);
    }
}

cross_test! {
    async fn a_task_finished_over_and_over_ends() {
        let f = cmds(FINISH);
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK".to_string(), f.clone(), f.clone(), f.clone(), f.clone(), "report".into()]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &[]);
        team.run_project("x");
        team.run(3).await;
        assert!(human.asked.borrow().is_empty(), "stage 2: end, no question");
        assert_eq!(*human.replies.borrow(), ["report"]);
        assert_eq!(llm.remaining(), 0);
    }
}

cross_test! {
    async fn ask_human_suspends_the_role_until_answered() {
        let llm = ScriptedLlm::from_texts(MODEL, [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "RoleZero.ask_human", "args": {"question": "Which colour?"}}]"#),
            cmds(r#"[{"command_name": "RoleZero.reply_to_human", "args": {"content": "blue it is"}}, {"command_name": "end"}]"#),
        ]);
        let mut team = make_team(&llm, 50);
        let desk = Rc::new(HumanDesk::default());
        team.env.world.human = desk.clone();
        team.run_project("paint it");
        let calls_when_asked = Rc::new(std::cell::Cell::new(0));
        let seen = calls_when_asked.clone();
        let (llm2, desk2) = (llm.clone(), desk.clone());
        let answer = async move {
            loop {
                if let Some(&id) = desk2.waiting().first() {
                    // Give the role every chance to run on: it must not.
                    for _ in 0..20 {
                        yield_now().await;
                    }
                    seen.set(llm2.calls());
                    desk2.answer(id, "blue");
                    break;
                }
                yield_now().await;
            }
        };
        let (outcome, ()) = futures::join!(team.run(3), answer);
        assert_eq!(calls_when_asked.get(), 2, "suspended while waiting");
        assert!(outcome.failures.is_empty());
        assert!(last_prompt(&llm, 2).contains("Command RoleZero.ask_human executed: blue"));
        assert_eq!(llm.remaining(), 0);
    }
}

cross_test! {
    async fn the_loop_limit_asks_whether_to_continue() {
        // Every answer writes a different file, so the duplicate guard stays quiet.
        let llm = ScriptedLlm::answering(MODEL, |call, _| {
            if call == 0 {
                "TASK".into()
            } else {
                cmds(&format!(r#"[{{"command_name": "Editor.write", "args": {{"path": "f{call}.txt", "content": "x"}}}}]"#))
            }
        });
        let mut team = make_team(&llm, 10);
        let human = with_human(&mut team, &["no"]);
        team.run_project("x");
        team.run(1).await;
        assert_eq!(*human.asked.borrow(), ["I have reached my limit of steps. Do you want me to continue? Yes or no."]);
        assert_eq!(llm.calls(), 11, "one classification and ten steps");
        // A small limit is meant to be reached: no question.
        let llm = ScriptedLlm::answering(MODEL, |call, _| {
            if call == 0 { "TASK".into() } else { cmds(&format!(r#"[{{"command_name": "Editor.write", "args": {{"path": "g{call}.txt", "content": "x"}}}}]"#)) }
        });
        let mut team = make_team(&llm, 3);
        let human = with_human(&mut team, &[]);
        team.run_project("x");
        team.run(1).await;
        assert!(human.asked.borrow().is_empty());
        assert_eq!(llm.calls(), 4);
    }
}

cross_test! {
    async fn a_restored_role_runs_the_next_command_not_one_that_already_ran() {
        // The second command's model call fails (the tab closes); the first
        // command (a file write) must not run again after the restore.
        use crate::core::llm::scripted::Turn;
        use crate::core::llm::LlmError;
        let answer = cmds(r#"[{"command_name": "Editor.append", "args": {"path": "log.txt", "content": "once"}}, {"command_name": "end"}]"#);
        let first = ScriptedLlm::new(MODEL, [
            Turn::text("TASK"),
            Turn::text(answer.clone()),
            Turn::Fail(LlmError::Network { message: "tab closed".into() }),
        ]);
        let mut before = make_team(&first, 50);
        with_human(&mut before, &[]);
        before.env.world.files.borrow_mut().write("log.txt", "start").unwrap();
        before.run_project("x");
        before.run(1).await;
        let saved = serde_json::to_string(&before.snapshot()).unwrap();

        let rest = ScriptedLlm::from_texts(MODEL, ["the report"]);
        let mut after = make_team(&rest, 50);
        let human = with_human(&mut after, &[]);
        after.restore(serde_json::from_str(&saved).unwrap()).unwrap();
        after.run(1).await;
        assert_eq!(after.env.world.files.borrow().read("log.txt").unwrap(), "start\nonce");
        assert_eq!(*human.replies.borrow(), ["the report"]);
        assert_eq!(rest.calls(), 1);
    }
}

cross_test! {
    async fn a_question_to_the_user_is_kept_before_it_is_asked_and_asked_again_after_a_reload() {
        use crate::core::checkpoint::tests::resumes_from_every_checkpoint;
        let turns = [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "RoleZero.ask_human", "args": {"question": "Which colour?"}}]"#),
            cmds(r#"[{"command_name": "Editor.write", "args": {"path": "colour.txt", "content": "blue"}}, {"command_name": "RoleZero.reply_to_human", "args": {"content": "blue it is"}}, {"command_name": "end"}]"#),
        ];
        let build = |llm: &ScriptedLlm| make_team(llm, 50);
        let kept = resumes_from_every_checkpoint(&build, MODEL, "paint it", &turns, &["blue"], 5).await;
        assert_eq!(kept, turns.len() + 1, "before each call and before the question");
    }
}

cross_test! {
    /// The think calls carry the answer's schema (every command the role
    /// has); the classifier and the report do not. A constrained answer
    /// (one JSON object) runs as the same answer written freely would, and
    /// is remembered in MetaGPT's form.
    async fn constrained_answers_run_like_free_ones() {
        let constrained = r#"{"thought": "Write it.", "commands": [
            {"command_name": "Editor.write", "args": {"path": "index.html", "content": "<h1>hi</h1>"}},
            {"command_name": "end", "args": {}}]}"#;
        let llm = ScriptedLlm::from_texts(MODEL, ["TASK", constrained, "Done: index.html"]);
        let mut team = make_team(&llm, 50);
        let human = with_human(&mut team, &[]);
        team.run_project("a page");
        team.run(3).await;
        assert_eq!(team.env.world.files.borrow().read("index.html").unwrap(), "<h1>hi</h1>");
        assert_eq!(*human.replies.borrow(), ["Done: index.html"]);
        let requests = llm.requests();
        let schemas: Vec<Option<&str>> = requests.iter().map(|r| r.response_schema.as_ref().map(|s| s.name.as_str())).collect();
        assert_eq!(schemas, [None, Some("rolezero_answer"), None]);
        let schema = requests[1].response_schema.as_ref().unwrap().schema.to_value();
        let names: Vec<&str> =
            schema["properties"]["commands"]["items"]["anyOf"].as_array().unwrap().iter().filter_map(|c| c["properties"]["command_name"]["const"].as_str()).collect();
        let same = RoleZero::new(ZeroConfig::default(), |_| {});
        // On the site, the commands that apply with no plan and no files
        // (`rolezero::applicable`); the widget offers them all.
        if cfg!(feature = "site") {
            assert_eq!(names, ["Plan.append_task", "Editor.write", "end", "RoleZero.ask_human", "RoleZero.reply_to_human"]);
        } else {
            assert_eq!(names, same.registry().names());
        }
        assert!(names.contains(&"Editor.write") && names.contains(&"end") && names.contains(&"Plan.append_task"), "{names:?}");
        let mike = team.env.role("Mike").unwrap();
        let remembered: Vec<&str> = mike.state.memory.all().iter().map(|m| m.content.as_str()).collect();
        assert!(remembered.iter().any(|m| m.starts_with("Write it.\n\n```json\n[\n  {\n    \"command_name\": \"Editor.write\"")), "{remembered:?}");
    }
}

