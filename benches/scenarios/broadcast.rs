//! S2: broadcast fan-out to fifty roles.
//!
//! B0..B49 all watch the requirement and reply once each (one LLM call);
//! nobody watches Reply. The round: publish the requirement (50
//! deliveries), run one round in which all 50 reply concurrently, each
//! reply sent to all (2,500 deliveries). Then a drain round in which every
//! role takes its 50 buffered replies, finds no news among them, and
//! nobody reacts.
//! The post office's routing is also timed alone, to tell delivery cost
//! from the rest of the round.

use tabteam::core::sorted_map::SortedSet;
use std::rc::Rc;

use tabteam::core::events::{EventSink, StopReason};
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::message::{Message, MessageId, MessageRef, ALL};
use tabteam::core::post::PostOffice;
use tabteam::core::role::{Role, RoleSpec};
use tabteam::core::team::Team;

use super::heap::HeapWatch;
use super::measure::{median, median_of_means, Now};
use super::team::{ask, model, priced_team};
use super::Figure;

const ROLES: usize = 50;
const WARM_UP: usize = 3;
const RUNS: usize = 21;
/// The requirement to 50 buffers, then 50 replies to 50 buffers each.
const DELIVERIES: usize = ROLES + ROLES * ROLES;

pub(super) fn build() -> (Team, ScriptedLlm) {
    let llm = model(|_, _| "ok".to_string());
    let mut team = priced_team(&llm, EventSink::default());
    team.hire((0..ROLES).map(|i| Role::new(RoleSpec::new(&format!("B{i}"), "Replier"), vec![ask("Reply")])));
    (team, llm)
}

pub async fn run(now: Now) -> Vec<Figure> {
    let (mut builds, mut rounds, mut drains) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..WARM_UP + RUNS {
        let t0 = now();
        let (mut team, llm) = build();
        let t1 = now();
        team.run_project("say something");
        let round = team.run(1).await;
        let t2 = now();
        let drain = team.run(1).await;
        let t3 = now();
        check_shape(&team, &llm, round.rounds_run, drain.rounds_run, &drain.stop);
        if i >= WARM_UP {
            builds.push(t1 - t0);
            rounds.push(t2 - t1);
            drains.push(t3 - t2);
        }
    }

    // Heap of one more team, counted in a pass of its own; allocations of
    // the round alone.
    let watch = HeapWatch::start();
    let (mut team, _llm) = build();
    let built = watch.allocations();
    team.run_project("say something");
    team.run(1).await;
    let round_allocations = watch.allocations() - built;
    team.run(1).await;
    let peak = watch.peak();
    drop(watch);

    let round = median(&rounds);
    vec![
        Figure::ms("S2", "build a 50-role team", median(&builds)).vs("1.3 s (62 ms w/o HTTP client)", Some(62.0)),
        Figure::ms("S2", "round (publish + 50 replies)", round).vs("13.2 ms", Some(13.2)),
        Figure::ms("S2", "  per reply (50)", round / ROLES as f64).vs("263 µs", Some(0.263)),
        Figure::ms("S2", "  per delivery (2,550)", round / DELIVERIES as f64).vs("5.2 µs", Some(0.0052)),
        Figure::ms("S2", "drain round", median(&drains)).vs("87 ms", Some(87.0)),
        Figure::ms("S2", "post office alone, per delivery", routing_per_delivery(now)),
        Figure::bytes("S2", "peak heap, build + both rounds", peak),
        Figure::count("S2", "heap allocations in the round, per reply", round_allocations / ROLES as f64),
    ]
}

/// Everyone replied once, to all; after the drain everyone is idle with
/// the requirement and its own reply in memory.
fn check_shape(team: &Team, llm: &ScriptedLlm, round: u32, drain: u32, stop: &StopReason) {
    assert_eq!(round, 1, "S2: one working round");
    assert_eq!(drain, 1, "S2: one drain round");
    assert_eq!(*stop, StopReason::Idle, "S2: idle after the drain");
    assert_eq!(llm.calls(), ROLES, "S2: one LLM call per role");
    let history = team.env.history();
    assert_eq!(history.len(), ROLES + 1, "S2: the requirement and 50 replies");
    assert!(history[1..].iter().all(|m| m.cause_by.as_str() == "Reply" && m.send_to.contains(ALL)));
    assert!(team.env.roles().iter().all(|r| r.state.memory.len() == 2), "S2: nobody reacts to a reply");
    assert!(team.env.is_idle());
}

/// `PostOffice::publish` of 51 messages to 50 roles (2,550 deliveries),
/// per delivery, on a fresh post office each time.
fn routing_per_delivery(now: Now) -> f64 {
    let messages: Vec<MessageRef> = (0..=ROLES).map(|i| Rc::new(Message::new(MessageId(i as u64 + 1), "ok"))).collect();
    let members: Vec<(String, SortedSet<String>)> =
        (0..ROLES).map(|i| (format!("B{i}"), SortedSet::from([format!("B{i}"), "Replier".to_string()]))).collect();
    median_of_means(7, 20, || {
        let mut post = PostOffice::default();
        for (name, addresses) in &members {
            post.register(name, addresses.clone());
        }
        let t0 = now();
        let delivered: usize = messages.iter().map(|m| post.publish(m.clone())).sum();
        let elapsed = now() - t0;
        assert_eq!(delivered, DELIVERIES);
        elapsed / DELIVERIES as f64
    })
}
