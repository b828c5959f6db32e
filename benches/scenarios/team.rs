//! The team every team scenario builds on: a scripted model priced at zero
//! with a budget that never runs out, so the budget check before each call
//! runs (as in a real run) and always passes.

use std::rc::Rc;

use tabteam::core::action::{Action, AskAction};
use tabteam::core::cost::{Price, PriceTable};
use tabteam::core::events::EventSink;
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::llm::ChatRequest;
use tabteam::core::message::USER_REQUIREMENT;
use tabteam::core::role::{Role, RoleSpec};
use tabteam::core::team::Team;

pub const MODEL: &str = "scripted";

/// The S1 pipeline's roles.
pub const STAGES: usize = 5;

/// A zero-latency model answering with `answer`; it never runs out.
pub fn model(answer: impl Fn(usize, &ChatRequest) -> String + 'static) -> ScriptedLlm {
    ScriptedLlm::answering(MODEL, answer)
}

/// An empty team on `llm` (MetaGPT's default environment has no
/// description), the model priced at 0/0 and a budget of a billion dollars.
pub fn priced_team(llm: &ScriptedLlm, events: EventSink) -> Team {
    let mut team = Team::new("", Rc::new(llm.clone()), events);
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(0.0, 0.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(1e9);
    team
}

/// An action making exactly one LLM call, whose messages are `kind`.
pub fn ask(kind: &str) -> Rc<dyn Action> {
    Rc::new(AskAction::new(kind, format!("Do {kind}.")))
}

/// S1's team, model included: R0..R4 (profile Stage0..Stage4), RK runs
/// StageK; R0 watches the user requirement, RK watches Stage(K-1).
pub fn build_pipeline() -> (Team, ScriptedLlm) {
    let llm = model(|_, _| "ok".to_string());
    let mut team = priced_team(&llm, EventSink::default());
    team.hire((0..STAGES).map(|k| {
        let watch = if k == 0 { USER_REQUIREMENT.to_string() } else { format!("Stage{}", k - 1) };
        Role::new(RoleSpec::new(&format!("R{k}"), &format!("Stage{k}")).watch([watch]), vec![ask(&format!("Stage{k}"))])
    }));
    (team, llm)
}
