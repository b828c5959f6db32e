//! Tests of `ActionNode`: parsing and repairing answers, field types, nested
//! groups, the compiled prompt, and `fill`'s retries, against a scripted
//! `ask` closure (no LLM, no network).

use std::cell::RefCell;
use std::collections::VecDeque;

use expect_test::{expect, Expect};
use futures::executor::block_on;
use futures::future;
use serde_json::{json, Map, Value};

use super::*;
use crate::core::llm::ChatRole;

/// A PRD-shaped node: the field types MetaGPT's documents use.
fn prd() -> ActionNode {
    ActionNode::group(
        "PRD",
        vec![
            ActionNode::new("Product Goals", FieldType::str_list(), "Up to three clear goals.", json!(["Fun", "Fast"])),
            ActionNode::new(
                "Requirement Pool",
                FieldType::list(FieldType::str_list()),
                "Rows of [priority, requirement].",
                json!([["P0", "Play with arrow keys"]]),
            ),
            ActionNode::new("Anything UNCLEAR", FieldType::Str, "Open questions, if any.", ""),
            ActionNode::new("Required packages", FieldType::str_list(), "Third-party packages.", json!(["pygame"]))
                .optional(),
        ],
    )
}

const VALID: &str = r#"{"Product Goals": ["Fun"], "Requirement Pool": [["P0", "Play"]], "Anything UNCLEAR": ""}"#;

/// Parses `answer` with the PRD node and shows the values in field order, or
/// the error text the model would get.
fn check(answer: &str, expect: Expect) {
    let node = prd();
    let actual = match node.parse(answer) {
        Ok(values) => format!("ok {}", ordered(&node, &values)),
        Err(error) => format!("error: {}", error.for_model()),
    };
    expect.assert_eq(&actual);
}

/// The values as compact JSON in field order (`Map` sorts its keys).
fn ordered(node: &ActionNode, values: &Map<String, Value>) -> String {
    let fields: Vec<String> = node
        .fields()
        .iter()
        .filter_map(|field| values.get(&field.key).map(|value| format!("{:?}: {value}", field.key)))
        .collect();
    let extra = values.keys().filter(|key| !node.fields().iter().any(|field| &field.key == *key)).count();
    format!("{{{}}}{}", fields.join(", "), if extra > 0 { " +extra" } else { "" })
}

#[test]
fn parse_finds_and_checks_the_answer() {
    check(&format!("[CONTENT]{VALID}[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("Sure! Here it is:\n[CONTENT]\n{VALID}\n[/CONTENT]\nHope it helps."), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("[CONTENT]\n```json\n{VALID}\n```\n[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("[CONTENT]```{VALID}```[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("[CONTENT]\nThe PRD: {VALID}\n[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("No tags, just {VALID} and a remark."), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("Fenced:\n```json\n{VALID}\n```"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("[CONTENT]{VALID}}} trailing junk[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
}

#[test]
fn parse_takes_the_last_closed_content_block() {
    check(&format!("[CONTENT]{{\"Product Goals\": [\"echo\"]}}[/CONTENT]\nNow mine:\n[CONTENT]{VALID}[/CONTENT]"), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check(&format!("[CONTENT]{VALID}[/CONTENT]\nI wrapped it in [CONTENT] tags as asked."), expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [["P0","Play"]], "Anything UNCLEAR": ""}"#]]);
    check("[CONTENT]{\"Product Goals\": [\"Fun\"], \"Requirement Pool\": [[\"P0\"", expect![[r#"error: the JSON does not parse: EOF while parsing a list at line 1 column 53"#]]);
}

#[test]
fn parse_repairs_common_slips() {
    check(r#"[CONTENT]{"Product Goals": ["Fun",], "Requirement Pool": [], "Anything UNCLEAR": "",}[/CONTENT]"#, expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [], "Anything UNCLEAR": ""}"#]]);
    check("[CONTENT]{\"Product Goals\": [\"Fun\"], // goals\n\"Requirement Pool\": [], \"Anything UNCLEAR\": \"see http://x.io\" // done\n}[/CONTENT]", expect![[r#"ok {"Product Goals": ["Fun"], "Requirement Pool": [], "Anything UNCLEAR": "see http://x.io"}"#]]);
    check("[CONTENT]{\"Product Goals\": [], \"Requirement Pool\": [], \"Anything UNCLEAR\": \"line one\nline\ttwo\"}[/CONTENT]", expect![[r#"ok {"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": "line one\nline\ttwo"}"#]]);
    check(r#"[CONTENT]{"Product Goals": [Fun], "Requirement Pool": [], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: the JSON does not parse: expected value at line 1 column 20"#]]);
    check(r#"[CONTENT]{'Product Goals': ['Fun']}[/CONTENT]"#, expect![[r#"error: the JSON does not parse: key must be a string at line 1 column 2"#]]);
}

#[test]
fn parse_reports_exactly_what_is_wrong() {
    check(r#"[CONTENT]{"Product Goals": ["Fun"], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: missing key "Requirement Pool""#]]);
    check(r#"[CONTENT]{"product_goals": ["Fun"], "Requirement Pool": [], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: missing key "Product Goals" (found "product_goals")"#]]);
    check(r#"[CONTENT]{"Product Goals": "Fun", "Requirement Pool": [], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: "Product Goals" should be list[str] but is str"#]]);
    check(r#"[CONTENT]{"Product Goals": [], "Requirement Pool": [["P0", "a"], ["P1", 2]], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: "Requirement Pool" should be list[list[str]] but item [1][1] is int"#]]);
    check(r#"[CONTENT]{"Product Goals": [], "Requirement Pool": ["P0 a"], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: "Requirement Pool" should be list[list[str]] but item [0] is str"#]]);
    check(r#"[CONTENT]{"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": 3}[/CONTENT]"#, expect![[r#"error: "Anything UNCLEAR" should be str but is int"#]]);
    check(r#"[CONTENT]{"Product Goals": null, "Requirement Pool": [], "Anything UNCLEAR": ""}[/CONTENT]"#, expect![[r#"error: "Product Goals" should be list[str] but is null"#]]);
    check(r#"[CONTENT]{"Product Goals": [1], "Anything UNCLEAR": [], "Required packages": "flask"}[/CONTENT]"#, expect![[r#"error: "Product Goals" should be list[str] but item [0] is int; missing key "Requirement Pool"; "Anything UNCLEAR" should be str but is list; "Required packages" should be Optional[list[str]] but is str"#]]);
    check(r#"[CONTENT]["Fun"][/CONTENT]"#, expect![[r#"error: the JSON should be an object with the node keys but is list"#]]);
    check("[CONTENT]\n[/CONTENT]", expect![[r#"error: found no JSON object in the answer; put one between [CONTENT] and [/CONTENT]"#]]);
    check("I cannot help with that.", expect![[r#"error: found no JSON object in the answer; put one between [CONTENT] and [/CONTENT]"#]]);
}

#[test]
fn parse_keeps_declared_fields_only() {
    check(r#"{"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": "", "Required packages": ["flask"], "Mood": "good"}"#, expect![[r#"ok {"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": "", "Required packages": ["flask"]}"#]]);
    check(r#"{"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": "", "Required packages": null}"#, expect![[r#"ok {"Product Goals": [], "Requirement Pool": [], "Anything UNCLEAR": ""}"#]]);
}

/// Checks one value against one type, through a root-mode node.
fn check_type(ty: FieldType, value: Value, expect: Expect) {
    let node = ActionNode::new("x", ty, "", Value::Null);
    let answer = json!({ "x": value }).to_string();
    let actual = match node.parse(&answer) {
        Ok(values) => format!("ok {}", values.get("x").map_or("absent".to_string(), Value::to_string)),
        Err(error) => format!("error: {}", error.for_model()),
    };
    expect.assert_eq(&actual);
}

#[test]
fn types_accept_and_refuse() {
    check_type(FieldType::Int, json!(3), expect![["ok 3"]]);
    check_type(FieldType::Int, json!(3.0), expect![["ok 3"]]);
    check_type(FieldType::Int, json!(3.5), expect![[r#"error: "x" should be int but is float"#]]);
    check_type(FieldType::Int, json!("3"), expect![["ok 3"]]);
    check_type(FieldType::Int, json!("three"), expect![[r#"error: "x" should be int but is str"#]]);
    check_type(FieldType::Float, json!(3), expect![["ok 3"]]);
    check_type(FieldType::Float, json!(0.5), expect![["ok 0.5"]]);
    check_type(FieldType::Bool, json!(true), expect![["ok true"]]);
    check_type(FieldType::Bool, json!("True"), expect![["ok true"]]);
    check_type(FieldType::Bool, json!("maybe"), expect![[r#"error: "x" should be bool but is str"#]]);
    check_type(FieldType::Str, json!(1.5), expect![[r#"error: "x" should be str but is float"#]]);
    check_type(FieldType::Object, json!({"a": [1]}), expect![[r#"ok {"a":[1]}"#]]);
    check_type(FieldType::Object, json!([]), expect![[r#"error: "x" should be dict but is list"#]]);
    check_type(FieldType::Json, json!(null), expect![["ok null"]]);
    check_type(FieldType::list(FieldType::list(FieldType::Int)), json!([[1, 2.0], []]), expect![["ok [[1,2],[]]"]]);
    check_type(FieldType::list(FieldType::Object), json!([{}, 1]), expect![[r#"error: "x" should be list[dict] but item [1] is int"#]]);
}

/// What pydantic v2's lax mode takes for a scalar field from a Python dict
/// (how MetaGPT validates the parsed answer), and what it refuses: real
/// models copy the format example and write `"True"` or `"3"`. Each row is
/// a type, the JSON the model wrote, and the stored value (`None`: refused).
#[test]
fn lax_scalars_follow_pydantic() {
    use FieldType::{Bool, Float, Int, Str};
    let accepted: &[(FieldType, Value, Value)] = &[
        // bool: the words in any case, "0"/"1", the numbers 0 and 1.
        (Bool, json!(false), json!(false)),
        (Bool, json!("true"), json!(true)),
        (Bool, json!("True"), json!(true)),
        (Bool, json!("TRUE"), json!(true)),
        (Bool, json!("false"), json!(false)),
        (Bool, json!("False"), json!(false)),
        (Bool, json!("yes"), json!(true)),
        (Bool, json!("No"), json!(false)),
        (Bool, json!("on"), json!(true)),
        (Bool, json!("OFF"), json!(false)),
        (Bool, json!("t"), json!(true)),
        (Bool, json!("F"), json!(false)),
        (Bool, json!("y"), json!(true)),
        (Bool, json!("n"), json!(false)),
        (Bool, json!("1"), json!(true)),
        (Bool, json!("0"), json!(false)),
        (Bool, json!(1), json!(true)),
        (Bool, json!(0), json!(false)),
        (Bool, json!(1.0), json!(true)),
        // int: integral floats, integer strings (signed, ".0", "1_000"), bools.
        (Int, json!(-7), json!(-7)),
        (Int, json!(3.0), json!(3)),
        (Int, json!("3"), json!(3)),
        (Int, json!("-12"), json!(-12)),
        (Int, json!("+4"), json!(4)),
        (Int, json!("3.0"), json!(3)),
        (Int, json!("3.000"), json!(3)),
        (Int, json!("3."), json!(3)),
        (Int, json!("1_000"), json!(1000)),
        (Int, json!(true), json!(1)),
        // float: numbers, numeric strings, bools.
        (Float, json!(2), json!(2)),
        (Float, json!("2.5"), json!(2.5)),
        (Float, json!("3"), json!(3.0)),
        (Float, json!("-1e3"), json!(-1000.0)),
        (Float, json!(".5"), json!(0.5)),
        (Float, json!("1_000.5"), json!(1000.5)),
        (Float, json!(false), json!(0.0)),
        // str: strings only.
        (Str, json!("3"), json!("3")),
        (FieldType::str_list(), json!(["a", "True"]), json!(["a", "True"])),
        (FieldType::list(Bool), json!(["yes", 0]), json!([true, false])),
        (FieldType::list(Int), json!(["1", 2.0]), json!([1, 2])),
    ];
    let refused: &[(FieldType, Value)] = &[
        (Bool, json!("maybe")),
        (Bool, json!("")),
        (Bool, json!(" true")),
        (Bool, json!("2")),
        (Bool, json!("1.0")),
        (Bool, json!(2)),
        (Bool, json!(0.5)),
        (Bool, json!(null)),
        (Bool, json!([true])),
        (Int, json!(3.5)),
        (Int, json!("3.5")),
        (Int, json!("three")),
        (Int, json!("")),
        (Int, json!(" 3")),
        (Int, json!("1e3")),
        (Int, json!("_1")),
        (Int, json!("1__0")),
        (Int, json!("0x10")),
        (Int, json!("99999999999999999999")),
        (Int, json!(1e20)),
        (Int, json!(null)),
        (Int, json!([3])),
        (Float, json!("two")),
        (Float, json!("inf")),
        (Float, json!("NaN")),
        (Float, json!("")),
        (Float, json!(null)),
        (Float, json!({})),
        (Str, json!(3)),
        (Str, json!(2.5)),
        (Str, json!(true)),
        (Str, json!(null)),
        (Str, json!(["a"])),
        (FieldType::str_list(), json!(["a", 1])),
        (FieldType::str_list(), json!(["a", true])),
        (FieldType::str_list(), json!("a")),
        (FieldType::str_list(), json!({"a": 1})),
    ];
    let parse = |ty: &FieldType, value: &Value| {
        let node = ActionNode::new("x", ty.clone(), "", Value::Null);
        node.parse(&json!({ "x": value }).to_string()).ok().and_then(|mut values| values.remove("x"))
    };
    for (ty, input, want) in accepted {
        assert_eq!(parse(ty, input).as_ref(), Some(want), "{ty} from {input}");
    }
    for (ty, input) in refused {
        assert_eq!(parse(ty, input), None, "{ty} from {input} must be refused");
    }
}

#[test]
fn types_show_python_names() {
    let names: Vec<String> = [
        FieldType::Str,
        FieldType::Int,
        FieldType::Float,
        FieldType::Bool,
        FieldType::str_list(),
        FieldType::list(FieldType::str_list()),
        FieldType::Object,
        FieldType::Json,
    ]
    .iter()
    .map(FieldType::to_string)
    .collect();
    expect![["str int float bool list[str] list[list[str]] dict Any"]].assert_eq(&names.join(" "));
    expect![["Optional[list[str]]"]].assert_eq(&ActionNode::new("p", FieldType::str_list(), "", json!([])).optional().type_name());
}

#[test]
fn groups_nest() {
    let node = ActionNode::group(
        "Design",
        vec![
            ActionNode::new("Approach", FieldType::Str, "How.", "Use pygame."),
            ActionNode::group("Files", vec![ActionNode::new("File list", FieldType::str_list(), "Paths.", json!(["main.py"]))]),
        ],
    );
    let show = |answer: &str| match node.parse(answer) {
        Ok(values) => format!("ok {}", Value::Object(values)),
        Err(error) => format!("error: {}", error.for_model()),
    };
    expect![[r#"ok {"Approach":"a","Files":{"File list":["m.py"]}}"#]]
        .assert_eq(&show(r#"{"Approach": "a", "Files": {"File list": ["m.py"], "x": 1}}"#));
    expect![[r#"error: "Files > File list" should be list[str] but is str"#]]
        .assert_eq(&show(r#"{"Approach": "a", "Files": {"File list": "m.py"}}"#));
    expect![[r#"error: "Files" should be dict but is list"#]].assert_eq(&show(r#"{"Approach": "a", "Files": []}"#));
    expect![[r#"
        ## context
        ctx

        -----

        ## format example
        [CONTENT]
        {
            "Approach": "Use pygame.",
            "Files": {
                "File list": [
                    "main.py"
                ]
            }
        }
        [/CONTENT]

        ## nodes: "<node>: <type>  # <instruction>"
        - Approach: str  # How.
        - Files: dict
          - File list: list[str]  # Paths.

        ## constraint
        Language: write the values in the same language as the user's requirement.
        Format: wrap the output in [CONTENT][/CONTENT] exactly like the format example, keep every key as written, and write nothing else.

        ## action
        Fill in every node from the context, following each node's instruction, and answer strictly in the shape of the format example.
    "#]]
    .assert_eq(&node.compile("ctx\n", ""));
}

#[test]
fn compile_shows_context_example_nodes_and_rules() {
    let node = ActionNode::group(
        "PRD",
        vec![
            ActionNode::new("Language", FieldType::Str, "The language of the requirement.", "en_us"),
            ActionNode::new("Product Goals", FieldType::str_list(), "Up to three clear, orthogonal goals.", json!(["Fun", "Fast"])),
            ActionNode::new(
                "Requirement Pool",
                FieldType::list(FieldType::str_list()),
                "Rows of [priority, requirement], P0 first.",
                json!([["P0", "Play with arrow keys"], ["P1", "Keep the best score"]]),
            ),
        ],
    );
    expect![[r#"
        ## context
        ## History Messages
        0: user: write a 2048 game

        -----

        ## format example
        [CONTENT]
        {
            "Language": "en_us",
            "Product Goals": [
                "Fun",
                "Fast"
            ],
            "Requirement Pool": [
                [
                    "P0",
                    "Play with arrow keys"
                ],
                [
                    "P1",
                    "Keep the best score"
                ]
            ]
        }
        [/CONTENT]

        ## nodes: "<node>: <type>  # <instruction>"
        - Language: str  # The language of the requirement.
        - Product Goals: list[str]  # Up to three clear, orthogonal goals.
        - Requirement Pool: list[list[str]]  # Rows of [priority, requirement], P0 first.

        ## constraint
        Language: write the values in English.
        Format: wrap the output in [CONTENT][/CONTENT] exactly like the format example, keep every key as written, and write nothing else.

        ## action
        Fill in every node from the context, following each node's instruction, and answer strictly in the shape of the format example.
    "#]]
    .assert_eq(&node.compile("## History Messages\n0: user: write a 2048 game", "English"));
    // The compiled example is itself an answer the node accepts.
    assert_eq!(node.parse(&node.format_example()).map(|values| values.len()), Ok(3));
}

#[test]
fn compile_of_a_leaf_asks_for_the_leaf_itself() {
    let node = ActionNode::new("Anything UNCLEAR", FieldType::Str, "Open questions.", "None.");
    expect![[r#"
        [CONTENT]
        {
            "Anything UNCLEAR": "None."
        }
        [/CONTENT]"#]]
    .assert_eq(&node.format_example());
    expect![[r#"{"Anything UNCLEAR":"ok"}"#]]
        .assert_eq(&node.parse(r#"[CONTENT]{"Anything UNCLEAR": "ok"}[/CONTENT]"#).map(Value::Object).map_or_else(|e| e.to_string(), |v| v.to_string()));
}

/// Runs `fill` on the PRD node against scripted replies, one per call; a
/// call past the end of the script is an `Ask` error, never a repeat.
fn fill_with(replies: &[Result<&str, &str>], max_attempts: u32) -> (Result<Filled, FillError<String>>, Vec<Vec<ChatMessage>>) {
    let script: RefCell<VecDeque<Result<String, String>>> =
        RefCell::new(replies.iter().map(|reply| reply.map(str::to_string).map_err(str::to_string)).collect());
    let prompts = RefCell::new(Vec::new());
    let result = block_on(prd().fill("ctx", "English", max_attempts, |messages| {
        prompts.borrow_mut().push(messages);
        let reply = script.borrow_mut().pop_front().unwrap_or_else(|| Err("script ran out".to_string()));
        future::ready(reply)
    }));
    (result, prompts.into_inner())
}

fn roles(prompt: &[ChatMessage]) -> Vec<ChatRole> {
    prompt.iter().map(|message| message.role).collect()
}

#[test]
fn fill_succeeds_first_time() {
    let good = format!("[CONTENT]{VALID}[/CONTENT]");
    let (result, prompts) = fill_with(&[Ok(&good)], 3);
    let filled = result.unwrap();
    assert_eq!(filled.attempts, 1);
    assert_eq!(filled.content, good);
    assert_eq!(filled.instruct_content, prd().parse(&good).unwrap());
    assert_eq!(prompts, vec![vec![ChatMessage::user(prd().compile("ctx", "English"))]]);
}

#[test]
fn fill_retries_with_the_parse_error() {
    let bad = r#"[CONTENT]{"Product Goals": "Fun"}[/CONTENT]"#;
    let good = format!("[CONTENT]{VALID}[/CONTENT]");
    let (result, prompts) = fill_with(&[Ok(bad), Ok(&good)], 3);
    let filled = result.unwrap();
    assert_eq!(filled.attempts, 2);
    assert_eq!(filled.content, good);
    assert_eq!(prompts.len(), 2);
    let retry = &prompts[1];
    assert_eq!(roles(retry), [ChatRole::User, ChatRole::Assistant, ChatRole::User]);
    assert_eq!(retry[0].content, prd().compile("ctx", "English"));
    assert_eq!(retry[1].content, bad);
    let error = prd().parse(bad).unwrap_err().for_model();
    assert!(retry[2].content.contains(&error));
    expect![[r#"
        Your answer could not be used: "Product Goals" should be list[str] but is str; missing key "Requirement Pool"; missing key "Anything UNCLEAR"

        Write the whole answer again with that corrected, wrapped in [CONTENT][/CONTENT] like the format example, and nothing else."#]]
    .assert_eq(&retry[2].content);
}

#[test]
fn fill_gives_up_after_max_attempts() {
    let (result, prompts) = fill_with(&[Ok("no"), Ok("still no"), Ok("{\"Product Goals\": []}")], 3);
    assert_eq!(prompts.len(), 3);
    // Only the latest failed answer is carried into the next prompt.
    assert_eq!(roles(&prompts[2]), [ChatRole::User, ChatRole::Assistant, ChatRole::User]);
    assert_eq!(prompts[2][1].content, "still no");
    match result {
        Err(FillError::Invalid { attempts, last_error, last_answer }) => {
            assert_eq!(attempts, 3);
            assert_eq!(last_answer, "{\"Product Goals\": []}");
            expect![[r#"the answer did not fill the document's fields as asked: missing key "Requirement Pool"; missing key "Anything UNCLEAR""#]].assert_eq(&last_error.to_string());
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn fill_stops_at_once_when_the_call_fails() {
    let (result, prompts) = fill_with(&[Err("offline"), Ok(VALID)], 3);
    assert_eq!(result, Err(FillError::Ask("offline".to_string())));
    assert_eq!(prompts.len(), 1);
    let (result, prompts) = fill_with(&[Ok("no"), Err("offline")], 3);
    assert_eq!(result, Err(FillError::Ask("offline".to_string())));
    assert_eq!(prompts.len(), 2);
}

#[test]
fn fill_makes_at_least_one_attempt() {
    let (result, prompts) = fill_with(&[Ok("no")], 0);
    assert!(matches!(result, Err(FillError::Invalid { attempts: 1, .. })));
    assert_eq!(prompts.len(), 1);
    expect!["no usable answer after 1 attempts: the answer had no JSON object in it"]
        .assert_eq(&result.unwrap_err().to_string());
}

#[test]
fn markdown_renders_sections() {
    let node = ActionNode::group(
        "PRD",
        vec![
            ActionNode::new("Language", FieldType::Str, "", ""),
            ActionNode::new("Product Goals", FieldType::str_list(), "", json!([])),
            ActionNode::new("Competitive Quadrant Chart", FieldType::Str, "", ""),
            ActionNode::new("Requirement Pool", FieldType::list(FieldType::str_list()), "", json!([])),
            ActionNode::new("UI Design draft", FieldType::Str, "", ""),
            ActionNode::new("Required packages", FieldType::str_list(), "", json!([])).optional(),
            ActionNode::new("Settings", FieldType::Object, "", json!({})),
            ActionNode::new("Anything UNCLEAR", FieldType::Str, "", ""),
            ActionNode::group("Design", vec![ActionNode::new("Data structures and interfaces", FieldType::Str, "", "")]),
        ],
    );
    let answer = json!({
        "Language": "en_us",
        "Product Goals": ["Be fun", "Be fast\nalso on phones"],
        "Competitive Quadrant Chart": "quadrantChart\n    title Reach\n    \"Us\": [0.6, 0.7]",
        "Requirement Pool": [["P0", "Arrow keys"], ["P1", "Best score", "stored locally"], []],
        "UI Design draft": "A grid of tiles.\n\nScore on top.",
        "Settings": {"size": 4},
        "Anything UNCLEAR": "",
        "Design": {"Data structures and interfaces": "%%{init: {}}%%\nclassDiagram\n    class Game"}
    });
    let values = node.parse(&answer.to_string()).unwrap();
    expect![[r#"
        ## Language

        en_us

        ## Product Goals

        - Be fun
        - Be fast
          also on phones

        ## Competitive Quadrant Chart

        ```mermaid
        quadrantChart
            title Reach
            "Us": [0.6, 0.7]
        ```

        ## Requirement Pool

        - P0: Arrow keys
        - P1: Best score; stored locally

        ## UI Design draft

        A grid of tiles.

        Score on top.

        ## Settings

        ```json
        {
            "size": 4
        }
        ```

        ## Anything UNCLEAR

        ## Design

        ### Data structures and interfaces

        ```mermaid
        %%{init: {}}%%
        classDiagram
            class Game
        ```
    "#]]
    .assert_eq(&node.to_markdown(&values));
}

/// The schema of a node's answer: its fields with their types, groups as
/// nested objects, optional fields allowed to be absent or null.
#[test]
fn json_schema_of_the_fields() {
    let node = ActionNode::group(
        "Write PRD",
        vec![
            ActionNode::new("Language", FieldType::Str, "", "en"),
            ActionNode::new("Priority", FieldType::Int, "", 1),
            ActionNode::new("Goals", FieldType::str_list(), "", json!(["a"])),
            ActionNode::new("Score", FieldType::Float, "", 1.5).optional(),
            ActionNode::group("Review", vec![ActionNode::new("ok", FieldType::Bool, "", true)]),
            ActionNode::new("Any", FieldType::Json, "", Value::Null).optional(),
            ActionNode::new("Map", FieldType::Object, "", json!({})),
        ],
    );
    expect_test::expect![[r#"{"type":"object","properties":{"Language":{"type":"string"},"Priority":{"type":"integer"},"Goals":{"items":{"type":"string"},"type":"array"},"Score":{"anyOf":[{"type":"number"},{"type":"null"}]},"Review":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false},"Any":{"anyOf":[{},{"type":"null"}]},"Map":{"type":"object"}},"required":["Language","Priority","Goals","Review","Map"],"additionalProperties":false}"#]]
    .assert_eq(&node.json_schema().text());
    assert_eq!(node.schema_name(), "Write_PRD");
    // A leaf node asks for itself alone.
    let leaf = ActionNode::new("Code", FieldType::Str, "", "x");
    assert_eq!(leaf.json_schema().to_value()["required"], json!(["Code"]));
}
