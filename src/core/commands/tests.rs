//! Tests for the registry: the prompt, argument validation, running lists
//! that stop at the first failure, and the plan commands on a real `Plan`.
//!
//! Cases are one line each: `check_args` validates one command written as
//! JSON and shows the normalized arguments or the error text; `check_run`
//! runs a JSON list on a fresh context and shows the report.

use expect_test::{expect, Expect};
use futures::executor::block_on;
use serde_json::{json, Value};

use super::{register_plan_commands, Args, Command, CommandSpec, HasPlan, Param, ParamType, Registry};
use crate::core::plan::Plan;

/// A context with a plan and a log the test commands write to.
#[derive(Default)]
struct Cx {
    plan: Plan,
    log: Vec<String>,
}

impl HasPlan for Cx {
    fn plan(&mut self) -> impl std::ops::DerefMut<Target = Plan> + '_ {
        &mut self.plan
    }
}

fn registry() -> Registry<Cx> {
    let mut registry = Registry::default();
    register_plan_commands(&mut registry);
    registry
        .register_fn(
            CommandSpec::new("Log.say", "Write text to the log, some times.")
                .param(Param::new("text", ParamType::Str))
                .param(Param::new("times", ParamType::Int).with_default(json!(1)))
                .param(Param::new("loud", ParamType::Bool).with_default(json!(false)))
                .param(Param::new("tags", ParamType::StrList).optional())
                .param(Param::new("extra", ParamType::Json).optional()),
            |cx: &mut Cx, args: Args| {
                let text = args.str("text")?;
                let text = if args.bool("loud")? { text.to_uppercase() } else { text.to_owned() };
                for _ in 0..args.int("times")? {
                    cx.log.push(text.clone());
                }
                Ok(String::new())
            },
        )
        .register_fn(
            CommandSpec::new("Log.fail", "Always fails.").param(Param::new("reason", ParamType::Str)),
            |_cx: &mut Cx, args: Args| Err(format!("refused: {}", args.str("reason")?)),
        )
        .register_async(
            CommandSpec::new("Log.echo", "Echo text back after a yield.").param(Param::new("text", ParamType::Str)),
            |cx: &mut Cx, args: Args| {
                Box::pin(async move {
                    crate::core::yield_now::yield_now().await;
                    let text = args.str("text")?.to_owned();
                    cx.log.push(format!("echo {text}"));
                    Ok(text)
                })
            },
        )
        .register_fn(CommandSpec::new("end", "End the run.").exclusive(), |cx: &mut Cx, _| {
            cx.log.push("end".to_owned());
            Ok("ended".to_owned())
        });
    registry
}

fn command(text: &str) -> Command {
    match serde_json::from_str(text) {
        Ok(command) => command,
        Err(e) => panic!("bad test command {text}: {e}"),
    }
}

/// Validates one command; "ok {args}" or "error: {text}".
fn check_args(text: &str, expect: &str) {
    let got = match registry().validate(&command(text)) {
        Ok(args) => format!("ok {}", Value::Object(args.into_map())),
        Err(e) => format!("error: {e}"),
    };
    assert_eq!(got, expect, "command: {text}");
}

/// Runs a JSON list of commands on a fresh context; the report, then the
/// log and the plan's task ids.
fn run(list: &str) -> String {
    let commands: Vec<Command> = match serde_json::from_str(list) {
        Ok(commands) => commands,
        Err(e) => panic!("bad test list {list}: {e}"),
    };
    let mut cx = Cx::default();
    let report = block_on(registry().run_commands(&mut cx, commands));
    assert_eq!(report.stopped_early, report.failed.is_some());
    let ids: Vec<&str> = cx.plan.tasks().iter().map(|t| t.id.as_str()).collect();
    format!(
        "{}\nran: {:?} failed: {:?} skipped: {:?}\nlog: {:?} plan: {:?}",
        report.text(),
        report.ran,
        report.failed,
        report.skipped,
        cx.log,
        ids
    )
}

fn check_run(list: &str, expect: Expect) {
    expect.assert_eq(&run(list));
}

#[test]
fn prompt_lists_every_command_with_its_signature() {
    expect![[r#"
        1. Plan.append_task(task_id: str, dependent_task_ids: list[str], instruction: str, assignee: str, task_type: str = ''):
        Append a new task with task_id (number) to the end of existing task sequences. If dependent_task_ids is not empty, the task will depend on the tasks with the ids in the list. Note that the assignee should be the 'name' of the role.

        2. Plan.reset_task(task_id: str):
        Reset a task based on task_id, i.e. set Task.is_finished=False and request redo. This also resets all tasks depending on it.

        3. Plan.replace_task(task_id: str, new_dependent_task_ids: list[str], new_instruction: str, new_assignee: str):
        Replace an existing task (can be current task) based on task_id, and reset all tasks depending on it. The task keeps its task type.

        4. Plan.finish_current_task():
        Finish current task, set Task.is_finished=True, set current task to next task

        5. Log.say(text: str, times: int = 1, loud: bool = False, tags: list[str] = None, extra: json = None):
        Write text to the log, some times.

        6. Log.fail(reason: str):
        Always fails.

        7. Log.echo(text: str):
        Echo text back after a yield.

        8. end():
        End the run.
    "#]]
    .assert_eq(&registry().prepare_command_prompt());
}

#[test]
fn arguments_are_validated() {
    // Accepted, with defaults filled and ids normalized to text.
    check_args(r#"{"command_name":"Log.say","args":{"text":"hi"}}"#, r#"ok {"loud":false,"text":"hi","times":1}"#);
    check_args(
        r#"{"command_name":"Log.say","args":{"text":7,"times":2.0}}"#,
        r#"ok {"loud":false,"text":"7","times":2}"#,
    );
    check_args(
        r#"{"command_name":"Log.say","args":{"text":"a","tags":[1,"b"],"extra":{"k":[null]}}}"#,
        r#"ok {"extra":{"k":[null]},"loud":false,"tags":["1","b"],"text":"a","times":1}"#,
    );
    check_args(
        r#"{"command_name":"Log.say","args":{"text":"a","tags":null}}"#,
        r#"ok {"loud":false,"text":"a","times":1}"#,
    );
    check_args(r#"{"command_name":"end"}"#, "ok {}");
    check_args(r#"{"command_name":"end","args":null}"#, "ok {}");

    // Unknown commands name the available ones and a close match.
    check_args(
        r#"{"command_name":"Plan.apend_task","args":{}}"#,
        "error: there is no such command. Did you mean Plan.append_task? Available commands: Plan.append_task, \
         Plan.reset_task, Plan.replace_task, Plan.finish_current_task, Log.say, Log.fail, Log.echo, end.",
    );
    check_args(
        r#"{"command_name":"Browser.goto","args":{}}"#,
        "error: there is no such command. Available commands: Plan.append_task, Plan.reset_task, \
         Plan.replace_task, Plan.finish_current_task, Log.say, Log.fail, Log.echo, end.",
    );

    // Missing, wrong types and strays are reported together, in that order.
    check_args(
        r#"{"command_name":"Log.say","args":{}}"#,
        "error: Missing argument 'text'. Use Log.say(text: str, times: int = 1, loud: bool = False, \
         tags: list[str] = None, extra: json = None).",
    );
    check_args(
        r#"{"command_name":"Log.fail","args":{"reason":1.5}}"#,
        r#"error: Argument 'reason' should be str but is a number (1.5). Use Log.fail(reason: str)."#,
    );
    check_args(
        r#"{"command_name":"Log.fail","args":{"reason":true}}"#,
        "error: Argument 'reason' should be str but is true. Use Log.fail(reason: str).",
    );
    check_args(
        r#"{"command_name":"Log.say","args":{"txt":"a","times":"2","loud":"yes","tags":"a,b"}}"#,
        r#"error: Missing argument 'text'; argument 'times' should be int but is a string ("2"); argument 'loud' should be bool but is a string ("yes"); argument 'tags' should be list[str] but is a string ("a,b"); unexpected argument 'txt' (did you mean 'text'?). Use Log.say(text: str, times: int = 1, loud: bool = False, tags: list[str] = None, extra: json = None)."#,
    );
    check_args(
        r#"{"command_name":"Log.say","args":{"text":"a","times":1.5,"tags":[["x"]]}}"#,
        "error: Argument 'times' should be int but is a number (1.5); argument 'tags' should be list[str] \
         but is a list. Use Log.say(text: str, times: int = 1, loud: bool = False, tags: list[str] = None, \
         extra: json = None).",
    );
    check_args(
        r#"{"command_name":"Log.fail","args":{"reason":"x","why":"y"}}"#,
        "error: Unexpected argument 'why'. Use Log.fail(reason: str).",
    );
    check_args(
        r#"{"command_name":"Log.fail","args":["x"]}"#,
        "error: its args should be an object of named arguments but are a list. Use Log.fail(reason: str).",
    );
    check_args(
        r#"{"command_name":"Plan.append_task","args":{"task_id":"1","instruction":"x","assignee":"Alex"}}"#,
        "error: Missing argument 'dependent_task_ids'. Use Plan.append_task(task_id: str, dependent_task_ids: \
         list[str], instruction: str, assignee: str, task_type: str = '').",
    );
}

#[test]
fn a_long_string_is_shortened_in_errors() {
    let long = "x".repeat(100);
    let got = registry().validate(&Command::new("Log.say", json!({ "text": "a", "loud": long })));
    let text = got.map(|_| String::new()).unwrap_or_else(|e| e.to_string());
    assert!(text.contains(&format!("a string (\"{}...\")", "x".repeat(40))), "{text}");
}

#[test]
fn a_list_runs_in_order() {
    check_run(
        r#"[{"command_name":"Log.say","args":{"text":"a","times":2}},
            {"command_name":"Log.echo","args":{"text":"b"}},
            {"command_name":"Log.say","args":{"text":"c","loud":true}},
            {"command_name":"end"}]"#,
        expect![[r#"
            Command Log.say executed

            Command Log.echo executed: b

            Command Log.say executed

            Command end executed: ended
            ran: ["Log.say", "Log.echo", "Log.say", "end"] failed: None skipped: []
            log: ["a", "a", "echo b", "C", "end"] plan: []"#]],
    );
    check_run(
        "[]",
        expect![[r#"

        ran: [] failed: None skipped: []
        log: [] plan: []"#]],
    );
}

#[test]
fn the_first_failure_stops_the_list() {
    // A failing handler.
    check_run(
        r#"[{"command_name":"Log.say","args":{"text":"a"}},
            {"command_name":"Log.fail","args":{"reason":"disk full"}},
            {"command_name":"Log.say","args":{"text":"b"}},
            {"command_name":"end"}]"#,
        expect![[r#"
            Command Log.say executed

            Command Log.fail failed: refused: disk full

            Not run because Log.fail failed: Log.say, end. Fix the failure, then send them again if they are still needed.
            ran: ["Log.say"] failed: Some("Log.fail") skipped: ["Log.say", "end"]
            log: ["a"] plan: []"#]],
    );
    // An unknown command.
    check_run(
        r#"[{"command_name":"Log.sya","args":{"text":"a"}}, {"command_name":"end"}]"#,
        expect![[r#"
            Command Log.sya failed: there is no such command. Did you mean Log.say? Available commands: Plan.append_task, Plan.reset_task, Plan.replace_task, Plan.finish_current_task, Log.say, Log.fail, Log.echo, end.

            Not run because Log.sya failed: end. Fix the failure, then send them again if they are still needed.
            ran: [] failed: Some("Log.sya") skipped: ["end"]
            log: [] plan: []"#]],
    );
    // Invalid arguments, as the last command: nothing is skipped.
    check_run(
        r#"[{"command_name":"end"}, {"command_name":"Log.say","args":{"text":"a","times":"x"}}]"#,
        expect![[r#"
            Command end executed: ended

            Command Log.say failed: Argument 'times' should be int but is a string ("x"). Use Log.say(text: str, times: int = 1, loud: bool = False, tags: list[str] = None, extra: json = None).
            ran: ["end"] failed: Some("Log.say") skipped: []
            log: ["end"] plan: []"#]],
    );
}

#[test]
fn plan_commands_edit_the_plan() {
    check_run(
        r#"[{"command_name":"Plan.append_task","args":{"task_id":"1","dependent_task_ids":[],"instruction":"write the PRD","assignee":"Alice"}},
            {"command_name":"Plan.append_task","args":{"task_id":2,"dependent_task_ids":[1],"instruction":"design","assignee":"Bob","task_type":"other"}},
            {"command_name":"Plan.finish_current_task"},
            {"command_name":"Plan.finish_current_task","args":{}},
            {"command_name":"Plan.finish_current_task","args":{}},
            {"command_name":"Plan.reset_task","args":{"task_id":"2"}}]"#,
        expect![[r#"
            Command Plan.append_task executed: Task 1 appended; the plan has 1 tasks. The current task is 1.

            Command Plan.append_task executed: Task 2 appended; the plan has 2 tasks. The current task is 1.

            Command Plan.finish_current_task executed: Current task is finished. The current task is now 2: design

            Command Plan.finish_current_task executed: Current task is finished. Every task in the plan is finished; if you no longer need to take action, use the command 'end' to stop.

            Command Plan.finish_current_task executed: There is no current task to finish: every task is already finished. If you no longer need to take action, use the command 'end' to stop.

            Command Plan.reset_task executed: Task 2 and the tasks depending on it are reset. The current task is 2.
            ran: ["Plan.append_task", "Plan.append_task", "Plan.finish_current_task", "Plan.finish_current_task", "Plan.finish_current_task", "Plan.reset_task"] failed: None skipped: []
            log: [] plan: ["1", "2"]"#]],
    );
}

#[test]
fn plan_errors_are_the_failure_output() {
    check_run(
        r#"[{"command_name":"Plan.append_task","args":{"task_id":"1","dependent_task_ids":["7"],"instruction":"x","assignee":"Alex"}},
            {"command_name":"end"}]"#,
        expect![[r#"
            Command Plan.append_task failed: Task '1' depends on '7', which is not in the plan. The plan has no tasks yet. Append task '7' first or remove the dependency.

            Not run because Plan.append_task failed: end. Fix the failure, then send them again if they are still needed.
            ran: [] failed: Some("Plan.append_task") skipped: ["end"]
            log: [] plan: []"#]],
    );
    check_run(
        r#"[{"command_name":"Plan.append_task","args":{"task_id":"1","dependent_task_ids":[],"instruction":"x","assignee":"Alex"}},
            {"command_name":"Plan.replace_task","args":{"task_id":"9","new_dependent_task_ids":[],"new_instruction":"y","new_assignee":"Bob"}}]"#,
        expect![[r#"
            Command Plan.append_task executed: Task 1 appended; the plan has 1 tasks. The current task is 1.

            Command Plan.replace_task failed: Task '9' is not in the plan. Existing task ids: 1. Use one of these ids, or Plan.append_task to add it.
            ran: ["Plan.append_task"] failed: Some("Plan.replace_task") skipped: []
            log: [] plan: ["1"]"#]],
    );
    check_run(
        r#"[{"command_name":"Plan.finish_current_task"}]"#,
        expect![[r#"
            Command Plan.finish_current_task executed: There is no current task to finish: the plan has no tasks. If you no longer need to take action, use the command 'end' to stop.
            ran: ["Plan.finish_current_task"] failed: None skipped: []
            log: [] plan: []"#]],
    );
}

#[test]
fn replace_keeps_the_task_type() {
    let mut plan = Plan::new("goal");
    let registry = {
        let mut r = Registry::<Plan>::default();
        register_plan_commands(&mut r);
        r
    };
    let commands = vec![
        Command::new(
            "Plan.append_task",
            json!({"task_id": "1", "dependent_task_ids": [], "instruction": "x", "assignee": "A", "task_type": "eda"}),
        ),
        Command::new("Plan.finish_current_task", json!({})),
        Command::new(
            "Plan.replace_task",
            json!({"task_id": "1", "new_dependent_task_ids": [], "new_instruction": "y", "new_assignee": "B"}),
        ),
    ];
    let report = block_on(registry.run_commands(&mut plan, commands));
    assert!(!report.stopped_early, "{}", report.text());
    let task =
        plan.task("1").map(|t| (t.instruction.as_str(), t.assignee.as_str(), t.task_type.as_str(), t.is_finished));
    assert_eq!(task, Some(("y", "B", "eda", false)));
}

#[test]
fn registering_a_name_again_replaces_it_in_place_and_unregister_removes_it() {
    let mut registry = registry();
    registry.register_fn(CommandSpec::new("Log.fail", "Now succeeds."), |_cx: &mut Cx, _| Ok("fine".to_owned()));
    assert_eq!(registry.names()[5], "Log.fail");
    assert_eq!(registry.len(), 8);
    let report = block_on(registry.run_commands(&mut Cx::default(), vec![Command::bare("Log.fail")]));
    assert_eq!(report.text(), "Command Log.fail executed: fine");

    assert!(registry.unregister("Log.say"));
    assert!(!registry.unregister("Log.say"));
    assert_eq!(registry.names()[4..], ["Log.fail", "Log.echo", "end"]);
    assert!(registry.is_exclusive("end") && !registry.is_exclusive("Log.fail") && !registry.is_exclusive("nope"));
    assert!(registry.spec("end").is_some_and(|s| s.params.is_empty()));
}

#[test]
fn render_block_writes_the_list_as_the_model_would() {
    let block = Command::render_block(&[Command::new("Log.say", json!({"text": "a"})), Command::bare("end")]);
    expect![[r#"
        ```json
        [
          {
            "command_name": "Log.say",
            "args": {
              "text": "a"
            }
          },
          {
            "command_name": "end",
            "args": {}
          }
        ]
        ```"#]]
    .assert_eq(&block);
}

mod schema {
    use expect_test::expect;
    use serde_json::json;

    use crate::core::commands::{answer_schema, command_schema, CommandSpec, Param, ParamType};

    /// Each parameter kind as the schema states it: types, lists, choices,
    /// the required ones, and nothing undeclared.
    #[test]
    fn a_command_s_arguments() {
        let spec = CommandSpec::new("Tool.run", "Runs it.")
            .param(Param::new("path", ParamType::Str))
            .param(Param::new("times", ParamType::Int).with_default(json!(1)))
            .param(Param::new("ratio", ParamType::Float).optional())
            .param(Param::new("dry", ParamType::Bool).optional())
            .param(Param::new("tags", ParamType::StrList).one_of(vec![json!("a"), json!("b")]))
            .param(Param::new("level", ParamType::Str).one_of(vec![json!("low"), json!("high")]))
            .param(Param::new("extra", ParamType::Json).optional());
        expect![[r#"{"type":"object","properties":{"command_name":{"const":"Tool.run"},"args":{"type":"object","properties":{"path":{"type":"string"},"times":{"type":"integer"},"ratio":{"type":"number"},"dry":{"type":"boolean"},"tags":{"items":{"enum":["a","b"],"type":"string"},"type":"array"},"level":{"enum":["low","high"],"type":"string"},"extra":{}},"required":["path","tags","level"],"additionalProperties":false}},"required":["command_name","args"],"additionalProperties":false}"#]]
        .assert_eq(&command_schema(&spec).text());
    }

    /// Task ids are short, in a plan's commands and their lists of ids.
    #[test]
    fn task_ids_are_short() {
        let spec = CommandSpec::new("Plan.append_task", "Adds.")
            .param(Param::new("task_id", ParamType::Str))
            .param(Param::new("dependent_task_ids", ParamType::StrList))
            .param(Param::new("instruction", ParamType::Str));
        let schema = command_schema(&spec).to_value();
        let args = &schema["properties"]["args"]["properties"];
        assert_eq!(args["task_id"], json!({"type": "string", "maxLength": 8}));
        assert_eq!(args["dependent_task_ids"]["items"], json!({"type": "string", "maxLength": 8}));
        assert_eq!(args["instruction"], json!({"type": "string"}));
    }

    /// The answer: a thought, then at least one command among those given,
    /// in their order.
    #[test]
    fn an_answer() {
        let specs = [CommandSpec::new("end", "Ends."), CommandSpec::new("Plan.finish_current_task", "Done.")];
        let schema = answer_schema(&specs).to_value();
        assert_eq!(schema["required"], json!(["thought", "commands"]));
        assert_eq!(schema["properties"]["thought"], json!({"type": "string", "maxLength": 500}));
        assert_eq!(schema["properties"]["commands"]["minItems"], 1);
        assert_eq!(schema["properties"]["commands"]["maxItems"], 8);
        // Written in the order the model should write: the thought first.
        assert!(answer_schema(&specs).text().starts_with(r#"{"type":"object","properties":{"thought":"#));
        let names: Vec<&str> = schema["properties"]["commands"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["properties"]["command_name"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["end", "Plan.finish_current_task"]);
        assert_eq!(schema["additionalProperties"], false);
    }
}
