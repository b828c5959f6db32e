//! Issue #33, item 3: a role's summary of its earlier work is shown to the
//! person folded, where it was made, live and reopened: the model's words
//! under a one-line label, never the prompt that asked for them.

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::cost::Price;
use crate::core::events::{EventSink, StopReason};
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::long_project_script::{answer_for, request_text};
use crate::core::rolezero::condense::{CONDENSE, SUMMARY_HEADING};
use crate::core::session::{Models, Session};
use crate::core::settings::{Settings, TeamKind};
use crate::core::window::ModelWindow;
use crate::cross_test;

use super::{summary_label, EntryKind, RunView};

/// (role, label, text) of every folded summary, in conversation order.
fn summaries(view: &RunView) -> Vec<(String, String, String)> {
    view.entries
        .iter()
        .filter_map(|e| match e.kind {
            EntryKind::Summary { covered } => Some((e.role.clone(), summary_label(covered), e.text.clone())),
            _ => None,
        })
        .collect()
}

cross_test! {
    async fn a_summary_shows_folded_where_it_was_made_live_and_reopened() {
        let settings = Settings {
            team: TeamKind::Company,
            model: "scripted".into(),
            custom_price: Some(Price::new(1.0, 2.0)),
            custom_window: Some(ModelWindow::new(16_384, 4_096)),
            budget: 1e6,
            rounds: 30,
            ..Settings::default()
        };
        let llm = ScriptedLlm::answering("scripted", |_, request| answer_for(request));
        let view = Rc::new(RefCell::new(RunView::default()));
        let sink = view.clone();
        let s = Session::new(&settings, Models::Given(Rc::new(llm.clone())), EventSink::new(move |e| sink.borrow_mut().apply(e)));
        let mut n = 0;
        while summaries(&view.borrow()).is_empty() {
            assert!(n <= 30, "no condensation in 30 follow-ups");
            s.send(&request_text(n)).unwrap();
            assert_eq!(s.run().await.unwrap().outcome.stop, StopReason::Idle);
            n += 1;
        }
        let live = summaries(&view.borrow());
        let (role, label, text) = &live[0];
        assert!(role == "Mike" || role == "Alex", "a RoleZero of the company: {role}");
        assert!(label.starts_with("Earlier work summarised (") && label.ends_with(" messages)"), "{label}");
        assert!(text.starts_with("I lead the work on a todo list page"), "the model's words: {text}");
        for (_, _, text) in &live {
            assert!(!text.contains(CONDENSE) && !text.contains(SUMMARY_HEADING), "no prompt text: {text}");
        }
        // Right before the answer that followed it.
        let at = view.borrow().entries.iter().position(|e| matches!(e.kind, EntryKind::Summary { .. })).unwrap();
        assert!(view.borrow().entries[at + 1..].iter().any(|e| e.role == *role && e.kind == EntryKind::Answer));
        // Reopened: the same summaries, in the same place among the entries.
        let restored = RunView::restored(&s.team().borrow().snapshot(), StopReason::Idle);
        assert_eq!(summaries(&restored), live);
        let kinds = |v: &RunView| v.entries.iter().map(|e| (e.role.clone(), e.kind)).collect::<Vec<_>>();
        let (live_kinds, restored_kinds) = (kinds(&view.borrow()), kinds(&restored));
        let place = |k: &[(String, EntryKind)]| k.iter().position(|(_, kind)| matches!(kind, EntryKind::Summary { .. }));
        let before = |k: &[(String, EntryKind)]| k[..place(k).unwrap()].iter().filter(|(_, kind)| *kind == EntryKind::User).count();
        assert_eq!(before(&restored_kinds), before(&live_kinds), "after as many of the person's requests");
        assert_eq!(summary_label(1), "Earlier work summarised (1 message)");
    }
}
