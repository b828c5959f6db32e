//! Teams by kind: what the site builds for a run, and what a saved session
//! is restored into (a snapshot holds state, not code; see `snapshot`).

use std::rc::Rc;

#[cfg(feature = "fixed-sop")]
use super::company::sop_team;
use super::events::EventSink;
use super::llm::Llm;
use super::mgx::mgx_team;
use super::role::RoleSpec;
use super::rolezero::zero::{RoleZero, ZeroConfig};
use super::settings::{Settings, TeamKind};
use super::team::Team;

/// The single assistant's name.
pub const ASSISTANT: &str = "Tabby";

/// Build the team of `kind`; its roles use `llm`.
pub fn build_team(kind: TeamKind, llm: Rc<dyn Llm>, events: EventSink) -> Team {
    match kind {
        TeamKind::Company => mgx_team(llm, events),
        #[cfg(feature = "fixed-sop")]
        TeamKind::FixedSop => sop_team(llm, events),
        // A build without the fixed-SOP pipeline (the widget) never offers
        // it; a saved session of that kind gets the company instead.
        #[cfg(not(feature = "fixed-sop"))]
        TeamKind::FixedSop => mgx_team(llm, events),
        TeamKind::Assistant => {
            let mut team = Team::new("a browser tab", llm, events);
            let config = ZeroConfig {
                instruction: "Help the user with their request. Plan the work when it takes several steps, write results to files with the editor, reply to the user and end.".into(),
                ..ZeroConfig::default()
            };
            let spec = RoleSpec::new(ASSISTANT, "Assistant").goal("help the user with whatever they ask, well and briefly");
            team.hire([RoleZero::new(config, |_| {}).into_role(spec)]);
            team
        }
    }
}

/// The roles of a team of `kind`, as (name, profile), for the settings'
/// per-role models. A plain list, not read off a built team: the settings
/// are on the site's first screen, and building a team there would put
/// every role's code in the start-up wasm (issue #7). A test keeps it equal
/// to what `build_team` hires.
pub fn role_names(kind: TeamKind) -> Vec<(String, String)> {
    let roster: &[(&str, &str)] = match kind {
        TeamKind::Company => &[
            ("Mike", "Team Leader"),
            ("Alice", "Product Manager"),
            ("Bob", "Architect"),
            ("Eve", "Project Manager"),
            ("Alex", "Engineer"),
            ("Edward", "QA Engineer"),
            ("David", "Data Analyst"),
        ],
        TeamKind::FixedSop => &[
            ("Alice", "Product Manager"),
            ("Bob", "Architect"),
            ("Eve", "Project Manager"),
            ("Alex", "Engineer"),
            ("Edward", "QA Engineer"),
        ],
        TeamKind::Assistant => &[(ASSISTANT, "Assistant")],
    };
    roster.iter().map(|(name, profile)| (name.to_string(), profile.to_string())).collect()
}

/// Give each role with an override in `settings` its own model, made by
/// `make(model)`; the others keep the team's. One model is made per
/// distinct name. Returns the roles that got their own model.
pub fn assign_models(team: &mut Team, settings: &Settings, make: impl Fn(&str) -> Rc<dyn Llm>) -> Vec<String> {
    let mut made: Vec<(String, Rc<dyn Llm>)> = Vec::new();
    let mut assigned = Vec::new();
    let names: Vec<String> = team.env.roles().iter().map(|r| r.name().to_string()).collect();
    for name in names {
        let Some(o) = settings.override_for(&name) else { continue };
        let model = o.model.trim();
        if model == settings.model.trim() {
            continue;
        }
        let llm = match made.iter().find(|(m, _)| m == model) {
            Some((_, llm)) => llm.clone(),
            None => {
                let llm = make(model);
                made.push((model.to_string(), llm.clone()));
                llm
            }
        };
        if let Some(role) = team.env.role_mut(&name) {
            role.set_llm(llm);
            assigned.push(name);
        }
    }
    assigned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::scripted::ScriptedLlm;
    use crate::cross_test;

    #[test]
    fn every_kind_builds_its_roles() {
        let llm: Rc<dyn Llm> = Rc::new(ScriptedLlm::from_texts("m", Vec::<String>::new()));
        let names = |kind| -> Vec<String> {
            build_team(kind, llm.clone(), EventSink::default()).env.roles().iter().map(|r| r.name().to_string()).collect()
        };
        assert_eq!(names(TeamKind::Company), ["Mike", "Alice", "Bob", "Eve", "Alex", "Edward", "David"]);
        assert_eq!(names(TeamKind::FixedSop), ["Alice", "Bob", "Eve", "Alex", "Edward"]);
        assert_eq!(names(TeamKind::Assistant), [ASSISTANT]);
        assert_eq!(role_names(TeamKind::Company)[4], ("Alex".to_string(), "Engineer".to_string()));
        for kind in TeamKind::ALL {
            let built: Vec<(String, String)> =
                build_team(kind, llm.clone(), EventSink::default()).env.roles().iter().map(|r| (r.spec.name.clone(), r.spec.profile.clone())).collect();
            assert_eq!(role_names(kind), built, "{kind:?}");
        }
    }

    cross_test! {
        async fn each_role_asks_its_own_model_and_pays_its_price() {
            use crate::core::cost::Price;
            use crate::core::llm::scripted::Turn;
            // The company's scripted 2048 run, with Alex (the engineer) on a
            // bigger model: his one answer comes from that model, the rest
            // from the team's.
            let script = crate::core::mgx::tests::script();
            let alex_turn = script.iter().position(|t| t.starts_with("I will write the rules in game.js")).expect("Alex's answer");
            let base = ScriptedLlm::new("small", script.iter().enumerate().filter(|(i, _)| *i != alex_turn).map(|(_, t)| Turn::text(t.clone())));
            let big = ScriptedLlm::from_texts("big", [script[alex_turn].clone()]);
            let mut settings = Settings { model: "small".into(), custom_price: Some(Price::new(1.0, 1.0)), ..Settings::default() };
            settings.set_override("Alex", "big", Some(Price::new(10.0, 10.0)));
            settings.set_override("Ghost", "other", None);
            let mut team = build_team(TeamKind::Company, Rc::new(base.clone()), EventSink::default());
            let made = std::cell::RefCell::new(Vec::new());
            let assigned = assign_models(&mut team, &settings, |model| {
                made.borrow_mut().push(model.to_string());
                Rc::new(big.clone())
            });
            assert_eq!(assigned, ["Alex"]);
            assert_eq!(*made.borrow(), ["big"], "only the models in use are made");
            team.ledger.borrow_mut().prices = settings.prices();
            team.invest(3.0);
            team.run_project("a 2048 game in HTML/JS");
            let outcome = team.run(20).await;
            assert_eq!(outcome.stop, crate::core::events::StopReason::Idle, "{:?}", outcome.failures);
            assert_eq!((base.remaining(), big.remaining()), (0, 0));
            assert!(base.requests().iter().all(|r| r.model == "small"));
            let big_requests = big.requests();
            assert_eq!(big_requests.len(), 1);
            assert_eq!(big_requests[0].model, "big");
            assert!(big_requests[0].messages.iter().any(|m| m.content.contains("Alex")), "Alex asked the big model");
            let ledger = team.ledger.borrow();
            assert_eq!(ledger.per_model().get("big").unwrap().calls, 1);
            assert_eq!(ledger.per_model().get("small").unwrap().calls as usize, script.len() - 1);
            let alex = ledger.entries().iter().find(|e| e.role == "Alex").unwrap();
            assert_eq!(alex.model, "big");
            assert!((alex.cost - Price::new(10.0, 10.0).cost(alex.prompt_tokens, alex.completion_tokens)).abs() < 1e-12);
        }
    }
}
