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
use super::settings::TeamKind;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::scripted::ScriptedLlm;

    #[test]
    fn every_kind_builds_its_roles() {
        let llm: Rc<dyn Llm> = Rc::new(ScriptedLlm::from_texts("m", Vec::<String>::new()));
        let names = |kind| -> Vec<String> {
            build_team(kind, llm.clone(), EventSink::default()).env.roles().iter().map(|r| r.name().to_string()).collect()
        };
        assert_eq!(names(TeamKind::Company), ["Mike", "Alice", "Bob", "Eve", "Alex", "Edward", "David"]);
        assert_eq!(names(TeamKind::FixedSop), ["Alice", "Bob", "Eve", "Alex", "Edward"]);
        assert_eq!(names(TeamKind::Assistant), [ASSISTANT]);
    }
}
