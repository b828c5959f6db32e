//! S5: one role in REACT mode, actions A, B and C, 1,000 think-act steps
//! in one round.
//!
//! The model answers a think prompt (the state prompt, the only prompt
//! ending with its "answer -1." sentence) with the step number mod 3, and an act with any
//! text. Steps are timed without touching the core: the team's event sink
//! stamps each "thinking" event (the start of a step) and the end of the
//! round, so step k lasts from its stamp to the next one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use tabteam::core::events::{EventSink, TeamEvent};
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::llm::ChatRequest;
use tabteam::core::role::{ReactMode, Role, RoleSpec};
use tabteam::core::team::Team;

use super::heap::HeapWatch;
use super::measure::{median, Now};
use super::team::{ask, model, priced_team};
use super::Figure;

const STEPS: usize = 1_000;
const WARM_UP: usize = 1;
const RUNS: usize = 9;
/// How the state prompt ends (`role::state_prompt`): no other prompt
/// does, and the test is one comparison of its length, so the scripted
/// model's own work does not grow with the history.
const STATE_PROMPT_END: &str = "If your goal is met and no stage is needed, answer -1.\n";

/// The think prompt is the only request whose last turn ends with the
/// state prompt's last sentence.
fn is_think(request: &ChatRequest) -> bool {
    request.messages.last().is_some_and(|last| last.content.ends_with(STATE_PROMPT_END))
}

/// Stamps of the steps' starts and of the round's end.
#[derive(Default)]
struct Stamps {
    steps: RefCell<Vec<f64>>,
    round_end: Cell<f64>,
}

fn build(now: Now) -> (Team, ScriptedLlm, Rc<Stamps>) {
    let stamps = Rc::new(Stamps::default());
    let sink = {
        let stamps = stamps.clone();
        EventSink::new(move |event| match event {
            TeamEvent::RoleBusy { doing, .. } if doing == "thinking" => stamps.steps.borrow_mut().push(now()),
            TeamEvent::RoundFinished { .. } => stamps.round_end.set(now()),
            _ => {}
        })
    };
    let (team, llm) = team(STEPS as u32, sink);
    (team, llm, stamps)
}

/// S5's team and model with `steps` react steps at most: the model answers
/// a think with step mod 3 and an act with "done"; `sink` hears the events.
pub(super) fn team(steps: u32, sink: EventSink) -> (Team, ScriptedLlm) {
    let thinks = Cell::new(0usize);
    let llm = model(move |_, request| {
        if is_think(request) {
            let step = thinks.get();
            thinks.set(step + 1);
            (step % 3).to_string()
        } else {
            "done".to_string()
        }
    });
    let mut team = priced_team(&llm, sink);
    team.hire([Role::new(
        RoleSpec::new("Solo", "Worker").react_mode(ReactMode::React, steps),
        vec![ask("A"), ask("B"), ask("C")],
    )]);
    (team, llm)
}

fn check_shape(team: &Team, llm: &ScriptedLlm, rounds: u32) {
    assert_eq!(rounds, 1, "S5: one round");
    assert_eq!(llm.calls(), 2 * STEPS, "S5: a think and an act per step");
    let memory = team.env.role("Solo").expect("the role").state.memory.all();
    assert_eq!(memory.len(), STEPS + 1, "S5: the requirement and one message per step");
    for (k, m) in memory[1..].iter().enumerate() {
        assert_eq!(m.cause_by.as_str(), ["A", "B", "C"][k % 3], "S5: step {k} follows the model's choice");
    }
}

pub async fn run(now: Now) -> Vec<Figure> {
    let (mut overall, mut first, mut last) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..WARM_UP + RUNS {
        let (mut team, llm, stamps) = build(now);
        team.run_project("start");
        let outcome = team.run(1).await;
        check_shape(&team, &llm, outcome.rounds_run);
        let mut bounds = stamps.steps.borrow().clone();
        assert_eq!(bounds.len(), STEPS, "S5: one think per step");
        bounds.push(stamps.round_end.get());
        if i >= WARM_UP {
            overall.push((bounds[STEPS] - bounds[0]) / STEPS as f64);
            first.push((bounds[100] - bounds[0]) / 100.0);
            last.push((bounds[STEPS] - bounds[STEPS - 100]) / 100.0);
        }
    }

    // Peak heap of one more run; the scripted model keeps every request it
    // received (2,000 prompts, each with the whole history), which is the
    // test model's cost, not the role's: it is reported beside the peak.
    let watch = HeapWatch::start();
    let (mut team, llm, _stamps) = build(now);
    team.run_project("start");
    team.run(1).await;
    let (peak, allocations) = (watch.peak(), watch.allocations());
    drop(watch);
    let log: usize = llm.requests().iter().flat_map(|r| r.messages.iter()).map(|m| m.content.len()).sum();

    vec![
        Figure::ms("S5", "react step, mean over 1,000", median(&overall)).vs("0.92 ms", Some(0.92)),
        Figure::ms("S5", "  first 100", median(&first)).vs("0.16 ms", Some(0.16)),
        Figure::ms("S5", "  last 100", median(&last)).vs("1.6 ms", Some(1.6)),
        Figure::count("S5", "heap allocations per step", allocations / STEPS as f64),
        Figure::bytes("S5", "peak heap (incl. the model's request log)", peak),
        Figure::bytes("S5", "  of which prompts kept by the scripted model", log as f64),
    ]
}
