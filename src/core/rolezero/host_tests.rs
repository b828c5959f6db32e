//! RoleZero with the host page's tools and context (the widget's case): the
//! tools are listed after the role's own commands, a call reaches the page
//! with its arguments and its result goes back to the model, and the page
//! context rides in the last turn of every request, as it stands then.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::zero::{RoleZero, ZeroConfig};
use crate::core::commands::host::{HostCall, HostOutcome, HostPort, HostTool, HostTools};
use crate::core::cost::{Price, PriceTable};
use crate::core::events::EventSink;
use crate::core::human::ScriptedHuman;
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::role::RoleSpec;
use crate::core::team::Team;
use crate::cross_test;

const MODEL: &str = "scripted";

/// A todo page: `add_todo` appends to its list and updates its context.
#[derive(Default)]
struct TodoPage {
    items: RefCell<Vec<String>>,
    host: RefCell<Weak<HostTools>>,
}

impl HostPort for TodoPage {
    fn approve(&self, _: &HostCall) -> LocalBoxFuture<'static, bool> {
        Box::pin(async { false })
    }

    fn run(&self, call: &HostCall) -> LocalBoxFuture<'static, HostOutcome> {
        let text = call.args.get("text").and_then(Value::as_str).unwrap_or_default().to_owned();
        self.items.borrow_mut().push(text.clone());
        let list = self.items.borrow().join(", ");
        if let Some(host) = self.host.borrow().upgrade() {
            host.set_context("todos", &format!("{} item(s): {list}", self.items.borrow().len()));
        }
        Box::pin(async move { HostOutcome::Returned(json!(format!("Added '{text}'."))) })
    }
}

fn cmds(json: &str) -> String {
    format!("Let me do that.\n```json\n{json}\n```")
}

/// The assistant Tabby alone, on `llm` (priced, with $10), events to `sink`.
fn tabby_team(llm: &ScriptedLlm, sink: EventSink) -> Team {
    let mut team = Team::new("a web page", Rc::new(llm.clone()), sink);
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.0, 1.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(10.0);
    team.hire([RoleZero::new(ZeroConfig::default(), |_| {}).into_role(RoleSpec::new("Tabby", "Assistant").goal("help"))]);
    team.env.world.human = Rc::new(ScriptedHuman::new(Vec::<&str>::new()));
    team
}

fn request_text(llm: &ScriptedLlm, call: usize) -> (String, String) {
    let request = &llm.requests()[call];
    let first = request.messages.first().map(|m| m.content.to_string()).unwrap_or_default();
    let last = request.messages.last().map(|m| m.content.to_string()).unwrap_or_default();
    (first, last)
}

cross_test! {
    async fn an_agent_calls_the_pages_tool_and_reads_its_context_in_each_last_turn() {
        let llm = ScriptedLlm::from_texts(MODEL, [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "Host.add_todo", "args": {"text": "buy milk"}}]"#),
            cmds(r#"[{"command_name": "RoleZero.reply_to_human", "args": {"content": "Added buy milk."}}, {"command_name": "end"}]"#),
        ]);
        let mut team = tabby_team(&llm, EventSink::default());

        let page = Rc::new(TodoPage::default());
        let host = Rc::new(HostTools::new(page.clone()));
        *page.host.borrow_mut() = Rc::downgrade(&host);
        let schema = json!({"type": "object", "properties": {"text": {"type": "string", "description": "the item"}}, "required": ["text"]});
        host.set_tools(vec![HostTool::from_schema("add_todo", "Add an item to the list.", &schema, false).expect("schema")]);
        host.set_context("todos", "0 items");
        team.env.world.host = Some(host);

        team.run_project("add 'buy milk'");
        team.run(3).await;

        assert_eq!(llm.calls(), 3);
        assert_eq!(*page.items.borrow(), ["buy milk"]);
        let (_, quick_last) = request_text(&llm, 0);
        assert!(quick_last.starts_with("# Page context") && quick_last.contains("## todos\n0 items"), "{quick_last}");
        let (system, think_last) = request_text(&llm, 1);
        let own = RoleZero::new(ZeroConfig::default(), |_| {}).registry().len();
        assert!(system.contains(&format!("{}. Host.add_todo(text: str):\nAdd an item to the list.\n- text: the item", own + 1)), "{system}");
        assert!(!system.contains("Page context"), "the context stays out of the system turn");
        assert!(think_last.starts_with("# Page context") && think_last.contains("0 items") && think_last.contains("# Current plan"), "{think_last}");
        // The next prompt has the tool's result and the context as the page changed it.
        let third: String = llm.requests()[2].messages.iter().map(|m| m.content.to_string()).collect::<Vec<_>>().join("\n");
        assert!(third.contains("Command Host.add_todo executed: Added 'buy milk'."), "{third}");
        let (_, third_last) = request_text(&llm, 2);
        assert!(third_last.contains("## todos\n1 item(s): buy milk") && !third_last.contains("0 items"), "{third_last}");
    }
}

/// A page that approves, noting the status line the person reads meanwhile.
struct ApprovingPage {
    view: Rc<RefCell<crate::core::view::RunView>>,
    seen: RefCell<Vec<String>>,
}

impl HostPort for ApprovingPage {
    fn approve(&self, _: &HostCall) -> LocalBoxFuture<'static, bool> {
        self.seen.borrow_mut().push(self.view.borrow().status());
        Box::pin(async { true })
    }

    fn run(&self, _: &HostCall) -> LocalBoxFuture<'static, HostOutcome> {
        Box::pin(async { HostOutcome::Returned(json!("Added.")) })
    }
}

cross_test! {
    /// Issue #32, item 10: while a tool call waits for the person's
    /// approval the status says so, not "working".
    async fn the_status_says_a_call_waits_for_approval() {
        let llm = ScriptedLlm::from_texts(MODEL, [
            "TASK".to_string(),
            cmds(r#"[{"command_name": "Host.add_todo", "args": {"text": "buy milk"}}]"#),
            cmds(r#"[{"command_name": "RoleZero.reply_to_human", "args": {"content": "Added."}}, {"command_name": "end"}]"#),
        ]);
        let view = Rc::new(RefCell::new(crate::core::view::RunView::default()));
        let sink = view.clone();
        let mut team = tabby_team(&llm, EventSink::new(move |e| sink.borrow_mut().apply(e)));
        let page = Rc::new(ApprovingPage { view: view.clone(), seen: RefCell::default() });
        let host = Rc::new(HostTools::new(page.clone()));
        let schema = json!({"type": "object", "properties": {"text": {"type": "string", "description": "the item"}}, "required": ["text"]});
        host.set_tools(vec![HostTool::from_schema("add_todo", "Add an item to the list.", &schema, true).expect("schema")]);
        assert!(host.asks_approval("Host.add_todo") && !host.asks_approval("Host.other"));
        team.env.world.host = Some(host);
        team.run_project("add 'buy milk'");
        team.run(3).await;
        assert_eq!(*page.seen.borrow(), ["Tabby is waiting for your approval to run add_todo"]);
    }
}
