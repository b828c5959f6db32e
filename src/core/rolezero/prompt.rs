//! RoleZero's prompts: the texts in `prompts/`, the system prompt (task
//! types, commands, the role, its instruction), the experience example, the
//! history as chat turns and the host page's context.
//!
//! Builds text only; when each is sent is the loop's business (`zero.rs`).

use crate::core::experience::{render_example, ExperiencePool};
use crate::core::llm::ChatMessage;
use crate::core::message::USER_REQUIREMENT;
use crate::core::plan::TASK_TYPES;
use crate::core::role::Role;
use crate::core::world::World;

use super::zero::RoleZero;

const SYSTEM: &str = include_str!("prompts/system.md");
pub(super) const COMMAND: &str = include_str!("prompts/command.md");
pub(super) const QUICK_THINK: &str = include_str!("prompts/quick_think.md");
pub(super) const QUICK_RESPONSE: &str = include_str!("prompts/quick_response.md");
pub(super) const REGENERATE: &str = include_str!("prompts/regenerate.md");
pub(super) const REPORT_TO_HUMAN: &str = include_str!("prompts/report_to_human.md");
pub(super) const SUMMARY: &str = include_str!("prompts/summary.md");
/// Experiences below this BM25 score are not offered as examples.
const MIN_EXPERIENCE_SCORE: f64 = 1.0;

impl RoleZero {
    /// The system prompt: the same for every call of this role. The text
    /// all RoleZeros share (task types, then the commands, common ones
    /// first) comes before this role's identity and instruction, so one
    /// role's request warms the cache for the next role's.
    pub(super) fn system_prompt(&self, role: &Role, world: &World) -> String {
        let task_types: String = TASK_TYPES.iter().map(|(name, desc)| format!("- {name}: {desc}\n")).collect();
        SYSTEM
            .replace("{task_types}", task_types.trim_end())
            .replace("{commands}", &self.command_prompt(world))
            .replace("{role_info}", &self.prefix(role, world))
            .replace("{instruction}", self.config.instruction.trim())
    }

    /// The past experience of this kind of role closest to the latest user
    /// requirement, as an example; it changes as experiences are recorded, so it goes in the
    /// last turn, not the system prompt.
    pub(super) fn example(&self, role: &Role, world: &World) -> String {
        let request = role
            .state
            .memory
            .all()
            .iter()
            .rev()
            .find(|m| m.cause_by.as_str() == USER_REQUIREMENT)
            .map(|m| m.content.clone())
            .unwrap_or_default();
        // Chosen once per request: experiences this same request recorded
        // (each member's `end` adds one) are left out, so the example, and
        // the cached prefix before it, stay the same for the whole request.
        let experience = world.experience.borrow();
        let mut earlier = ExperiencePool::with_capacity(experience.len());
        for e in experience.iter().filter(|e| e.request != request) {
            earlier.add(e.clone());
        }
        earlier.best_match(&role.spec.kind, &request, MIN_EXPERIENCE_SCORE).map(render_example).unwrap_or_else(|| "(none yet)".to_string())
    }

    /// The role's commands, then the host page's tools (if any) numbered
    /// after them.
    pub(super) fn command_prompt(&self, world: &World) -> String {
        let mut commands = self.registry.prepare_command_prompt();
        if let Some(host) = &world.host {
            commands.push_str(&host.command_prompt(self.registry.len() + 1));
        }
        commands
    }

    pub(super) fn prefix(&self, role: &Role, world: &World) -> String {
        role.prefix(&world.env_desc, &world.post.borrow().role_names())
    }
}

/// The hook for the host page's readable context: its section for the
/// last turn of a request, when the page set any.
pub(super) fn page_context(world: &World) -> Option<String> {
    world.host.as_ref().and_then(|host| host.context_block())
}

pub(super) fn with_system(system: &str, mut history: Vec<ChatMessage>) -> Vec<ChatMessage> {
    history.insert(0, ChatMessage::system(system));
    history
}

