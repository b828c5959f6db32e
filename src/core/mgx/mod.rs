//! The software company, MGX-style: team leader Mike plans the work and
//! hands each task to a member; every member is a RoleZero that does its
//! task with the editor and reports back to Mike.
//!
//! Mike hears every message (the post office delivers him all traffic) but
//! reacts only to the user's requirements and to what is addressed to him.
//! The members' instructions are in `prompts/`, one file each, in our own
//! words. Nothing here is specific to a provider or to the browser.

#[cfg(test)]
pub(crate) mod tests;

use std::rc::Rc;

use crate::core::events::EventSink;
use crate::core::llm::Llm;
use crate::core::role::{Role, RoleSpec};
#[cfg(feature = "sandbox")]
use crate::core::sandbox::{register_sandbox_commands, SandboxRules};
use crate::core::rolezero::zero::{register_team_leader_commands, RoleZero, ZeroConfig};
use crate::core::team::Team;

/// The team leader's name.
pub const LEADER: &str = "Mike";
/// The engineer, who fixes the code when tests fail.
pub const ENGINEER: &str = "Alex";
/// The QA engineer, who runs the tests in the sandbox.
pub const QA: &str = "Edward";

/// The QA engineer's instruction: with the sandbox (the site), or without
/// it (the widget, built without the `sandbox` feature: no `Sandbox.*`
/// commands, so the instruction does not name them).
#[cfg(feature = "sandbox")]
const QA_INSTRUCTION: &str = concat!(include_str!("prompts/edward.md"), include_str!("../sandbox/what_runs.md"));
#[cfg(not(feature = "sandbox"))]
const QA_INSTRUCTION: &str = include_str!("prompts/edward_no_sandbox.md");

/// One member of the company, for building the team and for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub name: &'static str,
    pub profile: &'static str,
    pub goal: &'static str,
    pub instruction: &'static str,
}

/// Everyone, leader first.
pub const MEMBERS: &[Member] = &[
    Member {
        name: LEADER,
        profile: "Team Leader",
        goal: "turn the user's requirement into finished work by planning it and assigning each task to the right member",
        instruction: include_str!("prompts/mike.md"),
    },
    Member {
        name: "Alice",
        profile: "Product Manager",
        goal: "write a clear, complete product requirement document",
        instruction: include_str!("prompts/alice.md"),
    },
    Member {
        name: "Bob",
        profile: "Architect",
        goal: "design a small, sound system that meets the requirements",
        instruction: concat!(include_str!("prompts/bob.md"), include_str!("../sandbox/what_runs.md")),
    },
    Member {
        name: "Eve",
        profile: "Project Manager",
        goal: "break the design into files to write, in dependency order",
        instruction: include_str!("prompts/eve.md"),
    },
    Member {
        name: "Alex",
        profile: "Engineer",
        goal: "write complete, working code for every file of the task list",
        instruction: concat!(include_str!("prompts/alex.md"), include_str!("../sandbox/what_runs.md")),
    },
    Member {
        name: "Edward",
        profile: "QA Engineer",
        goal: "write tests that check the code's logic",
        instruction: QA_INSTRUCTION,
    },
    Member {
        name: "David",
        profile: "Data Analyst",
        goal: "answer data questions with sound methods and clear results",
        instruction: include_str!("prompts/david.md"),
    },
];

/// The role for `member`.
pub fn role(member: &Member) -> Role {
    let leads = member.name == LEADER;
    let config = ZeroConfig {
        instruction: member.instruction.to_string(),
        quick_think: leads,
        reply_on_end: leads,
        report_to: (!leads).then(|| LEADER.to_string()),
        ..ZeroConfig::default()
    };
    let reactor = RoleZero::new(config, |registry| {
        if leads {
            register_team_leader_commands(registry);
        }
        #[cfg(feature = "sandbox")]
        if member.name == QA {
            register_sandbox_commands(registry, SandboxRules { engineer: Some(ENGINEER.to_string()), ..SandboxRules::default() });
        }
    });
    let spec = RoleSpec::new(member.name, member.profile).goal(member.goal);
    // The leader reacts to requirements; members only to what is sent to them.
    let spec = if leads { spec } else { spec.watch(Vec::<&str>::new()) };
    reactor.into_role(spec)
}

/// The whole company in an environment called "a software company".
pub fn mgx_team(llm: Rc<dyn Llm>, events: EventSink) -> Team {
    let mut team = Team::new("a software company", llm, events);
    team.hire(MEMBERS.iter().map(role));
    team.env.world.post.borrow_mut().listen_to_all(LEADER);
    team
}
