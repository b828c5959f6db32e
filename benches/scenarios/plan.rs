//! S4: plan operations on a chain of 1,000 tasks (task i depends on task
//! i-1, type "other", ids "1".."1000").
//!
//! Our reset cascades to every dependent, so resetting the first task of a
//! finished chain resets all 1,000 (MetaGPT 0.8.2 resets the one task):
//! that figure is reported apart from the reset of a task nobody depends
//! on, which is the work MetaGPT's reset does.

use std::hint::black_box;

use tabteam::core::plan::{topological_sort, Plan, Task};

use super::measure::{median_of_means, Now};
use super::Figure;

const N: usize = 1_000;

fn id(i: usize) -> String {
    (i + 1).to_string()
}

fn deps(i: usize) -> Vec<String> {
    if i == 0 {
        Vec::new()
    } else {
        vec![id(i - 1)]
    }
}

fn chain() -> Vec<Task> {
    (0..N).map(|i| Task::new(id(i), deps(i), format!("do step {i}"), "", "other")).collect()
}

fn chain_plan() -> Plan {
    let mut plan = Plan::new("a long chain");
    plan.add_tasks(chain()).expect("a chain is a valid plan");
    plan
}

pub fn run(now: Now) -> Vec<Figure> {
    let mut figures = Vec::new();

    let append = median_of_means(9, 3, || {
        let inputs: Vec<(String, Vec<String>, String)> =
            (0..N).map(|i| (id(i), deps(i), format!("do step {i}"))).collect();
        let mut plan = Plan::new("a long chain");
        let t0 = now();
        for (task_id, dependencies, instruction) in inputs {
            plan.append_task(task_id, dependencies, instruction, "", "other").expect("append in order");
        }
        let elapsed = now() - t0;
        assert_eq!(plan.len(), N);
        elapsed / N as f64
    });
    figures.push(Figure::ms("S4", "append, per call (1,000 in order)", append).vs("3 µs", Some(0.003)));

    let mut plan = chain_plan();
    let first = id(0);
    let last = id(N - 1);
    let reset_first = median_of_means(7, 50, || {
        plan.finish_all_tasks();
        let t0 = now();
        plan.reset_task(black_box(&first)).expect("reset");
        let elapsed = now() - t0;
        assert!(plan.tasks().iter().all(|t| !t.is_finished), "the reset cascades to the whole chain");
        elapsed
    });
    figures.push(
        Figure::ms("S4", "reset first of a finished plan (cascades to 1,000)", reset_first)
            .vs("8 µs (resets 1 task)", None),
    );
    let reset_last = median_of_means(7, 50, || {
        plan.finish_all_tasks();
        let t0 = now();
        plan.reset_task(black_box(&last)).expect("reset");
        let elapsed = now() - t0;
        assert_eq!(plan.current_task_id(), Some(last.as_str()));
        elapsed
    });
    figures.push(Figure::ms("S4", "reset last (no dependents, as MetaGPT's)", reset_last).vs("8 µs", Some(0.008)));

    let replace_first = median_of_means(7, 50, || {
        plan.finish_all_tasks();
        let t0 = now();
        plan.replace_task(black_box(&first), Vec::new(), "do step 0 again", "").expect("replace first");
        let elapsed = now() - t0;
        assert_eq!(plan.current_task_id(), Some(first.as_str()));
        elapsed
    });
    figures.push(Figure::ms("S4", "replace first (resets 999 dependents)", replace_first).vs("71 µs", Some(0.071)));
    let replace_last = median_of_means(7, 50, || {
        plan.finish_all_tasks();
        let t0 = now();
        plan.replace_task(black_box(&last), deps(N - 1), "do the last step again", "").expect("replace last");
        let elapsed = now() - t0;
        assert_eq!(plan.current_task_id(), Some(last.as_str()));
        elapsed
    });
    figures.push(Figure::ms("S4", "replace last", replace_last));

    let finish_all = median_of_means(7, 10, || {
        plan.reset_task(&first).expect("reset");
        let t0 = now();
        let mut calls = 0;
        while !plan.is_finished() {
            plan.finish_current_task().expect("a current task");
            calls += 1;
        }
        let elapsed = now() - t0;
        assert_eq!(calls, N);
        elapsed
    });
    figures.push(Figure::ms("S4", "finish current until done (1,000 calls)", finish_all).vs("16 ms", Some(16.0)));
    figures.push(Figure::ms("S4", "  per call", finish_all / N as f64));

    let in_order = chain();
    let reversed: Vec<Task> = in_order.iter().rev().cloned().collect();
    for (what, tasks, metagpt) in [
        ("topological sort, given in order", &in_order, ("0.8 ms", Some(0.8))),
        ("topological sort, given reversed", &reversed, ("RecursionError", None)),
    ] {
        let sort = median_of_means(7, 20, || {
            let input = tasks.clone();
            let t0 = now();
            let sorted = topological_sort(black_box(input)).expect("a chain sorts");
            let elapsed = now() - t0;
            assert!(sorted.iter().enumerate().all(|(i, t)| t.id == id(i)), "sorted into chain order");
            elapsed
        });
        figures.push(Figure::ms("S4", what, sort).vs(metagpt.0, metagpt.1));
    }

    let add = median_of_means(7, 20, || {
        let (mut empty, input) = (Plan::new("a long chain"), in_order.clone());
        let t0 = now();
        empty.add_tasks(black_box(input)).expect("add the chain");
        let elapsed = now() - t0;
        assert_eq!(empty.len(), N);
        elapsed
    });
    figures.push(Figure::ms("S4", "add_tasks of 1,000 to an empty plan", add));
    figures
}
