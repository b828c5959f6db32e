//! Scenario tests of the whole core: routing, observing, the three react
//! modes, budget, failures, and save → restore → continue. Each rule of
//! `docs/SEMANTICS.md` (copied from the mission brief) has a case here; the tests run natively and
//! in headless Chromium (`cross_test!`).

use std::cell::RefCell;
use crate::core::sorted_map::SortedSet;
use std::rc::Rc;

use crate::core::action::{Action, ActionContext, ActionOutput, AskAction};
use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason, TeamEvent};
use crate::core::llm::scripted::{ScriptedLlm, Turn};
use crate::core::llm::LlmError;
use crate::core::message::{Message, MessageRef, ALL, NONE, SELF};
use crate::core::role::{ReactMode, Role, RoleSpec};
use crate::core::role_error::RoleError;
use crate::core::team::Team;
use crate::cross_test;
use futures::future::LocalBoxFuture;

const MODEL: &str = "scripted";

fn priced_team(llm: &ScriptedLlm, budget: f64) -> Team {
    let mut team = Team::new("a software company", Rc::new(llm.clone()), EventSink::default());
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 2.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(budget);
    team
}

fn ask(kind: &str) -> Rc<dyn Action> {
    Rc::new(AskAction::new(kind, format!("Do {kind}.")))
}

/// A role with one action that watches `watch`.
fn stage(name: &str, profile: &str, action: &str, watch: &[&str]) -> Role {
    Role::new(RoleSpec::new(name, profile).goal("do the work").watch(watch.iter().copied()), vec![ask(action)])
}

/// "sender: content [cause_by]" per published message, in order.
fn transcript(team: &Team) -> Vec<String> {
    team.env
        .history()
        .iter()
        .map(|m| format!("{}: {} [{}]", if m.sent_from.is_empty() { "user" } else { &m.sent_from }, m.content, m.cause_by))
        .collect()
}

/// The software-company pipeline: requirement → PRD → design → code.
fn pipeline(llm: &ScriptedLlm) -> Team {
    let mut team = priced_team(llm, 10.0);
    team.hire([
        stage("Alice", "Product Manager", "WritePRD", &["UserRequirement"]),
        stage("Bob", "Architect", "WriteDesign", &["WritePRD"]),
        stage("Alex", "Engineer", "WriteCode", &["WriteDesign"]),
    ]);
    team
}

cross_test! {
    async fn a_pipeline_runs_in_order_and_stops_when_idle() {
        let llm = ScriptedLlm::from_texts(MODEL, ["the PRD", "the design", "the code"]);
        let mut team = pipeline(&llm);
        team.run_project("make 2048");
        let outcome = team.run(10).await;
        assert_eq!(
            transcript(&team),
            [
                "user: make 2048 [UserRequirement]",
                "Alice: the PRD [WritePRD]",
                "Bob: the design [WriteDesign]",
                "Alex: the code [WriteCode]",
            ]
        );
        // Three working rounds, then one in which everyone only observes.
        assert_eq!(outcome.rounds_run, 4);
        assert_eq!(outcome.stop, StopReason::Idle);
        assert_eq!(llm.remaining(), 0);
        // Bob's prompt carries his prefix (with the other roles) and the PRD he observed.
        let bob = &llm.requests()[1];
        assert!(bob.messages[0].content.starts_with("You are an Architect, named Bob, your goal is do the work. "));
        assert!(bob.messages[0].content.contains("with roles(Alice, Alex)"));
        assert!(bob.messages[1].content.contains("Alice: the PRD"));
        let ledger = team.ledger.borrow();
        assert_eq!(ledger.total().calls, 3);
        assert_eq!(ledger.per_role().len(), 3);
    }
}

cross_test! {
    async fn rounds_are_bounded() {
        let llm = ScriptedLlm::from_texts(MODEL, ["the PRD", "the design"]);
        let mut team = pipeline(&llm);
        team.run_project("make 2048");
        let outcome = team.run(2).await;
        assert_eq!(outcome.rounds_run, 2);
        assert_eq!(outcome.stop, StopReason::RoundsDone);
        assert_eq!(transcript(&team).len(), 3);
    }
}

/// Roles that record what reaches their buffers, to test routing alone.
fn listener(name: &str, kind: &str) -> Role {
    Role::new(RoleSpec::new(name, kind).kind(kind).watch(["Nothing"]), vec![])
}

#[test]
fn routing_by_address() {
    let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
    let mut team = priced_team(&llm, 1.0);
    team.hire([listener("Alice", "ProductManager"), listener("Bob", "Architect"), listener("Eve", "ProjectManager")]);
    let undelivered = Rc::new(RefCell::new(0));
    let counter = undelivered.clone();
    team.env.world.events = EventSink::new(move |e| {
        if let TeamEvent::Undelivered { .. } = e {
            *counter.borrow_mut() += 1;
        }
    });
    // (send_to, who receives)
    let cases: &[(&[&str], &[&str])] = &[
        (&[ALL], &["Alice", "Bob", "Eve"]),
        (&["Bob"], &["Bob"]),
        (&["Architect"], &["Bob"]),
        (&["ProjectManager", "Alice"], &["Alice", "Eve"]),
        (&[NONE], &[]),
        (&["Nobody"], &[]),
    ];
    for (send_to, want) in cases {
        let m = Rc::new(Message::new(team.env.world.new_id(), "x").to(send_to.iter().copied()));
        team.env.publish(m.clone());
        let post = team.env.world.post.borrow();
        let got: Vec<&str> = ["Alice", "Bob", "Eve"]
            .into_iter()
            .filter(|n| post.peek(n).iter().any(|b| b.id == m.id))
            .collect();
        assert_eq!(got, *want, "send_to={send_to:?}");
    }
    assert_eq!(*undelivered.borrow(), 2, "two messages had no recipient");
    assert_eq!(team.env.history().len(), cases.len(), "history records every message");
}

#[test]
fn publishing_to_self_goes_to_the_own_buffer_only() {
    let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
    let mut team = priced_team(&llm, 1.0);
    team.hire([listener("Alice", "ProductManager"), listener("Bob", "Architect")]);
    let alice = team.env.role("Alice").unwrap();
    let world = &team.env.world;
    alice.publish(world, Rc::new(Message::new(world.new_id(), "note to self").to([SELF])));
    alice.publish(world, Rc::new(Message::new(world.new_id(), "by kind").to(["ProductManager"])));
    let post = world.post.borrow();
    assert_eq!(post.buffered("Alice"), 2);
    assert_eq!(post.buffered("Bob"), 0);
    assert!(post.history().is_empty(), "a message to oneself bypasses the environment");
    let first = &post.peek("Alice")[0];
    assert_eq!(first.send_to, SortedSet::from(["Alice".to_string()]));
    assert_eq!(first.sent_from, "Alice");
}

#[test]
fn observe_keeps_news_only_and_deduplicates() {
    let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
    let mut team = priced_team(&llm, 1.0);
    team.hire([stage("Bob", "Architect", "WriteDesign", &["WritePRD"])]);
    let world = &team.env.world;
    let prd = Rc::new(Message::new(world.new_id(), "prd").caused_by("WritePRD").from_role("Alice"));
    let chat = Rc::new(Message::new(world.new_id(), "chatter").caused_by("Chat").from_role("Eve"));
    let direct = Rc::new(Message::new(world.new_id(), "psst").caused_by("Chat").to(["Bob"]));
    for m in [&prd, &chat, &direct, &prd] {
        world.post.borrow_mut().deliver_to("Bob", m.clone());
    }
    let (roles, world) = team.env.split_mut();
    let bob = roles.iter_mut().find(|r| r.name() == "Bob").unwrap();
    assert_eq!(bob.observe(world), 3, "watched PRD twice (not yet remembered) and the direct message");
    let ids: Vec<u64> = bob.state.memory.all().iter().map(|m| m.id.0).collect();
    assert_eq!(ids, [prd.id.0, direct.id.0], "memory dedups; chatter is not news");
    assert_eq!(bob.state.latest_observed, Some(prd.id));
    // Seen again: no longer news.
    world.post.borrow_mut().deliver_to("Bob", prd.clone());
    assert_eq!(bob.observe(world), 0);
}

#[test]
fn observe_all_remembers_everything_but_reacts_to_news() {
    let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
    let mut team = priced_team(&llm, 1.0);
    team.hire([Role::new(RoleSpec::new("Mike", "Team Leader").watch(["UserRequirement"]).observe_all(), vec![ask("Route")])]);
    let world = &team.env.world;
    for (content, cause) in [("idea", "UserRequirement"), ("prd", "WritePRD")] {
        world.post.borrow_mut().deliver_to("Mike", Rc::new(Message::new(world.new_id(), content).caused_by(cause)));
    }
    let (roles, world) = team.env.split_mut();
    assert_eq!(roles[0].observe(world), 1);
    let mike = &roles[0];
    assert_eq!(mike.state.memory.len(), 2);
}

/// A role with actions A, B, C in the given mode.
fn three_action_role(mode: ReactMode, max_loop: u32) -> Role {
    Role::new(RoleSpec::new("Solo", "Worker").react_mode(mode, max_loop), vec![ask("A"), ask("B"), ask("C")])
}

fn causes(team: &Team, name: &str) -> Vec<String> {
    team.env.role(name).unwrap().state.memory.all().iter().map(|m| m.cause_by.to_string()).collect()
}

cross_test! {
    async fn by_order_runs_each_action_once_in_order() {
        let llm = ScriptedLlm::from_texts(MODEL, ["a", "b", "c"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([three_action_role(ReactMode::ByOrder, 1)]);
        team.run_project("go");
        team.run(1).await;
        assert_eq!(causes(&team, "Solo"), ["UserRequirement", "A", "B", "C"]);
        // Only the last action's output is published.
        assert_eq!(transcript(&team)[1..], ["Solo: c [C]"]);
        // Each action saw the previous one's output.
        assert!(llm.requests()[2].messages[1].content.contains("Solo: b"));
    }
}

cross_test! {
    async fn react_mode_follows_the_model_s_state_choices() {
        // think → 2 (C), act; think → 0 (A), act; think → -1, stop.
        let llm = ScriptedLlm::from_texts(MODEL, ["2", "c out", "Stage 0 it is.", "a out", "-1"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([three_action_role(ReactMode::React, 5)]);
        team.run_project("go");
        team.run(1).await;
        assert_eq!(causes(&team, "Solo"), ["UserRequirement", "C", "A"]);
        assert_eq!(llm.remaining(), 0);
        let think = &llm.requests()[0].messages[0].content;
        assert!(think.contains("0. A\n1. B\n2. C"), "{think}");
        assert!(think.contains("between 0 and 2"), "{think}");
        assert!(think.contains("Your previous stage: -1"), "{think}");
    }
}

cross_test! {
    async fn an_invalid_state_answer_stops_the_reaction() {
        for answer in ["7", "I am not sure", "-3"] {
            let llm = ScriptedLlm::from_texts(MODEL, [answer]);
            let mut team = priced_team(&llm, 1.0);
            team.hire([three_action_role(ReactMode::React, 5)]);
            team.run_project("go");
            team.run(1).await;
            assert_eq!(causes(&team, "Solo"), ["UserRequirement"], "{answer}");
            assert_eq!(transcript(&team)[1], "Solo: No actions taken yet [Action]");
        }
    }
}

cross_test! {
    async fn react_mode_stops_at_max_react_loop() {
        let llm = ScriptedLlm::from_texts(MODEL, ["0", "a1", "1", "b1"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([three_action_role(ReactMode::React, 2)]);
        team.run_project("go");
        team.run(1).await;
        assert_eq!(causes(&team, "Solo"), ["UserRequirement", "A", "B"]);
        assert_eq!(llm.remaining(), 0);
    }
}

cross_test! {
    async fn plan_and_act_plans_then_works_through_the_tasks() {
        let plan = r#"Here is my plan:
```json
[{"task_id": "1", "instruction": "write the PRD", "task_type": "other"},
 {"task_id": "2", "dependent_task_ids": ["1"], "instruction": "write the code", "task_type": "other"}]
```"#;
        let llm = ScriptedLlm::from_texts(MODEL, [plan, "PRD done", "code done"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([Role::new(RoleSpec::new("Dave", "Planner").react_mode(ReactMode::PlanAndAct, 10), vec![ask("Work")])]);
        team.run_project("build a game");
        team.run(1).await;
        let dave = team.env.role("Dave").unwrap();
        assert!(dave.state.plan.borrow().is_finished());
        let results: Vec<String> = dave.state.plan.borrow().tasks().iter().map(|t| t.result.clone()).collect();
        assert_eq!(results, ["PRD done", "code done"]);
        // Each task's prompt names it.
        assert!(llm.requests()[2].messages[1].content.contains("## Current task\nwrite the code"));
        // The response is the finished plan.
        let last = transcript(&team).pop().unwrap();
        assert!(last.starts_with("Dave: Plan for: build a game") && last.contains("[x] 2: write the code"), "{last}");
    }
}

cross_test! {
    async fn a_bad_plan_is_fed_back_to_the_model_until_it_is_fixed() {
        let cyclic = r#"[{"task_id":"1","dependent_task_ids":["2"]},{"task_id":"2","dependent_task_ids":["1"]}]"#;
        let good = r#"[{"task_id":"1","instruction":"only task"}]"#;
        let llm = ScriptedLlm::from_texts(MODEL, ["not json at all", cyclic, good, "done"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([Role::new(RoleSpec::new("Dave", "Planner").react_mode(ReactMode::PlanAndAct, 10), vec![ask("Work")])]);
        team.run_project("x");
        let outcome = team.run(1).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        let second = &llm.requests()[1].messages[1].content;
        assert!(second.contains("could not be used") && second.contains("no JSON list"), "{second}");
        let third = &llm.requests()[2].messages[1].content;
        assert!(third.to_lowercase().contains("cycle"), "{third}");
        assert!(team.env.role("Dave").unwrap().state.plan.borrow().is_finished());
    }
}

cross_test! {
    async fn plan_and_act_gives_up_after_three_bad_plans() {
        let llm = ScriptedLlm::from_texts(MODEL, ["nope", "nope", "nope"]);
        let mut team = priced_team(&llm, 1.0);
        team.hire([Role::new(RoleSpec::new("Dave", "Planner").react_mode(ReactMode::PlanAndAct, 10), vec![ask("Work")])]);
        team.run_project("x");
        let outcome = team.run(3).await;
        assert!(matches!(&outcome.failures[0].2, RoleError::Plan(m) if m.contains("no valid plan after 3")));
        assert!(matches!(outcome.stop, StopReason::Failed { .. }));
        assert_eq!(llm.calls(), 3, "no fourth attempt");
    }
}

/// A role whose one action makes two LLM calls (to stop between them).
struct TwoCalls;

impl Action for TwoCalls {
    fn kind(&self) -> crate::core::message::ActionKind {
        "TwoCalls".into()
    }
    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let a = cx.llm.aask("", "first").await?;
            let b = cx.llm.aask("", "second").await?;
            Ok(ActionOutput::text(format!("{a}+{b}")))
        })
    }
}

cross_test! {
    async fn the_budget_is_checked_before_every_call_even_mid_round() {
        // Each call costs 1M prompt tokens × $1 = $1 (usage as scripted).
        let llm = ScriptedLlm::new(MODEL, [
            Turn::with_usage("x", 1_000_000, 0),
            Turn::with_usage("y", 1_000_000, 0),
            Turn::with_usage("z", 1_000_000, 0),
        ]);
        let mut team = priced_team(&llm, 1.5);
        team.hire([
            Role::new(RoleSpec::new("P", "Pair"), vec![Rc::new(TwoCalls)]),
            Role::new(RoleSpec::new("Q", "Pair"), vec![Rc::new(TwoCalls)]),
        ]);
        team.run_project("go");
        let outcome = team.run(5).await;
        assert_eq!(outcome.rounds_run, 1, "stopped inside the first round");
        // P1 and Q1 start at $0; P1 ends ($1); P2 starts ($1 < $1.50); Q1 ends
        // ($2); Q2 is refused. MetaGPT would have made all four calls and gone
        // on to the next round. What still overshoots is only calls already
        // in flight when the budget ran out.
        assert!(matches!(outcome.stop, StopReason::BudgetExhausted { spent, budget } if (spent - 2.0).abs() < 1e-9 && budget == 1.5), "{:?}", outcome.stop);
        assert_eq!(llm.calls(), 3);
        assert_eq!(transcript(&team)[1..], ["P: x+z [TwoCalls]"]);
        // Q's reaction is pending, not lost: more budget resumes it.
        assert!(team.env.role("Q").unwrap().state.pending);
        llm.push(Turn::with_usage("q2", 10, 10));
        team.invest(10.0);
        team.run(5).await;
        assert_eq!(transcript(&team)[2..], ["Q: y+q2 [TwoCalls]"]);
        assert_eq!(llm.calls(), 4, "Q's first call was replayed, not repeated");
    }
}

cross_test! {
    async fn an_unpriced_model_stops_the_run_and_says_which() {
        let llm = ScriptedLlm::from_texts("mystery-model", ["never sent"]);
        let mut team = Team::new("x", Rc::new(llm.clone()), EventSink::default());
        team.hire([stage("Alice", "Product Manager", "WritePRD", &["UserRequirement"])]);
        team.run_project("go");
        let outcome = team.run(3).await;
        assert_eq!(outcome.stop, StopReason::UnknownPrice { model: "mystery-model".into() });
        assert_eq!(llm.calls(), 0, "not counted as free");
    }
}

cross_test! {
    async fn a_failing_role_does_not_stop_the_others() {
        let llm = ScriptedLlm::new(MODEL, [
            Turn::Fail(LlmError::ProviderDown { status: 503, message: "busy".into() }),
            Turn::text("Bob's answer"),
            Turn::text("Alice, second try"),
        ]);
        let failures = Rc::new(RefCell::new(Vec::new()));
        let seen = failures.clone();
        let mut team = priced_team(&llm, 1.0);
        team.env.world.events = EventSink::new(move |e| {
            if let TeamEvent::RoleFailed { role, error } = e {
                seen.borrow_mut().push(format!("{role}: {error}"));
            }
        });
        team.hire([
            stage("Alice", "Product Manager", "WritePRD", &["UserRequirement"]),
            stage("Bob", "Architect", "Sketch", &["UserRequirement"]),
        ]);
        team.run_project("go");
        let outcome = team.run(1).await;
        assert_eq!(outcome.failures.len(), 1);
        assert_eq!(failures.borrow().len(), 1);
        assert!(failures.borrow()[0].starts_with("Alice: The provider is busy or down"));
        assert_eq!(transcript(&team)[1..], ["Bob: Bob's answer [Sketch]"]);
        // Alice's news is not lost: the next round continues her reaction.
        team.run(1).await;
        assert_eq!(transcript(&team)[2..], ["Alice: Alice, second try [WritePRD]"]);
    }
}

/// The script of a software company run, including a plan-and-act role.
fn company_turns() -> Vec<String> {
    vec![
        "the PRD".into(),
        r#"[{"task_id":"1","instruction":"design"},{"task_id":"2","dependent_task_ids":["1"],"instruction":"review"}]"#.into(),
        "designed".into(),
        "reviewed".into(),
        "first".into(),
        "second".into(),
    ]
}

fn company(llm: &ScriptedLlm) -> Team {
    let mut team = priced_team(llm, 10.0);
    team.hire([
        stage("Alice", "Product Manager", "WritePRD", &["UserRequirement"]),
        Role::new(
            RoleSpec::new("Bob", "Architect").watch(["WritePRD"]).react_mode(ReactMode::PlanAndAct, 10),
            vec![ask("WriteDesign")],
        ),
        Role::new(RoleSpec::new("Alex", "Engineer").watch(["Plan"]), vec![Rc::new(TwoCalls)]),
    ]);
    team
}

fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| serde_json::to_string(&r.messages).unwrap()).collect()
}

cross_test! {
    async fn save_restore_continue_matches_an_uninterrupted_run() {
        // Uninterrupted.
        let llm = ScriptedLlm::from_texts(MODEL, company_turns());
        let mut team = company(&llm);
        team.run_project("make 2048");
        assert_eq!(team.run(10).await.stop, StopReason::Idle);
        let want = transcript(&team);
        let want_prompts = prompts(&llm);
        let want_cost = team.ledger.borrow().clone();
        assert_eq!(want.len(), 4);

        // Interrupted after every possible number of rounds, and also in the
        // middle of a reaction (a call that fails, then the tab "closes").
        for cut in 1..=4u32 {
            let first = ScriptedLlm::from_texts(MODEL, company_turns());
            let mut before = company(&first);
            before.run_project("make 2048");
            before.run(cut).await;
            let saved = serde_json::to_string(&before.snapshot()).unwrap();
            let done = first.calls();

            let rest = ScriptedLlm::from_texts(MODEL, company_turns().into_iter().skip(done));
            let mut after = company(&rest);
            after.restore(serde_json::from_str(&saved).unwrap()).unwrap();
            assert_eq!(after.run(10).await.stop, StopReason::Idle, "cut={cut}");
            assert_eq!(transcript(&after), want, "cut={cut}");
            let mut all_prompts = prompts(&first);
            all_prompts.extend(prompts(&rest));
            assert_eq!(all_prompts, want_prompts, "no call repeated or skipped, cut={cut}");
            assert_eq!(*after.ledger.borrow(), want_cost, "cost carried over, cut={cut}");
        }
    }
}

cross_test! {
    async fn a_reaction_cut_between_two_calls_resumes_without_repeating_the_first() {
        let turns = company_turns();
        let llm = ScriptedLlm::from_texts(MODEL, turns.clone());
        let mut team = company(&llm);
        team.run_project("make 2048");
        team.run(10).await;
        let want = transcript(&team);

        // Alex's first call succeeds, his second fails (the tab closes mid-stream).
        let mut cut_turns: Vec<Turn> = turns[..5].iter().map(|t| Turn::text(t.as_str())).collect();
        cut_turns.push(Turn::Fail(LlmError::Network { message: "tab closed".into() }));
        let first = ScriptedLlm::new(MODEL, cut_turns);
        let mut before = company(&first);
        before.run_project("make 2048");
        let outcome = before.run(10).await;
        assert!(matches!(outcome.stop, StopReason::Failed { .. }));
        let saved = before.snapshot();
        assert!(saved.roles.iter().any(|r| r.name == "Alex" && r.pending));

        // The failed call is made again; the finished one is replayed from
        // the saved journal, not paid for twice.
        let rest = ScriptedLlm::from_texts(MODEL, [turns[5].clone()]);
        let mut after = company(&rest);
        after.restore(saved).unwrap();
        after.run(10).await;
        assert_eq!(transcript(&after), want);
        assert_eq!(rest.calls(), 1);
        assert_eq!(rest.requests()[0].messages[0].content, "second");
        assert_eq!(after.ledger.borrow().total().calls, 6, "five before the cut, one after");
    }
}

#[test]
fn restore_rejects_a_snapshot_of_another_team_or_a_newer_schema() {
    let llm = ScriptedLlm::from_texts(MODEL, Vec::<String>::new());
    let team = company(&llm);
    let mut snap = team.snapshot();
    let mut other = priced_team(&llm, 1.0);
    other.hire([stage("Zed", "Other", "X", &[])]);
    assert!(matches!(other.restore(snap.clone()), Err(crate::core::snapshot::SnapshotError::UnknownRole(n)) if n == "Alice"));
    snap.schema_version = 99;
    let mut same = company(&llm);
    assert!(matches!(same.restore(snap), Err(crate::core::snapshot::SnapshotError::TooNew { found: 99 })));
}

#[allow(dead_code)]
fn _assert_message_ref_is_shared(_: MessageRef) {}

cross_test! {
    async fn plan_and_act_and_a_two_call_action_resume_from_every_checkpoint() {
        use crate::core::checkpoint::tests::resumes_from_every_checkpoint;
        let kept = resumes_from_every_checkpoint(&company, MODEL, "make 2048", &company_turns(), &[], 10).await;
        assert_eq!(kept, company_turns().len());
    }
}
