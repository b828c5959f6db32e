//! The human in the loop: a role asks a question and waits for the answer
//! (`RoleZero.ask_human`), or shows the user something (`reply_to_human`).
//!
//! The core only defines the port and two pure implementations: a
//! [`HumanDesk`] that parks each question until the UI answers it (with no
//! timeout, cancellable), and a [`ScriptedHuman`] for tests. It renders
//! nothing; events tell the UI what to show.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::future::LocalBoxFuture;

use super::events::{EventSink, TeamEvent};

/// What a role may ask of the human.
pub trait Human {
    /// Ask and wait for the answer. A cancelled question answers "<stop>",
    /// which RoleZero reads as the user asking it to stop.
    fn ask(&self, role: &str, question: &str) -> LocalBoxFuture<'static, String>;
    /// Show content to the user.
    fn reply(&self, role: &str, content: &str);
}

/// The answer a cancelled question gets.
pub const STOP_ANSWER: &str = "<stop>";

/// Questions waiting for the UI.
#[derive(Default)]
pub struct HumanDesk {
    events: EventSink,
    next_id: RefCell<u64>,
    waiting: RefCell<Vec<(u64, oneshot::Sender<String>)>>,
}

impl HumanDesk {
    pub fn new(events: EventSink) -> Self {
        Self { events, ..Default::default() }
    }

    /// Answer question `id`; false if it is not waiting (already answered).
    pub fn answer(&self, id: u64, text: &str) -> bool {
        let mut waiting = self.waiting.borrow_mut();
        match waiting.iter().position(|(q, _)| *q == id) {
            Some(i) => {
                let (_, tx) = waiting.remove(i);
                tx.send(text.to_string()).is_ok()
            }
            None => false,
        }
    }

    /// Cancel every waiting question (the run is stopped).
    pub fn cancel_all(&self) {
        for (_, tx) in self.waiting.borrow_mut().drain(..) {
            let _ = tx.send(STOP_ANSWER.to_string());
        }
    }

    pub fn waiting(&self) -> Vec<u64> {
        self.waiting.borrow().iter().map(|(id, _)| *id).collect()
    }
}

impl Human for HumanDesk {
    fn ask(&self, role: &str, question: &str) -> LocalBoxFuture<'static, String> {
        let id = {
            let mut next = self.next_id.borrow_mut();
            *next += 1;
            *next
        };
        let (tx, rx) = oneshot::channel();
        self.waiting.borrow_mut().push((id, tx));
        self.events.emit(TeamEvent::AskHuman { id, role: role.into(), question: question.to_string() });
        Box::pin(async move { rx.await.unwrap_or_else(|_| STOP_ANSWER.to_string()) })
    }

    fn reply(&self, role: &str, content: &str) {
        self.events.emit(TeamEvent::ReplyToHuman { role: role.into(), content: content.to_string() });
    }
}

/// Answers from a script, in order; records what was asked and replied.
#[derive(Clone, Default)]
pub struct ScriptedHuman {
    answers: Rc<RefCell<VecDeque<String>>>,
    pub asked: Rc<RefCell<Vec<String>>>,
    pub replies: Rc<RefCell<Vec<String>>>,
}

impl ScriptedHuman {
    pub fn new<S: Into<String>>(answers: impl IntoIterator<Item = S>) -> Self {
        Self { answers: Rc::new(RefCell::new(answers.into_iter().map(Into::into).collect())), ..Default::default() }
    }
}

impl Human for ScriptedHuman {
    fn ask(&self, _role: &str, question: &str) -> LocalBoxFuture<'static, String> {
        self.asked.borrow_mut().push(question.to_string());
        // Running out answers "<stop>": a test that asks more than it
        // scripted sees the role stop, not hang.
        let answer = self.answers.borrow_mut().pop_front().unwrap_or_else(|| STOP_ANSWER.to_string());
        Box::pin(async move { answer })
    }

    fn reply(&self, _role: &str, content: &str) {
        self.replies.borrow_mut().push(content.to_string());
    }
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;
    use futures::FutureExt;

    use super::*;

    #[test]
    fn the_desk_parks_questions_until_answered() {
        let asked = Rc::new(RefCell::new(Vec::new()));
        let seen = asked.clone();
        let desk = HumanDesk::new(EventSink::new(move |e| {
            if let TeamEvent::AskHuman { id, question, .. } = e {
                seen.borrow_mut().push((*id, question.clone()));
            }
        }));
        let mut first = desk.ask("Mike", "which colour?");
        let second = desk.ask("Mike", "continue?");
        assert!((&mut first).now_or_never().is_none(), "waits for the answer");
        assert_eq!(*asked.borrow(), [(1, "which colour?".to_string()), (2, "continue?".to_string())]);
        assert!(desk.answer(1, "blue"));
        assert!(!desk.answer(1, "again"), "answered once only");
        assert_eq!(block_on(first), "blue");
        desk.cancel_all();
        assert_eq!(block_on(second), STOP_ANSWER);
        assert!(desk.waiting().is_empty());
    }
}
