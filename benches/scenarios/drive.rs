//! Untimed passes of S1, S2 and S5 for instruction counting (callgrind,
//! `perf stat`): `TABTEAM_BENCH_DRIVE="S1 20 run"` makes the bench build
//! 20 S1 teams one after the other, run each once and drop it; `"S1 20
//! build"` only builds and drops them. The difference of the two is the
//! cost of the runs (S1: the pipeline; S2: publish + the round) plus
//! dropping what they made; dropping keeps the allocator reusing memory
//! as in the timed bench. `"S5 n run"` runs one team of `n` react steps:
//! the difference between two values of `n` is the cost of those steps.
//!
//! ```text
//! valgrind --tool=callgrind target/release/deps/overhead-* # with the variable set
//! ```

use std::cell::Cell;

use tabteam::core::events::{EventSink, TeamEvent};
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::team::Team;

use super::broadcast;
use super::heap::HeapWatch;
use super::react;
use super::team::build_pipeline;

/// Parse "S1 20 run" and drive it.
pub fn drive(spec: &str) {
    let words: Vec<&str> = spec.split_whitespace().collect();
    let [scenario, n, what] = words[..] else { panic!("drive: want \"S1|S2|S5 N build|run\", got {spec:?}") };
    let n: usize = n.parse().expect("a count");
    let run = match what {
        "run" => true,
        "build" => false,
        _ => panic!("drive: build or run, got {what:?}"),
    };
    futures::executor::block_on(async {
        match scenario {
            "S1" => {
                let mut allocations = 0.0;
                for _ in 0..n {
                    let (mut team, llm) = build_pipeline();
                    if run {
                        let watch = HeapWatch::start();
                        team.run_project("make 2048");
                        team.run(100).await;
                        allocations += watch.allocations();
                    }
                    drop((team, llm));
                }
                report(run, allocations, n * 6, "per published message");
            }
            "S2" => {
                let mut allocations = 0.0;
                for _ in 0..n {
                    let (mut team, llm) = broadcast::build();
                    if run {
                        let watch = HeapWatch::start();
                        team.run_project("say something");
                        team.run(1).await;
                        allocations += watch.allocations();
                    }
                    drop((team, llm));
                }
                report(run, allocations, n * 50, "per reply");
            }
            // One team of `n` steps (the first `n` steps of S5's role).
            "S5" => {
                let (mut team, llm) = react_team(n as u32);
                if run {
                    let watch = HeapWatch::start();
                    team.run_project("start");
                    team.run(1).await;
                    report(true, watch.allocations(), n, "per step");
                }
                std::mem::forget((team, llm));
            }
            _ => panic!("drive: S1, S2 or S5, got {scenario:?}"),
        }
    });
}

/// S5's team, listening as S5's stamps do (events are made only for a
/// listener).
fn react_team(steps: u32) -> (Team, ScriptedLlm) {
    let steps_seen = Cell::new(0usize);
    let sink = EventSink::new(move |event| {
        if let TeamEvent::RoleBusy { doing, .. } = event {
            if doing == "thinking" {
                steps_seen.set(steps_seen.get() + 1);
            }
        }
    });
    react::team(steps, sink)
}

/// Allocations (and reallocations) of the runs, per `units`.
fn report(run: bool, allocations: f64, units: usize, what: &str) {
    if run {
        eprintln!("[drive] {:.2} heap allocations {what}", allocations / units as f64);
    }
}
