//! The status line: what the team waits for, in words, as the site's run
//! bar and the widget both show it (a question for the person first, then
//! who is doing what, then why the run stopped or the version it made), and
//! what to tell the person about each stop.
//!
//! Read from a `RunView`; it changes nothing. Words only: it does not say
//! where the line goes, and states of the page around the team (a widget
//! still loading its kept conversation) are the page's own.

use std::borrow::Cow;

use crate::core::events::StopReason;
use crate::core::versions::{ProjectVersion, RequestKind, TestSummary};
use super::{RunState, RunView};
use super::words::doing_from_stream;

/// What the status says of the version a run made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VersionNote {
    pub(crate) number: u32,
    pub(crate) tests: Option<TestSummary>,
    pub(crate) restored: Option<u32>,
}

impl RunView {
    /// The status line: what the team waits for, in words. A question for
    /// the person comes first (the team waits for them, whatever the round);
    /// then who is doing what; then why it stopped, or the version it made.
    pub fn status(&self) -> String {
        match &self.state {
            RunState::NotStarted => "Starting…".into(),
            RunState::Running => {
                let asking: Vec<&str> = self.open_questions().iter().map(|e| e.role.as_str()).collect();
                match asking.as_slice() {
                    [] => {}
                    [role] => return format!("{role} asks you a question"),
                    _ => return format!("{} questions wait for your answer", asking.len()),
                }
                let busy: Vec<String> = self.busy.iter().map(|(role, doing)| format!("{role} is {}", self.doing(role, doing))).collect();
                if busy.is_empty() {
                    "The team is working…".into()
                } else {
                    busy.join(", ")
                }
            }
            RunState::Stopped(StopReason::Idle) => match self.version {
                Some(VersionNote { number, restored: Some(back), .. }) => rolled_back(number, back),
                Some(VersionNote { number, tests, .. }) => ready(number, None, tests),
                None => match self.testing {
                    Some(number) => format!("Done; running version {number}'s tests…"),
                    None => stop_text(&StopReason::Idle),
                },
            },
            RunState::Stopped(reason) => stop_text(reason),
        }
    }

    /// Whether Resume has something to carry on: the run stands still and
    /// either stopped short (`StopReason::can_resume`) or, done, was given
    /// work since (`work_left`, `Session::has_work_left`: a plan edit the
    /// leader has yet to hear). Never while it runs.
    pub fn can_resume(&self, work_left: bool) -> bool {
        matches!(&self.state, RunState::Stopped(reason) if reason.can_resume() || work_left)
    }

    /// What `role` is doing: its label, or the file its streaming answer writes.
    fn doing<'a>(&self, role: &str, label: &'a str) -> Cow<'a, str> {
        if label == "thinking" {
            if let Some(doing) = self.live.get(role).and_then(|&i| doing_from_stream(&self.entries[i].text)) {
                return doing.into();
            }
        }
        label.into()
    }
}

/// The status of a session whose every request is answered, read from its
/// versions (so it is the same live, after a restore and after a reload):
/// the last version and its tests, an automatic rollback, or, where the
/// versions hold no file (a widget's notes page), no version at all.
/// `None` before the first version.
pub fn done_text(versions: &[ProjectVersion]) -> Option<String> {
    let last = versions.last()?;
    if last.files.is_empty() {
        return Some("Done: the team has answered.".into());
    }
    let before = versions.len().checked_sub(2).map(|i| &versions[i]);
    Some(match (last.kind, before) {
        // The rollback follows the version that broke the tests.
        (RequestKind::Restore { from }, Some(broken)) if broken.breaks_tests => rolled_back(broken.number, from),
        (RequestKind::Restore { from }, _) => ready(last.number, Some(from), last.tests),
        _ => ready(last.number, None, last.tests),
    })
}

fn rolled_back(number: u32, back: u32) -> String {
    format!("Done: version {number} broke the tests, so version {back} was restored.")
}

/// Version `number` (a restore of `from`) is ready, with its tests.
fn ready(number: u32, from: Option<u32>, tests: Option<TestSummary>) -> String {
    let version = match from {
        Some(from) => format!("version {number} (version {from} restored)"),
        None => format!("version {number}"),
    };
    match tests.map(|t| (t.passed, t.failed)) {
        None | Some((0, 0)) => format!("Done: {version} is ready."),
        Some((1, 0)) => format!("Done: {version} is ready; its test passes."),
        Some((passed, 0)) => format!("Done: {version} is ready; its {passed} tests pass."),
        Some((0, 1)) => format!("Done: {version} is ready, but its test fails."),
        Some((passed, failed)) => format!("Done: {version} is ready, but {failed} of its {} tests fail.", passed + failed),
    }
}

/// What to tell the person about a stop, and what they can do.
pub fn stop_text(reason: &StopReason) -> String {
    match reason {
        StopReason::Idle => "Done: every role is idle.".into(),
        StopReason::RoundsDone => "Paused: the rounds you allowed are used up. Resume to give the team more rounds.".into(),
        StopReason::BudgetExhausted { spent, budget } => {
            format!("Stopped: the budget is used up (${spent:.4} of ${budget:.2}). Raise the budget in Settings, then Resume.")
        }
        StopReason::UnknownPrice { model } => {
            format!("Stopped: no price is known for \"{model}\". Enter its price per million tokens in Settings, then Resume.")
        }
        StopReason::Cancelled => "Stopped by you. Resume to carry on where the team was.".into(),
        #[cfg(feature = "site")]
        StopReason::CallLimit { calls } => format!(
            "Paused: the team made the {} Settings allow a run. What it wrote so far is a version; Resume to let it go on.",
            crate::core::cost::model_calls(*calls)
        ),
        StopReason::Interrupted => "Interrupted: the tab closed while the team was working. Everything up to then was saved; \
                                    Resume carries on where it was (an answer that was cut off is asked for again)."
            .into(),
        // Each error says what happened and what to do (see
        // `core::error_texts`); here they only become whole sentences.
        StopReason::Failed { errors } => {
            let list: Vec<String> = errors.iter().map(|(role, e)| format!("{role}: {}", sentence(e))).collect();
            format!("Paused after an error. {} Nothing was lost.", list.join(" "))
        }
    }
}

/// `text` as a sentence of its own: trimmed, with a full stop when it has
/// no closing punctuation, so the next sentence does not run into it.
fn sentence(text: &str) -> String {
    let text = text.trim();
    match text.chars().last() {
        None => String::new(),
        Some('.' | '!' | '?' | '\u{2026}') => text.to_owned(),
        Some(_) => format!("{text}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cost::CostEntry;
    use crate::core::events::TeamEvent;

    fn version(number: u32, kind: RequestKind, files: &[&str], tests: Option<(u32, u32)>, breaks_tests: bool) -> ProjectVersion {
        use crate::core::versions::FileRef;
        ProjectVersion {
            number,
            kind,
            request: String::new(),
            files: files.iter().map(|p| (p.to_string(), FileRef { path: String::new(), version: 1, digest: 0 })).collect(),
            tests: tests.map(|(passed, failed)| TestSummary { passed, failed }),
            spent: Default::default(),
            breaks_tests,
        }
    }

    /// Once every request is answered, the words come from the versions:
    /// none before the first; no version named where no file was made.
    #[test]
    fn the_done_status_is_read_from_the_versions() {
        use RequestKind::*;
        let v = version;
        let cases: Vec<(Vec<ProjectVersion>, Option<&str>)> = vec![
            (vec![], None),
            (vec![v(1, Idea, &[], None, false)], Some("Done: the team has answered.")),
            (vec![v(1, Idea, &["a.js"], Some((3, 0)), false)], Some("Done: version 1 is ready; its 3 tests pass.")),
            (vec![v(1, Idea, &["a.js"], None, false), v(2, FollowUp, &["a.js"], Some((1, 1)), false)], Some("Done: version 2 is ready, but 1 of its 2 tests fail.")),
            (vec![v(1, Idea, &["a.js"], None, false), v(2, FollowUp, &["a.js"], None, false), v(3, Restore { from: 1 }, &["a.js"], None, false)], Some("Done: version 3 (version 1 restored) is ready.")),
            (vec![v(1, Idea, &["a.js"], Some((2, 0)), false), v(2, FollowUp, &["a.js"], Some((1, 1)), true), v(3, Restore { from: 1 }, &["a.js"], Some((2, 0)), false)], Some("Done: version 2 broke the tests, so version 1 was restored.")),
        ];
        for (versions, want) in cases {
            assert_eq!(done_text(&versions).as_deref(), want, "{versions:?}");
        }
    }

    fn started(role: &str) -> TeamEvent {
        TeamEvent::LlmStarted { role: role.into(), model: "m".into(), quiet: false }
    }

    fn delta(role: &str, text: &str) -> TeamEvent {
        TeamEvent::LlmDelta { role: role.into(), text: text.into() }
    }

    fn finished(role: &str) -> TeamEvent {
        TeamEvent::LlmFinished {
            role: role.into(),
            entry: CostEntry { seq: 1, role: role.into(), model: "m".into(), prompt_tokens: 10, completion_tokens: 5, cost: 0.0, estimated: false, cached_tokens: 0, cache_write_tokens: 0 },
        }
    }

    /// The status line after each sequence of events: what the team waits
    /// for, in words, and never a round number.
    #[test]
    fn the_status_says_what_the_team_waits_for() {
        let round = TeamEvent::RoundStarted { round: 1 };
        let ask = TeamEvent::AskHuman { id: 1, role: "Mike".into(), question: "Which colour?".into() };
        let writing = "Coding.\n```json\n[{\"command_name\": \"Editor.write\", \"args\": {\"path\": \"game.js\", \"content\": \"export";
        let version = |tests: Option<(u32, u32)>, restored: Option<u32>| TeamEvent::VersionReady {
            number: 2,
            tests: tests.map(|(passed, failed)| TestSummary { passed, failed }),
            restored,
        };
        let idle = TeamEvent::Stopped { reason: StopReason::Idle };
        let testing = TeamEvent::TestsRunning { number: 2 };
        let cases: Vec<(Vec<TeamEvent>, &str)> = vec![
            (vec![], "Starting…"),
            (vec![round.clone()], "The team is working…"),
            (vec![round.clone(), started("Mike")], "Mike is thinking"),
            (vec![round.clone(), started("Alex"), delta("Alex", writing)], "Alex is writing game.js"),
            (vec![round.clone(), started("Alex"), delta("Alex", writing), started("Mike")], "Alex is writing game.js, Mike is thinking"),
            (
                vec![round.clone(), started("Alex"), TeamEvent::Waiting { role: "Alex".into(), seconds: 20, reason: "rate limited".into() }],
                "Alex is waiting 20 s: rate limited",
            ),
            (vec![round.clone(), started("Mike"), finished("Mike"), ask.clone()], "Mike asks you a question"),
            // Others still at work: the person is who the team waits for.
            (vec![round.clone(), started("Alex"), ask.clone()], "Mike asks you a question"),
            (vec![round.clone(), ask.clone(), TeamEvent::AskHuman { id: 2, role: "Alex".into(), question: "?".into() }], "2 questions wait for your answer"),
            (vec![round.clone(), idle.clone()], "Done: every role is idle."),
            // The version's tests run before it is named.
            (vec![round.clone(), idle.clone(), testing.clone()], "Done; running version 2's tests…"),
            (vec![round.clone(), idle.clone(), testing.clone(), version(Some((3, 0)), None)], "Done: version 2 is ready; its 3 tests pass."),
            (vec![round.clone(), idle.clone(), testing.clone(), round.clone()], "The team is working…"),
            (vec![round.clone(), idle.clone(), version(None, None)], "Done: version 2 is ready."),
            (vec![round.clone(), idle.clone(), version(Some((3, 0)), None)], "Done: version 2 is ready; its 3 tests pass."),
            (vec![round.clone(), idle.clone(), version(Some((2, 1)), None)], "Done: version 2 is ready, but 1 of its 3 tests fail."),
            (vec![round.clone(), idle.clone(), version(Some((1, 0)), None)], "Done: version 2 is ready; its test passes."),
            (vec![round.clone(), idle.clone(), version(Some((0, 1)), None)], "Done: version 2 is ready, but its test fails."),
            (vec![round.clone(), idle.clone(), version(Some((0, 0)), None)], "Done: version 2 is ready."),
            (vec![round.clone(), idle.clone(), version(Some((2, 1)), Some(1))], "Done: version 2 broke the tests, so version 1 was restored."),
            // A new request: the last version is no longer news.
            (vec![round.clone(), idle.clone(), version(None, None), round.clone()], "The team is working…"),
            (vec![round.clone(), TeamEvent::Stopped { reason: StopReason::Cancelled }], "Stopped by you. Resume to carry on where the team was."),
        ];
        for (events, status) in cases {
            let mut v = RunView::default();
            for e in &events {
                v.apply(e);
            }
            assert_eq!(v.status(), status, "{events:?}");
            assert!(!v.status().contains("Round"));
        }
        // Answered: the status moves on.
        let mut v = RunView::default();
        for e in [round, ask] {
            v.apply(&e);
        }
        v.answered(1, "blue");
        assert_eq!(v.status(), "The team is working…");
    }

    /// Resume is offered for a stop that left work to do, never for a run
    /// that is going or that ended with every role idle.
    #[test]
    fn only_a_run_with_work_left_can_resume() {
        let stopped = |reason: StopReason| {
            let mut v = RunView::default();
            v.apply(&TeamEvent::RoundStarted { round: 1 });
            v.apply(&TeamEvent::Stopped { reason });
            v
        };
        let resumable = [
            StopReason::RoundsDone,
            StopReason::BudgetExhausted { spent: 3.01, budget: 3.0 },
            StopReason::UnknownPrice { model: "llama3".into() },
            StopReason::Cancelled,
            StopReason::Failed { errors: vec![("Alice".into(), "bad key".into())] },
            StopReason::Interrupted,
        ];
        for reason in resumable {
            assert!(stopped(reason.clone()).can_resume(false), "{reason:?}");
        }
        assert!(!stopped(StopReason::Idle).can_resume(false));
        assert!(stopped(StopReason::Idle).can_resume(true), "done, then given work (a plan edit)");
        assert!(!RunView::default().can_resume(true), "not started");
        let mut running = stopped(StopReason::Cancelled);
        running.apply(&TeamEvent::RoundStarted { round: 2 });
        assert!(!running.can_resume(true), "running again");
    }

    #[test]
    fn stop_texts_say_what_to_do() {
        let cases: &[(StopReason, &str)] = &[
            (StopReason::BudgetExhausted { spent: 3.01, budget: 3.0 }, "Raise the budget"),
            (StopReason::UnknownPrice { model: "llama3".into() }, "price per million tokens"),
            (StopReason::Cancelled, "Resume"),
            (StopReason::Failed { errors: vec![("Alice".into(), "bad key".into())] }, "Alice: bad key. Nothing"),
            (StopReason::Idle, "Done"),
        ];
        for (reason, part) in cases {
            assert!(stop_text(reason).contains(part), "{reason:?}");
        }
    }
}
