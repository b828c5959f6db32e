//! The contract every `Store` passes: the same async test cases run
//! natively against `MemoryStore` (`store::tests`) and in headless Chromium
//! against the IndexedDB store (`tests/web_store.rs`).
//!
//! Each case takes a fresh, empty store and panics with a message naming
//! what broke. `for_each_contract_case!` lists the cases once, so a test
//! crate turns each into its own test; `two_handles_share_one_database`
//! takes two handles on one database and is called separately.
//!
//! Compiled for tests only: the crate's own (`cfg(test)`) and, through the
//! `test-support` feature (which the crate's dev-dependency on itself turns
//! on), the browser test crate; never in the site or the widget. It does no
//! IO of its own and uses the scripted model, never a network.

use std::rc::Rc;

use crate::core::action::AskAction;
use crate::core::cost::{Price, PriceTable};
use crate::core::events::{EventSink, StopReason};
use crate::core::llm::scripted::{ScriptedLlm, Turn};
use crate::core::llm::Usage;
use crate::core::message::{Message, MessageId};
use crate::core::role::{ReactMode, Role, RoleSpec};
use crate::core::snapshot::TeamSnapshot;
use crate::core::team::Team;

use super::{
    Batch, InjectFault, NewSession, SessionRecord, SessionSettings, SessionStatus, Store, StoreError, SCHEMA_VERSION,
};

/// Calls `$m!(case, case, …)` with every contract case's name.
#[macro_export]
macro_rules! for_each_contract_case {
    ($m:ident) => {
        $m!(
            sessions_are_created_listed_renamed_and_deleted,
            a_duplicate_is_an_independent_copy,
            committed_batches_load_back_as_the_same_snapshot_and_resume,
            messages_are_appended_never_rewritten,
            file_versions_are_kept_and_replaced_histories_dropped,
            cost_entries_are_appended_and_the_ledger_restores,
            commit_updates_status_settings_and_time,
            export_has_no_key_and_round_trips_through_import,
            import_refuses_newer_schemas_and_broken_files,
            a_lease_refuses_a_second_holder_until_it_expires_or_is_released,
            a_failed_commit_leaves_nothing_half_written,
            role_lists_cut_emptied_and_grown_load_back
        );
    };
}

const MODEL: &str = "scripted";
const TAB_A: &str = "tab-a";
const TAB_B: &str = "tab-b";

/// The script of the company below: Alice's PRD, Bob's plan and its two
/// tasks, Alex's code.
fn turns() -> Vec<Turn> {
    let plan = r#"[{"task_id":"1","instruction":"design"},{"task_id":"2","dependent_task_ids":["1"],"instruction":"review"}]"#;
    ["the PRD", plan, "designed", "reviewed", "the code"]
        .iter()
        .enumerate()
        .map(|(i, text)| Turn::with_usage(*text, 1000 + 7 * i as u64, 300 + 11 * i as u64))
        .collect()
}

/// A small software company: a PRD writer, a plan-and-act architect and an
/// engineer, priced, with a budget.
fn company(llm: &ScriptedLlm) -> Team {
    let mut team = Team::new("a software company", Rc::new(llm.clone()), EventSink::default());
    let mut prices = PriceTable::empty();
    prices.set(MODEL, Price::new(1.25, 3.5));
    team.ledger.borrow_mut().prices = prices;
    team.invest(10.0);
    let ask = |kind: &str| -> Rc<dyn crate::core::action::Action> { Rc::new(AskAction::new(kind, format!("Do {kind}."))) };
    team.hire([
        Role::new(RoleSpec::new("Alice", "Product Manager").watch(["UserRequirement"]), vec![ask("WritePRD")]),
        Role::new(
            RoleSpec::new("Bob", "Architect").watch(["WritePRD"]).react_mode(ReactMode::PlanAndAct, 10),
            vec![ask("WriteDesign")],
        ),
        Role::new(RoleSpec::new("Alex", "Engineer").watch(["Plan"]), vec![ask("WriteCode")]),
    ]);
    team
}

/// What a role writes to the project in round `round` (a file per role,
/// rewritten every round, so versions pile up).
fn write_files(team: &Team, round: u32) {
    let mut files = team.env.world.files.borrow_mut();
    let _ = files.write("docs/prd.md", format!("# PRD\nround {round}\n"));
    if round >= 2 {
        let _ = files.write(&format!("src/round_{round}.rs"), format!("// round {round}\n"));
    }
}

fn transcript(team: &Team) -> Vec<String> {
    team.env.history().iter().map(|m| format!("{}: {} [{}]", m.sent_from, m.content, m.cause_by)).collect()
}

fn new_session(title: &str, now_ms: u64) -> NewSession {
    NewSession {
        title: title.into(),
        idea: "make 2048".into(),
        team_kind: "sop".into(),
        settings: SessionSettings {
            provider: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            budget: 2.5,
            rounds: 7,
            role_models: [("Alex".to_string(), "gpt-4o".to_string())].into_iter().collect(),
            key_given: false,
        },
        now_ms,
    }
}

async fn create<S: Store + ?Sized>(store: &S, title: &str, now_ms: u64) -> SessionRecord {
    store.create_session(new_session(title, now_ms)).await.expect("create a session")
}

async fn loaded<S: Store + ?Sized>(store: &S, id: &str) -> Option<TeamSnapshot> {
    store.load_session(id).await.expect("load").snapshot().expect("a consistent session")
}

/// A session with a team that has run `rounds` rounds, committed round by
/// round; returns the session, the team and its last snapshot.
async fn session_with_run<S: Store + ?Sized>(store: &S, rounds: u32) -> (SessionRecord, Team, TeamSnapshot) {
    let record = create(store, "run", 1_000).await;
    let llm = ScriptedLlm::new(MODEL, turns());
    let mut team = company(&llm);
    team.run_project("make 2048");
    let mut saved: Option<TeamSnapshot> = None;
    for round in 1..=rounds {
        team.run(1).await;
        write_files(&team, round);
        let snap = team.snapshot();
        let batch = Batch::between(saved.as_ref(), &snap).stamped(1_000 + u64::from(round), None);
        store.commit(&record.id, batch).await.expect("commit a round");
        saved = Some(snap);
    }
    let snap = team.snapshot();
    (record, team, snap)
}

pub async fn sessions_are_created_listed_renamed_and_deleted<S: Store + ?Sized>(store: &S) {
    assert_eq!(store.list_sessions().await.expect("list"), [], "a fresh store is empty");
    let a = create(store, "first", 1_000).await;
    let b = create(store, "second", 2_000).await;
    assert_ne!(a.id, b.id);
    assert_eq!((a.title.as_str(), a.status, a.created_ms, a.updated_ms), ("first", SessionStatus::Idle, 1_000, 1_000));
    assert_eq!(a.settings, new_session("", 0).settings);
    let ids = |list: Vec<SessionRecord>| list.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(store.list_sessions().await.expect("list")), [b.id.clone(), a.id.clone()], "most recent first");

    store.rename_session(&a.id, "renamed", 3_000).await.expect("rename");
    let list = store.list_sessions().await.expect("list");
    assert_eq!(ids(list.clone()), [a.id.clone(), b.id.clone()], "a rename updates the time");
    assert_eq!((list[0].title.as_str(), list[0].updated_ms, list[0].created_ms), ("renamed", 3_000, 1_000));
    assert_eq!(store.session(&a.id).await.expect("get").title, "renamed");

    assert_eq!(store.session("nope").await, Err(StoreError::NotFound("nope".into())));
    assert_eq!(store.rename_session("nope", "x", 1).await, Err(StoreError::NotFound("nope".into())));
    assert_eq!(store.load_session("nope").await.err(), Some(StoreError::NotFound("nope".into())));

    store.delete_session(&b.id, 4_000).await.expect("delete");
    assert_eq!(ids(store.list_sessions().await.expect("list")), std::slice::from_ref(&a.id));
    assert_eq!(store.load_session(&b.id).await.err(), Some(StoreError::NotFound(b.id.clone())));
    assert_eq!(store.delete_session(&b.id, 4_000).await, Err(StoreError::NotFound(b.id.clone())));
    let c = create(store, "third", 5_000).await;
    assert!(c.id != a.id && c.id != b.id, "ids are never reused");
}

pub async fn a_duplicate_is_an_independent_copy<S: Store + ?Sized>(store: &S) {
    let (original, mut team, snap) = session_with_run(store, 2).await;
    let copy = store.duplicate_session(&original.id, "copy", 9_000).await.expect("duplicate");
    assert_ne!(copy.id, original.id);
    assert_eq!((copy.title.as_str(), copy.created_ms, copy.status), ("copy", 9_000, SessionStatus::Idle));
    assert_eq!((copy.idea.as_str(), &copy.settings, copy.team_kind.as_str()), (original.idea.as_str(), &original.settings, "sop"));
    assert_eq!(loaded(store, &copy.id).await.as_ref(), Some(&snap), "the copy restores the same team");

    // The original goes on; the copy does not move.
    team.run(1).await;
    let batch = Batch::between(Some(&snap), &team.snapshot()).stamped(9_500, None);
    store.commit(&original.id, batch).await.expect("commit to the original");
    assert_eq!(loaded(store, &copy.id).await.as_ref(), Some(&snap));
    store.delete_session(&original.id, 10_000).await.expect("delete the original");
    assert_eq!(loaded(store, &copy.id).await.as_ref(), Some(&snap), "the copy survives the original");
    assert_eq!(store.duplicate_session("nope", "x", 1).await.err(), Some(StoreError::NotFound("nope".into())));
}

pub async fn committed_batches_load_back_as_the_same_snapshot_and_resume<S: Store + ?Sized>(store: &S) {
    // Uninterrupted, for reference.
    let reference = {
        let llm = ScriptedLlm::new(MODEL, turns());
        let mut team = company(&llm);
        team.run_project("make 2048");
        assert_eq!(team.run(10).await.stop, StopReason::Idle);
        transcript(&team)
    };

    let record = create(store, "write-through", 1_000).await;
    assert_eq!(loaded(store, &record.id).await, None, "a new session has no team state");
    let llm = ScriptedLlm::new(MODEL, turns());
    let mut team = company(&llm);
    team.run_project("make 2048");
    let mut saved: Option<TeamSnapshot> = None;
    let mut cut: Option<(TeamSnapshot, usize)> = None;
    for round in 1..=10u32 {
        let outcome = team.run(1).await;
        write_files(&team, round);
        let snap = team.snapshot();
        let batch = Batch::between(saved.as_ref(), &snap).stamped(1_000 + u64::from(round), Some(TAB_A));
        store.commit(&record.id, batch).await.expect("commit");
        let back = loaded(store, &record.id).await;
        assert_eq!(back.as_ref(), Some(&snap), "round {round}: what is loaded is what was committed");
        if round == 2 {
            cut = back.map(|s| (s, llm.calls()));
        }
        saved = Some(snap);
        if outcome.stop == StopReason::Idle {
            break;
        }
    }
    assert_eq!(transcript(&team), reference);

    // The tab "reloads" after round 2: a new team restored from the store
    // finishes the same way, without repeating a call.
    let (mid, calls) = cut.expect("the run lasted at least two rounds");
    let rest = ScriptedLlm::new(MODEL, turns().into_iter().skip(calls));
    let mut resumed = company(&rest);
    resumed.restore(mid).expect("restore");
    assert_eq!(resumed.run(10).await.stop, StopReason::Idle);
    assert_eq!(transcript(&resumed), reference, "the resumed run ends as the uninterrupted one");
    assert_eq!(rest.remaining(), 0);
}

pub async fn messages_are_appended_never_rewritten<S: Store + ?Sized>(store: &S) {
    let (record, mut team, first) = session_with_run(store, 1).await;
    let before = store.load_session(&record.id).await.expect("load").messages;
    assert!(!before.is_empty());
    team.run(1).await;
    let second = team.snapshot();
    let batch = Batch::between(Some(&first), &second);
    let old: Vec<MessageId> = first.messages.iter().map(|m| m.id).collect();
    assert!(!batch.messages.is_empty(), "round 2 said something");
    assert!(batch.messages.iter().all(|m| !old.contains(&m.id)), "only new messages are in the batch");
    store.commit(&record.id, batch.stamped(2_000, None)).await.expect("commit");
    let after = store.load_session(&record.id).await.expect("load").messages;
    assert_eq!(after[..before.len()], before[..], "the log keeps what it had");
    let ids: Vec<u64> = after.iter().map(|m| m.id.0).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "the log is in id order, each message once");

    // A commit without messages does not touch the log; a message saved
    // twice is kept once.
    store.commit(&record.id, Batch::at(2_100)).await.expect("empty commit");
    let again = Batch { messages: vec![after[0].clone()], ..Batch::at(2_200) };
    store.commit(&record.id, again).await.expect("commit a known message");
    assert_eq!(store.load_session(&record.id).await.expect("load").messages, after);

    // The log keeps a message even when no role points to it any more.
    let loose = Message::new(MessageId(9_999), "a working note");
    store.commit(&record.id, Batch { messages: vec![loose.clone()], ..Batch::at(2_300) }).await.expect("commit");
    let data = store.load_session(&record.id).await.expect("load");
    assert_eq!(data.messages.last(), Some(&loose));
    assert_eq!(data.snapshot().expect("snapshot").as_ref(), Some(&second), "the snapshot holds only what it points to");
}

pub async fn file_versions_are_kept_and_replaced_histories_dropped<S: Store + ?Sized>(store: &S) {
    let record = create(store, "files", 1_000).await;
    let llm = ScriptedLlm::new(MODEL, turns());
    let team = company(&llm);
    team.env.world.files.borrow_mut().write("docs/prd.md", "v1").expect("write");
    let mut saved = team.snapshot();
    store.commit(&record.id, Batch::full(&saved).stamped(1_001, None)).await.expect("commit");

    let step = |edit: &dyn Fn(&mut crate::core::files::ProjectFiles), saved: &TeamSnapshot| {
        edit(&mut team.env.world.files.borrow_mut());
        let snap = team.snapshot();
        (Batch::between(Some(saved), &snap), snap)
    };
    let versions = |batch: &Batch| batch.files.iter().map(|f| format!("{}@{}", f.path, f.version)).collect::<Vec<_>>();

    // One more version and a new file: two records, nothing rewritten.
    let (batch, snap) = step(
        &|f| {
            f.write("docs/prd.md", "v2").expect("write");
            f.write("src/main.rs", "fn main() {}").expect("write");
        },
        &saved,
    );
    assert_eq!(versions(&batch), ["docs/prd.md@2", "src/main.rs@1"]);
    assert!(batch.files_removed.is_empty());
    store.commit(&record.id, batch.stamped(1_002, None)).await.expect("commit");
    saved = snap;
    let files = store.load_session(&record.id).await.expect("load").project_files().expect("files");
    assert_eq!(files.history("docs/prd.md").expect("prd"), ["v1", "v2"]);

    // Deleted and written again: its old versions go.
    let (batch, snap) = step(
        &|f| {
            f.delete("src/main.rs").expect("delete");
            f.write("src/main.rs", "fresh").expect("write");
        },
        &saved,
    );
    assert_eq!((versions(&batch), batch.files_removed.clone()), (vec!["src/main.rs@1".to_string()], vec!["src/main.rs".to_string()]));
    store.commit(&record.id, batch.stamped(1_003, None)).await.expect("commit");
    saved = snap;

    // Renamed: the history moves to the new path.
    let (batch, snap) = step(&|f| f.rename("docs/prd.md", "docs/spec.md").expect("rename"), &saved);
    assert_eq!(batch.files_removed, ["docs/prd.md"]);
    store.commit(&record.id, batch.stamped(1_004, None)).await.expect("commit");
    let data = store.load_session(&record.id).await.expect("load");
    let files = data.project_files().expect("files");
    assert_eq!(files, snap.files);
    assert_eq!(files.history("docs/spec.md").expect("spec"), ["v1", "v2"]);
    assert_eq!(files.history("src/main.rs").expect("main"), ["fresh"]);
    assert!(!files.exists("docs/prd.md"));
    assert_eq!(data.snapshot().expect("snapshot"), Some(snap));
}

pub async fn cost_entries_are_appended_and_the_ledger_restores<S: Store + ?Sized>(store: &S) {
    let record = create(store, "costs", 1_000).await;
    let llm = ScriptedLlm::new(MODEL, turns());
    let team = company(&llm);
    let usage = |p: u64, c: u64| Usage { estimated: c == 0, ..Usage::new(p, c) };
    team.ledger.borrow_mut().record("Alice", MODEL, usage(1234, 567));
    team.ledger.borrow_mut().record("Bob", MODEL, usage(89, 0));
    let first = team.snapshot();
    store.commit(&record.id, Batch::full(&first).stamped(1_001, None)).await.expect("commit");

    team.ledger.borrow_mut().record("Alice", "gpt-unpriced", usage(10, 20));
    team.ledger.borrow_mut().budget = 4.75;
    let second = team.snapshot();
    let batch = Batch::between(Some(&first), &second);
    assert_eq!(batch.costs.iter().map(|c| c.seq).collect::<Vec<_>>(), [3], "only the new entry");
    assert!(batch.ledger.is_some() && !batch.costs_replaced);
    store.commit(&record.id, batch.stamped(1_002, None)).await.expect("commit");
    let data = store.load_session(&record.id).await.expect("load");
    assert_eq!(data.costs.iter().map(|c| c.seq).collect::<Vec<_>>(), [1, 2, 3]);
    let back = data.snapshot().expect("snapshot").expect("state");
    assert_eq!(back.ledger, *team.ledger.borrow(), "budget, prices, totals and entries");

    // A ledger that was reset (not a continuation) replaces the entries.
    *team.ledger.borrow_mut() = crate::core::cost::CostLedger::new(1.0, PriceTable::default());
    team.ledger.borrow_mut().record("Eve", "gpt-4o-mini", usage(100, 100));
    let third = team.snapshot();
    let batch = Batch::between(Some(&second), &third);
    assert!(batch.costs_replaced);
    store.commit(&record.id, batch.stamped(1_003, None)).await.expect("commit");
    let back = loaded(store, &record.id).await.expect("state");
    assert_eq!(back.ledger, third.ledger);
    assert_eq!(back.ledger.entries().len(), 1);
}

pub async fn commit_updates_status_settings_and_time<S: Store + ?Sized>(store: &S) {
    let record = create(store, "status", 1_000).await;
    let mut settings = record.settings.clone();
    settings.model = "claude-3-5-haiku".into();
    settings.budget = 0.5;
    let batch = Batch { status: Some(SessionStatus::Running), settings: Some(settings.clone()), ..Batch::at(5_000) };
    assert!(!batch.is_empty());
    store.commit(&record.id, batch).await.expect("commit");
    let after = store.session(&record.id).await.expect("get");
    assert_eq!((after.status, &after.settings, after.updated_ms, after.created_ms), (SessionStatus::Running, &settings, 5_000, 1_000));
    store.commit(&record.id, Batch::at(6_000)).await.expect("touch");
    assert_eq!(store.session(&record.id).await.expect("get").status, SessionStatus::Running, "unchanged unless set");
    assert_eq!(store.commit("nope", Batch::at(1)).await, Err(StoreError::NotFound("nope".into())));
}

pub async fn export_has_no_key_and_round_trips_through_import<S: Store + ?Sized>(store: &S) {
    const KEY: &str = "sk-live-SECRET-0123456789";
    let (original, _team, snap) = session_with_run(store, 3).await;

    let json = store.export_session(&original.id).await.expect("export");
    assert!(!json.to_lowercase().contains("api_key") && !json.to_lowercase().contains("apikey"));
    let doc: serde_json::Value = serde_json::from_str(&json).expect("the export is JSON");
    assert_eq!(doc["format"], "tabteam-session");
    assert_eq!(doc["schema_version"], SCHEMA_VERSION);

    let imported = store.import_session(&json, 50_000).await.expect("import");
    assert_ne!(imported.id, original.id);
    assert_eq!((imported.title.as_str(), imported.idea.as_str(), &imported.settings), (original.title.as_str(), original.idea.as_str(), &original.settings));
    assert_eq!((imported.created_ms, imported.status), (50_000, SessionStatus::Idle));
    assert_eq!(loaded(store, &imported.id).await, Some(snap), "the import restores the same team");
    assert_eq!(store.list_sessions().await.expect("list").len(), 2);

    // A file that carries a key (hand-edited) is imported without it.
    let mut doc = doc;
    doc["session"]["settings"]["api_key"] = KEY.into();
    let with_key = serde_json::to_string(&doc).expect("json");
    let again = store.import_session(&with_key, 60_000).await.expect("import");
    assert_eq!(again.settings, original.settings);
    assert!(!store.export_session(&again.id).await.expect("export").contains(KEY));
}

pub async fn import_refuses_newer_schemas_and_broken_files<S: Store + ?Sized>(store: &S) {
    let (original, _team, _) = session_with_run(store, 2).await;
    let json = store.export_session(&original.id).await.expect("export");
    let mut doc: serde_json::Value = serde_json::from_str(&json).expect("json");
    let count = || async { store.list_sessions().await.expect("list").len() };
    assert_eq!(count().await, 1);

    let mut newer = doc.clone();
    newer["schema_version"] = 99.into();
    let err = store.import_session(&newer.to_string(), 1).await.err();
    assert_eq!(err, Some(StoreError::TooNew { found: 99, supported: SCHEMA_VERSION }));
    assert!(err.map(|e| e.to_string()).is_some_and(|t| t.contains("newer tabteam")));

    for (what, text) in [
        ("not JSON", "{not json".to_string()),
        ("not a session", r#"{"hello": "world"}"#.to_string()),
        ("no version", r#"{"format": "tabteam-session"}"#.to_string()),
    ] {
        assert!(matches!(store.import_session(&text, 1).await, Err(StoreError::Corrupt(_))), "{what}");
    }
    // A dangling reference: a role points to a message the file lacks.
    doc["messages"] = serde_json::Value::Array(Vec::new());
    assert!(matches!(store.import_session(&doc.to_string(), 1).await, Err(StoreError::Corrupt(m)) if m.contains("referenced")));
    assert_eq!(count().await, 1, "nothing was added by a refused import");

    // A v1 export (files as one record) is migrated.
    let mut v1: serde_json::Value = serde_json::from_str(&json).expect("json");
    v1["schema_version"] = 1.into();
    v1["files"] = serde_json::json!({"files": {"docs/prd.md": ["a", "b"], "src/x.rs": ["c"]}});
    let old = store.import_session(&v1.to_string(), 1).await.expect("import v1");
    let files = store.load_session(&old.id).await.expect("load").project_files().expect("files");
    assert_eq!(files.history("docs/prd.md").expect("prd"), ["a", "b"]);
    assert_eq!(files.history("src/x.rs").expect("x"), ["c"]);
}

pub async fn a_lease_refuses_a_second_holder_until_it_expires_or_is_released<S: Store + ?Sized>(store: &S) {
    let record = create(store, "locked", 1_000).await;
    let id = record.id.as_str();
    let lock = store.acquire_lock(id, TAB_A, 1_000, 30_000).await.expect("first holder");
    assert_eq!((lock.holder.as_str(), lock.expires_ms), (TAB_A, 31_000));
    let locked_by_a = Err(StoreError::Locked { by: TAB_A.into() });
    assert_eq!(store.acquire_lock(id, TAB_B, 2_000, 30_000).await.map(|_| ()), locked_by_a);
    assert!(locked_by_a.clone().err().map(|e| e.to_string()).is_some_and(|t| t.contains("another tab")));
    assert_eq!(store.renew_lock(id, TAB_A, 20_000, 30_000).await.map(|l| l.expires_ms), Ok(50_000));
    assert_eq!(store.acquire_lock(id, TAB_B, 40_000, 30_000).await.map(|_| ()), locked_by_a);

    // The holder's commits go through; another holder's are refused whole.
    let running = |now| Batch { status: Some(SessionStatus::Running), ..Batch::at(now) };
    assert_eq!(store.commit(id, running(41_000).stamped(41_000, Some(TAB_B))).await, locked_by_a);
    assert_eq!(store.session(id).await.expect("get").status, SessionStatus::Idle, "nothing of the refused commit");
    store.commit(id, running(42_000).stamped(42_000, Some(TAB_A))).await.expect("the holder commits");
    assert_eq!(store.delete_session(id, 43_000).await, locked_by_a, "a held session is not deleted");

    // Expired: the second holder takes over; the first is now refused.
    store.acquire_lock(id, TAB_B, 50_001, 30_000).await.expect("after expiry");
    store.release_lock(id, TAB_A).await.expect("releasing what one does not hold is a no-op");
    let locked_by_b = Err(StoreError::Locked { by: TAB_B.into() });
    assert_eq!(store.acquire_lock(id, TAB_A, 50_002, 30_000).await.map(|_| ()), locked_by_b);
    assert_eq!(store.commit(id, Batch::at(50_003).stamped(50_003, Some(TAB_A))).await, locked_by_b);
    store.release_lock(id, TAB_B).await.expect("release");
    store.acquire_lock(id, TAB_A, 50_004, 30_000).await.expect("after release");
    store.release_lock(id, TAB_A).await.expect("release");
    store.delete_session(id, 50_005).await.expect("delete once released");
    assert_eq!(store.acquire_lock(id, TAB_A, 1, 1).await.map(|_| ()), Err(StoreError::NotFound(id.into())));
}

/// Needs the fault hook, so it is not generic over unsized stores.
pub async fn a_failed_commit_leaves_nothing_half_written<S: Store + InjectFault>(store: &S) {
    let (record, mut team, first) = session_with_run(store, 1).await;
    let before = store.load_session(&record.id).await.expect("load");
    team.run(1).await;
    write_files(&team, 2);
    let second = team.snapshot();
    let batch = Batch { status: Some(SessionStatus::Running), ..Batch::between(Some(&first), &second) }.stamped(2_000, None);
    assert!(batch.len() > 3, "a batch of several records: {}", batch.len());

    store.fail_after_writes(2);
    assert_eq!(store.commit(&record.id, batch.clone()).await, Err(StoreError::QuotaExceeded));
    assert_eq!(store.load_session(&record.id).await.expect("load"), before, "nothing of the failed batch");

    // The same batch, retried, goes through.
    store.commit(&record.id, batch).await.expect("retry");
    assert_eq!(loaded(store, &record.id).await, Some(second));

    // A failed create leaves no session behind.
    store.fail_after_writes(1);
    assert_eq!(store.create_session(new_session("x", 3_000)).await.err(), Some(StoreError::QuotaExceeded));
    assert_eq!(store.list_sessions().await.expect("list").len(), 1);
    let next = create(store, "y", 3_001).await;
    assert_ne!(next.id, record.id);
}

/// The company's team (Alice, Bob, Alex) with `n` messages in its
/// history, ids from 1,000 (a chunk of 1 KiB of ids holds ~200 of them),
/// and no role pointing at any yet.
fn with_messages(n: u64) -> TeamSnapshot {
    let llm = ScriptedLlm::new(MODEL, turns());
    let mut snap = company(&llm).snapshot();
    while snap.ids.peek() < 1_000 + n {
        let id = snap.ids.next_id();
        if id.0 >= 1_000 {
            snap.messages.push(Message::new(id, format!("message {}", id.0)));
            snap.history.push(id);
        }
    }
    snap
}

/// The ids `from..to` (from 1,000 on, as [`with_messages`] made them).
fn ids(from: u64, to: u64) -> Vec<MessageId> {
    (1_000 + from..1_000 + to).map(MessageId).collect()
}

/// Commits the change from `prev` to `cur` and checks it loads back (from
/// `check`, which may be another connection).
async fn commit_and_check<S: Store + ?Sized>(store: &S, check: &S, id: &str, prev: &TeamSnapshot, cur: &TeamSnapshot, now: u64, what: &str) {
    store.commit(id, Batch::between(Some(prev), cur).stamped(now, None)).await.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(loaded(check, id).await.as_ref(), Some(cur), "{what}: loaded back as committed");
}

/// A role's lists changed otherwise than at their ends, as a running team
/// does now and then (its buffer consumed, its memory's newest dropped or
/// cleared, news replaced), on lists longer than one chunk of ids: each
/// change commits as an edit and loads back as it was made.
pub async fn role_lists_cut_emptied_and_grown_load_back<S: Store + ?Sized>(store: &S) {
    let record = create(store, "edits", 1_000).await;
    let s0 = {
        let mut s = with_messages(1_500);
        let alice = &mut s.roles[0];
        (alice.memory, alice.buffer, alice.news) = (ids(0, 700), ids(700, 1_000), ids(995, 1_000));
        s.roles[1].memory = ids(0, 50);
        s
    };
    store.commit(&record.id, Batch::full(&s0).stamped(1_001, None)).await.expect("commit the team");
    assert_eq!(loaded(store, &record.id).await.as_ref(), Some(&s0));

    let mut s1 = s0.clone();
    s1.roles[0].memory.pop();
    s1.roles[0].buffer.clear();
    s1.roles[1].memory.extend(ids(1_000, 1_250));
    let batch = Batch::between(Some(&s0), &s1);
    let alice = &batch.roles[0].lists;
    assert_eq!((alice[0].as_ref().map(|e| (e.keep, e.append.len())), alice[2].as_ref().map(|e| (e.keep, e.append.len()))), (Some((699, 0)), Some((0, 0))));
    commit_and_check(store, store, &record.id, &s0, &s1, 1_002, "newest memory dropped, buffer consumed, a memory grown past a chunk").await;

    let mut s2 = s1.clone();
    s2.roles[0].memory.truncate(150);
    s2.roles[0].memory.extend(ids(1_250, 1_310));
    s2.roles[0].news = ids(1_300, 1_302);
    s2.roles[2].working_memory = ids(0, 400);
    commit_and_check(store, store, &record.id, &s1, &s2, 1_003, "memory cut into its sealed chunks and grown, news replaced").await;

    let mut s3 = s2.clone();
    s3.roles[0].memory.clear();
    s3.roles[0].memory.extend(ids(1_310, 1_320));
    s3.roles[2].working_memory.truncate(399);
    s3.roles[2].working_memory.push(MessageId(1_000));
    commit_and_check(store, store, &record.id, &s2, &s3, 1_004, "memory cleared and grown, the last id replaced").await;
}

/// The same kind of changes committed by a connection that did not write
/// or read the session before (`b`), then by the one that did (`a`).
pub async fn role_list_edits_from_a_connection_that_does_not_know_the_session<S: Store + ?Sized>(a: &S, b: &S) {
    let record = create(a, "edits", 1_000).await;
    let mut s0 = with_messages(1_200);
    (s0.roles[0].memory, s0.roles[0].buffer) = (ids(0, 900), ids(900, 1_100));
    s0.roles[1].memory = ids(0, 500);
    a.commit(&record.id, Batch::full(&s0).stamped(1_001, None)).await.expect("a commits the team");

    let mut s1 = s0.clone();
    s1.roles[0].memory.truncate(300);
    s1.roles[0].memory.extend(ids(1_100, 1_150));
    s1.roles[0].buffer.clear();
    s1.roles[1].memory.truncate(497);
    commit_and_check(b, a, &record.id, &s0, &s1, 1_002, "cut by a connection that knew nothing of the session").await;

    let mut s2 = s1.clone();
    s2.roles[0].memory.truncate(10);
    s2.roles[0].memory.extend(ids(1_150, 1_200));
    s2.roles[1].memory.extend(ids(1_100, 1_200));
    commit_and_check(a, b, &record.id, &s1, &s2, 1_003, "cut again by the first connection").await;
}

/// Two handles on one database (two tabs): each sees what the other
/// committed, and the lease keeps the second out of a held session.
pub async fn two_handles_share_one_database<S: Store + ?Sized>(a: &S, b: &S) {
    let record = create(a, "shared", 1_000).await;
    assert_eq!(b.list_sessions().await.expect("list"), std::slice::from_ref(&record));
    a.acquire_lock(&record.id, TAB_A, 1_000, 30_000).await.expect("tab A holds it");
    assert_eq!(b.acquire_lock(&record.id, TAB_B, 2_000, 30_000).await.map(|_| ()), Err(StoreError::Locked { by: TAB_A.into() }));

    let llm = ScriptedLlm::new(MODEL, turns());
    let mut team = company(&llm);
    team.run_project("make 2048");
    team.run(1).await;
    let snap = team.snapshot();
    let refused = b.commit(&record.id, Batch::full(&snap).stamped(3_000, Some(TAB_B))).await;
    assert_eq!(refused, Err(StoreError::Locked { by: TAB_A.into() }));
    assert_eq!(loaded(a, &record.id).await, None, "the refused commit left nothing");
    a.commit(&record.id, Batch::full(&snap).stamped(3_000, Some(TAB_A))).await.expect("the holder commits");
    assert_eq!(loaded(b, &record.id).await, Some(snap), "the other handle sees it");

    a.release_lock(&record.id, TAB_A).await.expect("release");
    b.acquire_lock(&record.id, TAB_B, 4_000, 30_000).await.expect("now tab B");
    b.rename_session(&record.id, "taken over", 4_001).await.expect("rename");
    assert_eq!(a.session(&record.id).await.expect("get").title, "taken over");
}
