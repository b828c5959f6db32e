//! The five roles of the fixed-SOP company and the team that hires them.
//! `SOP_ROLES` is the one table both the team and the UI read: who each
//! role is, what it does, and which action it watches.
//!
//! Each role has one action and runs it BY_ORDER, so no model call is spent
//! choosing what to do; the order of the work comes from the watches alone.
//! Budgets, prices and the idea are the caller's business (`Team::invest`,
//! the ledger's price table, `Team::run_project`).

use std::rc::Rc;

use crate::core::action::Action;
use crate::core::events::EventSink;
use crate::core::llm::Llm;
use crate::core::message::USER_REQUIREMENT;
use crate::core::role::{ReactMode, Role, RoleSpec};
use crate::core::team::Team;

use super::{WriteCode, WriteDesign, WritePrd, WriteTasks, WriteTest};
use super::{WRITE_CODE, WRITE_DESIGN, WRITE_PRD, WRITE_TASKS, WRITE_TEST};

/// The environment's description, as the roles' prefixes name it.
pub const SOP_ENVIRONMENT: &str = "a software company";

/// One role of the company: what the UI shows and what the role is made of.
#[derive(Debug, Clone, Copy)]
pub struct SopRole {
    pub name: &'static str,
    pub profile: &'static str,
    /// The role's kind, an address besides its name (MetaGPT's class name).
    pub kind: &'static str,
    /// A single emoji for the role's avatar.
    pub avatar: &'static str,
    /// One line for a role card.
    pub summary: &'static str,
    pub goal: &'static str,
    pub constraints: &'static str,
    /// The action kind whose messages set the role to work.
    pub watches: &'static str,
    /// The action kind of what it produces.
    pub produces: &'static str,
    action: fn() -> Rc<dyn Action>,
}

impl SopRole {
    /// The role's spec: one action, BY_ORDER, watching `watches`.
    pub fn spec(&self) -> RoleSpec {
        RoleSpec::new(self.name, self.profile)
            .kind(self.kind)
            .goal(self.goal)
            .constraints(self.constraints)
            .watch([self.watches])
            .react_mode(ReactMode::ByOrder, 1)
    }

    /// A fresh role, ready to hire.
    pub fn role(&self) -> Role {
        Role::new(self.spec(), vec![(self.action)()])
    }
}

/// The company, in the order the work flows.
pub const SOP_ROLES: [SopRole; 5] = [
    SopRole {
        name: "Alice",
        profile: "Product Manager",
        kind: "ProductManager",
        avatar: "📋",
        summary: "Turns the idea into a product requirement document.",
        goal: "turn the user's idea into a clear, complete product requirement document",
        constraints:
            "write in the same language as the user's requirement, and ask for no more than the requirement needs",
        watches: USER_REQUIREMENT,
        produces: WRITE_PRD,
        action: || Rc::new(WritePrd),
    },
    SopRole {
        name: "Bob",
        profile: "Architect",
        kind: "Architect",
        avatar: "📐",
        summary: "Designs the system: approach, files, classes and call flow.",
        goal: "design a small, complete software system that can be built as specified",
        constraints:
            "prefer well-known open-source libraries and the simplest architecture that meets the requirements",
        watches: WRITE_PRD,
        produces: WRITE_DESIGN,
        action: || Rc::new(WriteDesign),
    },
    SopRole {
        name: "Eve",
        profile: "Project Manager",
        kind: "ProjectManager",
        avatar: "🗂️",
        summary: "Breaks the design into files to write, in dependency order.",
        goal:
            "break the design down into tasks, one per file, ordered so that every file comes after those it depends on",
        constraints: "write in the same language as the user's requirement",
        watches: WRITE_DESIGN,
        produces: WRITE_TASKS,
        action: || Rc::new(WriteTasks),
    },
    SopRole {
        name: "Alex",
        profile: "Engineer",
        kind: "Engineer",
        avatar: "💻",
        summary: "Writes the code, one file at a time.",
        goal: "write correct, readable and maintainable code that does what the design says",
        constraints: "follow the design and the task list exactly, and write complete files with no placeholders",
        watches: WRITE_TASKS,
        produces: WRITE_CODE,
        action: || Rc::new(WriteCode),
    },
    SopRole {
        name: "Edward",
        profile: "QA Engineer",
        kind: "QaEngineer",
        avatar: "🧪",
        summary: "Writes tests that show the code works.",
        goal: "write thorough, deterministic tests that show the code works as designed",
        constraints: "tests use the language's standard test tools and need no browser, network or clock",
        watches: WRITE_CODE,
        produces: WRITE_TEST,
        action: || Rc::new(WriteTest),
    },
];

/// The fixed-SOP company in "a software company": Alice, Bob, Eve, Alex and
/// Edward, each watching the previous one's action. Set the budget and the
/// prices, publish the idea with `run_project`, then `run`.
pub fn sop_team(llm: Rc<dyn Llm>, events: EventSink) -> Team {
    let mut team = Team::new(SOP_ENVIRONMENT, llm, events);
    team.hire(SOP_ROLES.iter().map(SopRole::role));
    team
}
