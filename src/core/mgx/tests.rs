//! A whole "2048 game in HTML/JS" run of the MGX-style company with a
//! scripted model: who talks to whom, how the plan evolves, which files
//! come out, what it costs.

use std::rc::Rc;


use super::{mgx_team, LEADER};
use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason};
use crate::core::human::ScriptedHuman;
use crate::core::llm::scripted::ScriptedLlm;
use crate::cross_test;

const MODEL: &str = "scripted";

const GAME_JS: &str = "export function slide(row) { const v = row.filter(Boolean); return v.concat(Array(4 - v.length).fill(0)); }\n";

/// The scripted answers, in call order: the recorded sample run the site
/// replays (`recordings/company-2048.json`, one source for both), also used
/// by the browser run in `web::team_run_tests`.
pub(crate) fn script() -> Vec<String> {
    crate::core::llm::replay::Recording::sample().turns.into_iter().map(|t| t.text).collect()
}

cross_test! {
    async fn a_2048_game_by_the_mgx_company() {
        let llm = ScriptedLlm::from_texts(MODEL, script());
        let mut team = mgx_team(Rc::new(llm.clone()), EventSink::default());
        let mut prices = PriceTable::empty();
        prices.set(MODEL, Price::new(1.0, 2.0));
        team.ledger.borrow_mut().prices = prices;
        team.invest(3.0);
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
            .map(|r| r.messages.last().unwrap().content.clone())
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
        assert_eq!(files.list(None).unwrap(), ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "game.js", "index.html", "style.css", "tests/game.test.js"]);
        assert!(files.read("docs/prd.md").unwrap().contains("```mermaid\nquadrantChart"));
        let design = files.read("docs/system_design.md").unwrap();
        assert!(design.contains("classDiagram") && design.contains("sequenceDiagram"));
        assert_eq!(files.read("game.js").unwrap(), GAME_JS);

        // Each member got its brief and the requirement reached Alice.
        let alice = llm.requests().into_iter().find(|r| r.messages[0].content.contains("named Alice")).unwrap();
        assert!(alice.messages.iter().any(|m| m.content.contains("[Message] from Mike: Write the PRD for: a 2048 game in HTML/JS")));

        // The user heard from Mike only, at every step.
        assert_eq!(human.replies.borrow().len(), 6);
        assert!(human.replies.borrow().last().unwrap().starts_with("Your 2048 game is ready"));

        // Cost: one entry per call, per role.
        let ledger = team.ledger.borrow();
        assert_eq!(ledger.total().calls as usize, script().len());
        assert_eq!(ledger.per_role()["Mike"].calls, 7);
        for member in ["Alice", "Bob", "Eve", "Alex", "Edward"] {
            assert_eq!(ledger.per_role()[member].calls, 1, "{member}");
        }
        assert!(ledger.total().cost > 0.0 && ledger.total().cost < 3.0);
    }
}

