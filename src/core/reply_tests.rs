//! A whole answer ([`Reply::Whole`]) and the same answer streamed make the
//! same run: the same prompts, transcript, cost ledger and events, through
//! failures, journal replays and resumes. The scripted model answers one
//! chunk (or a failure) whole; a wrapper that only streams makes the other
//! run.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;

use crate::core::action::{Action, ActionContext, ActionOutput, AskAction};
use crate::core::cost::{CostLedger, Price, PriceTable};
use crate::core::events::{EventSink, StopReason};
use crate::core::llm::scripted::{ScriptedLlm, Turn};
use crate::core::llm::{ChatRequest, Llm, LlmError, Reply, StreamEvent};
use crate::core::message::ActionKind;
use crate::core::role::{ReactMode, Role, RoleSpec};
use crate::core::role_error::RoleError;
use crate::core::team::Team;
use crate::cross_test;

const MODEL: &str = "scripted";

/// The scripted model as it is, counting how it replies.
struct Counting {
    llm: ScriptedLlm,
    whole: Cell<usize>,
    streamed: Cell<usize>,
}

impl Llm for Counting {
    fn model(&self) -> &str {
        self.llm.model()
    }
    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        self.llm.stream(request)
    }
    fn reply(&self, request: ChatRequest) -> Reply {
        let reply = self.llm.reply(request);
        let count = if matches!(reply, Reply::Whole(_)) { &self.whole } else { &self.streamed };
        count.set(count.get() + 1);
        reply
    }
}

/// The scripted model, streaming every answer (the trait's default reply).
struct Streamed(ScriptedLlm);

impl Llm for Streamed {
    fn model(&self) -> &str {
        self.0.model()
    }
    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        self.0.stream(request)
    }
}

/// An action that asks twice (so its first answer is journaled) and joins
/// the answers.
struct AskTwice;

impl Action for AskTwice {
    fn kind(&self) -> ActionKind {
        ActionKind::new("AskTwice")
    }
    fn run<'a>(&'a self, cx: ActionContext<'a>) -> LocalBoxFuture<'a, Result<ActionOutput, RoleError>> {
        Box::pin(async move {
            let first = cx.llm.aask_owned(cx.prefix, format!("first, after:\n{}", cx.history_text)).await?;
            let second = cx.llm.quietly().aask("", &format!("second, after {first}")).await?;
            Ok(ActionOutput::text(format!("{first} + {second}")))
        })
    }
}

/// Every answer shape: one chunk, empty, many chunks, reported usage, and
/// failures (one mid-action, after a journaled answer; one in a think).
fn turns() -> Vec<Turn> {
    vec![
        // Alice (AskTwice): the first answer, then a failure: the round fails.
        Turn::text("draft"),
        Turn::Fail(LlmError::RateLimited { message: "slow down".into(), retry_after_ms: Some(2000) }),
        // Resumed: the journal answers the first call again; the second is made.
        Turn::with_usage("a reviewed answer that is much longer than one chunk", 120, 40),
        // Bob (react, A/B): think fails, then think 1, act, think 0, act, think -1.
        Turn::Fail(LlmError::ProviderDown { status: 503, message: "busy".into() }),
        Turn::text("1"),
        Turn::text(""),
        Turn::text("0"),
        Turn::text("a second long answer, streamed in several chunks"),
        Turn::text("-1"),
    ]
}

struct Run {
    requests: Vec<ChatRequest>,
    history: Vec<String>,
    ledger: CostLedger,
    events: Vec<String>,
    stops: Vec<StopReason>,
}

async fn run(llm: Rc<dyn Llm>, scripted: &ScriptedLlm) -> Run {
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = {
        let events = events.clone();
        EventSink::new(move |event| events.borrow_mut().push(format!("{event:?}")))
    };
    let mut team = Team::new("a test", llm, sink);
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 2.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(10.0);
    team.hire([
        Role::new(RoleSpec::new("Alice", "Writer"), vec![Rc::new(AskTwice)]),
        Role::new(
            RoleSpec::new("Bob", "Reviewer").watch(["AskTwice"]).react_mode(ReactMode::React, 5),
            vec![Rc::new(AskAction::new("A", "Do A.")), Rc::new(AskAction::new("B", "Do B."))],
        ),
    ]);
    team.run_project("write something");
    let mut stops = Vec::new();
    for _ in 0..4 {
        stops.push(team.run(10).await.stop);
    }
    let history = team.env.history().iter().map(|m| format!("{m:?}")).collect();
    let ledger = team.ledger.borrow().clone();
    Run { requests: scripted.requests(), history, ledger, events: events.take(), stops }
}

cross_test! {
    async fn whole_and_streamed_answers_make_the_same_run() {
        let scripted = ScriptedLlm::new(MODEL, turns());
        let counting = Rc::new(Counting { llm: scripted.clone(), whole: Cell::new(0), streamed: Cell::new(0) });
        let whole = run(counting.clone(), &scripted).await;
        assert_eq!(scripted.remaining(), 0, "every turn was asked for");
        assert_eq!((counting.whole.get(), counting.streamed.get()), (7, 2), "both kinds of reply were made");

        let scripted = ScriptedLlm::new(MODEL, turns());
        let streamed = run(Rc::new(Streamed(scripted.clone())), &scripted).await;

        assert_eq!(whole.requests, streamed.requests);
        assert_eq!(whole.history, streamed.history);
        assert_eq!(whole.ledger, streamed.ledger);
        assert_eq!(whole.events, streamed.events);
        assert_eq!(whole.stops, streamed.stops);
        // The run went where the turns say: two failures, each pausing the
        // run (the other role had nothing to do), each resumed by the next
        // run (the first answer replayed from the journal, not asked again),
        // then idle.
        let failed = |role: &str| matches!(whole.stops.iter().find(|s| matches!(s, StopReason::Failed { errors } if errors[0].0 == role)), Some(_));
        assert!(failed("Alice") && failed("Bob"), "{:?}", whole.stops);
        assert_eq!(whole.stops[2..], [StopReason::Idle, StopReason::Idle]);
        assert_eq!(whole.events.iter().filter(|e| e.starts_with("RoleFailed")).count(), 2);
        assert_eq!(whole.requests.len(), 9);
        assert_eq!(whole.ledger.total().calls, 7);
        assert!(whole.history.iter().any(|m| m.contains("draft + a reviewed answer")), "{:#?}", whole.history);
        assert!(whole.events.iter().any(|e| e.starts_with("LlmDelta") && e.contains("\"draft\"")));
    }
}
