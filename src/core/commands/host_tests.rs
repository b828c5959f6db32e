//! Host tools: the schema subset as a command, validation errors, and a
//! call's result, thrown error, timeout and declined approval as the model
//! reads them, through a fake page.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use expect_test::{expect, Expect};
use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::host::{HostCall, HostOutcome, HostPort, HostTool, HostTools, SchemaError};
use super::{Command, ParamType};

/// A page whose functions answer from a script and which records what it
/// was asked.
#[derive(Default)]
struct FakePage {
    approvals: RefCell<VecDeque<bool>>,
    outcomes: RefCell<VecDeque<HostOutcome>>,
    asked: RefCell<Vec<HostCall>>,
    ran: RefCell<Vec<HostCall>>,
}

impl HostPort for FakePage {
    fn approve(&self, call: &HostCall) -> LocalBoxFuture<'static, bool> {
        self.asked.borrow_mut().push(call.clone());
        let answer = self.approvals.borrow_mut().pop_front().unwrap_or(false);
        Box::pin(async move { answer })
    }

    fn run(&self, call: &HostCall) -> LocalBoxFuture<'static, HostOutcome> {
        self.ran.borrow_mut().push(call.clone());
        let outcome = self.outcomes.borrow_mut().pop_front().unwrap_or(HostOutcome::Threw("no scripted outcome".into()));
        Box::pin(async move { outcome })
    }
}

fn todo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": { "type": "string", "description": "What to do." },
            "priority": { "type": "string", "enum": ["low", "normal", "high"], "description": "How urgent." },
            "due_in_days": { "type": "integer" },
            "estimate_hours": { "type": "number" },
            "done": { "type": "boolean" },
            "tags": { "type": "array", "items": { "type": "string" } },
            "ids": { "type": "array", "items": { "type": "integer" } },
            "weights": { "type": "array", "items": { "type": "number" } },
            "flags": { "type": "array", "items": { "type": "boolean" } },
            "sizes": { "type": "array", "items": { "enum": ["s", "m", "l"] } }
        },
        "required": ["text"]
    })
}

fn page_with(tools: Vec<HostTool>) -> (Rc<FakePage>, HostTools) {
    let page = Rc::new(FakePage::default());
    let host = HostTools::new(page.clone());
    host.set_tools(tools);
    (page, host)
}

fn add_todo() -> HostTool {
    HostTool::from_schema("add_todo", "Add an item to the visitor's todo list.", &todo_schema(), false).expect("valid schema")
}

fn clear_todos() -> HostTool {
    HostTool::from_schema("clear_todos", "Delete every item.", &json!({"type": "object", "properties": {}}), true).expect("valid schema")
}

/// What the model reads for one call: "executed: ..." or "failed: ...",
/// as the registry's own commands report.
fn call(host: &HostTools, name: &str, args: Value) -> String {
    match block_on(host.run(&Command::new(name, args))) {
        Ok(result) => format!("executed: {result}"),
        Err(error) => format!("failed: {error}"),
    }
}

fn check(actual: String, expect: Expect) {
    expect.assert_eq(&actual);
}

#[test]
fn the_schema_subset_becomes_a_command_listed_after_the_roles_own() {
    // Required parameters first, the rest by name (a Python signature).
    let tool = add_todo();
    let types: Vec<(&str, ParamType, bool)> = tool.spec.params.iter().map(|p| (p.name.as_str(), p.ty, p.required)).collect();
    assert_eq!(
        types,
        [
            ("text", ParamType::Str, true),
            ("done", ParamType::Bool, false),
            ("due_in_days", ParamType::Int, false),
            ("estimate_hours", ParamType::Float, false),
            ("flags", ParamType::BoolList, false),
            ("ids", ParamType::IntList, false),
            ("priority", ParamType::Str, false),
            ("sizes", ParamType::StrList, false),
            ("tags", ParamType::StrList, false),
            ("weights", ParamType::FloatList, false),
        ]
    );
    let (_, host) = page_with(vec![tool, clear_todos()]);
    check(
        host.command_prompt(4),
        expect![[r#"

            4. Host.add_todo(text: str, done: bool = None, due_in_days: int = None, estimate_hours: float = None, flags: list[bool] = None, ids: list[int] = None, priority: Literal['low', 'normal', 'high'] = None, sizes: list[Literal['s', 'm', 'l']] = None, tags: list[str] = None, weights: list[float] = None):
            Add an item to the visitor's todo list.
            - text: What to do.
            - priority: How urgent.

            5. Host.clear_todos():
            Delete every item. The user is asked to approve each call before it runs.
        "#]],
    );
    let (_, empty) = page_with(vec![]);
    assert_eq!(empty.command_prompt(1), "", "no tools, nothing in the prompt");
}

#[test]
fn schemas_outside_the_subset_are_refused_with_what_to_write() {
    let refuse = |name: &str, schema: Value| HostTool::from_schema(name, "", &schema, false).err().map(|e| e.to_string()).unwrap_or_default();
    check(
        [
            refuse("add todo", json!({})),
            refuse("", json!({})),
            refuse("t", json!({"type": "array"})),
            refuse("t", json!("text")),
            refuse("t", json!({"type": "object", "properties": {"when": {"type": "object"}}})),
            refuse("t", json!({"type": "object", "properties": {"when": {}}})),
            refuse("t", json!({"type": "object", "properties": {"when": {"type": "array", "items": {"type": "array"}}}})),
            refuse("t", json!({"type": "object", "properties": {"when": {"type": "array"}}})),
            refuse("t", json!({"type": "object", "properties": {"size": {"type": "string", "enum": []}}})),
            refuse("t", json!({"type": "object", "properties": {"size": {"type": "string"}}, "required": ["colour"]})),
        ]
        .join("\n"),
        expect![[r#"
            tool name "add todo": use 1 to 64 letters, digits or _, starting with a letter (it becomes the command Host.add todo)
            tool name "": use 1 to 64 letters, digits or _, starting with a letter (it becomes the command Host.)
            tool t: parameters must be a JSON Schema object: {"type": "object", "properties": {...}, "required": [...]}
            tool t: parameters must be a JSON Schema object: {"type": "object", "properties": {...}, "required": [...]}
            tool t: parameter "when" has type object; use type string, number, integer or boolean, an enum, or an array of those
            tool t: parameter "when" has no type; use type string, number, integer or boolean, an enum, or an array of those
            tool t: parameter "when" has an array of type array; use type string, number, integer or boolean, an enum, or an array of those
            tool t: parameter "when" has an array without items; use type string, number, integer or boolean, an enum, or an array of those
            tool t: the enum of parameter "size" must be a non-empty list of strings or numbers
            tool t: "required" names "colour", which is not one of its properties"#]],
    );
    assert_eq!(
        HostTool::from_schema("t", "", &json!({"type": "object", "properties": {"n": {"enum": [1, 2]}}}), false).map(|t| t.spec.params[0].ty),
        Ok(ParamType::Float),
        "an enum without a type takes its values' type"
    );
    assert!(matches!(HostTool::from_schema("t", "", &Value::Null, false), Ok(t) if t.spec.params.is_empty()), "no parameters at all");
    assert_eq!(HostTool::from_schema("t", "", &json!(1), false).err(), Some(SchemaError::NotObject { tool: "t".into() }));
}

#[test]
fn bad_arguments_get_the_registrys_error_text_and_never_reach_the_page() {
    let (page, host) = page_with(vec![add_todo()]);
    check(
        [
            call(&host, "Host.add_todo", json!({})),
            call(&host, "Host.add_todo", json!({"text": "milk", "priority": "urgent", "due_in_days": 1.5, "tag": ["x"]})),
            call(&host, "Host.add_todo", json!({"text": "milk", "sizes": ["m", "xl"], "flags": [true, "no"]})),
            call(&host, "Host.add_todo", json!(["milk"])),
            call(&host, "Host.add_todos", json!({"text": "milk"})),
        ]
        .join("\n"),
        expect![[r#"
            failed: Missing argument 'text'. Use Host.add_todo(text: str, done: bool = None, due_in_days: int = None, estimate_hours: float = None, flags: list[bool] = None, ids: list[int] = None, priority: Literal['low', 'normal', 'high'] = None, sizes: list[Literal['s', 'm', 'l']] = None, tags: list[str] = None, weights: list[float] = None).
            failed: Argument 'due_in_days' should be int but is a number (1.5); argument 'priority' should be one of 'low', 'normal', 'high' but is a string ("urgent"); unexpected argument 'tag' (did you mean 'tags'?). Use Host.add_todo(text: str, done: bool = None, due_in_days: int = None, estimate_hours: float = None, flags: list[bool] = None, ids: list[int] = None, priority: Literal['low', 'normal', 'high'] = None, sizes: list[Literal['s', 'm', 'l']] = None, tags: list[str] = None, weights: list[float] = None).
            failed: Argument 'flags' should be list[bool] but is a list; argument 'sizes' should hold only 's', 'm', 'l' but has a string ("xl"). Use Host.add_todo(text: str, done: bool = None, due_in_days: int = None, estimate_hours: float = None, flags: list[bool] = None, ids: list[int] = None, priority: Literal['low', 'normal', 'high'] = None, sizes: list[Literal['s', 'm', 'l']] = None, tags: list[str] = None, weights: list[float] = None).
            failed: its args should be an object of named arguments but are a list. Use Host.add_todo(text: str, done: bool = None, due_in_days: int = None, estimate_hours: float = None, flags: list[bool] = None, ids: list[int] = None, priority: Literal['low', 'normal', 'high'] = None, sizes: list[Literal['s', 'm', 'l']] = None, tags: list[str] = None, weights: list[float] = None).
            failed: there is no such command. Did you mean Host.add_todo? Available commands: Host.add_todo."#]],
    );
    assert!(page.ran.borrow().is_empty(), "the page's function never ran");
}

#[test]
fn the_page_gets_the_validated_arguments_and_the_model_its_result() {
    let (page, host) = page_with(vec![add_todo()]);
    page.outcomes.borrow_mut().extend([
        HostOutcome::Returned(json!("Added 'buy milk'. The list has 3 items.")),
        HostOutcome::Returned(json!({"id": 7, "items": ["a", "b"]})),
        HostOutcome::Returned(Value::Null),
        HostOutcome::Returned(json!("x".repeat(4_010))),
    ]);
    let results = [
        call(&host, "Host.add_todo", json!({"text": "buy milk", "due_in_days": 2.0, "ids": [1, 2], "sizes": ["s"]})),
        call(&host, "Host.add_todo", json!({"text": 42})),
        call(&host, "Host.add_todo", json!({"text": "c", "priority": null})),
        call(&host, "Host.add_todo", json!({"text": "d"})),
    ];
    check(
        results[..3].join("\n"),
        expect![[r#"
            executed: Added 'buy milk'. The list has 3 items.
            executed: {"id":7,"items":["a","b"]}
            executed: done"#]],
    );
    assert_eq!(results[3], format!("executed: {}… [cut: 10 more characters]", "x".repeat(4_000)));
    let ran = page.ran.borrow();
    assert_eq!(ran[0], HostCall { id: 1, tool: "add_todo".into(), args: json!({"text": "buy milk", "due_in_days": 2, "ids": [1, 2], "sizes": ["s"]}), confirm: false });
    assert_eq!(ran[1].args, json!({"text": "42"}), "an integer where text is expected is its decimal text");
    assert_eq!(ran[2].args, json!({"text": "c"}), "null is left out");
    assert_eq!(ran.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert!(page.asked.borrow().is_empty(), "no approval asked for a tool without confirm");
}

#[test]
fn a_thrown_error_and_a_timeout_are_the_commands_failure() {
    let (page, host) = page_with(vec![add_todo()]);
    page.outcomes.borrow_mut().extend([HostOutcome::Threw("The list is full (20 items).".into()), HostOutcome::TimedOut { after_ms: 30_000 }]);
    check(
        [call(&host, "Host.add_todo", json!({"text": "a"})), call(&host, "Host.add_todo", json!({"text": "b"}))].join("\n"),
        expect![[r#"
            failed: the page's function threw an error: The list is full (20 items).
            failed: the page's function did not finish within 30 s. It may still have had an effect: check before calling it again."#]],
    );
}

#[test]
fn a_confirmed_tool_asks_first_and_a_decline_is_its_result() {
    let (page, host) = page_with(vec![clear_todos()]);
    page.approvals.borrow_mut().extend([false, true]);
    page.outcomes.borrow_mut().push_back(HostOutcome::Returned(json!("Deleted 3 items.")));
    let declined = call(&host, "Host.clear_todos", json!({}));
    assert!(page.ran.borrow().is_empty(), "declined: the page's function did not run");
    let approved = call(&host, "Host.clear_todos", json!({}));
    check(
        format!("{declined}\n{approved}"),
        expect![[r#"
            executed: the user declined, so it was not run. Do not call it again unless the user asks; tell them what you would have done.
            executed: Deleted 3 items."#]],
    );
    let asked = page.asked.borrow();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1], HostCall { id: 2, tool: "clear_todos".into(), args: json!({}), confirm: true });
    assert_eq!(page.ran.borrow().len(), 1);
}

#[test]
fn context_is_kept_by_key_in_the_order_first_set_and_cut() {
    let (_, host) = page_with(vec![]);
    assert_eq!(host.context_block(), None);
    host.set_context("todos", "1 item: buy bread");
    host.set_context("user", "Ada, free plan");
    host.set_context("todos", "2 items: buy bread, buy milk");
    check(
        host.context_block().unwrap_or_default(),
        expect![[r#"
            # Page context
            What the page you are embedded in shows now (kept current by the page):
            ## todos
            2 items: buy bread, buy milk
            ## user
            Ada, free plan"#]],
    );
    host.remove_context("todos");
    host.set_context("user", "  ");
    assert_eq!(host.context_block(), None, "removed, and an empty text removes");
    host.set_context("long", &"é".repeat(2_005));
    assert!(host.context_block().unwrap_or_default().ends_with("é… [cut: 5 more characters]"));
}
