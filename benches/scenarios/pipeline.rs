//! S1: a pipeline of five roles, one requirement through all of them.
//!
//! Per pipeline: 6 published messages (the requirement and five stage
//! outputs), each sent to all and so delivered to 5 buffers (30
//! deliveries), 5 LLM calls, 5 working rounds and one in which everyone
//! only observes. A fresh team and model every iteration; 200 iterations
//! after 20 warm-up.

use tabteam::core::events::StopReason;
use tabteam::core::message::ALL;
use tabteam::core::team::Team;

use super::heap::HeapWatch;
use super::measure::{median, Now};
use super::team::{build_pipeline, STAGES};
use super::Figure;

const WARM_UP: usize = 20;
const ITERATIONS: usize = 200;
/// Builds timed together: one build takes a few microseconds and the
/// browser's clock steps by 5 µs, so ten builds are one interval (the
/// median is over the groups' means). A pipeline takes long enough to be
/// timed alone, which keeps its median clear of the odd pause (a
/// preempted tab, a background compile).
const GROUP: usize = 10;
const PUBLISHED: usize = STAGES + 1;
const DELIVERIES: usize = PUBLISHED * STAGES;

pub async fn run(now: Now) -> Vec<Figure> {
    let mut build = Vec::new();
    let mut pipeline = Vec::new();
    for group in 0..(WARM_UP + ITERATIONS) / GROUP {
        let t0 = now();
        let mut teams: Vec<_> = (0..GROUP).map(|_| build_pipeline()).collect();
        let t1 = now();
        let measured = group >= WARM_UP / GROUP;
        if measured {
            build.push((t1 - t0) / GROUP as f64);
        }
        for (team, llm) in &mut teams {
            let t0 = now();
            team.run_project("make 2048");
            let outcome = team.run(100).await;
            let t1 = now();
            if measured {
                pipeline.push(t1 - t0);
            }
            assert_eq!(outcome.stop, StopReason::Idle, "S1 must end idle");
            assert_eq!(outcome.rounds_run, STAGES as u32 + 1, "S1: 5 working rounds + 1 observing round");
            assert_eq!(llm.calls(), STAGES, "S1: one LLM call per stage");
            check_shape(team);
        }
    }

    // Heap of one more pipeline, counted in a pass of its own.
    let watch = HeapWatch::start();
    let (mut team, _llm) = build_pipeline();
    let build_allocations = watch.allocations();
    team.run_project("make 2048");
    team.run(100).await;
    let (peak, run_allocations) = (watch.peak(), watch.allocations() - build_allocations);
    drop(watch);

    let run = median(&pipeline);
    vec![
        Figure::ms("S1", "build a 5-role team", median(&build)).vs("129 ms (6 ms w/o HTTP client)", Some(6.0)),
        Figure::ms("S1", "run a pipeline (6 rounds)", run).vs("2.3 ms", Some(2.3)),
        Figure::ms("S1", "  per published message (6)", run / PUBLISHED as f64).vs("388 µs", Some(0.388)),
        Figure::ms("S1", "  per delivery (30)", run / DELIVERIES as f64).vs("78 µs", Some(0.078)),
        Figure::bytes("S1", "peak heap, build + run", peak),
        Figure::count("S1", "heap allocations, build", build_allocations),
        Figure::count("S1", "heap allocations, run", run_allocations),
    ]
}

/// Six messages in the history, each to all, in stage order.
fn check_shape(team: &Team) {
    let history = team.env.history();
    assert_eq!(history.len(), PUBLISHED, "S1: six published messages");
    for (k, m) in history.iter().enumerate() {
        assert!(m.send_to.contains(ALL), "S1: every message is sent to all");
        if k > 0 {
            assert_eq!(m.cause_by.as_str(), format!("Stage{}", k - 1), "S1: stages in order");
        }
    }
    assert_eq!(team.env.roles().len(), STAGES);
    assert_eq!(team.ledger.borrow().total().calls, STAGES as u64);
}
