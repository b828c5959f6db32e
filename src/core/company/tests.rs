//! Tests of the fixed-SOP company: a whole 2048 run on a scripted model
//! (routing, files, cost, prompts), retries of a malformed PRD, an unsafe
//! path in the task list, a failure resumed between two files, the budget,
//! and the small pure pieces (code extraction, templates, paths, the role
//! table).
//!
//! The scripted answers of the 2048 run are our own test data, in
//! `testdata/2048_sop/`, one file per model call in the order of the calls.
//! The game and its test in them are real: the test passes under
//! `node --test` against the game's code.

use std::rc::Rc;

use expect_test::expect;
use serde_json::{json, Value};

use super::*;
use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason};
use crate::core::llm::scripted::{ScriptedLlm, Turn};
use crate::core::llm::{ChatRequest, ChatRole, LlmError};
use crate::core::message::{Message, MessageRef};
use crate::core::role_error::RoleError;
use crate::core::team::Team;
use crate::cross_test;

const MODEL: &str = "scripted";

pub(crate) use super::script::{IDEA, RESTART_TURNS, TURNS};

const PRD: usize = 0;
const DESIGN: usize = 1;
const INDEX_HTML: usize = 3;
const STYLE_CSS: usize = 4;
const GAME_JS: usize = 5;
const TEST_GAME_JS: usize = 6;

/// The SOP team on `llm`, with the model priced and `budget` dollars.
fn company(llm: &ScriptedLlm, budget: f64) -> Team {
    let mut team = sop_team(Rc::new(llm.clone()), EventSink::default());
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 2.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(budget);
    team
}

/// "sender [cause_by]" per published message, in order.
fn transcript(team: &Team) -> Vec<String> {
    team.env
        .history()
        .iter()
        .map(|m| format!("{} [{}]", if m.sent_from.is_empty() { "user" } else { &m.sent_from }, m.cause_by))
        .collect()
}

fn message_by(team: &Team, kind: &str) -> MessageRef {
    team.env.history().into_iter().find(|m| m.cause_by.as_str() == kind).expect("a message of that kind")
}

fn file(team: &Team, path: &str) -> String {
    team.env.world.files.borrow().read(path).expect("the file exists").to_string()
}

fn paths(team: &Team) -> Vec<String> {
    team.env.world.files.borrow().paths().map(str::to_string).collect()
}

/// Every turn of a request, as one text.
fn prompt(request: &ChatRequest) -> String {
    request.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n")
}

/// The 2048 task list with its task list replaced.
fn tasks_answer(task_list: Value) -> String {
    let mut fields: Value = serde_json::from_str(content_json(TURNS[2])).expect("the fixture's task list is JSON");
    fields["Task list"] = task_list;
    format!("[CONTENT]\n{fields}\n[/CONTENT]")
}

/// The JSON between the content tags of a fixture answer.
fn content_json(answer: &str) -> &str {
    let start = answer.find("[CONTENT]").map_or(0, |i| i + "[CONTENT]".len());
    let end = answer.find("[/CONTENT]").unwrap_or(answer.len());
    &answer[start..end]
}

/// A code file holds exactly the code of its answer: a piece of the answer,
/// with no fence and no prose around it.
fn assert_code_from(answer: &str, code: &str, first_line: &str, last_line: &str) {
    assert!(answer.contains(code), "the file is the answer's code block:\n{code}");
    assert!(!code.contains("```"), "no fence in the file");
    assert!(code.starts_with(first_line), "starts with {first_line:?}: {code}");
    assert!(code.ends_with(&format!("{last_line}\n")), "ends with {last_line:?}: {code}");
}

cross_test! {
    async fn a_2048_game_goes_through_the_whole_sop() {
        let llm = ScriptedLlm::from_texts(MODEL, TURNS);
        let mut team = company(&llm, 10.0);
        team.run_project(IDEA);
        let outcome = team.run(10).await;

        // Routing: each role reacts to the previous one's action, once.
        assert_eq!(
            transcript(&team),
            [
                "user [UserRequirement]",
                "Alice [WritePRD]",
                "Bob [WriteDesign]",
                "Eve [WriteTasks]",
                "Alex [WriteCode]",
                "Edward [WriteTest]",
            ]
        );
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(outcome.stop, StopReason::Idle);
        // Five working rounds, then one in which Edward only observes.
        assert_eq!(outcome.rounds_run, 6);
        assert!(team.env.is_idle());

        // Files: the three documents, the three code files and one test.
        assert_eq!(
            paths(&team),
            ["docs/prd.md", "docs/system_design.md", "docs/tasks.md", "game.js", "index.html", "style.css", "tests/test_game.js"]
        );
        let prd = file(&team, PRD_PATH);
        assert!(prd.starts_with("# Product Requirement Document: game_2048\n\n## Language\n\nen_us\n"), "{prd}");
        assert!(prd.contains("## Competitive Quadrant Chart\n\n```mermaid\nquadrantChart\n    title Reach and engagement"), "{prd}");
        assert!(prd.contains("## Requirement Pool\n\n- P0: 4x4 board with sliding and merging by the 2048 rules\n"), "{prd}");
        let design = file(&team, DESIGN_PATH);
        assert!(design.starts_with("# System Design\n\n## Implementation approach\n"), "{design}");
        assert!(design.contains("## File list\n\n- index.html\n- style.css\n- game.js\n"), "{design}");
        assert!(design.contains("```mermaid\nclassDiagram\n    class Game {"), "{design}");
        assert!(design.contains("```mermaid\nsequenceDiagram\n    participant P as Player"), "{design}");
        let tasks = file(&team, TASKS_PATH);
        assert!(tasks.starts_with("# Project Tasks\n\n"), "{tasks}");
        assert!(tasks.contains("## Task list\n\n- index.html\n- style.css\n- game.js\n"), "{tasks}");
        assert!(tasks.contains("## Required packages\n\n—\n\n## Logic Analysis\n"), "an empty field shows a dash: {tasks}");
        assert!(tasks.ends_with("## Anything UNCLEAR\n\n—\n"), "{tasks}");
        assert_code_from(TURNS[INDEX_HTML], &file(&team, "index.html"), "<!DOCTYPE html>", "</html>");
        assert_code_from(TURNS[STYLE_CSS], &file(&team, "style.css"), ":root {", "}");
        let game = file(&team, "game.js");
        assert_code_from(TURNS[GAME_JS], &game, "// game.js: the rules of 2048", "}");
        assert!(!game.contains("The rules are in `Game`"), "the prose after the block is not code");
        let test = file(&team, "tests/test_game.js");
        assert_code_from(TURNS[TEST_GAME_JS], &test, "// Tests of the rules of 2048", "});");
        assert!(test.contains("require('../game.js')"));

        // Messages: documents carry their markdown and their fields.
        let prd_message = message_by(&team, WRITE_PRD);
        assert_eq!(prd_message.content, prd);
        let fields = prd_message.instruct_content.as_ref().expect("the PRD's fields");
        assert_eq!(fields["Project Name"], "game_2048");
        assert_eq!(fields["Requirement Pool"][0], json!(["P0", "4x4 board with sliding and merging by the 2048 rules"]));
        assert_eq!(message_by(&team, WRITE_TASKS).instruct_content.as_ref().map(|f| f["Task list"].clone()), Some(json!(["index.html", "style.css", "game.js"])));
        let code = message_by(&team, WRITE_CODE);
        assert_eq!(code.content, "Wrote 3 files:\n- index.html\n- style.css\n- game.js");
        assert_eq!(code.instruct_content, Some(json!({ "files": ["index.html", "style.css", "game.js"] })));
        assert_eq!(message_by(&team, WRITE_TEST).content, "Wrote 1 test file:\n- tests/test_game.js (tests game.js)");

        // Cost: one ledger entry per scripted turn, tallied by role.
        assert_eq!(llm.remaining(), 0);
        assert_eq!(llm.calls(), TURNS.len());
        let ledger = team.ledger.borrow();
        assert_eq!(ledger.total().calls, TURNS.len() as u64);
        let per_role: Vec<(&str, u64)> = ledger.per_role().iter().map(|(role, tally)| (role.as_str(), tally.calls)).collect();
        assert_eq!(per_role, [("Alex", 3), ("Alice", 1), ("Bob", 1), ("Edward", 1), ("Eve", 1)]);
        assert!(ledger.total().cost > 0.0);

        // Prompts: each role saw what it needed.
        let requests = llm.requests();
        for (request, (who, profile)) in requests.iter().zip([
            ("Alice", "Product Manager"),
            ("Bob", "Architect"),
            ("Eve", "Project Manager"),
            ("Alex", "Engineer"),
            ("Alex", "Engineer"),
            ("Alex", "Engineer"),
            ("Edward", "QA Engineer"),
        ]) {
            assert_eq!(request.messages[0].role, ChatRole::System);
            let system = &request.messages[0].content;
            let article = if "AEIOU".contains(&profile[..1]) { "an" } else { "a" };
            assert!(system.starts_with(&format!("You are {article} {profile}, named {who}, your goal is ")), "{system}");
            assert!(system.contains("You are in a software company with roles("), "{system}");
            assert!(!prompt(request).contains("{{"), "every template slot is filled");
        }
        let alice = prompt(&requests[0]);
        assert!(alice.contains(&format!("### The user's requirement\n{IDEA}\n")), "{alice}");
        assert!(alice.contains("- Competitive Quadrant Chart: str  # A mermaid quadrantChart"), "{alice}");
        let bob = prompt(&requests[1]);
        assert!(bob.contains(&format!("### The product requirement document\n{}", prd.trim())), "Bob's prompt holds the PRD");
        let eve = prompt(&requests[2]);
        assert!(eve.contains(&format!("### The system design\n{}", design.trim())), "Eve's prompt holds the design");
        let first = prompt(&requests[3]);
        assert!(first.contains("## The code written so far\n(none yet: this is the first file)"), "{first}");
        assert!(first.contains("## Your file: index.html\n"), "{first}");
        assert!(first.contains(tasks.trim()), "Alex's prompt holds the task list");
        let game_prompt = prompt(&requests[GAME_JS]);
        assert!(game_prompt.contains("## Your file: game.js\n"), "{game_prompt}");
        assert!(game_prompt.contains("in ONE fenced block (```javascript ..."), "{game_prompt}");
        assert!(game_prompt.contains(design.trim()), "Alex's prompt for game.js holds the design");
        let index = file(&team, "index.html");
        assert!(game_prompt.contains(&format!("### index.html\n```html\n{}\n```", index.trim_end())), "and index.html's code");
        assert!(game_prompt.contains("### style.css\n```css\n:root {"), "and style.css's code");
        let edward = prompt(&requests[TEST_GAME_JS]);
        assert!(edward.contains(&format!("## The code to test: game.js\n```javascript\n{}\n```", game.trim_end())), "Edward's prompt holds game.js");
        assert!(edward.contains("## Your file: tests/test_game.js\n"), "{edward}");
        assert!(edward.contains("`node:test`"), "{edward}");
        assert!(edward.contains("## The project's files\n- index.html\n- style.css\n- game.js\n"), "{edward}");
        // Answers that parse at once take one turn: system and user.
        assert_eq!(requests[PRD].messages.len(), 2);
        assert_eq!(requests[DESIGN].messages.len(), 2);
    }
}

cross_test! {
    async fn a_malformed_prd_is_retried_with_the_parse_error_and_then_succeeds() {
        let malformed = "[CONTENT]\n{\"Language\": \"en_us\", \"Product Goals\": [Fun]}\n[/CONTENT]";
        let llm = ScriptedLlm::from_texts(MODEL, [malformed, TURNS[PRD]]);
        let mut team = company(&llm, 10.0);
        team.run_project(IDEA);
        let outcome = team.run(1).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert_eq!(transcript(&team), ["user [UserRequirement]", "Alice [WritePRD]"]);
        assert!(file(&team, PRD_PATH).contains("```mermaid\nquadrantChart"));

        let requests = llm.requests();
        assert_eq!(requests.len(), 2);
        let retry = &requests[1].messages;
        let roles: Vec<ChatRole> = retry.iter().map(|m| m.role).collect();
        assert_eq!(roles, [ChatRole::System, ChatRole::User, ChatRole::Assistant, ChatRole::User]);
        assert_eq!(retry[1], requests[0].messages[1], "the prompt is sent again as it was");
        assert_eq!(retry[2].content, malformed);
        let error = match WritePrd::node().parse(malformed) {
            Err(e) => e.for_model(),
            Ok(values) => panic!("the malformed answer parsed: {values:?}"),
        };
        assert!(error.contains("does not parse"), "{error}");
        assert!(retry[3].content.contains(&error), "the retry quotes the parse error: {}", retry[3].content);
        let ledger = team.ledger.borrow();
        assert_eq!(ledger.per_role().get("Alice").map(|t| t.calls), Some(2), "both answers are paid for");
    }
}

cross_test! {
    async fn a_prd_that_never_fits_fails_clearly_after_three_attempts() {
        let wrong_type = "[CONTENT]{\"Product Goals\": \"just one goal\"}[/CONTENT]";
        let llm = ScriptedLlm::from_texts(MODEL, [wrong_type; 3]);
        let mut team = company(&llm, 10.0);
        team.run_project(IDEA);
        let outcome = team.run(1).await;
        assert_eq!(llm.calls(), FILL_ATTEMPTS as usize);
        let [(_, who, RoleError::Action { action, message })] = outcome.failures.as_slice() else {
            panic!("one action failure: {:?}", outcome.failures);
        };
        assert_eq!((who.as_str(), action.as_str()), ("Alice", WRITE_PRD));
        assert!(message.starts_with("the model gave no usable PRD in 3 attempts; the last answer was refused: "), "{message}");
        assert!(paths(&team).is_empty(), "no document is written from a refused answer");
        assert!(team.env.role("Alice").is_some_and(|alice| alice.state.pending), "the reaction stays pending");

        // Resume asks again from the first attempt (here, another model
        // that answers well), instead of replaying the refused answers.
        let better = ScriptedLlm::from_texts("better", [TURNS[0]]);
        team.env.world.llm = Rc::new(better.clone());
        team.ledger.borrow_mut().prices.set("better", crate::core::cost::Price::new(1.0, 1.0));
        let resumed = team.run(1).await;
        assert!(resumed.failures.is_empty(), "{:?}", resumed.failures);
        assert_eq!(better.calls(), 1, "a request was made");
        assert_eq!(paths(&team), ["docs/prd.md"]);
    }
}

cross_test! {
    async fn an_unsafe_path_in_the_task_list_fails_before_any_code_is_written() {
        let tasks = tasks_answer(json!(["index.html", "../etc/passwd", "game.js"]));
        let llm = ScriptedLlm::from_texts(MODEL, [TURNS[0], TURNS[1], tasks.as_str()]);
        let mut team = company(&llm, 10.0);
        team.run_project(IDEA);
        let outcome = team.run(10).await;
        let StopReason::Failed { errors } = &outcome.stop else {
            panic!("the run stops on the failure: {:?}", outcome.stop);
        };
        assert_eq!(
            errors.as_slice(),
            [(
                "Alex".to_string(),
                "WriteCode failed: the task list names a path that cannot be written, so no file was written: \
invalid path '../etc/passwd': '..' climbs above the project root; paths are relative to the project. \
Resume to try again, or choose a stronger model in Settings first."
                    .to_string()
            )]
        );
        assert_eq!(llm.calls(), 3, "no code was asked for");
        assert_eq!(paths(&team), ["docs/prd.md", "docs/system_design.md", "docs/tasks.md"], "nothing else was written");
        assert_eq!(transcript(&team).last().map(String::as_str), Some("Eve [WriteTasks]"));
    }
}

cross_test! {
    async fn a_failure_between_two_files_resumes_without_asking_for_the_first_again() {
        let mut turns: Vec<Turn> = TURNS.iter().map(|t| Turn::text(*t)).collect();
        turns.insert(STYLE_CSS, Turn::Fail(LlmError::Network { message: "connection reset".into() }));
        let llm = ScriptedLlm::new(MODEL, turns);
        let mut team = company(&llm, 10.0);
        team.run_project(IDEA);
        let outcome = team.run(10).await;
        let [(_, who, RoleError::Llm(LlmError::Network { .. }))] = outcome.failures.as_slice() else {
            panic!("one network failure: {:?}", outcome.failures);
        };
        assert_eq!(who, "Alex");
        // The failure pauses the run (nobody else has work); Resume goes on.
        assert!(matches!(outcome.stop, StopReason::Failed { .. }), "{:?}", outcome.stop);
        assert_eq!(team.run(10).await.stop, StopReason::Idle);
        // index.html's answer came from the journal: one call per turn, none repeated.
        assert_eq!(llm.remaining(), 0);
        let code_prompts: Vec<bool> =
            llm.requests().iter().map(|r| prompt(r).contains("## Your file: index.html\n")).collect();
        assert_eq!(code_prompts.iter().filter(|asked| **asked).count(), 1, "index.html was asked for once");
        assert_eq!(team.ledger.borrow().per_role().get("Alex").map(|t| t.calls), Some(3));
        assert_eq!(team.env.world.files.borrow().version("index.html"), Ok(1), "written again unchanged: no new version");
        assert_eq!(transcript(&team).iter().filter(|line| line.as_str() == "Alex [WriteCode]").count(), 1);
        assert_code_from(TURNS[GAME_JS], &file(&team, "game.js"), "// game.js: the rules of 2048", "}");
    }
}

cross_test! {
    async fn a_budget_too_small_for_the_first_call_stops_the_run_as_budget_exhausted() {
        let llm = ScriptedLlm::from_texts(MODEL, TURNS);
        let mut team = company(&llm, 0.000_001);
        team.run_project(IDEA);
        let outcome = team.run(10).await;
        assert!(matches!(outcome.stop, StopReason::BudgetExhausted { .. }), "{:?}", outcome.stop);
        assert_eq!(llm.calls(), 0);
        assert!(paths(&team).is_empty());
    }
}

cross_test! {
    async fn the_architect_reads_the_prd_from_its_message_when_there_is_no_file() {
        let llm = ScriptedLlm::from_texts(MODEL, [TURNS[DESIGN]]);
        let mut team = company(&llm, 10.0);
        let prd = Message::new(team.env.world.new_id(), "# A PRD sent by hand\n\nMake 2048.").caused_by(WRITE_PRD).from_role("Alice");
        team.env.publish(Rc::new(prd));
        let outcome = team.run(1).await;
        assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
        assert!(prompt(&llm.requests()[0]).contains("### The product requirement document\n# A PRD sent by hand\n\nMake 2048."));
        assert!(file(&team, DESIGN_PATH).contains("classDiagram"));
    }
}

#[test]
fn the_roles_form_a_chain_from_the_requirement_to_the_tests() {
    let mut watched = crate::core::message::USER_REQUIREMENT;
    for role in SOP_ROLES {
        assert_eq!(role.watches, watched, "{} watches the previous role's action", role.name);
        let built = role.role();
        assert_eq!(built.actions().len(), 1);
        assert_eq!(built.actions()[0].kind().as_str(), role.produces);
        assert_eq!(built.spec.kind, role.kind);
        assert!(!role.avatar.is_empty() && !role.summary.is_empty());
        watched = role.produces;
    }
    let names: Vec<&str> = SOP_ROLES.iter().map(|r| r.name).collect();
    assert_eq!(names, ["Alice", "Bob", "Eve", "Alex", "Edward"]);
    let team = sop_team(Rc::new(ScriptedLlm::from_texts(MODEL, Vec::<String>::new())), EventSink::default());
    let hired: Vec<(&str, &str)> = team.env.roles().iter().map(|r| (r.name(), r.spec.profile.as_str())).collect();
    assert_eq!(
        hired,
        [
            ("Alice", "Product Manager"),
            ("Bob", "Architect"),
            ("Eve", "Project Manager"),
            ("Alex", "Engineer"),
            ("Edward", "QA Engineer")
        ]
    );
    assert_eq!(team.env.world.env_desc, "a software company");
}

#[test]
fn the_document_nodes_ask_for_the_fields_of_metagpt_documents() {
    let keys = |node: crate::core::action_node::ActionNode| {
        node.fields().iter().map(|f| format!("{}: {}", f.key, f.type_name())).collect::<Vec<_>>()
    };
    expect![[r#"
        [
            "Language: str",
            "Programming Language: str",
            "Original Requirements: str",
            "Project Name: str",
            "Product Goals: list[str]",
            "User Stories: list[str]",
            "Competitive Analysis: list[str]",
            "Competitive Quadrant Chart: str",
            "Requirement Analysis: str",
            "Requirement Pool: list[list[str]]",
            "UI Design draft: str",
            "Anything UNCLEAR: str",
        ]
    "#]]
    .assert_debug_eq(&keys(WritePrd::node()));
    expect![[r#"
        [
            "Implementation approach: str",
            "File list: list[str]",
            "Data structures and interfaces: str",
            "Program call flow: str",
            "Anything UNCLEAR: str",
        ]
    "#]]
    .assert_debug_eq(&keys(WriteDesign::node()));
    expect![[r#"
        [
            "Required packages: Optional[list[str]]",
            "Logic Analysis: list[list[str]]",
            "Task list: list[str]",
            "Shared Knowledge: str",
            "Anything UNCLEAR: str",
        ]
    "#]]
    .assert_debug_eq(&keys(WriteTasks::node()));
    // Each node's own format example is an answer it accepts.
    for node in [WritePrd::node(), WriteDesign::node(), WriteTasks::node()] {
        assert!(node.parse(&node.format_example()).is_ok(), "{}", node.key);
    }
    // And the fixture's answers fit.
    assert!(WritePrd::node().parse(TURNS[0]).is_ok());
    assert!(WriteDesign::node().parse(TURNS[1]).is_ok());
    assert!(WriteTasks::node().parse(TURNS[2]).is_ok());
}

#[test]
fn the_refined_nodes_ask_for_the_fields_of_metagpt_incremental_documents() {
    let keys = |node: crate::core::action_node::ActionNode| {
        node.fields().iter().map(|f| format!("{}: {}", f.key, f.type_name())).collect::<Vec<_>>()
    };
    expect![[r#"
        [
            "Language: str",
            "Programming Language: str",
            "Refined Requirements: str",
            "Project Name: str",
            "Refined Product Goals: list[str]",
            "Refined User Stories: list[str]",
            "Competitive Analysis: list[str]",
            "Competitive Quadrant Chart: str",
            "Refined Requirement Analysis: list[str]",
            "Refined Requirement Pool: list[list[str]]",
            "UI Design draft: str",
            "Anything UNCLEAR: str",
        ]
    "#]].assert_debug_eq(&keys(WritePrd::refined_node()));
    expect![[r#"
        [
            "Refined Implementation Approach: str",
            "Refined File list: list[str]",
            "Refined Data structures and interfaces: str",
            "Refined Program call flow: str",
            "Anything UNCLEAR: str",
        ]
    "#]].assert_debug_eq(&keys(WriteDesign::refined_node()));
    expect![[r#"
        [
            "Required packages: Optional[list[str]]",
            "Refined Logic Analysis: list[list[str]]",
            "Refined Task list: list[str]",
            "Incremental Change: list[list[str]]",
            "Refined Shared Knowledge: str",
            "Anything UNCLEAR: str",
        ]
    "#]].assert_debug_eq(&keys(WriteTasks::refined_node()));
    for node in [WritePrd::refined_node(), WriteDesign::refined_node(), WriteTasks::refined_node()] {
        assert!(node.parse(&node.format_example()).is_ok(), "{}", node.key);
    }
    // The follow-up fixture's answers fit the refined nodes, and not the first ones.
    assert!(WritePrd::refined_node().parse(RESTART_TURNS[0]).is_ok());
    assert!(WriteDesign::refined_node().parse(RESTART_TURNS[1]).is_ok());
    assert!(WriteTasks::refined_node().parse(RESTART_TURNS[2]).is_ok());
    assert!(WriteTasks::node().parse(RESTART_TURNS[2]).is_err());
}

#[test]
fn extract_code_takes_the_first_fenced_block_else_the_whole_answer() {
    // (answer, code)
    let cases = [
        ("```js\nlet a = 1;\n```", "let a = 1;\n"),
        ("Here it is:\n\n```javascript\nlet a = 1;\n\nlet b = 2;\n```\nThat is all.", "let a = 1;\n\nlet b = 2;\n"),
        ("```\nfirst\n```\n```\nsecond\n```", "first\n"),
        ("````markdown\n# Title\n```sh\nrun\n```\n````", "# Title\n```sh\nrun\n```\n"),
        ("~~~py\nprint(1)\n~~~", "print(1)\n"),
        ("```python\n\n    indented()\n```", "    indented()\n"),
        ("```html\n<p>cut off", "<p>cut off\n"),
        ("  body { margin: 0; }  \n\n", "  body { margin: 0; }\n"),
        ("Use ```inline``` code.", "Use ```inline``` code.\n"),
        ("```\n```", ""),
        ("", ""),
    ];
    for (answer, code) in cases {
        assert_eq!(extract_code(answer), code, "{answer:?}");
    }
}

#[test]
fn fenced_code_cannot_be_closed_by_the_code_inside() {
    assert_eq!(fenced("game.js", "let a = 1;\n"), "```javascript\nlet a = 1;\n```");
    assert_eq!(fenced("README.md", "```sh\nrun\n```"), "````markdown\n```sh\nrun\n```\n````");
    assert_eq!(
        extract_code(&fenced("README.md", "```sh\nrun\n```")),
        "```sh\nrun\n```\n",
        "a fenced file reads back whole"
    );
    let cases = [
        ("index.html", "html"),
        ("src/app.TS", "typescript"),
        ("main.py", "python"),
        ("Makefile", ""),
        ("a.b/c", ""),
        ("x.zig", "zig"),
    ];
    for (path, language) in cases {
        assert_eq!(fence_language(path), language, "{path}");
    }
}

#[test]
fn render_fills_slots_once_and_keeps_unknown_ones() {
    use super::prompts::render;
    assert_eq!(render("a {{x}} b {{ y }} c", &[("x", "1"), ("y", "2")]), "a 1 b 2 c");
    assert_eq!(render("{{code}}", &[("code", "{{x}}"), ("x", "no")]), "{{x}}", "a value is not rendered again");
    assert_eq!(render("{{missing}} {{x", &[("x", "1")]), "{{missing}} {{x");
    assert_eq!(render("{{a}}{{a}}", &[("a", "é")]), "éé");
}

#[test]
fn every_prompt_template_has_only_the_slots_its_action_fills() {
    use super::prompts::{WRITE_CODE, WRITE_DESIGN, WRITE_PRD, WRITE_TASKS, WRITE_TEST};
    let slots = |template: &str| {
        let mut found: Vec<String> =
            template.split("{{").skip(1).filter_map(|s| s.split_once("}}")).map(|(name, _)| name.to_string()).collect();
        found.sort();
        found.dedup();
        found
    };
    assert_eq!(slots(WRITE_PRD), ["requirement"]);
    assert_eq!(slots(WRITE_DESIGN), ["prd"]);
    assert_eq!(slots(WRITE_TASKS), ["design"]);
    assert_eq!(slots(WRITE_CODE), ["code_so_far", "design", "language", "path", "tasks"]);
    assert_eq!(slots(WRITE_TEST), ["code", "design", "files", "framework", "language", "path", "test_path"]);
    use super::prompts::{REFINE_CODE, REFINE_DESIGN, REFINE_PRD, REFINE_TASKS};
    assert_eq!(slots(REFINE_PRD), ["legacy", "requirement"]);
    assert_eq!(slots(REFINE_DESIGN), ["legacy", "prd"]);
    assert_eq!(slots(REFINE_TASKS), ["design", "legacy"]);
    assert_eq!(slots(REFINE_CODE), ["change", "current", "design", "language", "legacy_code", "path", "tasks"]);
}

#[test]
fn the_task_list_paths_are_normalized_deduplicated_and_checked() {
    use super::write_code::planned_files;
    let ok = |list: Value| planned_files(Some(&json!({ "Task list": list })));
    assert_eq!(
        ok(json!(["`index.html`", "/src/app.js", "src//app.js", "\"style.css\""])),
        Ok(vec!["index.html".to_string(), "src/app.js".to_string(), "style.css".to_string()])
    );
    let message = |result: Result<Vec<String>, RoleError>| match result {
        Err(RoleError::Action { action, message }) => format!("{action}: {message}"),
        other => format!("not an action failure: {other:?}"),
    };
    expect![[r#"WriteCode: the task list names a path that cannot be written, so no file was written: invalid path '../etc/passwd': '..' climbs above the project root; paths are relative to the project; 3 is not a path; invalid path '': it names no file; give a path such as docs/prd.md"#]]
        .assert_eq(&message(ok(json!(["a.js", "../etc/passwd", 3, ""]))));
    expect![[r#"WriteCode: the task list names no file to write"#]].assert_eq(&message(ok(json!([]))));
    expect![[r#"WriteCode: the task list has no "Task list" to code from"#]]
        .assert_eq(&message(planned_files(Some(&json!({ "Tasks": [] })))));
    expect![[r#"WriteCode: the task list has no "Task list" to code from"#]].assert_eq(&message(planned_files(None)));
}

#[test]
fn tests_are_written_for_program_logic_only() {
    use super::write_test::is_tested;
    let cases = [
        ("game.js", true),
        ("src/app.ts", true),
        ("main.py", true),
        ("index.html", false),
        ("style.css", false),
        ("package.json", false),
        ("README.md", false),
        ("Makefile", false),
        ("tests/test_game.js", false),
        ("test_main.py", false),
        ("game.test.js", false),
    ];
    for (path, tested) in cases {
        assert_eq!(is_tested(path), tested, "{path}");
    }
    assert_eq!(test_path("game.js"), "tests/test_game.js");
    assert_eq!(test_path("src/engine/board.py"), "tests/test_board.py");
}

cross_test! {
    async fn the_fixed_sop_company_resumes_from_every_checkpoint_without_paying_twice() {
        use crate::core::checkpoint::tests::resumes_from_every_checkpoint;
        let turns: Vec<String> = TURNS.iter().map(|t| t.to_string()).collect();
        let kept = resumes_from_every_checkpoint(&|llm| company(llm, 3.0), MODEL, IDEA, &turns, &[], 20).await;
        assert_eq!(kept, turns.len());
    }
}
