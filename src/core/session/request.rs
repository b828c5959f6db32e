//! What the team is told when the person asks for more: a follow-up with
//! the project as it stands, or a preview error to fix, routed to the role
//! that acts on it in each kind of team.
//!
//! These texts are written for the model (they go into its prompt), in
//! the same plain words as the roles' instructions. Each request also
//! carries what the person's bubble says (`message::SHOWN`): the words the
//! person wrote, never this framing.

use super::super::files::ProjectFiles;
use super::super::message::{Message, SHOWN};
use super::super::plan::Plan;
use super::super::sandbox::ConsoleLine;
use super::super::settings::TeamKind;
use super::super::team::Team;
use super::preview_error_kind;

/// The action kind of a preview error sent to the engineer: not a
/// requirement, so the team leader (who hears all traffic) leaves it to
/// the engineer it is addressed to.
pub const PREVIEW_ERROR: &str = "PreviewError";

/// Lines shown around an error's line in the fix request.
const ERROR_CONTEXT_LINES: u32 = 3;

/// How a follow-up starts; a session saved before `SHOWN` existed shows
/// only what follows it on its line (see [`shown_of_legacy`]).
const FOLLOW_UP: &str = "Follow-up request from the user: ";

/// A request, ready to publish.
pub struct Routed {
    content: String,
    /// What the person's bubble says.
    shown: String,
    /// To the company's engineer alone; otherwise to everyone, as the
    /// user's requirement (the leader of the company, the first stage of
    /// the pipeline, the assistant hear it).
    to_engineer: bool,
}

impl Routed {
    pub(super) fn fix(kind: TeamKind, text: &str, summary: &str, notes: Vec<String>) -> Self {
        let content = with_notes(text, &notes);
        // The company's engineer fixes it directly; the pipeline and the
        // assistant take it as a request like any other.
        let shown = format!("Please fix this error from the preview: {}", summary.strip_prefix("Fix: ").unwrap_or(summary));
        Self { content, shown, to_engineer: kind == TeamKind::Company }
    }

    pub(super) fn publish(self, team: &mut Team) {
        if self.to_engineer {
            let message = Message::new(team.env.world.new_id(), self.content)
                .caused_by(preview_error_kind())
                .to([crate::core::mgx::ENGINEER])
                .with_meta(SHOWN, self.shown);
            team.env.publish(std::rc::Rc::new(message));
        } else {
            team.publish_user_message_shown(&self.content, &[], &self.shown);
        }
    }

    /// As [`publish`](Self::publish), the person's images with it (a fix
    /// has none, so this is a request to everyone).
    #[cfg(feature = "images")]
    pub(super) fn publish_with_images(self, team: &mut Team, images: &str) {
        team.publish_user_message_with(&self.content, &[], &[(SHOWN, &self.shown), (crate::core::image::IMAGES, images)]);
    }
}

/// A follow-up request about the project as it stands, which is
/// `version` in words (none before the first version was made).
pub(super) fn follow_up(kind: TeamKind, text: &str, version: Option<String>, files: &ProjectFiles, plan: Option<&Plan>, notes: Vec<String>) -> Routed {
    let shown = match version {
        Some(version) => format!("{text}\n\n(About {version}.)"),
        None => text.to_string(),
    };
    let mut content = format!("{FOLLOW_UP}{text}\n");
    if !notes.is_empty() {
        content.push_str(&format!("\nSince the last request:\n{}\n", bullets(&notes)));
    }
    content.push_str(&format!("\nThe project as it stands:\n{}\n", file_list(files)));
    match kind {
        TeamKind::Company => {
            if let Some(plan) = plan.filter(|p| !p.tasks().is_empty()) {
                let finished = plan.tasks().iter().filter(|t| t.is_finished).count();
                let tasks = plan.tasks().len();
                // A paragraph of its own: after the list without a blank
                // line, markdown runs it into the last item.
                content.push_str(&format!(
                    "\nThe plan has {tasks} task{}, {finished} finished. Keep the finished tasks as they are: append tasks for this change only \
                     (Plan.append_task), and tell each member which existing files to change.\n",
                    if tasks == 1 { "" } else { "s" }
                ));
            }
        }
        TeamKind::FixedSop => content.push_str(
            "\nChange the existing documents and code for this request; keep what still holds, and rewrite only the files the change needs.\n",
        ),
        TeamKind::Assistant => {}
    }
    Routed { content, shown, to_engineer: false }
}

/// What the bubble of a person's message saved without `SHOWN` says: a
/// follow-up's own words; `None` for anything else (shown as it is).
pub fn shown_of_legacy(content: &str) -> Option<&str> {
    content.strip_prefix(FOLLOW_UP).map(|rest| rest.lines().next().unwrap_or_default())
}

/// The fix request for a preview error: the error, and the lines around it
/// when it names a project file.
pub fn fix_text(error: &ConsoleLine, files: &ProjectFiles) -> String {
    let mut text = format!("The page shows an error when it runs in the preview. Fix the code so it no longer happens, then use end.\nError: {}", error.text);
    if let Some(source) = &error.source {
        text.push_str(&format!("\nAt: {}:{}", source.path, source.line));
        if let Ok(content) = files.read(&source.path) {
            let from = source.line.saturating_sub(ERROR_CONTEXT_LINES).max(1);
            let to = source.line.saturating_add(ERROR_CONTEXT_LINES);
            let shown: Vec<String> = content
                .lines()
                .zip(1u32..)
                .filter(|(_, n)| (from..=to).contains(n))
                .map(|(line, n)| format!("{}{n:03}|{line}", if n == source.line { ">" } else { " " }))
                .collect();
            if !shown.is_empty() {
                text.push_str(&format!("\n{}:\n{}", source.path, shown.join("\n")));
            }
        }
    }
    text
}

/// What a fix request is called in the versions list.
pub(super) fn error_summary(error: &ConsoleLine) -> String {
    let first = error.text.lines().next().unwrap_or("").trim();
    let mut summary: String = first.chars().take(120).collect();
    if first.chars().count() > 120 {
        summary.push('…');
    }
    match &error.source {
        Some(s) => format!("Fix: {summary} ({}:{})", s.path, s.line),
        None => format!("Fix: {summary}"),
    }
}

fn with_notes(text: &str, notes: &[String]) -> String {
    if notes.is_empty() {
        return text.to_string();
    }
    format!("{text}\n\nSince the last request:\n{}", bullets(notes))
}

fn bullets(lines: &[String]) -> String {
    lines.iter().map(|l| format!("- {l}")).collect::<Vec<_>>().join("\n")
}

fn file_list(files: &ProjectFiles) -> String {
    if files.is_empty() {
        return "(no files yet)".to_string();
    }
    files.paths().map(|p| format!("- {p} (version {})", files.version(p).unwrap_or(1))).collect::<Vec<_>>().join("\n")
}
