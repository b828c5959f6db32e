//! Tests for the plan module, driven by one-line scripts.
//!
//! A script is a `;`-separated list of operations on a fresh plan; `check`
//! runs it and compares a compact rendering of the final plan, or the first
//! error (after asserting the failed operation left the plan unchanged).
//! Timing is not asserted anywhere: the large cases only show that nothing
//! recurses or goes quadratic enough to stall the suite.

use expect_test::expect;

use super::{topological_sort, Plan, PlanError, Task, TASK_TYPES};

/// Script operations:
/// - `+T`: append task T (assignee "A", type "other")
/// - `p T`: replace task T (assignee "B")
/// - `r ID`: reset; `f`: finish the current task; `F`: finish all
/// - `w TEXT`: record TEXT as the current task's result
/// - `= T T ...`: add_tasks
///
/// A task T is `ID[<DEP,DEP][:INSTRUCTION]`; the instruction defaults to
/// "do ID" (append, add) or "redo ID" (replace).
///
/// The rendering lists tasks in order as `ID[*][<DEPS][:INSTRUCTION][[RESULT]]`
/// (`*` = finished; the instruction only when not "do ID"), then `| cur=ID`
/// or `| done`.
fn check(script: &str, expect: &str) {
    assert_eq!(run(script), expect, "script: {script}");
}

fn run(script: &str) -> String {
    let mut plan = Plan::new("goal");
    for op in script.split(';').map(str::trim).filter(|op| !op.is_empty()) {
        let before = plan.clone();
        let outcome = apply(&mut plan, op);
        plan.assert_consistent();
        if let Err(err) = outcome {
            assert_eq!(plan, before, "a refused `{op}` changed the plan");
            return format!("error: {err}");
        }
    }
    render(&plan)
}

fn apply(plan: &mut Plan, op: &str) -> Result<(), PlanError> {
    let (verb, rest) = op.split_once(' ').unwrap_or((op, ""));
    if let Some(token) = verb.strip_prefix('+') {
        let t = parse_task(token, "do");
        return plan.append_task(t.id, t.dependent_task_ids, t.instruction, "A", "other");
    }
    match verb {
        "p" => {
            let t = parse_task(rest, "redo");
            plan.replace_task(&t.id, t.dependent_task_ids, t.instruction, "B")
        }
        "r" => plan.reset_task(rest),
        "f" => plan.finish_current_task(),
        "F" => {
            plan.finish_all_tasks();
            Ok(())
        }
        "w" => plan.update_current_task_result("", rest, true),
        "=" => plan.add_tasks(
            rest.split_whitespace()
                .map(|t| parse_task(t, "do"))
                .collect(),
        ),
        _ => panic!("unknown script operation `{op}`"),
    }
}

fn parse_task(token: &str, verb: &str) -> Task {
    let (head, instruction) = match token.split_once(':') {
        Some((head, instruction)) => (head, instruction.to_owned()),
        None => (token, String::new()),
    };
    let (id, deps) = head.split_once('<').unwrap_or((head, ""));
    let deps = deps
        .split(',')
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
        .collect();
    let instruction = if instruction.is_empty() {
        format!("{verb} {id}")
    } else {
        instruction
    };
    Task::new(id, deps, instruction, "", "")
}

fn render(plan: &Plan) -> String {
    let mut parts: Vec<String> = plan
        .tasks()
        .iter()
        .map(|t| {
            let mut s = t.id.clone();
            if t.is_finished {
                s.push('*');
            }
            if !t.dependent_task_ids.is_empty() {
                s.push('<');
                s.push_str(&t.dependent_task_ids.join(","));
            }
            if t.instruction != format!("do {}", t.id) {
                s.push(':');
                s.push_str(&t.instruction);
            }
            if !t.result.is_empty() {
                s.push_str(&format!("[{}]", t.result));
            }
            s
        })
        .collect();
    parts.push(match plan.current_task_id() {
        Some(id) => format!("| cur={id}"),
        None => "| done".to_owned(),
    });
    parts.join(" ")
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn append() {
    check("+1; +2<1; +3<1,2", "1 2<1 3<1,2 | cur=1");
    check("+1; f; +2", "1* 2 | cur=2");
    check("+b; +a<b; +c", "b a<b c | cur=b");
    check("+3<7", "error: Task '3' depends on '7', which is not in the plan. The plan has no tasks yet. Append task '7' first or remove the dependency.");
    check("+1; +2; +3<1,7", "error: Task '3' depends on '7', which is not in the plan. Existing task ids: 1, 2. Append task '7' first or remove the dependency.");
    check(
        "+1; +2<1; +1",
        "error: Task id '1' already exists; use Plan.replace_task to change it or pick a new id.",
    );
    check(
        "+1; +",
        "error: A task needs a non-empty id such as '1'; the task_id given was empty.",
    );
    check("+1<1", "error: Task '1' would depend on itself through the cycle 1 -> 1 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
}

#[test]
fn finish() {
    check("f", "error: There is no current task: the plan has no tasks. Append a task with Plan.append_task, or end if the goal is reached.");
    check("+1; +2<1; f", "1* 2<1 | cur=2");
    check("+1; +2<1; f; f", "1* 2*<1 | done");
    check("+1; f; f", "error: There is no current task: every task in the plan is finished. Append a task with Plan.append_task, or end if the goal is reached.");
    check("+1; +2; +3; F", "1* 2* 3* | done");
    check("+1; +2; F; r 1; f", "1* 2* | done");
    check("+1; +2; +3; F; r 1; r 3; f", "1* 2* 3 | cur=3");
    check("F", "| done");
    check("+1; w out; w more; f", "1*[out\nmore] | done");
    check("w out", "error: There is no current task: the plan has no tasks. Append a task with Plan.append_task, or end if the goal is reached.");
}

#[test]
fn reset() {
    // The diamond 1 <- {2, 3} <- 4, and 5 on its own.
    let diamond = "+1; +2<1; +3<1; +4<2,3; +5; F";
    check(&format!("{diamond}; r 1"), "1 2<1 3<1 4<2,3 5* | cur=1");
    check(&format!("{diamond}; r 2"), "1* 2<1 3*<1 4<2,3 5* | cur=2");
    check(&format!("{diamond}; r 3"), "1* 2*<1 3<1 4<2,3 5* | cur=3");
    check(&format!("{diamond}; r 4"), "1* 2*<1 3*<1 4<2,3 5* | cur=4");
    check(&format!("{diamond}; r 5"), "1* 2*<1 3*<1 4*<2,3 5 | cur=5");
    check(
        &format!("{diamond}; r 4; r 2; f; f"),
        "1* 2*<1 3*<1 4*<2,3 5* | done",
    );
    check(
        "+1; w r1; f; +2<1; w r2; f; +3; w r3; f; r 1",
        "1 2<1 3*[r3] | cur=1",
    );
    check("+1; +2<1; r 2", "1 2<1 | cur=1");
    check("+1; r 9", "error: Task '9' is not in the plan. Existing task ids: 1. Use one of these ids, or Plan.append_task to add it.");
    check("r 9", "error: Task '9' is not in the plan. The plan has no tasks yet. Use one of these ids, or Plan.append_task to add it.");
}

#[test]
fn replace() {
    check("+1; +2<1; +3<2; F; p 2<1:new", "1* 2<1:new 3<2 | cur=2");
    check("+1; +2<1; +3; F; p 1", "1:redo 1 2<1 3* | cur=1");
    // Dropping a dependency updates the index: resetting 1 leaves 2 alone.
    check("+1; +2<1; F; p 2; f; r 1", "1 2*:redo 2 | cur=1");
    // Gaining one resets through it.
    check("+1; +2; F; p 2<1; f; r 1", "1 2<1:redo 2 | cur=1");
    // A dependency later in the order moves the task after it.
    check("+1; +2; +3<1; p 1<2", "2 1<2:redo 1 3<1 | cur=2");
    check("+1; +2; +3<1; F; p 1<2", "2* 1<2:redo 1 3<1 | cur=1");
    check(
        "+1; +2; +3; +4<1; F; p 1<3,2",
        "3* 2* 1<3,2:redo 1 4<1 | cur=1",
    );
    check("+1; +2<1; +3<2; p 1<3", "error: Task '1' would depend on itself through the cycle 1 -> 3 -> 2 -> 1 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check("+1; +2<1; +3<1; +4<3; F; p 1<4", "error: Task '1' would depend on itself through the cycle 1 -> 4 -> 3 -> 1 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check("+1; +2<1; p 2<2", "error: Task '2' would depend on itself through the cycle 2 -> 2 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check("+1; p 1<9", "error: Task '1' depends on '9', which is not in the plan. Existing task ids: 1. Append task '9' first or remove the dependency.");
    check("+1; p 9", "error: Task '9' is not in the plan. Existing task ids: 1. Use one of these ids, or Plan.append_task to add it.");
}

#[test]
fn replace_keeps_task_type_and_clears_outcome() {
    let mut plan = Plan::new("g");
    plan.append_task("1", vec![], "load data", "Ann", "eda")
        .unwrap();
    plan.append_task("2", ids(&["1"]), "train", "Ann", "model train")
        .unwrap();
    plan.update_current_task_result("df = load()", "ok", true)
        .unwrap();
    plan.finish_all_tasks();
    plan.replace_task("1", vec![], "load and clean data", "Bob")
        .unwrap();
    let expected = Task::new("1", vec![], "load and clean data", "Bob", "eda");
    assert_eq!(plan.task("1"), Some(&expected));
    let second = plan.task("2").unwrap();
    assert_eq!(
        (second.task_type.as_str(), second.is_finished),
        ("model train", false)
    );
    plan.assert_consistent();
}

#[test]
fn add_tasks() {
    check("= 3<2 2<1 1", "1 2<1 3<2 | cur=1");
    check("= x<z y z", "z x<z y | cur=z");
    check("+1; =", "1 | cur=1");
    // The finished prefix keeps its state and results; the rest is new.
    check(
        "= 1 2<1 3<2; w r1; f; w r2; f; = 1 2<1 3<2:changed 4<3",
        "1*[r1] 2*<1[r2] 3<2:changed 4<3 | cur=3",
    );
    check("= 1 2<1 3<2; F; = 1 2<1 3<2", "1* 2*<1 3*<2 | done");
    check("= 1 2<1; F; = 1:other 2<1", "1:other 2<1 | cur=1");
    check("= 1 2 3<1; F; = 1 2 3<2", "1* 2* 3<2 | cur=3");
    check("= 1 2<1 3<2; F; = 1 2<1", "1* 2*<1 | done");
    check("= 1 2<1; F; = 2 1", "2 1 | cur=2");
    check("+1; +2<1; f; = 2<1 1 3", "1* 2<1 3 | cur=2");
    check("= 1<2 2<1", "error: Task '1' would depend on itself through the cycle 1 -> 2 -> 1 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check("= 1 2<9", "error: Task '2' depends on '9', which is not in the plan. Existing task ids: 1, 2. Append task '9' first or remove the dependency.");
    check(
        "= 1 2 1",
        "error: Task id '1' is used by more than one task in the list; give every task its own id.",
    );
    check(
        "= 1 <1",
        "error: A task needs a non-empty id such as '1'; the task_id given was empty.",
    );
    check("+1; f; = 1 2<2", "error: Task '2' would depend on itself through the cycle 2 -> 2 (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check("+1; f; = 1 2<3", "error: Task '2' depends on '3', which is not in the plan. Existing task ids: 1, 2. Append task '3' first or remove the dependency.");
}

fn check_sort(tokens: &str, expect: &str) {
    let tasks = tokens
        .split_whitespace()
        .map(|t| parse_task(t, "do"))
        .collect();
    let actual = match topological_sort(tasks) {
        Ok(sorted) => sorted
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        Err(err) => format!("error: {err}"),
    };
    assert_eq!(actual, expect, "tasks: {tokens}");
}

#[test]
fn sort() {
    check_sort("", "");
    check_sort("1 2 3", "1 2 3");
    check_sort("3<2 2<1 1", "1 2 3");
    check_sort("x<z y z", "z x y");
    check_sort("4<2,3 3<1 2<1 1", "1 2 3 4");
    check_sort("a b<a c<b d<a,c", "a b c d");
    check_sort("a<b b<c c<a", "error: Task 'a' would depend on itself through the cycle a -> b -> c -> a (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check_sort("a b<c c<d d<b", "error: Task 'b' would depend on itself through the cycle b -> c -> d -> b (read '->' as 'depends on'). A task cannot depend, directly or indirectly, on itself; remove one of these dependencies.");
    check_sort(
        "a a",
        "error: Task id 'a' is used by more than one task in the list; give every task its own id.",
    );
    check_sort("a<q", "error: Task 'a' depends on 'q', which is not in the plan. Existing task ids: a. Append task 'q' first or remove the dependency.");
}

/// Task i depends on task i - 1, as in bench scenario S4.
fn chain(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            let deps = if i == 0 {
                vec![]
            } else {
                vec![(i - 1).to_string()]
            };
            Task::new(i.to_string(), deps, format!("step {i}"), "A", "other")
        })
        .collect()
}

fn id_list(tasks: &[Task]) -> Vec<String> {
    tasks.iter().map(|t| t.id.clone()).collect()
}

#[test]
fn sort_long_chain_in_either_order() {
    let in_order = chain(1_000);
    let expected = id_list(&in_order);
    assert_eq!(
        id_list(&topological_sort(in_order.clone()).unwrap()),
        expected
    );
    let reversed: Vec<Task> = in_order.into_iter().rev().collect();
    assert_eq!(id_list(&topological_sort(reversed).unwrap()), expected);

    // Deep enough that a recursive sort would overflow the test thread's stack.
    let deep: Vec<Task> = chain(200_000).into_iter().rev().collect();
    let sorted = topological_sort(deep).unwrap();
    assert_eq!(
        (sorted[0].id.as_str(), sorted[199_999].id.as_str()),
        ("0", "199999")
    );
}

#[test]
fn long_chain_operations() {
    let n = 1_000;
    let mut plan = Plan::new("chain");
    for task in chain(n) {
        plan.append_task(
            task.id,
            task.dependent_task_ids,
            task.instruction,
            "A",
            "other",
        )
        .unwrap();
    }
    let mut finished = 0;
    while plan.finish_current_task().is_ok() {
        finished += 1;
    }
    assert_eq!((finished, plan.is_finished()), (n, true));
    plan.assert_consistent();

    // Resetting the first task cascades down the whole chain.
    plan.reset_task("0").unwrap();
    assert_eq!(plan.finished_tasks().count(), 0);
    assert_eq!(plan.current_task_id(), Some("0"));
    plan.finish_all_tasks();
    plan.reset_task("500").unwrap();
    assert_eq!(
        (plan.finished_tasks().count(), plan.current_task_id()),
        (500, Some("500"))
    );
    plan.assert_consistent();

    plan.replace_task("0", vec![], "first again", "B").unwrap();
    plan.replace_task("999", ids(&["998"]), "last again", "B")
        .unwrap();
    assert_eq!(
        (plan.finished_tasks().count(), plan.current_task_id()),
        (0, Some("0"))
    );
    // Making the first task depend on the last closes the chain into a loop.
    let err = plan
        .replace_task("0", ids(&["999"]), "loop", "B")
        .unwrap_err();
    let PlanError::Cycle { path } = err else {
        panic!("expected a cycle, got {err:?}")
    };
    assert_eq!(
        (
            path.len(),
            path[0].as_str(),
            path[1].as_str(),
            path[1000].as_str()
        ),
        (1001, "0", "999", "0")
    );
    plan.assert_consistent();

    let mut fresh = Plan::new("chain");
    fresh
        .add_tasks(chain(n).into_iter().rev().collect())
        .unwrap();
    assert_eq!(id_list(fresh.tasks()), id_list(&chain(n)));
    fresh.assert_consistent();
}

#[test]
fn long_id_lists_are_shortened_in_errors() {
    let mut plan = Plan::new("g");
    plan.add_tasks(chain(25)).unwrap();
    let err = plan.reset_task("x").unwrap_err().to_string();
    assert_eq!(err, "Task 'x' is not in the plan. Existing task ids: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 and 5 more. Use one of these ids, or Plan.append_task to add it.");
}

fn sample_plan() -> Plan {
    let mut plan = Plan::new("create a 2048 game");
    plan.append_task(
        "1",
        vec![],
        "Write the PRD for the 2048 game.",
        "Alice",
        "other",
    )
    .unwrap();
    plan.append_task(
        "2",
        ids(&["1"]),
        "Design the system architecture.",
        "Bob",
        "",
    )
    .unwrap();
    plan.append_task("3", ids(&["1", "2"]), "Write the code.", "Alex", "other")
        .unwrap();
    plan.finish_current_task().unwrap();
    plan
}

#[test]
fn status_text() {
    expect![[r#"
        [GOAL] create a 2048 game
        [Plan]
        [TASK_ID 1] (finished) Write the PRD for the 2048 game. This task depends on tasks[]. [Assign to Alice]
        [TASK_ID 2] (        ) Design the system architecture. This task depends on tasks['1']. [Assign to Bob]
        [TASK_ID 3] (        ) Write the code. This task depends on tasks['1', '2']. [Assign to Alex]
    "#]]
    .assert_eq(&sample_plan().status_text());
    expect![[r#"
        [GOAL] create a 2048 game
        No Plan 
    "#]]
    .assert_eq(&Plan::new("create a 2048 game").status_text());
}

#[test]
fn current_task_text() {
    let mut plan = sample_plan();
    expect!["[TASK_ID 2] Design the system architecture. This task depends on tasks['1']. [Assign to Bob]"]
        .assert_eq(&plan.current_task_text());
    plan.finish_current_task().unwrap();
    expect!["[TASK_ID 3] Write the code. This task depends on tasks['1', '2']. [Task type: other] [Assign to Alex]"]
        .assert_eq(&plan.current_task_text());
    plan.finish_current_task().unwrap();
    expect!["All tasks in the plan are finished."].assert_eq(&plan.current_task_text());
    assert_eq!(Plan::new("g").current_task_text(), "");
}

#[test]
fn empty_plan_is_finished_with_no_current_task() {
    let plan = Plan::new("g");
    assert_eq!(
        (plan.is_empty(), plan.is_finished(), plan.current_task()),
        (true, true, None)
    );
}

#[test]
fn serde_round_trip_preserves_behaviour() {
    let mut plan = sample_plan();
    plan.context = "some context".to_owned();
    plan.update_current_task_result("print(1)", "1", true)
        .unwrap();
    let json = serde_json::to_string(&plan).unwrap();
    expect![[r#"{"goal":"create a 2048 game","context":"some context","tasks":[{"task_id":"1","dependent_task_ids":[],"instruction":"Write the PRD for the 2048 game.","task_type":"other","assignee":"Alice","code":"","result":"","is_success":true,"is_finished":true},{"task_id":"2","dependent_task_ids":["1"],"instruction":"Design the system architecture.","task_type":"","assignee":"Bob","code":"print(1)","result":"1","is_success":true,"is_finished":false},{"task_id":"3","dependent_task_ids":["1","2"],"instruction":"Write the code.","task_type":"other","assignee":"Alex","code":"","result":"","is_success":false,"is_finished":false}]}"#]]
        .assert_eq(&json);

    let mut back: Plan = serde_json::from_str(&json).unwrap();
    back.assert_consistent();
    assert_eq!(back, plan);
    assert_eq!(back.current_task_id(), Some("2"));
    assert_eq!(back.status_text(), plan.status_text());
    for p in [&mut plan, &mut back] {
        p.append_task("4", ids(&["3"]), "Test it.", "Edward", "other")
            .unwrap();
        p.reset_task("1").unwrap();
        p.finish_current_task().unwrap();
        p.replace_task("2", ids(&["1"]), "Design again.", "Bob")
            .unwrap();
        p.assert_consistent();
    }
    assert_eq!(back, plan);
    assert_eq!(back.current_task_id(), plan.current_task_id());
}

#[test]
fn deserialize_accepts_a_models_task_list_and_refuses_a_broken_plan() {
    // MetaGPT's field names, unsorted, with fields left out.
    let json = r#"{"goal":"g","tasks":[{"task_id":"2","dependent_task_ids":["1"],"instruction":"b"},{"id":"1","instruction":"a"}]}"#;
    let plan: Plan = serde_json::from_str(json).unwrap();
    assert_eq!(id_list(plan.tasks()), ids(&["1", "2"]));
    assert_eq!(plan.current_task_id(), Some("1"));

    let cyclic = r#"{"goal":"g","tasks":[{"task_id":"1","dependent_task_ids":["2"]},{"task_id":"2","dependent_task_ids":["1"]}]}"#;
    let err = serde_json::from_str::<Plan>(cyclic)
        .unwrap_err()
        .to_string();
    assert!(err.contains("cycle 1 -> 2 -> 1"), "{err}");
}

#[test]
fn task_types() {
    let names: Vec<&str> = TASK_TYPES.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "eda",
            "data preprocessing",
            "feature engineering",
            "model train",
            "model evaluate",
            "image2webpage",
            "other",
            "web scraping",
            "email login"
        ]
    );
    assert!(TASK_TYPES
        .iter()
        .all(|(_, description)| description.ends_with('.')));
}
