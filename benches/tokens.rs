//! `cargo bench --bench tokens`: what a project costs in tokens and dollars,
//! and how much of it a provider's prompt cache can serve (issue #22).
//!
//! Two runs of the MGX company, through the real prompt builders: the
//! site's sample recording (`recordings/company-2048.json`, answered in call
//! order by the scripted model, as the replay does), and a longer scripted
//! run (every member reads, writes, reads back, edits, the QA engineer runs
//! the tests, then each reports). Each request is sent through the real
//! codecs: the Anthropic body (with its `cache_control` breakpoints) goes to
//! a simulated Anthropic cache, the OpenAI one to a simulated OpenAI cache;
//! each simulated provider answers with a usage report in its own stream
//! format, the codec decodes it, and the cost ledger prices it.
//!
//! After each run's table, what holds the shared share back: the
//! characters no earlier request's prefix covers, by where they sit (the
//! closing turn, file reads, answers, each role's own system text), and a
//! check that every role's history is append-only. `TOKENS_DEBUG=1` lists
//! every call on stderr; `TOKENS_DEBUG=N` also prints call N's messages.
//!
//! Last, issue #33's long project: the idea and 30 follow-ups on a window
//! of 16k tokens (prompts sized, histories condensed) and on one so large
//! that nothing is condensed (as before): the prompt tokens of follow-ups
//! 1, 10, 20 and 30, where they go (system prompt, closing turn, history
//! by kind, summary calls), and each run's cache and bill table; then the
//! fixed pipeline's 2048 run against its follow-up, call by call. The
//! scripts are the core's (`core::long_project_script`,
//! `core::company::script`), the ones the tests run. `LONG_DEBUG=N` lists
//! follow-up N's calls, turn by turn, on stderr.
//!
//! Not a test: figures are printed, nothing is asserted. Tokens are
//! estimates (four characters a token, as `Usage::estimate`), not a
//! provider's tokenizer. The caches are modelled from the providers' docs:
//! OpenAI caches a shared prefix of 1,024 tokens and more, in steps of 128,
//! by itself; Anthropic caches at the breakpoints a request marks (prefixes
//! of at least 1,024 tokens, Sonnet's minimum), and a later request reads
//! the longest cached prefix that ends on one of its block boundaries at
//! most 20 blocks before one of its breakpoints. Both assume every call
//! comes within the cache's lifetime (5 minutes) of the one before.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use serde_json::{json, Value};
use tabteam::core::cost::{CostLedger, PriceTable};
use tabteam::core::events::EventSink;
use tabteam::core::human::ScriptedHuman;
use tabteam::core::llm::anthropic::{self, AnthropicStream};
use tabteam::core::llm::openai::{self, OpenAiStream};
use tabteam::core::llm::replay::Recording;
use tabteam::core::long_project_script::{self, FOLLOW_UPS};
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::llm::{ChatRequest, Llm, LlmError, Reply, StreamEvent, Usage};
use tabteam::core::mgx::{mgx_team, LEADER};
use tabteam::core::sandbox::{FileMap, Outcome, PreviewInfo, Sandbox, SandboxError, TestReport, TestResult, ConsoleLine};
use tabteam::core::rolezero::condense::CONDENSE;
use tabteam::core::session::{Models, Session};
use tabteam::core::settings::{Settings, TeamKind};
use tabteam::core::window::{estimate_messages, ModelWindow};

const MODEL: &str = "scripted";
const MINI: &str = "gpt-4o-mini";
const SONNET: &str = "claude-sonnet-4";
/// Four characters a token: the estimate `Usage::estimate` makes.
const CHARS_PER_TOKEN: usize = 4;
const OPENAI_MIN_TOKENS: usize = 1024;
const OPENAI_STEP_TOKENS: usize = 128;
const ANTHROPIC_MIN_TOKENS: usize = 1024;
const ANTHROPIC_LOOKBACK_BLOCKS: usize = 20;

fn main() {
    let sample = Recording::sample();
    let texts: Vec<String> = sample.turns.into_iter().map(|t| t.text).collect();
    let calls = run(&sample.idea, texts);
    if std::env::var("TOKENS_DEBUG").is_ok() { debug_calls(&calls); }
    report("Sample run (recordings/company-2048.json)", &calls);
    holdback(&calls);
    let calls = run("a 2048 game in HTML/JS, tested", long_script());
    if std::env::var("TOKENS_DEBUG").is_ok() { debug_calls(&calls); }
    report("Longer scripted run (read, write, read back, edit, test, report)", &calls);
    holdback(&calls);
    long_project();
}

// ---------------------------------------------------------------------------
// Issue #33: a long project (the idea and 30 follow-ups, a feature each)

/// The follow-ups' prompt tokens on a 16k window (sized and condensed) and
/// on a window so large nothing is ever condensed (as before issue #33);
/// where a follow-up's tokens go; then the fixed pipeline's follow-up
/// against its first run.
fn long_project() {
    println!("\nLong project: the idea and {FOLLOW_UPS} follow-ups (one feature file each), the company on a scripted model");
    println!("  prompt tokens of a follow-up (all its calls; estimated as core::window does, 3 bytes a token)");
    println!("  {:<28} {:>8} {:>8} {:>8} {:>8} {:>10} {:>14} {:>9}", "window", "#1", "#10", "#20", "#30", "#30 / #1", "largest call", "condensed");
    let mut runs = Vec::new();
    for (label, window) in [("1M", ModelWindow::new(1_000_000, 4_096)), ("16k", ModelWindow::new(16_384, 4_096))] {
        let log = long_run(window);
        let per_request = long_project_script::prompt_tokens_per_request(log.iter().map(|(n, c)| (*n, &c.request)));
        let at = |n: usize| per_request[n];
        let largest = log.iter().map(|(_, c)| estimate_messages(&c.request.messages)).max().unwrap_or(0);
        let condensed = log.iter().filter(|(_, c)| c.request.messages.last().is_some_and(|m| m.content == CONDENSE)).count();
        println!(
            "  {label:<28} {:>8} {:>8} {:>8} {:>8} {:>9.2}x {:>14} {:>9}",
            at(1), at(10), at(20), at(30), at(30) as f64 / at(1) as f64, largest, condensed
        );
        runs.push((label, log));
    }
    for (label, log) in &runs {
        parts_table(label, log);
    }
    for (label, log) in runs {
        let calls: Vec<Call> = log.into_iter().map(|(_, c)| c).collect();
        report(&format!("Long project, window {label}"), &calls);
    }
    pipeline();
}

/// Where the prompt tokens of follow-ups 1, 10, 20 and 30 go, by part of
/// the request (estimated as `core::window` does).
fn parts_table(label: &str, log: &[(usize, Call)]) {
    let picked = [1, 10, 20, 30];
    let mut parts: BTreeMap<&str, [u64; 4]> = BTreeMap::new();
    for (n, call) in log {
        let Some(col) = picked.iter().position(|p| p == n) else { continue };
        for (part, tokens) in long_project_script::prompt_parts(&call.request) {
            parts.entry(part).or_default()[col] += tokens;
        }
    }
    if let Ok(n) = std::env::var("LONG_DEBUG").unwrap_or_default().parse::<usize>() {
        for (_, call) in log.iter().filter(|(m, _)| *m == n) {
            eprintln!("== {} ({} tokens)", call.role, estimate_messages(&call.request.messages));
            for m in &call.request.messages {
                let head: String = m.content.chars().take(100).collect();
                eprintln!("  <{}> {:>6} {}", m.role.as_str(), tabteam::core::window::estimate_tokens(&m.content), head.replace('\n', " | "));
            }
        }
    }
    println!("\n  where a follow-up's prompt tokens go, window {label}");
    println!("    {:<52} {:>8} {:>8} {:>8} {:>8}", "part", "#1", "#10", "#20", "#30");
    for (part, t) in &parts {
        println!("    {part:<52} {:>8} {:>8} {:>8} {:>8}", t[0], t[1], t[2], t[3]);
    }
}

/// The fixed pipeline (PRD, design, tasks, code, tests): the 2048 run and
/// its follow-up "add a restart button", each run's prompt tokens.
fn pipeline() {
    use tabteam::core::company::script::{IDEA, RESTART_TURNS, TURNS};
    let turns: Vec<String> = TURNS.iter().chain(RESTART_TURNS.iter()).map(|t| t.to_string()).collect();
    let llm = ScriptedLlm::from_texts(MODEL, turns);
    let settings = Settings {
        team: TeamKind::FixedSop,
        model: MODEL.into(),
        custom_price: Some(tabteam::core::cost::Price::new(1.0, 2.0)),
        budget: 1e9,
        rounds: 30,
        ..Settings::default()
    };
    let session = Session::new(&settings, Models::Given(Rc::new(llm.clone())), EventSink::default());
    let mut spent = Vec::new();
    for request in [IDEA, "add a restart button"] {
        session.send(request).expect("idle");
        let end = futures::executor::block_on(session.run()).expect("the run ends");
        assert!(end.outcome.failures.is_empty(), "{:?}", end.outcome.failures);
        let stop = format!("{:?}", end.outcome.stop);
        spent.push(end.version.unwrap_or_else(|| panic!("no version: {stop}")).spent);
    }
    let requests = llm.requests();
    let (first, follow_up) = requests.split_at(TURNS.len());
    let estimate = |rs: &[ChatRequest]| rs.iter().map(|r| estimate_messages(&r.messages)).sum::<u64>();
    println!("\nFixed pipeline: the 2048 run, then the follow-up \"add a restart button\"");
    println!("  {:<12} {:>6} {:>28} {:>30}", "run", "calls", "prompt tokens (3 bytes each)", "ledger's prompt tokens (4 chars)");
    println!("  {:<12} {:>6} {:>28} {:>30}", "first run", first.len(), estimate(first), spent[0].prompt_tokens);
    println!("  {:<12} {:>6} {:>28} {:>30}", "follow-up", follow_up.len(), estimate(follow_up), spent[1].prompt_tokens);
    println!("  each call's prompt tokens (3 bytes each), first run | follow-up:");
    let role = |r: &ChatRequest| {
        let system = r.messages.first().map_or("", |m| m.content.as_str());
        ["Alice", "Bob", "Eve", "Alex", "Edward"].into_iter().find(|name| system.contains(&format!("named {name}"))).unwrap_or("?")
    };
    for i in 0..first.len().max(follow_up.len()) {
        let cell = |rs: &[ChatRequest]| rs.get(i).map_or(String::new(), |r| format!("{:<7} {:>6}", role(r), estimate_messages(&r.messages)));
        println!("    {:<16} | {}", cell(first), cell(follow_up));
    }
}

/// One long run on `window`: every call, with the request (0 the idea)
/// it was made for.
fn long_run(window: ModelWindow) -> Vec<(usize, Call)> {
    let log: Rc<RefCell<Vec<(usize, Call)>>> = Rc::default();
    let current = Rc::new(std::cell::Cell::new(0));
    let (log2, current2) = (log.clone(), current.clone());
    let llm = ScriptedLlm::answering(MODEL, move |_, request| {
        let answer = long_project_script::answer_for(request);
        let system = request.messages[0].content.as_str();
        let role = ["Mike", "Alex", "Alice", "Bob", "Eve", "David", "Edward"]
            .into_iter()
            .find(|name| system.contains(&format!("named {name}")))
            .unwrap_or("Mike");
        log2.borrow_mut().push((current2.get(), Call { role: role.to_string(), request: request.clone(), answer: answer.clone() }));
        answer
    });
    let settings = Settings {
        team: TeamKind::Company,
        model: MODEL.into(),
        custom_price: Some(tabteam::core::cost::Price::new(0.0, 0.0)),
        custom_window: Some(window),
        budget: 1e9,
        rounds: 30,
        ..Settings::default()
    };
    let session = Session::new(&settings, Models::Given(Rc::new(llm)), EventSink::default());
    for n in 0..=FOLLOW_UPS {
        current.set(n);
        session.send(&long_project_script::request_text(n)).expect("idle");
        let end = futures::executor::block_on(session.run()).expect("the run ends");
        assert!(end.outcome.failures.is_empty(), "{:?}", end.outcome.failures);
    }
    let log = std::mem::take(&mut *log.borrow_mut());
    log
}

/// One call as the model got it: who asked, what, and the answer.
struct Call {
    role: String,
    request: ChatRequest,
    answer: String,
}

/// The scripted model behind one role's name: every call is logged with
/// the role before the shared script answers it.
struct Tagged {
    role: String,
    inner: ScriptedLlm,
    log: Rc<RefCell<Vec<(String, ChatRequest)>>>,
}

impl Llm for Tagged {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn stream(&self, request: ChatRequest) -> LocalBoxStream<'static, Result<StreamEvent, LlmError>> {
        self.log.borrow_mut().push((self.role.clone(), request.clone()));
        self.inner.stream(request)
    }

    fn reply(&self, request: ChatRequest) -> Reply {
        self.log.borrow_mut().push((self.role.clone(), request.clone()));
        self.inner.reply(request)
    }
}

/// Every test passes.
struct PassingSandbox;

impl Sandbox for PassingSandbox {
    fn run_tests(&self, files: FileMap, _: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>> {
        let results = files
            .keys()
            .filter(|p| p.ends_with(".test.js"))
            .map(|p| TestResult::new(p, "merges and slides", Outcome::Passed, ""))
            .collect();
        Box::pin(std::future::ready(Ok(TestReport { results })))
    }

    fn preview(&self, _: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>> {
        Box::pin(std::future::ready(Err(SandboxError::Unavailable)))
    }

    fn console(&self) -> Vec<ConsoleLine> {
        Vec::new()
    }
}

/// The MGX company on `answers`, run to the end; every call in order.
fn run(idea: &str, answers: Vec<String>) -> Vec<Call> {
    let script = ScriptedLlm::from_texts(MODEL, answers.clone());
    let log = Rc::new(RefCell::new(Vec::new()));
    let mut team = mgx_team(Rc::new(script.clone()), EventSink::default());
    for role in team.env.roles_mut() {
        let tagged = Tagged { role: role.name().to_string(), inner: script.clone(), log: log.clone() };
        role.set_llm(Rc::new(tagged));
    }
    let mut prices = PriceTable::empty();
    prices.set(MODEL, tabteam::core::cost::Price::new(0.0, 0.0));
    team.ledger.borrow_mut().prices = prices;
    team.invest(1e9);
    team.env.world.human = Rc::new(ScriptedHuman::default());
    team.env.world.sandbox = Rc::new(PassingSandbox);
    team.run_project(idea);
    let outcome = futures::executor::block_on(team.run(60));
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    assert_eq!(script.remaining(), 0, "every scripted answer used");
    let calls = log.borrow();
    calls.iter().zip(answers).map(|((role, request), answer)| Call { role: role.clone(), request: request.clone(), answer }).collect()
}

/// A request as plain text: each turn's role and content, in order (what a
/// provider's prefix cache compares).
fn plain_text(request: &ChatRequest) -> String {
    request.messages.iter().map(|m| format!("<{}>\n{}\n", m.role.as_str(), &*m.content)).collect()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN) as u64
}

/// One role's (or everyone's) figures.
#[derive(Default, Clone)]
struct Figures {
    calls: usize,
    chars: usize,
    /// Characters that repeat a prefix of an earlier request of the run.
    shared_chars: usize,
    /// The same, counting only this role's third request and later.
    after_two: (usize, usize),
    input_tokens: u64,
    mini: CostLedger,
    mini_cached: CostLedger,
    sonnet: CostLedger,
    sonnet_cached: CostLedger,
}

fn report(title: &str, calls: &[Call]) {
    let mut roles: BTreeMap<String, Figures> = BTreeMap::new();
    let mut all = fresh();
    let texts: Vec<String> = calls.iter().map(|c| plain_text(&c.request)).collect();
    let mut anthropic_cache = AnthropicCache::default();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, call) in calls.iter().enumerate() {
        let text = &texts[i];
        let shared = texts[..i].iter().map(|t| common_prefix(text, t)).max().unwrap_or(0);
        let nth = seen.entry(&call.role).and_modify(|n| *n += 1).or_insert(1);
        let output = tokens(call.answer.chars().count());
        let input = tokens(text.len());

        // OpenAI: the request through the codec, its cache modelled on the
        // shared prefix, the answer's usage decoded from a stream.
        let http = openai::build_request("https://api.openai.com/v1", None, &call.request, true);
        assert!(http.body.contains("\"messages\""));
        let shared_tokens = shared / CHARS_PER_TOKEN;
        let openai_cached = if shared_tokens >= OPENAI_MIN_TOKENS {
            (OPENAI_MIN_TOKENS + (shared_tokens - OPENAI_MIN_TOKENS) / OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS) as u64
        } else {
            0
        };
        let openai_usage = openai_stream_usage(input, output, openai_cached.min(input));

        // Anthropic: the body the codec builds, breakpoints and all.
        let http = anthropic::build_request(anthropic::DEFAULT_BASE_URL, None, &call.request, true);
        let body: Value = serde_json::from_str(&http.body).expect("the codec writes JSON");
        let (read, written) = anthropic_cache.serve(&body);
        let anthropic_usage = anthropic_stream_usage(input, output, tokens(read).min(input), tokens(written).min(input - tokens(read).min(input)));

        let role = roles.entry(call.role.clone()).or_insert_with(fresh);
        for f in [&mut all, role] {
            f.calls += 1;
            f.chars += text.len();
            f.shared_chars += shared;
            if *nth > 2 {
                f.after_two.0 += shared;
                f.after_two.1 += text.len();
            }
            f.input_tokens += input;
            f.mini.record(&call.role, MINI, Usage::new(input, output));
            f.mini_cached.record(&call.role, MINI, openai_usage);
            f.sonnet.record(&call.role, SONNET, Usage::new(input, output));
            f.sonnet_cached.record(&call.role, SONNET, anthropic_usage);
        }
    }
    println!("\n{title}");
    println!("  tokens are estimates (4 characters a token); \"shared\" = share of input repeating a prefix of an earlier request");
    println!(
        "  {:<8} {:>5} {:>9} {:>9} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "role", "calls", "chars", "in tok", "shared", "after 2", "4o-mini $", "cached $", "Sonnet $", "cached $", "Sonnet %"
    );
    let leader_first = roles.remove(LEADER).map(|f| (LEADER.to_string(), f));
    for (name, f) in leader_first.into_iter().chain(roles).chain([("all".to_string(), all)]) {
        let pct = |a: usize, b: usize| if b == 0 { "-".to_string() } else { format!("{:.1}%", 100.0 * a as f64 / b as f64) };
        let sonnet = f.sonnet.total().cost;
        let sonnet_cached = f.sonnet_cached.total().cost;
        println!(
            "  {:<8} {:>5} {:>9} {:>9} {:>7} {:>10} {:>10.4} {:>10.4} {:>10.4} {:>10.4} {:>9}",
            name,
            f.calls,
            f.chars,
            f.input_tokens,
            pct(f.shared_chars, f.chars),
            pct(f.after_two.0, f.after_two.1),
            f.mini.total().cost,
            f.mini_cached.total().cost,
            sonnet,
            sonnet_cached,
            format!("{:.1}%", 100.0 * sonnet_cached / sonnet.max(1e-12)),
        );
        if name == "all" {
            let t = f.sonnet_cached.total();
            let m = f.mini_cached.total();
            println!(
                "  Sonnet with caching: {} of {} input tokens read from the cache, {} written; gpt-4o-mini: {} cached",
                t.cached_tokens, t.prompt_tokens, t.cache_write_tokens, m.cached_tokens
            );
            // The cached bill's parts, each as a share of the bill without
            // caching (Sonnet: input $3, cache read $0.30, write $3.75,
            // output $15 a million tokens).
            let uncached = t.prompt_tokens - t.cached_tokens - t.cache_write_tokens;
            let part = |tokens: u64, per_mtok: f64| format!("{:.1}%", 100.0 * tokens as f64 * per_mtok / 1e6 / sonnet.max(1e-12));
            println!(
                "  Sonnet cache writes never read back by a later request of the run: {} tokens of {} written",
                tokens(anthropic_cache.never_read()),
                t.cache_write_tokens
            );
            println!(
                "  Sonnet cached bill = reads {} + writes {} + uncached input {} + output {} of the bill without caching",
                part(t.cached_tokens, 0.30),
                part(t.cache_write_tokens, 3.75),
                part(uncached, 3.0),
                part(t.completion_tokens, 15.0),
            );
        }
    }
}

fn fresh() -> Figures {
    let ledger = || CostLedger::new(1e9, PriceTable::default());
    Figures { mini: ledger(), mini_cached: ledger(), sonnet: ledger(), sonnet_cached: ledger(), ..Figures::default() }
}

/// What holds the shared share back: every character that repeats no
/// earlier request's prefix, by the part of the request it sits in. Also
/// checks that each role's history is append-only (a request starts with
/// the same role's previous request minus its last turn) and how long the
/// history gets (RoleZero shows the last `memory_k` = 200 messages; a
/// window that slides would break every prefix after the system prompt).
fn holdback(calls: &[Call]) {
    let texts: Vec<String> = calls.iter().map(|c| plain_text(&c.request)).collect();
    let total: usize = texts.iter().map(String::len).sum();
    let mut parts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rewritten = Vec::new();
    let mut most_new = 0;
    let mut longest = 0;
    let mut closing = 0;
    let mut closing_fixed = 0;
    for (i, call) in calls.iter().enumerate() {
        let shared = texts[..i].iter().map(|t| common_prefix(&texts[i], t)).max().unwrap_or(0);
        longest = longest.max(call.request.messages.len() - 1);
        let mut start = 0;
        let last = call.request.messages.len() - 1;
        for (k, m) in call.request.messages.iter().enumerate() {
            let len = format!("<{}>\n{}\n", m.role.as_str(), &*m.content).len();
            let unshared = (start + len).saturating_sub(start.max(shared));
            start += len;
            let content = &*m.content;
            let part = match (k, m.role.as_str()) {
                (0, "system") => "system prompt (a role's own part, its first call)",
                (k, "user") if k == last && content.contains("# Rules") => {
                    // The closing turn: what changes (example, plan, task)
                    // and the fixed rules and output format after them.
                    let fixed = content.len() - content.find("# Rules").unwrap_or(0);
                    closing += unshared;
                    closing_fixed += fixed.min(unshared);
                    "closing turn (example, plan, task, rules, format)"
                }
                (k, _) if k == last => "other last turns (quick think, report, regenerate)",
                (_, "assistant") => "history: the role's own answers and responses",
                (_, _) if content.starts_with("[Message] from") => "history: messages from others",
                (_, _) if content.contains("Command Editor.read executed") => "history: file reads (Editor.read output)",
                _ => "history: other command outputs and requirements",
            };
            *parts.entry(part).or_default() += unshared;
        }
        // Append-only: this role's previous request without its last turn
        // must be a prefix of this one.
        if let Some(prev) = calls[..i].iter().rposition(|c| c.role == call.role) {
            let kept = &calls[prev].request.messages[..calls[prev].request.messages.len() - 1];
            let prefix: String = kept.iter().map(|m| format!("<{}>\n{}\n", m.role.as_str(), &*m.content)).collect();
            if !texts[i].starts_with(&prefix) {
                rewritten.push(format!("call {i} ({}) after its call {prev}", call.role));
            } else {
                // Anthropic looks for a cached prefix at most 20 blocks
                // before a breakpoint: the history's breakpoint reaches the
                // previous one only if fewer blocks came in between.
                most_new = most_new.max(call.request.messages.len() - 1 - kept.len());
            }
        }
    }
    let unshared: usize = parts.values().sum();
    let pct = |n: usize| 100.0 * n as f64 / total as f64;
    println!("  not shared: {unshared} of {total} characters ({:.1}%), by where they sit:", pct(unshared));
    for (part, n) in &parts {
        println!("    {part:<52} {n:>7} ({:.1}% of all input)", pct(*n));
    }
    println!(
        "    of the closing turns, the fixed rules and output format: {closing_fixed} ({:.1}%); example, plan and task: {} ({:.1}%)",
        pct(closing_fixed),
        closing - closing_fixed,
        pct(closing - closing_fixed)
    );
    // The closing turn is not kept in the history (MetaGPT's RoleZero adds
    // only the answer and the command outputs to memory), so no order of
    // the parts can serve it from a cache; everything else not shared is
    // text the run has not sent before.
    println!(
        "  shared if the closing turns were served too (they cannot be: they are not in the history): {:.1}%; genuinely new text (history and each role's own system text): {:.1}%",
        pct(total - unshared + closing),
        pct(unshared - closing - parts.get("other last turns (quick think, report, regenerate)").copied().unwrap_or(0)),
    );
    println!(
        "  append-only check: {} requests whose history is not their role's previous one extended{}; longest history: {longest} messages (memory_k = 200); most history messages added between two calls of a role: {most_new} (Anthropic's lookback: 20 blocks)",
        rewritten.len(),
        if rewritten.is_empty() { String::new() } else { format!(" ({})", rewritten.join(", ")) },
    );
}

/// What an OpenAI stream reporting these figures decodes to.
fn openai_stream_usage(input: u64, output: u64, cached: u64) -> Usage {
    let usage = json!({"prompt_tokens": input, "completion_tokens": output, "prompt_tokens_details": {"cached_tokens": cached}});
    let sse = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": usage}),
    );
    decoded(OpenAiStream::new(0).feed(sse.as_bytes()))
}

/// What an Anthropic stream reporting these figures decodes to.
fn anthropic_stream_usage(input: u64, output: u64, read: u64, written: u64) -> Usage {
    let start = json!({"type": "message_start", "message": {"model": SONNET, "usage": {
        "input_tokens": input - read - written, "cache_read_input_tokens": read, "cache_creation_input_tokens": written, "output_tokens": 1}}});
    let delta = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": output}});
    let sse = format!(
        "event: message_start\ndata: {start}\n\nevent: content_block_delta\ndata: {}\n\nevent: message_delta\ndata: {delta}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
    );
    decoded(AnthropicStream::new(0).feed(sse.as_bytes()))
}

fn decoded(items: Vec<Result<StreamEvent, LlmError>>) -> Usage {
    items
        .into_iter()
        .find_map(|item| match item {
            Ok(StreamEvent::Done(done)) => Some(done.usage),
            _ => None,
        })
        .expect("the stream ends with Done")
}

/// Anthropic's cache as its docs describe it: prefixes written at
/// breakpoints, read back at the longest match.
#[derive(Default)]
struct AnthropicCache {
    written: HashSet<u64>,
    /// Each write, as (the entry it made, characters written), and the
    /// entries later requests read: what was written and never read back.
    writes: Vec<(u64, usize)>,
    read: HashSet<u64>,
}

impl AnthropicCache {
    /// Characters (read, written) for this request body.
    fn serve(&mut self, body: &Value) -> (usize, usize) {
        // Each block as (its end in characters, the prefix's hash, a breakpoint?).
        let mut blocks: Vec<(usize, u64, bool)> = Vec::new();
        let mut hasher = DefaultHasher::new();
        let mut chars = 0;
        let mut push = |role: &str, block: &Value, blocks: &mut Vec<(usize, u64, bool)>| {
            let text = block.as_str().or_else(|| block["text"].as_str()).unwrap_or_default();
            (role, text).hash(&mut hasher);
            chars += text.len();
            blocks.push((chars, hasher.finish(), block.get("cache_control").is_some()));
        };
        for block in body["system"].as_array().into_iter().flatten() {
            push("system", block, &mut blocks);
        }
        for turn in body["messages"].as_array().into_iter().flatten() {
            let role = turn["role"].as_str().unwrap_or_default();
            match &turn["content"] {
                Value::Array(parts) => parts.iter().for_each(|b| push(role, b, &mut blocks)),
                text => push(role, text, &mut blocks),
            }
        }
        let breakpoints: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].2).collect();
        let hit = breakpoints
            .iter()
            .flat_map(|&b| b.saturating_sub(ANTHROPIC_LOOKBACK_BLOCKS)..=b)
            .filter(|&i| self.written.contains(&blocks[i].1))
            .max_by_key(|&i| blocks[i].0);
        let read = hit.map_or(0, |i| blocks[i].0);
        if let Some(i) = hit {
            self.read.insert(blocks[i].1);
        }
        let cacheable: Vec<usize> =
            breakpoints.into_iter().filter(|&b| blocks[b].0 / CHARS_PER_TOKEN >= ANTHROPIC_MIN_TOKENS).collect();
        let written = cacheable.last().map_or(0, |&b| blocks[b].0.saturating_sub(read));
        if let Some(&b) = cacheable.last().filter(|_| written > 0) {
            self.writes.push((blocks[b].1, written));
        }
        for b in cacheable {
            self.written.insert(blocks[b].1);
        }
        (read, written)
    }

    /// Characters written to the cache that no later request read.
    fn never_read(&self) -> usize {
        self.writes.iter().filter(|(entry, _)| !self.read.contains(entry)).map(|(_, chars)| chars).sum()
    }
}

// ---------------------------------------------------------------------------
// The longer run's script

fn cmd(name: &str, args: Value) -> Value {
    json!({"command_name": name, "args": args})
}

fn answer(thought: &str, commands: Vec<Value>) -> String {
    format!("{thought}\n```json\n{}\n```", serde_json::to_string_pretty(&Value::Array(commands)).unwrap_or_default())
}

fn end() -> Value {
    json!({"command_name": "end"})
}

fn read(path: &str) -> Value {
    cmd("Editor.read", json!({"path": path}))
}

fn write(path: &str, content: &str) -> Value {
    cmd("Editor.write", json!({"path": path, "content": content}))
}

fn append(path: &str, content: &str) -> Value {
    cmd("Editor.append", json!({"path": path, "content": content}))
}

/// Mike's step between members: finish the task, brief the next one.
fn lead(finish: bool, to: &str, brief: &str) -> String {
    let mut list = Vec::new();
    if finish {
        list.push(cmd("Plan.finish_current_task", json!({})));
    }
    list.push(cmd("TeamLeader.publish_team_message", json!({"content": brief, "send_to": to})));
    list.push(cmd("RoleZero.reply_to_human", json!({"content": format!("{to} is on it.")})));
    list.push(end());
    answer("The previous task is done; next member.", list)
}

/// A document of `lines` numbered lines about `topic`, the size real ones have.
fn document(topic: &str, lines: usize) -> String {
    (1..=lines).map(|i| format!("- {topic} point {i}: the 2048 board is 4x4, tiles slide and equal tiles merge once per move.\n")).collect()
}

fn long_script() -> Vec<String> {
    let task = |id: &str, deps: &[&str], what: &str, who: &str| {
        cmd("Plan.append_task", json!({"task_id": id, "dependent_task_ids": deps, "instruction": what, "assignee": who}))
    };
    let game = "export function slide(row) { const v = row.filter(Boolean); return v.concat(Array(4 - v.length).fill(0)); }\n".repeat(12);
    let test = "import { slide } from '../game.js';\ntest('slides', () => expect(slide([0, 2, 0, 2])).toEqual([2, 2, 0, 0]));\n".repeat(6);
    let mut s = vec!["TASK".to_string()];
    s.push(answer(
        "I will plan the work and brief Alice.",
        vec![
            task("1", &[], "Write the PRD", "Alice"),
            task("2", &["1"], "Design the system", "Bob"),
            task("3", &["2"], "Break the design into tasks", "Eve"),
            task("4", &["3"], "Write the code", "Alex"),
            task("5", &["4"], "Write and run the tests", "Edward"),
            cmd("TeamLeader.publish_team_message", json!({"content": "Write the PRD for a 2048 game in HTML/JS to docs/prd.md.", "send_to": "Alice"})),
            cmd("RoleZero.reply_to_human", json!({"content": "Alice is writing the PRD."})),
            end(),
        ],
    ));
    // Alice: look, write, read back, rewrite, read back, add, report.
    s.push(answer("Let me see what exists.", vec![cmd("Editor.list", json!({}))]));
    s.push(answer("Writing the PRD.", vec![write("docs/prd.md", &document("Requirement", 30))]));
    s.push(answer("Reading it back.", vec![read("docs/prd.md")]));
    s.push(answer("Tightening it.", vec![write("docs/prd.md", &document("Requirement (revised)", 32))]));
    s.push(answer("Checking the revision.", vec![read("docs/prd.md")]));
    s.push(answer("Adding the open questions.", vec![append("docs/prd.md", "## Open questions\n- Undo?\n")]));
    s.push(answer("The PRD is done.", vec![end()]));
    s.push(lead(true, "Bob", "Design the system from docs/prd.md into docs/system_design.md."));
    // Bob: read the PRD, write, read back, rewrite, report.
    s.push(answer("Let me see the files.", vec![cmd("Editor.list", json!({}))]));
    s.push(answer("Reading the PRD.", vec![read("docs/prd.md")]));
    s.push(answer("Writing the design.", vec![write("docs/system_design.md", &document("Design", 30))]));
    s.push(answer("Reading it back.", vec![read("docs/system_design.md")]));
    s.push(answer("Adding the module list.", vec![append("docs/system_design.md", "## Modules\n- game.js\n- index.html\n")]));
    s.push(answer("Checking the design.", vec![read("docs/system_design.md")]));
    s.push(answer("The design is done.", vec![end()]));
    s.push(lead(true, "Eve", "Break docs/system_design.md into docs/tasks.md."));
    // Eve: read the design, write, read back, add, report.
    s.push(answer("Reading the design.", vec![read("docs/system_design.md")]));
    s.push(answer("Writing the task list.", vec![write("docs/tasks.md", &document("Task", 20))]));
    s.push(answer("Reading it back.", vec![read("docs/tasks.md")]));
    s.push(answer("Adding the order.", vec![append("docs/tasks.md", "Order: game.js, then index.html.\n")]));
    s.push(answer("Checking the order.", vec![read("docs/tasks.md")]));
    s.push(answer("The tasks are done.", vec![end()]));
    s.push(lead(true, "Alex", "Write the code listed in docs/tasks.md."));
    // Alex: read the tasks, write the code, read back, fix, add the page, report.
    s.push(answer("Reading the tasks.", vec![read("docs/tasks.md")]));
    s.push(answer("Writing game.js.", vec![write("game.js", &game)]));
    s.push(answer("Reading it back.", vec![read("game.js")]));
    s.push(answer("Adding merge.", vec![append("game.js", "export function merge(row) { return row; }\n")]));
    s.push(answer("Writing the page.", vec![write("index.html", "<!doctype html><script type=module src=game.js></script>\n")]));
    s.push(answer("Checking game.js.", vec![read("game.js")]));
    s.push(answer("The code is done.", vec![end()]));
    s.push(lead(true, "Edward", "Write tests for game.js and run them."));
    // Edward: read the code, write tests, run them, add one, run again, report.
    s.push(answer("Reading the code.", vec![read("game.js")]));
    s.push(answer("Writing the tests.", vec![write("tests/game.test.js", &test)]));
    s.push(answer("Reading them back.", vec![read("tests/game.test.js")]));
    s.push(answer("Running them.", vec![cmd("Sandbox.run_tests", json!({}))]));
    s.push(answer("Adding a merge test.", vec![append("tests/game.test.js", "test('merge', () => expect(1).toBe(1));\n")]));
    s.push(answer("Running them again.", vec![cmd("Sandbox.run_tests", json!({}))]));
    s.push(answer("Tests pass.", vec![end()]));
    s.push(answer(
        "All done.",
        vec![
            cmd("Plan.finish_current_task", json!({})),
            cmd("RoleZero.reply_to_human", json!({"content": "Your 2048 game is ready, with tests that pass."})),
            end(),
        ],
    ));
    s
}

/// `TOKENS_DEBUG=1`: each call's size, the longest prefix it shares with an
/// earlier call (and which), and its messages' sizes, on stderr.
fn debug_calls(calls: &[Call]) {
    let texts: Vec<String> = calls.iter().map(|c| plain_text(&c.request)).collect();
    for (i, c) in calls.iter().enumerate() {
        let (j, shared) = texts[..i].iter().enumerate().map(|(j, t)| (j, common_prefix(&texts[i], t))).max_by_key(|x| x.1).unwrap_or((0, 0));
        let last = c.request.messages.last().map_or(0, |m| m.content.len());
        let sizes: Vec<usize> = c.request.messages.iter().map(|m| m.content.len()).collect();
        eprintln!("{i:>2} {:<7} len {:>6} shared {:>6} (with {j:>2}) unshared {:>5} last {:>5} msgs {:?}", c.role, texts[i].len(), shared, texts[i].len() - shared, last, sizes);
        if std::env::var("TOKENS_DEBUG").as_deref() == Ok(&i.to_string()) {
            for m in &c.request.messages {
                eprintln!("---- <{}> {} chars\n{}", m.role.as_str(), m.content.len(), &*m.content);
            }
        }
    }
}
