//! The storage benchmarks of issue #6, in headless Chromium against real
//! IndexedDB (`web::idb_store::IdbStore`), printing a table to the runner's
//! output:
//!
//! - commit latency: a message is made (the user's message published into
//!   a running team) and the batch holding it is committed by the team's
//!   `SessionWriter` (its tracker's changes read from the live team, one
//!   IndexedDB transaction), as the checkpoints do before each model call. The time
//!   from just before the message is made to the transaction's completion,
//!   p50 and p95, in a fresh session and in one already holding 10,000
//!   messages (just saved whole). A commit under this tab's lease reads
//!   nothing (schema v5's claims); the table counts those.
//! - restore: a session of 1,000 and of 10,000 messages (10,000 + the 300
//!   committed one at a time) is opened from IndexedDB and turned back
//!   into a team ready to continue: load the records, check them into a
//!   `TeamSnapshot`, build the team, restore it.
//!
//! The sessions are made by the S1 pipeline of `benches/scenarios` (five
//! roles in a chain, a scripted model answering at once) run until its
//! history holds the wanted number of messages, each answer about 110
//! bytes long (S3's message shape), so roles' memories and buffers point
//! into the log as in a real run.
//!
//! A benchmark, not a test: Cargo.toml declares it `test = false`;
//! `scripts/bench.sh` runs it with `cargo test --target
//! wasm32-unknown-unknown --release --test bench_web_store -- --nocapture`.
#![cfg(target_arch = "wasm32")]

#[path = "../scenarios/mod.rs"]
#[allow(dead_code, unused_imports)]
mod scenarios;

use std::rc::Rc;

use scenarios::measure::median;
use scenarios::table;
use scenarios::Figure;
use tabteam::core::action::{Action, AskAction};
use tabteam::core::events::{EventSink, StopReason};
use tabteam::core::llm::scripted::ScriptedLlm;
use tabteam::core::message::USER_REQUIREMENT;
use tabteam::core::role::{Role, RoleSpec};
use tabteam::core::store::{NewSession, SessionSettings, SessionWriter, Store};
use tabteam::core::team::Team;
use tabteam::web::idb_store::IdbStore;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const HOLDER: &str = "bench-tab";
/// Messages committed one at a time for the latency figures.
const COMMITS: usize = 300;
const RESTORE_RUNS: usize = 7;
/// The writes of a commit that seals no chunk: the claim, the tail row,
/// the session row.
const USUAL_WRITES: usize = 3;

thread_local! {
    static PERFORMANCE: web_sys::Performance =
        web_sys::window().expect("a window").performance().expect("window.performance");
}

fn now_ms() -> f64 {
    PERFORMANCE.with(web_sys::Performance::now)
}

/// S1's pipeline, its model answering with S3's message shape.
fn pipeline() -> Team {
    let calls = std::cell::Cell::new(0usize);
    let llm = ScriptedLlm::answering(scenarios::team::MODEL, move |_, _| {
        calls.set(calls.get() + 1);
        format!("message {} {}", calls.get(), "x".repeat(100))
    });
    let mut team = scenarios::team::priced_team(&llm, EventSink::default());
    let ask = |kind: &str| -> Rc<dyn Action> { Rc::new(AskAction::new(kind, format!("Do {kind}."))) };
    team.hire((0..scenarios::team::STAGES).map(|k| {
        let watch = if k == 0 { USER_REQUIREMENT.to_string() } else { format!("Stage{}", k - 1) };
        Role::new(RoleSpec::new(&format!("R{k}"), &format!("Stage{k}")).watch([watch]), vec![ask(&format!("Stage{k}"))])
    }));
    team
}

/// Run pipelines until the history holds at least `messages` messages.
async fn grow(team: &mut Team, messages: usize) {
    let mut i = 0;
    while team.env.history().len() < messages {
        i += 1;
        team.run_project(&format!("requirement {i} {}", "x".repeat(100)));
        let outcome = team.run(100).await;
        assert_eq!(outcome.stop, StopReason::Idle, "the pipeline ends idle");
    }
}

async fn fresh_store(name: &str) -> IdbStore {
    IdbStore::delete_database(name).await.expect("delete the old bench database");
    IdbStore::open(name).await.expect("open the bench database")
}

/// A new session held by this tab, and its writer.
async fn new_session(store: &IdbStore, title: &str) -> SessionWriter {
    let record = store
        .create_session(NewSession {
            title: title.into(),
            idea: "pipeline".into(),
            team_kind: "bench".into(),
            settings: SessionSettings {
                provider: "openai".into(),
                base_url: "https://api.openai.com/v1".into(),
                model: scenarios::team::MODEL.into(),
                budget: 1e9,
                rounds: 100,
                role_models: Default::default(),
                key_given: false,
            },
            now_ms: 1,
        })
        .await
        .expect("create a session");
    store.acquire_lock(&record.id, HOLDER, 1, 3_600_000).await.expect("take the lease");
    SessionWriter::new(record.id, HOLDER, None)
}

/// The p-th percentile (nearest rank).
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// One commit of the latency figures: milliseconds from the message's
/// making to the transaction's completion (`total`), of finding the
/// changes (`diff`), up to every request issued (`issue`: the changes,
/// the rows built, the requests made), then until the session row read
/// first was answered and checked and the commit asked for (`read`; no
/// read in a claimed commit), then until `complete` fired (`wait`); the
/// requests it made, the tail row's size, whether it was made from what
/// the connection knew (not made again after finding that stale) and
/// whether it read nothing (claimed).
#[derive(Debug, Clone, Copy)]
struct Sample {
    total: f64,
    diff: f64,
    issue: f64,
    read: f64,
    wait: f64,
    writes: usize,
    tail_bytes: usize,
    from_known: bool,
    claimed: bool,
}

/// `COMMITS` user messages into `team`, each committed before the next is
/// made, as the checkpoints do (`SessionWriter::changes` over the live
/// team, then one transaction).
async fn commit_latencies(store: &IdbStore, writer: &mut SessionWriter, team: &mut Team) -> Vec<Sample> {
    let mut samples = Vec::with_capacity(COMMITS);
    for i in 0..COMMITS {
        let t0 = now_ms();
        let message = team.publish_user_message(&format!("message {i} {}", "x".repeat(100)), &[]);
        let changes = team.with_frame(|frame| writer.changes(frame));
        let diff = now_ms() - t0;
        assert_eq!(changes.batch.messages.iter().map(|m| m.id).collect::<Vec<_>>(), [message.id], "the new message, only");
        let written = writer.commit(store, changes, None, 2 + i as u64).await.expect("commit");
        let end = now_ms();
        assert!(written >= 1, "the new message is written");
        let probe = store.last_commit();
        samples.push(Sample {
            total: end - t0,
            diff,
            issue: probe.issued_ms - t0,
            read: probe.checked_ms - probe.issued_ms,
            wait: end - probe.checked_ms,
            writes: probe.writes,
            tail_bytes: probe.tail_bytes,
            from_known: probe.from_known,
            claimed: probe.claimed,
        });
    }
    samples
}

/// The commit latencies' distribution, and where the slow ones come from:
/// figures under `label`, the slowest commits listed on the console.
fn distribution(figures: &mut Vec<Figure>, label: &str, samples: &[Sample]) {
    let of = |f: fn(&Sample) -> f64| samples.iter().map(f).collect::<Vec<f64>>();
    let total = of(|s| s.total);
    for p in [50.0, 90.0, 95.0, 99.0] {
        let goal = if p == 95.0 { " (goal ≤ 5 ms)" } else { "" };
        figures.push(Figure::ms("#6", format!("commit, {label}: p{p}{goal}"), percentile(&total, p)));
    }
    figures.push(Figure::ms("#6", format!("commit, {label}: max"), percentile(&total, 100.0)));
    let (diff, issue, read, wait) = (of(|s| s.diff), of(|s| s.issue), of(|s| s.read), of(|s| s.wait));
    figures.push(Figure::ms("#6", "  finding the changes, p50", percentile(&diff, 50.0)));
    figures.push(Figure::ms("#6", "  finding the changes, p95", percentile(&diff, 95.0)));
    figures.push(Figure::ms("#6", "  until every request is issued, p50", percentile(&issue, 50.0)));
    figures.push(Figure::ms("#6", "  until every request is issued, p95", percentile(&issue, 95.0)));
    figures.push(Figure::ms("#6", "  then until the commit is asked for, p50", percentile(&read, 50.0)));
    figures.push(Figure::ms("#6", "  then until the commit is asked for, p95", percentile(&read, 95.0)));
    figures.push(Figure::ms("#6", "  then until `complete`, p50", percentile(&wait, 50.0)));
    figures.push(Figure::ms("#6", "  then until `complete`, p95", percentile(&wait, 95.0)));
    figures.push(Figure::bytes("#6", "  the tail row's JSON, p50", percentile(&of(|s| s.tail_bytes as f64), 50.0)));
    let again = samples.iter().filter(|s| !s.from_known).count();
    figures.push(Figure::count("#6", "  commits made again from the database, of all", again as f64));
    let claimed = samples.iter().filter(|s| s.claimed).count();
    figures.push(Figure::count("#6", "  commits that read nothing (claimed), of all", claimed as f64));
    let read: Vec<usize> = samples.iter().enumerate().filter(|(_, s)| !s.claimed).map(|(i, _)| i).collect();
    if !read.is_empty() {
        console_log!("commit, {label}: commits that read: {read:?}");
    }
    // The slowest 5 %: do they seal chunks (more than the usual puts), come
    // at a period, wait in `complete` or in our own work?
    let p95 = percentile(&total, 95.0);
    let slow: Vec<(usize, &Sample)> = samples.iter().enumerate().filter(|(_, s)| s.total >= p95).collect();
    let sealing = samples.iter().filter(|s| s.writes > USUAL_WRITES).count();
    let slow_sealing = slow.iter().filter(|(_, s)| s.writes > USUAL_WRITES).count();
    figures.push(Figure::count("#6", "  commits sealing a chunk (> 3 writes), of all", sealing as f64));
    figures.push(Figure::count("#6", "  ... of the slowest 5 %", slow_sealing as f64));
    let list: Vec<String> = slow
        .iter()
        .map(|(i, s)| {
            format!(
                "#{i}: {:.2} ms (changes {:.2}, issue {:.2}, read {:.2}, wait {:.2}; {} writes, tail {} B)",
                s.total, s.diff, s.issue, s.read, s.wait, s.writes, s.tail_bytes
            )
        })
        .collect();
    console_log!("commit, {label}: the slowest 5 % (p95 {p95:.2} ms):\n  {}", list.join("\n  "));
}

/// The floor: `n` bare transactions in a fresh database from JavaScript
/// itself (no wasm, no serde): each opens a `readwrite` transaction with
/// relaxed durability, puts one row of `bytes` bytes of text, asks for
/// the commit and waits for `complete`. In the shape of our commit
/// (`Shape::Ours`), a claim row `[s, i]` is added first and a put of 300
/// bytes into a third store follows the row; `Shape::Read` is the shape
/// before claims: a get of the 300-byte row first instead of the claim,
/// and the commit asked for once the get is answered. Milliseconds of
/// each: in all, and until every request was issued.
async fn bare_puts(n: usize, bytes: usize, shape: Shape) -> Vec<(f64, f64)> {
    let body = r#"
        return (async () => {
          const name = 'tabteam-bench-bare';
          await new Promise((ok, no) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = ok; r.onerror = () => no(r.error); });
          const db = await new Promise((ok, no) => {
            const r = indexedDB.open(name, 1);
            r.onupgradeneeded = () => {
              r.result.createObjectStore('tails', { keyPath: 's' });
              r.result.createObjectStore('sessions', { keyPath: 'id' });
              r.result.createObjectStore('claims');
            };
            r.onsuccess = () => ok(r.result);
            r.onerror = () => no(r.error);
          });
          const out = [];
          const json = 'x'.repeat(bytes), small = 'y'.repeat(300);
          for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            const tx = db.transaction(shape ? ['sessions', 'tails', 'claims'] : ['tails'], 'readwrite', { durability: 'relaxed' });
            if (shape === 1) tx.objectStore('claims').add(true, ['s1', i]);
            const read = shape === 2 ? tx.objectStore('sessions').get('s1') : null;
            tx.objectStore('tails').put({ s: 's1', json: json + i });
            if (shape) tx.objectStore('sessions').put({ id: 's1', w: i, json: small });
            const issued = performance.now();
            if (shape === 2) read.onsuccess = () => tx.commit();
            else tx.commit();
            await new Promise((ok, no) => { tx.oncomplete = ok; tx.onerror = tx.onabort = () => no(tx.error); });
            out.push([performance.now() - t0, issued - t0]);
          }
          db.close();
          return out;
        })();
    "#;
    let f = js_sys::Function::new_with_args("n, bytes, shape", body);
    let promise = f
        .call3(&wasm_bindgen::JsValue::NULL, &(n as f64).into(), &(bytes as f64).into(), &(shape as u32).into())
        .expect("the bare transactions start");
    let out = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise)).await.expect("the bare transactions");
    let time = |pair: &js_sys::Array, i: u32| pair.get(i).as_f64().expect("a time");
    js_sys::Array::from(&out).iter().map(|v| js_sys::Array::from(&v)).map(|pair| (time(&pair, 0), time(&pair, 1))).collect()
}

/// What a bare transaction does besides its one put.
#[derive(Clone, Copy)]
enum Shape {
    OnePut = 0,
    Ours = 1,
    Read = 2,
}

/// Open session `id` from the store and rebuild its team; milliseconds of
/// each part: load, check into a snapshot, build and restore the team.
async fn restore(store: &IdbStore, id: &str, messages: usize) -> [f64; 3] {
    let t0 = now_ms();
    let data = store.load_session(id).await.expect("load the session");
    let t1 = now_ms();
    let snapshot = data.snapshot().expect("a consistent session").expect("team state");
    let t2 = now_ms();
    let mut team = pipeline();
    team.restore(snapshot).expect("restore");
    let t3 = now_ms();
    assert_eq!(team.env.history().len(), messages, "every message is back");
    [t1 - t0, t2 - t1, t3 - t2]
}

#[wasm_bindgen_test]
async fn storage() {
    let begin = now_ms();
    let mut figures = Vec::new();

    // The floor of this machine: bare transactions from JavaScript.
    let floors = [
        ("1 put of 200 B", 200, Shape::OnePut),
        ("1 put of 8 KiB", 8 * 1024, Shape::OnePut),
        ("our shape: add claim + put 8 KiB + put 300 B", 8 * 1024, Shape::Ours),
        ("the shape before claims: get + put 8 KiB + put 300 B, commit() once read", 8 * 1024, Shape::Read),
    ];
    for (label, bytes, shape) in floors {
        let (times, issued): (Vec<f64>, Vec<f64>) = bare_puts(COMMITS, bytes, shape).await.into_iter().unzip();
        for p in [50.0, 95.0, 99.0] {
            figures.push(Figure::ms("#6", format!("floor, bare transaction, {label}: p{p}"), percentile(&times, p)));
        }
        figures.push(Figure::ms("#6", "  until every request is issued, p50", percentile(&issued, 50.0)));
    }

    // Commit latency in a fresh session.
    let store = fresh_store("tabteam-bench-storage").await;
    let mut team = pipeline();
    let mut writer = new_session(&store, "fresh").await;
    let fresh = commit_latencies(&store, &mut writer, &mut team).await;
    distribution(&mut figures, "fresh session", &fresh);
    // The floor: a commit that only touches the session record.
    let mut floor = Vec::with_capacity(100);
    for i in 0..100u64 {
        let t0 = now_ms();
        store.commit(writer.session_id(), tabteam::core::store::Batch::at(1_000 + i)).await.expect("touch");
        floor.push(now_ms() - t0);
    }
    figures.push(Figure::ms("#6", "  an empty commit (session record only), p50", percentile(&floor, 50.0)));
    figures.push(Figure::ms("#6", "  an empty commit (session record only), p95", percentile(&floor, 95.0)));

    // Sessions of 1,000 and 10,000 messages: saved once, then restored.
    for size in [1_000usize, 10_000] {
        let mut team = pipeline();
        grow(&mut team, size).await;
        let saved = team.env.history().len();
        let mut writer = new_session(&store, &format!("{size}")).await;
        let t0 = now_ms();
        writer.save(&store, team.snapshot(), None, 2).await.expect("save the whole session");
        let whole = now_ms() - t0;
        figures.push(Figure::ms("#6", format!("{saved} messages: first save, whole session"), whole));
        if size == 10_000 {
            // Commit latency as the session keeps growing from there; before
            // the restores below, whose garbage (seven loads of the whole
            // session) a running tab does not have.
            let late = commit_latencies(&store, &mut writer, &mut team).await;
            distribution(&mut figures, &format!("session of {saved}+"), &late);
        }
        let messages = team.env.history().len();
        let id = writer.session_id().to_string();
        let runs: Vec<[f64; 3]> = {
            let mut runs = Vec::new();
            for _ in 0..RESTORE_RUNS {
                runs.push(restore(&store, &id, messages).await);
            }
            runs
        };
        let part = |i: usize| median(&runs.iter().map(|r| r[i]).collect::<Vec<_>>());
        let total = median(&runs.iter().map(|r| r.iter().sum()).collect::<Vec<_>>());
        let goal = if size == 10_000 { " (goal ≤ 300 ms)" } else { "" };
        figures.push(Figure::ms("#6", format!("{messages} messages: restore{goal}"), total));
        figures.push(Figure::ms("#6", "  load (IndexedDB → records)", part(0)));
        figures.push(Figure::ms("#6", "  check into a snapshot", part(1)));
        figures.push(Figure::ms("#6", "  build the team and restore it", part(2)));
    }
    store.close();

    let title = format!(
        "tabteam storage (issue #6), headless Chromium, IndexedDB (wasm32, release), medians and percentiles; took {:.1} s",
        (now_ms() - begin) / 1e3
    );
    console_log!("{}", table::render(&title, &figures));
}
