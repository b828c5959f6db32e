//! One line of the conversation (`Entry`), what kind of line it is
//! (`EntryKind`, with the CSS class the site and the widget both style it
//! by), and how a model answer splits into its prose and its folded
//! commands.
//!
//! Plain data: it decides nothing about when an entry is made or changed
//! (that is `RunView::apply`'s) and renders nothing.

/// One line of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: u64,
    pub role: String,
    pub kind: EntryKind,
    /// What to show in full (thoughts, a message, a reply, a question).
    pub text: String,
    /// JSON commands in the answer, folded away by default.
    pub commands: Option<String>,
    /// What the answer's commands did, in words (`words::deed`).
    pub deeds: Vec<String>,
    /// Still streaming.
    pub live: bool,
    /// The person's images with this request (`data:` URLs; site only).
    #[cfg(feature = "images")]
    pub images: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// The user's idea or message.
    User,
    /// A model answer (thoughts, commands) as it streams.
    Answer,
    /// A message from one role to another.
    Message { to_all: bool },
    /// `reply_to_human`: highlighted.
    Reply,
    /// `ask_human`: waits for the user's answer.
    Question { question_id: u64, answered: bool },
    /// Something went wrong and what to do about it.
    Error,
    /// A role's summary of its earlier work (it replaced `covered`
    /// messages of its history): shown folded, under [`summary_label`].
    #[cfg(feature = "site")]
    Summary { covered: u32 },
    /// A line of the conversation a share link carried into a copy: shown
    /// as plain text, first, and read by no role.
    #[cfg(feature = "site")]
    Shared,
}

/// The one line a folded summary shows.
#[cfg(feature = "site")]
pub fn summary_label(covered: u32) -> String {
    match covered {
        0 => "Earlier work summarised".to_string(),
        1 => "Earlier work summarised (1 message)".to_string(),
        n => format!("Earlier work summarised ({n} messages)"),
    }
}

impl EntryKind {
    /// The CSS class an entry of this kind is styled by: the site's
    /// `style.css` (`.entry.reply`) and the widget's shadow DOM (`.reply`,
    /// also the `kind` its page hears) use the same names.
    pub fn class(self) -> &'static str {
        match self {
            EntryKind::User => "user",
            EntryKind::Answer => "answer",
            EntryKind::Message { .. } => "message",
            EntryKind::Reply => "reply",
            EntryKind::Question { .. } => "question",
            EntryKind::Error => "error",
            #[cfg(feature = "site")]
            EntryKind::Summary { .. } => "summary",
            #[cfg(feature = "site")]
            EntryKind::Shared => "shared",
        }
    }
}

/// Split an answer into its prose and its ```json command block (folded in
/// the UI). Answers without a block stay whole.
pub fn split_commands(text: &str) -> (String, Option<String>) {
    let Some(start) = text.find("```json") else { return (text.to_string(), None) };
    let body_start = start + "```json".len();
    let end = text[body_start..].rfind("```").map(|e| body_start + e).unwrap_or(text.len());
    let commands = text[body_start..end].trim().to_string();
    let mut thoughts = text[..start].trim_end().to_string();
    let after = text.get(end + 3..).unwrap_or("").trim();
    if !after.is_empty() {
        thoughts.push_str("\n\n");
        thoughts.push_str(after);
    }
    (thoughts, (!commands.is_empty()).then_some(commands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_class() {
        let cases: &[(EntryKind, &str)] = &[
            (EntryKind::User, "user"),
            (EntryKind::Answer, "answer"),
            (EntryKind::Message { to_all: true }, "message"),
            (EntryKind::Message { to_all: false }, "message"),
            (EntryKind::Reply, "reply"),
            (EntryKind::Question { question_id: 3, answered: false }, "question"),
            (EntryKind::Question { question_id: 3, answered: true }, "question"),
            (EntryKind::Error, "error"),
        ];
        for (kind, class) in cases {
            assert_eq!(kind.class(), *class, "{kind:?}");
        }
    }

    /// The names given out are the ones the stylesheets style: the site's
    /// `.entry.<class>` rules and the widget's `.<class>` rules (an answer
    /// is unstyled in both; the widget leaves a message plain too).
    #[test]
    fn the_styled_kinds_are_the_kinds_given_out() {
        let site = include_str!("../../../www/style.css");
        let widget = include_str!("../../widget/tabteam-widget.js");
        let question = EntryKind::Question { question_id: 1, answered: false };
        for kind in [EntryKind::User, EntryKind::Message { to_all: false }, EntryKind::Reply, question, EntryKind::Error] {
            assert!(site.contains(&format!(".entry.{}", kind.class())), "style.css has no .entry.{}", kind.class());
        }
        for kind in [EntryKind::User, EntryKind::Reply, question, EntryKind::Error] {
            assert!(widget.contains(&format!("\n.{}{{", kind.class())), "the widget's CSS has no .{} rule", kind.class());
        }
    }

    #[test]
    fn split_commands_cases() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("just prose", "just prose", None),
            ("I will plan.\n```json\n[{\"command_name\": \"end\"}]\n```", "I will plan.", Some("[{\"command_name\": \"end\"}]")),
            ("pre\n```json\n[]\n```\npost", "pre\n\npost", Some("[]")),
            ("cut ```json\n[{\"a\":1}", "cut", Some("[{\"a\":1}")),
        ];
        for (text, thoughts, commands) in cases {
            let (t, c) = split_commands(text);
            assert_eq!((t.as_str(), c.as_deref()), (*thoughts, *commands), "{text:?}");
        }
    }
}
