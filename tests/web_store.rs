//! Browser tests of the IndexedDB store (`web::idb_store`) in headless
//! Chromium: the store contract against real IndexedDB (a fresh database
//! per case), two connections on one database, the v1 → v2 migration of a
//! database written by hand the way v1 wrote it, and the failures a person
//! can meet: a full disk (a real `QuotaExceededError` DOMException thrown
//! by a patched `IDBObjectStore.put`), a request failing mid-commit, an
//! upgrade blocked by another tab, a newer database, no IndexedDB at all,
//! and a newer tab taking the database over. Each schema's upgrade is
//! checked from a database written as that schema did (v5 → v6: the
//! app-wide records nothing read are dropped, the sessions kept).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect};
use tabteam::core::action::AskAction;
use tabteam::core::events::EventSink;
use tabteam::core::llm::scripted::{ScriptedLlm, Turn};
use tabteam::core::message::{Message, MessageId};
use tabteam::core::role::{Role, RoleSpec};
use tabteam::core::store::{contract, Batch, SessionData, SessionRecord, SessionSettings, SessionStatus, Store, StoreError, SCHEMA_VERSION};
use tabteam::core::team::Team;
use tabteam::web::idb;
use tabteam::web::idb_store::IdbStore;
use wasm_bindgen::JsValue;
use web_sys::{IdbDatabase, IdbObjectStoreParameters, IdbTransactionMode};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A database name no earlier test used, emptied first.
async fn fresh_name(case: &str) -> String {
    let name = format!("tabteam-test-{case}");
    IdbStore::delete_database(&name).await.expect("delete the old test database");
    name
}

async fn fresh(case: &str) -> IdbStore {
    IdbStore::open(&fresh_name(case).await).await.expect("open a fresh store")
}

/// Opens `name` as it is (`None`) or at `version`, upgrading nothing.
async fn open_raw(name: &str, version: Option<u32>) -> IdbDatabase {
    let factory = idb::factory().expect("indexedDB");
    idb::open(&factory, name, version, None).expect("open").await.expect("opened")
}

/// The names of a database's object stores.
fn store_names(db: &IdbDatabase) -> Vec<String> {
    let names = db.object_store_names();
    (0..names.length()).filter_map(|i| names.item(i)).collect()
}

macro_rules! idb_contract {
    ($($case:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test]
            async fn $case() {
                let store = fresh(stringify!($case)).await;
                contract::$case(&store).await;
                store.close();
            }
        )*
    };
}
tabteam::for_each_contract_case!(idb_contract);

#[wasm_bindgen_test]
async fn two_connections_on_one_database() {
    let (_, a, b) = two_connections("two-connections").await;
    contract::two_handles_share_one_database(&a, &b).await;
}

#[wasm_bindgen_test]
async fn role_list_edits_from_a_connection_that_does_not_know_the_session() {
    let (_, a, b) = two_connections("list-edits-two-connections").await;
    contract::role_list_edits_from_a_connection_that_does_not_know_the_session(&a, &b).await;
}

/// Two connections, `a` and `b`, to a fresh database (its name first).
async fn two_connections(case: &str) -> (String, IdbStore, IdbStore) {
    let name = fresh_name(case).await;
    let a = IdbStore::open(&name).await.expect("open a");
    let b = IdbStore::open(&name).await.expect("open b");
    (name, a, b)
}

fn run_js(code: &str) {
    js_sys::Function::new_no_args(code).call0(&JsValue::UNDEFINED).expect("the test script runs");
}

/// Makes `IDBObjectStore.put` on `store` throw a QuotaExceededError
/// ("quota") or turn into an `add` that fails on an existing key
/// ("conflict"); `None` restores it.
fn fail_puts(rule: Option<(&str, &str)>) {
    run_js(
        r#"if (!globalThis.__tabteamPatched) {
            globalThis.__tabteamPatched = true;
            const put = IDBObjectStore.prototype.put;
            IDBObjectStore.prototype.put = function (...args) {
                const rule = globalThis.__tabteamFail;
                if (rule && rule.store === this.name) {
                    if (rule.how === "quota") throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
                    if (rule.how === "conflict") return this.add(...args);
                }
                return put.apply(this, args);
            };
        }"#,
    );
    let value = match rule {
        None => JsValue::NULL,
        Some((store, how)) => {
            let o = Object::new();
            let _ = Reflect::set(&o, &"store".into(), &store.into());
            let _ = Reflect::set(&o, &"how".into(), &how.into());
            o.into()
        }
    };
    Reflect::set(&js_sys::global(), &"__tabteamFail".into(), &value).expect("set the rule");
}

fn small_team(turns: &[&str]) -> Team {
    let llm = ScriptedLlm::new("m", turns.iter().map(|t| Turn::with_usage(*t, 10, 5)));
    let mut team = Team::new("t", std::rc::Rc::new(llm), EventSink::default());
    team.hire([Role::new(RoleSpec::new("Alice", "PM").watch(["UserRequirement"]), vec![std::rc::Rc::new(AskAction::new("WritePRD", "Write it."))])]);
    team
}

fn record(title: &str) -> SessionRecord {
    SessionRecord {
        id: "s1".into(),
        title: title.into(),
        idea: "make 2048".into(),
        team_kind: "sop".into(),
        settings: SessionSettings::default(),
        status: SessionStatus::Idle,
        created_ms: 1,
        updated_ms: 1,
    }
}

/// A batch of one message, "message N", stamped at `now` by `holder`.
fn append_one(n: u64, now: u64, holder: Option<&str>) -> Batch {
    let message = Message::new(MessageId(n), format!("message {n}"));
    Batch { messages: vec![message], ..Batch::default() }.stamped(now, holder)
}

/// A new empty session ("make 2048"); returns the store's id for it.
async fn new_session(store: &IdbStore) -> String {
    let created = store.create_session(tabteam::core::store::NewSession {
        title: "t".into(),
        idea: "make 2048".into(),
        team_kind: "sop".into(),
        settings: SessionSettings::default(),
        now_ms: 1,
    });
    created.await.expect("create").id
}

/// A session with one round run and committed; returns the store's id for it.
async fn committed_session(store: &IdbStore) -> (String, Team) {
    let id = new_session(store).await;
    let mut team = small_team(&["the PRD"]);
    team.run_project("make 2048");
    team.run(1).await;
    store.commit(&id, Batch::full(&team.snapshot()).stamped(2, None)).await.expect("commit");
    (id, team)
}

#[wasm_bindgen_test]
async fn a_full_disk_is_reported_and_nothing_is_half_written() {
    let store = fresh("quota").await;
    let (id, team) = committed_session(&store).await;
    let before = store.load_session(&id).await.expect("load");

    // A batch whose messages, meta, cost entry and file are written before
    // the session row, whose write hits the full disk.
    let first = team.snapshot();
    let mut next = first.clone();
    next.messages.push(Message::new(MessageId(50), "a new message"));
    next.history.push(MessageId(50));
    next.ledger.record("Alice", "m", Default::default());
    next.files.write("docs/new.md", "x").expect("write");
    let batch = Batch::between(Some(&first), &next).stamped(3, None);
    assert!(!batch.messages.is_empty() && !batch.costs.is_empty() && batch.history.is_some());

    fail_puts(Some(("sessions", "quota")));
    let result = store.commit(&id, batch.clone()).await;
    fail_puts(None);
    assert_eq!(result, Err(StoreError::QuotaExceeded));
    assert!(result.err().map(|e| e.to_string()).is_some_and(|t| t.contains("full") && t.contains("paused")));
    assert_eq!(store.load_session(&id).await.expect("load"), before, "nothing of the batch was saved");

    store.commit(&id, batch).await.expect("once there is room, the same batch goes through");
    assert_eq!(store.load_session(&id).await.expect("load").snapshot().expect("snapshot"), Some(next));
    store.close();
}

#[wasm_bindgen_test]
async fn a_request_failing_mid_commit_aborts_the_whole_commit() {
    let store = fresh("conflict").await;
    let (id, team) = committed_session(&store).await;
    let before = store.load_session(&id).await.expect("load");
    let known = before.messages[0].clone();
    let batch = Batch {
        messages: vec![Message::new(MessageId(60), "new"), known],
        status: Some(SessionStatus::Running),
        ..Batch::full(&team.snapshot())
    }
    .stamped(4, None);

    // The tail row's write fails asynchronously (its key exists), after
    // the session row's.
    fail_puts(Some(("tails", "conflict")));
    let result = store.commit(&id, batch).await;
    fail_puts(None);
    assert!(matches!(&result, Err(StoreError::Other(m)) if m.contains("ConstraintError")), "{result:?}");
    assert_eq!(store.load_session(&id).await.expect("load"), before, "the first message was rolled back too");
    store.close();
}

/// Writes a database exactly as schema v1 did: the project's files as one
/// `project` record per session.
async fn write_v1(name: &str, data: &SessionData) -> IdbDatabase {
    write_old(name, 1, data).await
}

/// Writes a database exactly as schema `version` (1 or 2) did: one row per
/// message and per cost entry, the history inside the meta record; v1 kept
/// the project's files as one `project` record, v2 one `files` row per
/// version.
async fn write_old(name: &str, version: u32, data: &SessionData) -> IdbDatabase {
    let factory = idb::factory().expect("indexedDB");
    let files_store = if version == 1 { "project" } else { "files" };
    let upgrade: idb::Upgrade = Box::new(move |db: IdbDatabase, _, _| {
        let single = |k: &str| Some(JsValue::from_str(k));
        let array = |ks: &[&str]| Some(JsValue::from(ks.iter().map(|k| JsValue::from_str(k)).collect::<Array>()));
        let store = |name: &str, key: Option<JsValue>| {
            let params = IdbObjectStoreParameters::new();
            if let Some(key) = &key {
                params.set_key_path(key);
            }
            db.create_object_store_with_optional_parameters(name, &params).expect("create store")
        };
        store("sessions", single("id"));
        store("meta", single("s"));
        store("ledger", single("s"));
        store("messages", array(&["s", "id"]));
        store("roles", array(&["s", "name"]));
        if version == 1 {
            store("project", single("s"));
        } else {
            store("files", array(&["s", "p", "v"]));
        }
        store("costs", array(&["s", "seq"]));
        store("locks", single("s"));
        store("experiences", single("id")).create_index_with_str("role", "role").expect("index");
        store("settings", None);
    });
    let db = idb::open(&factory, name, Some(version), Some(upgrade)).expect("open an old version").await.expect("v1 database");
    let row = |keys: &[(&str, JsValue)], json: String| -> JsValue {
        let o = Object::new();
        for (k, v) in keys {
            let _ = Reflect::set(&o, &(*k).into(), v);
        }
        let _ = Reflect::set(&o, &"json".into(), &json.into());
        o.into()
    };
    let json = |v: &dyn erased::Json| v.json();
    let s = || JsValue::from_str("s1");
    let names: Array = ["sessions", "meta", "ledger", "messages", "roles", files_store, "costs", "settings"].iter().map(|n| JsValue::from_str(n)).collect();
    let tx = db.transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite).expect("tx");
    let end = idb::transaction_end(&tx);
    let put = |store: &str, value: JsValue| {
        tx.object_store(store).expect("store").put(&value).expect("put");
    };
    put("sessions", row(&[("id", s())], json(&data.session)));
    put("meta", row(&[("s", s())], json(&data.meta)));
    put("ledger", row(&[("s", s())], json(&data.ledger)));
    for m in &data.messages {
        put("messages", row(&[("s", s()), ("id", (m.id.0 as f64).into())], json(m)));
    }
    for (i, r) in data.roles.iter().enumerate() {
        let record = tabteam::core::store::RoleRecord { index: i as u32, role: r.clone() };
        put("roles", row(&[("s", s()), ("name", r.name.as_str().into())], json(&record)));
    }
    if version == 1 {
        let files = data.project_files().expect("files");
        put("project", row(&[("s", s())], json(&files)));
    } else {
        for f in &data.files {
            put("files", row(&[("s", s()), ("p", f.path.as_str().into()), ("v", f.version.into())], json(f)));
        }
    }
    for c in &data.costs {
        put("costs", row(&[("s", s()), ("seq", (c.seq as f64).into())], json(c)));
    }
    tx.object_store("settings").expect("settings").put_with_key(&"1".into(), &"session_counter".into()).expect("counter");
    assert_eq!(end.await.expect("ended").as_bool(), Some(true), "committed");
    db
}

/// `serde_json::to_string` behind a trait object, for the row helper.
mod erased {
    pub trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).expect("json")
        }
    }
}

async fn v1_session() -> SessionData {
    let mut team = small_team(&["the PRD"]);
    team.run_project("make 2048");
    team.run(1).await;
    {
        let mut files = team.env.world.files.borrow_mut();
        files.write("docs/prd.md", "one").expect("write");
        files.write("docs/prd.md", "two").expect("write");
        files.write("src/main.rs", "fn main() {}").expect("write");
    }
    SessionData::from_snapshot(record("from v1"), &team.snapshot())
}

#[wasm_bindgen_test]
async fn a_v1_database_is_migrated_to_the_current_schema() {
    let name = fresh_name("migration").await;
    let data = v1_session().await;
    write_v1(&name, &data).await.close();

    let store = IdbStore::open(&name).await.expect("open migrates");
    let back = store.load_session("s1").await.expect("the v1 session is there");
    assert_eq!(back.files, data.files, "one record per file version");
    assert_eq!(back.snapshot().expect("snapshot"), data.snapshot().expect("snapshot"));
    let files = back.project_files().expect("files");
    assert_eq!(files.history("docs/prd.md").expect("prd"), ["one", "two"]);
    let next = store.duplicate_session("s1", "copy", 5).await.expect("the migrated database takes writes");
    assert_eq!(next.id, "s2", "the v1 session counter carried over");
    store.close();

    let db = open_raw(&name, None).await;
    assert_eq!(db.version() as u32, SCHEMA_VERSION);
    let names = store_names(&db);
    assert!(names.iter().any(|n| n == "files") && !names.iter().any(|n| n == "project"), "{names:?}");
    db.close();
}

#[wasm_bindgen_test]
async fn an_upgrade_blocked_by_another_tab_is_reported_then_succeeds() {
    let name = fresh_name("blocked").await;
    let data = v1_session().await;
    // An "old tab" keeps the v1 database open and ignores version changes.
    let old_tab = write_v1(&name, &data).await;
    let result = IdbStore::open(&name).await.err();
    assert_eq!(result, Some(StoreError::Blocked));
    assert!(result.map(|e| e.to_string()).is_some_and(|t| t.contains("Close the other tabteam tabs")));

    old_tab.close();
    let store = IdbStore::open(&name).await.expect("opens once the other tab closed");
    assert_eq!(store.load_session("s1").await.expect("load").files, data.files);
    store.close();
}

#[wasm_bindgen_test]
async fn a_database_from_a_newer_tabteam_is_refused() {
    let name = fresh_name("too-new").await;
    let newer = open_raw(&name, Some(SCHEMA_VERSION + 1)).await;
    newer.close();
    let result = IdbStore::open(&name).await.err();
    assert_eq!(result, Some(StoreError::TooNew { found: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION }));
}

#[wasm_bindgen_test]
async fn no_indexeddb_means_unavailable() {
    run_js(
        r#"const own = Object.getOwnPropertyDescriptor(globalThis, "indexedDB");
        globalThis.__tabteamRestoreIdb = () => {
            if (own) Object.defineProperty(globalThis, "indexedDB", own); else delete globalThis.indexedDB;
        };
        Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true, writable: true });"#,
    );
    let result = IdbStore::open("tabteam-test-unavailable").await.err();
    run_js("globalThis.__tabteamRestoreIdb();");
    assert!(matches!(&result, Some(StoreError::Unavailable(_))), "{result:?}");
    assert!(result.map(|e| e.to_string()).is_some_and(|t| t.contains("private window")));
    let store = IdbStore::open(&fresh_name("available-again").await).await.expect("IndexedDB is back");
    store.close();
}

#[wasm_bindgen_test]
async fn a_newer_tab_takes_the_database_over_without_being_blocked() {
    let name = fresh_name("taken-over").await;
    let store = IdbStore::open(&name).await.expect("open");
    store.list_sessions().await.expect("works");
    // A newer tabteam opens the same database at a higher version: this
    // connection steps aside instead of blocking it.
    let newer = open_raw(&name, Some(SCHEMA_VERSION + 1)).await;
    newer.close();
    let result = store.list_sessions().await;
    assert!(matches!(&result, Err(StoreError::Unavailable(m)) if m.contains("reload")), "{result:?}");
}

/// A v2 session big enough to fill several chunks of each log.
async fn v2_session() -> (SessionData, Team) {
    let mut team = small_team(&["the PRD"]);
    team.run_project("make 2048");
    team.run(1).await;
    for i in 0..700 {
        team.publish_user_message(&format!("message {i} {}", "x".repeat(200)), &[]);
        if i % 2 == 0 {
            team.ledger.borrow_mut().record("Alice", "m", Default::default());
        }
    }
    team.env.world.files.borrow_mut().write("docs/prd.md", "one").expect("write");
    (SessionData::from_snapshot(record("from v2"), &team.snapshot()), team)
}

/// How many rows `store` of database `name` holds.
async fn rows_in(name: &str, store: &str) -> u32 {
    let db = open_raw(name, None).await;
    let tx = db.transaction_with_str(store).expect("tx");
    let count = idb::issued(tx.object_store(store).expect("store").count()).expect("count").await.expect("counted");
    db.close();
    count.as_f64().expect("a number") as u32
}

/// A migrated session resumes: forty more messages, each with a cost entry,
/// committed one at a time by a writer that starts from what was loaded;
/// `check` looks at each batch.
async fn commit_forty_more(store: &IdbStore, team: &mut Team, loaded: SessionData, check: impl Fn(&Batch)) {
    let saved = loaded.snapshot().expect("consistent");
    let mut writer = tabteam::core::store::SessionWriter::new("s1", "tab", saved);
    for i in 0..40 {
        team.publish_user_message(&format!("after {i} {}", "y".repeat(300)), &[]);
        team.ledger.borrow_mut().record("Alice", "m", Default::default());
        let changes = team.with_frame(|frame| writer.changes(frame));
        check(&changes.batch);
        writer.commit(store, changes, None, 10 + i).await.expect("commit");
    }
}

#[wasm_bindgen_test]
async fn a_v2_database_is_migrated_to_chunks_and_resumes() {
    let name = fresh_name("migration-v2").await;
    let (data, mut team) = v2_session().await;
    assert!(data.messages.len() > 700 && data.costs.len() >= 350);
    write_old(&name, 2, &data).await.close();

    let store = IdbStore::open(&name).await.expect("open migrates");
    let back = store.load_session("s1").await.expect("the v2 session is there");
    assert_eq!(back, data, "every record came over, the history included");
    store.close();
    let db = open_raw(&name, None).await;
    assert_eq!(db.version() as u32, SCHEMA_VERSION);
    let names = store_names(&db);
    db.close();
    assert!(names.iter().any(|n| n == "message_chunks") && !names.iter().any(|n| n == "messages" || n == "costs"), "{names:?}");
    let chunks = rows_in(&name, "message_chunks").await;
    assert!((4..=20).contains(&chunks), "{} messages of ~300 bytes in {chunks} chunks", data.messages.len());

    // It resumes: the writer continues the chunks where the migration left them.
    let store = IdbStore::open(&name).await.expect("open");
    commit_forty_more(&store, &mut team, back, |batch| {
        assert!(batch.meta.is_some() && batch.messages.len() == 1 && batch.costs.len() == 1);
    })
    .await;
    let resumed = store.load_session("s1").await.expect("load").snapshot().expect("consistent");
    assert_eq!(resumed.map(|s| (s.messages, s.history, s.ledger.entries().to_vec())), {
        let want = team.snapshot();
        Some((want.messages, want.history, want.ledger.entries().to_vec()))
    });
    store.close();
}

#[wasm_bindgen_test]
async fn logs_grow_across_chunk_boundaries_one_commit_at_a_time() {
    let name = fresh_name("chunks").await;
    let store = IdbStore::open(&name).await.expect("open");
    let id = new_session(&store).await;
    let mut team = small_team(&["the PRD"]);
    let mut writer = tabteam::core::store::SessionWriter::new(id.clone(), "tab", None);
    team.run_project("make 2048");
    team.run(1).await;
    // Messages of growing size, one bigger than a whole chunk.
    for i in 0..300u64 {
        let size = if i == 150 { 40_000 } else { 50 + 5 * i as usize };
        team.publish_user_message(&format!("{i} {}", "z".repeat(size)), &[]);
        team.ledger.borrow_mut().record("Alice", "m", Default::default());
        let changes = team.with_frame(|frame| writer.changes(frame));
        writer.commit(&store, changes, None, 2 + i).await.expect("commit");
        if i % 37 == 0 || i == 150 || i == 151 || i == 299 {
            let back = store.load_session(&id).await.expect("load").snapshot().expect("consistent");
            assert_eq!(back.as_ref().map(|s| &s.messages), Some(&team.snapshot().messages), "after message {i}");
            assert_eq!(back.as_ref().map(|s| &s.history), Some(&team.snapshot().history), "after message {i}");
            assert_eq!(back.map(|s| s.ledger.entries().len()), Some(team.ledger.borrow().entries().len()));
        }
    }
    store.close();
    let chunks = rows_in(&name, "message_chunks").await;
    // About 0.3 MB of messages at ≤ 4 KiB a sealed chunk (the big one
    // alone), the open chunk in the tail row.
    assert!((60..=100).contains(&chunks), "{chunks} chunks");
    // ~300 ids (~1.2 KB) at ≤ 1 KiB a chunk; the cost entries at 4 KiB.
    let (history, costs) = (rows_in(&name, "history").await, rows_in(&name, "cost_chunks").await);
    assert!((1..=2).contains(&history) && (2..=25).contains(&costs), "{history} history chunks, {costs} cost chunks");
    assert_eq!(rows_in(&name, "tails").await, 1);
}

/// `v2_session()` written as schema v2 in a fresh database (named after
/// `case`), then upgraded to schema `version` as the tabteam of that
/// version did: the database's name, the session's data and its team.
async fn upgraded_v2_session(case: &str, version: u32) -> (String, SessionData, Team) {
    let name = fresh_name(case).await;
    let (data, team) = v2_session().await;
    write_old(&name, 2, &data).await.close();
    IdbStore::open_at(&name, version).await.expect("open at the older version").close();
    (name, data, team)
}

#[wasm_bindgen_test]
async fn a_v3_database_is_migrated_to_tails_and_resumes() {
    let (name, data, mut team) = upgraded_v2_session("migration-v3", 3).await;
    let db = open_raw(&name, None).await;
    let (version, names) = (db.version() as u32, store_names(&db));
    db.close();
    assert!(version == 3 && names.iter().any(|n| n == "roles") && !names.iter().any(|n| n == "tails"), "{version} {names:?}");

    let store = IdbStore::open(&name).await.expect("open migrates");
    let back = store.load_session("s1").await.expect("the v3 session is there");
    assert_eq!(back, data, "every record came over: meta, ledger, roles with their lists");
    store.close();
    let db = open_raw(&name, None).await;
    assert_eq!(db.version() as u32, SCHEMA_VERSION);
    let names = store_names(&db);
    db.close();
    assert!(names.iter().any(|n| n == "tails") && names.iter().any(|n| n == "role_lists"), "{names:?}");
    assert!(!names.iter().any(|n| n == "meta" || n == "ledger" || n == "roles"), "{names:?}");
    assert_eq!(rows_in(&name, "tails").await, 1);

    // It resumes: messages, costs and every role's buffer grow from there.
    let store = IdbStore::open(&name).await.expect("open");
    commit_forty_more(&store, &mut team, back, |batch| {
        assert!(!batch.roles.is_empty() && batch.messages.len() == 1);
    })
    .await;
    store.close();
    // A new connection reads it all from the database.
    assert_reopened(&name, &team, "the whole team, roles included").await;
}

/// A new connection to database `name` loads session "s1" as `team`'s
/// snapshot.
async fn assert_reopened(name: &str, team: &Team, what: &str) {
    let store = IdbStore::open(name).await.expect("open");
    let resumed = store.load_session("s1").await.expect("load").snapshot().expect("consistent");
    assert_eq!(resumed, Some(team.snapshot()), "{what}");
    store.close();
}

#[wasm_bindgen_test]
async fn a_commit_after_another_connection_wrote_loses_nothing() {
    let (_, a, b) = two_connections("two-writers").await;
    let id = new_session(&a).await;
    let append = |n: u64, now: u64| append_one(n, now, None);
    a.commit(&id, append(1, 2)).await.expect("a writes");
    assert!(a.last_commit().from_known, "a made the session: it commits from what it knows");
    // `b` appends and renames while `a` holds what it knew before.
    b.load_session(&id).await.expect("b loads");
    b.commit(&id, append(2, 3)).await.expect("b writes");
    b.rename_session(&id, "renamed by b", 4).await.expect("b renames");
    a.commit(&id, append(3, 5)).await.expect("a writes again");
    // Its commit from the stale view was undone, and made again from
    // what the database holds.
    assert!(!a.last_commit().from_known, "a's stale view was caught");
    let data = b.load_session(&id).await.expect("load");
    assert_eq!(data.messages.iter().map(|m| m.id.0).collect::<Vec<_>>(), [1, 2, 3], "no message lost");
    assert_eq!((data.session.title.as_str(), data.session.updated_ms), ("renamed by b", 5), "the rename kept");
    // And again the other way round, after only a rename.
    a.rename_session(&id, "renamed by a", 6).await.expect("a renames");
    b.commit(&id, append(4, 7)).await.expect("b writes");
    let data = a.load_session(&id).await.expect("load");
    assert_eq!(data.messages.len(), 4);
    assert_eq!(data.session.title, "renamed by a");
    a.close();
    b.close();
}

/// A connection that knew a session another connection deleted does not
/// write it back.
#[wasm_bindgen_test]
async fn a_session_deleted_by_another_connection_is_not_written_back() {
    let (name, a, b) = two_connections("deleted-by-other").await;
    let id = new_session(&a).await;
    a.commit(&id, append_one(1, 2, None)).await.expect("a writes");
    b.delete_session(&id, 3).await.expect("b deletes it");
    assert_eq!(a.commit(&id, append_one(2, 4, None)).await, Err(StoreError::NotFound(id.clone())));
    assert_eq!(a.list_sessions().await.expect("list"), vec![], "not written back");
    assert_eq!(a.load_session(&id).await, Err(StoreError::NotFound(id.clone())));
    a.close();
    b.close();
    for store in ["sessions", "tails", "message_chunks", "claims"] {
        assert_eq!(rows_in(&name, store).await, 0, "{store}");
    }
}

/// A commit checks the lease against the lease row it knows, without
/// reading it, while the session row's write stamp is unchanged; every
/// write of a lease row (another connection's take-over after expiry, a
/// release, this connection's own renewal) renews that stamp, so a lease
/// taken by another tab is never missed.
#[wasm_bindgen_test]
async fn a_lease_taken_by_another_connection_refuses_a_commit_that_knew_the_old_one() {
    let (_, a, b) = two_connections("lease-behind-stamp").await;
    let id = new_session(&a).await;
    let append = |n: u64, now: u64, holder: &str| append_one(n, now, Some(holder));
    a.acquire_lock(&id, "tab-a", 1, 10).await.expect("a holds it");
    a.commit(&id, append(1, 2, "tab-a")).await.expect("a writes, and now knows the lease");
    a.renew_lock(&id, "tab-a", 5, 10).await.expect("a renews");
    a.commit(&id, append(2, 6, "tab-a")).await.expect("a writes after its own renewal");
    // A's lease runs out (at 15) and tab B takes the session over.
    b.acquire_lock(&id, "tab-b", 20, 100).await.expect("b takes it after expiry");
    assert_eq!(a.commit(&id, append(3, 21, "tab-a")).await, Err(StoreError::Locked { by: "tab-b".into() }), "a learns of b's lease");
    assert_eq!(a.commit(&id, append(3, 22, "tab-a")).await, Err(StoreError::Locked { by: "tab-b".into() }), "and keeps knowing it");
    b.commit(&id, append(3, 23, "tab-b")).await.expect("b writes");
    b.release_lock(&id, "tab-b").await.expect("b lets it go");
    a.commit(&id, append(4, 24, "tab-a")).await.expect("a writes once b released it");
    // B takes it again; a commit of A that knew the released lease is refused.
    b.acquire_lock(&id, "tab-b", 25, 100).await.expect("b takes it again");
    assert_eq!(a.commit(&id, append(5, 26, "tab-a")).await, Err(StoreError::Locked { by: "tab-b".into() }));
    let data = a.load_session(&id).await.expect("load");
    assert_eq!(data.messages.iter().map(|m| m.id.0).collect::<Vec<_>>(), [1, 2, 3, 4], "refused commits left nothing");
    a.close();
    b.close();
}

/// The ids of a session's messages, in order.
fn ids(data: &SessionData) -> Vec<u64> {
    data.messages.iter().map(|m| m.id.0).collect()
}

/// A commit of a connection whose own lease runs a while yet reads
/// nothing: it adds the session's next claim, and every other write of the
/// session (here a rename by another connection) made that claim first, so
/// the add fails, IndexedDB aborts the whole transaction and the commit is
/// made again from the database. Nothing of either write is lost. (MetaGPT
/// has one process and no second writer; our earlier commits read the
/// session row and waited for it before asking for the commit.)
#[wasm_bindgen_test]
async fn a_claimed_commit_overtaken_by_another_connection_is_made_again() {
    let (name, a, b) = two_connections("claimed").await;
    let id = new_session(&a).await;
    let append = |n: u64, now: u64| append_one(n, now, Some("tab-a"));
    a.acquire_lock(&id, "tab-a", 1, 100_000).await.expect("a holds it");
    a.commit(&id, append(1, 2)).await.expect("a writes");
    let first = a.last_commit();
    assert!(first.claimed && first.from_known, "a knows its lease: it reads nothing ({first:?})");
    b.rename_session(&id, "renamed by b", 3).await.expect("b renames");
    a.commit(&id, append(2, 4)).await.expect("a writes again");
    assert!(!a.last_commit().from_known, "a's claim failed, and its commit was made again from the database");
    a.commit(&id, append(3, 5)).await.expect("and again");
    assert!(a.last_commit().claimed, "then it claims again");
    a.renew_lock(&id, "tab-a", 6, 100_000).await.expect("a renews");
    a.commit(&id, append(4, 7)).await.expect("a writes after its own renewal");
    let after = a.last_commit();
    assert!(after.claimed && after.from_known, "its own renewal keeps what it knows ({after:?})");
    let data = b.load_session(&id).await.expect("load");
    assert_eq!(ids(&data), [1, 2, 3, 4], "no message lost");
    assert_eq!((data.session.title.as_str(), data.session.updated_ms), ("renamed by b", 7), "the rename kept");
    // One claim per write: the lease taken, four commits, the rename, the renewal.
    assert_eq!(rows_in(&name, "claims").await, 7);
    // With less than the margin left on its lease (renewed at 6 until
    // 100,006), a commit reads the session row again.
    a.commit(&id, append(5, 97_000)).await.expect("a writes near its lease's end");
    let near = a.last_commit();
    assert!(!near.claimed && near.from_known, "checked against the database ({near:?})");
    assert_eq!(ids(&a.load_session(&id).await.expect("load")), [1, 2, 3, 4, 5]);
    a.close();
    b.close();
}

/// Two connections to a fresh database (its name first) and a session
/// (its id last) that `a` holds the lease of until 10,001 and has made one
/// claimed commit to (message 1 at 2).
async fn claimed_by_a(case: &str) -> (String, IdbStore, IdbStore, String) {
    let (name, a, b) = two_connections(case).await;
    let id = new_session(&a).await;
    a.acquire_lock(&id, "tab-a", 1, 10_000).await.expect("a holds it until 10,001");
    a.commit(&id, append_one(1, 2, Some("tab-a"))).await.expect("a writes");
    assert!(a.last_commit().claimed);
    (name, a, b, id)
}

/// A tab whose lease ran out while it thought it had long to go (its clock
/// behind the other tab's, or its commit delayed) makes a claimed commit
/// after another tab took the lease over: the taking-over was a claim, so
/// the commit is made again from the database, which refuses it.
#[wasm_bindgen_test]
async fn a_claimed_commit_after_another_tab_took_the_lease_is_refused() {
    let (_, a, b, id) = claimed_by_a("claimed-take-over").await;
    b.acquire_lock(&id, "tab-b", 20_000, 10_000).await.expect("b takes it once it ran out");
    let late = a.commit(&id, append_one(2, 3, Some("tab-a"))).await;
    assert_eq!(late, Err(StoreError::Locked { by: "tab-b".into() }), "a learns of b's lease");
    b.commit(&id, append_one(2, 20_001, Some("tab-b"))).await.expect("b writes");
    assert!(!b.last_commit().claimed, "b had not read the session: its first commit reads it");
    b.commit(&id, append_one(3, 20_002, Some("tab-b"))).await.expect("b writes again");
    assert!(b.last_commit().claimed, "its second claims");
    let data = a.load_session(&id).await.expect("load");
    assert_eq!((ids(&data), data.session.updated_ms), (vec![1, 2, 3], 20_002), "a's refused commit left nothing");
    a.close();
    b.close();
}

#[wasm_bindgen_test]
async fn a_v4_database_is_migrated_to_claims_and_resumes() {
    let (name, data, mut team) = upgraded_v2_session("migration-v4", 4).await;
    // Its session row stamped with text, as v4 did.
    let db = open_raw(&name, None).await;
    assert!(db.version() as u32 == 4 && !store_names(&db).iter().any(|n| n == "claims"), "{:?}", store_names(&db));
    let tx = db.transaction_with_str_and_mode("sessions", IdbTransactionMode::Readwrite).expect("tx");
    let end = idb::transaction_end(&tx);
    let sessions = tx.object_store("sessions").expect("sessions");
    let row = idb::issued(sessions.get(&"s1".into())).expect("get").await.expect("the v4 row");
    Reflect::set(&row, &"w".into(), &"5f3a9c:12".into()).expect("stamp");
    sessions.put(&row).expect("put");
    assert_eq!(end.await.expect("ended").as_bool(), Some(true), "committed");
    db.close();

    let store = IdbStore::open(&name).await.expect("open migrates");
    let back = store.load_session("s1").await.expect("the v4 session is there");
    assert_eq!(back, data, "every record came over");
    let db = open_raw(&name, None).await;
    assert!(db.version() as u32 == SCHEMA_VERSION && store_names(&db).iter().any(|n| n == "claims"));
    db.close();
    assert_eq!(rows_in(&name, "claims").await, 0, "no claims made yet");

    // It resumes under a lease: forty claimed commits.
    store.acquire_lock("s1", "tab", 1, 1_000_000).await.expect("lease");
    commit_forty_more(&store, &mut team, back, |batch| assert!(batch.messages.len() == 1)).await;
    assert!(store.last_commit().claimed && store.last_commit().from_known);
    store.close();
    assert_eq!(rows_in(&name, "claims").await, 41, "the lease and forty commits");
    assert_reopened(&name, &team, "the whole team").await;
}

/// Schema v5 kept app-wide records nothing read: an `experiences` store
/// and, in `settings`, the app's settings, a remembered key and the
/// experiences' counter. v6 drops them; the sessions and their counter
/// stay, and the session resumes.
#[wasm_bindgen_test]
async fn a_v5_database_with_app_records_opens_keeping_its_sessions() {
    let (name, data, mut team) = upgraded_v2_session("migration-v6", 5).await;
    // What a v5 tabteam wrote there: an experience, the app's settings,
    // a remembered key and the counters (each setting a JSON string).
    let db = open_raw(&name, None).await;
    assert!(db.version() as u32 == 5 && store_names(&db).iter().any(|n| n == "experiences"), "{:?}", store_names(&db));
    let names: Array = ["experiences", "settings"].iter().map(|n| JsValue::from_str(n)).collect();
    let tx = db.transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite).expect("tx");
    let end = idb::transaction_end(&tx);
    let experience = Object::new();
    Reflect::set(&experience, &"id".into(), &1.into()).expect("id");
    Reflect::set(&experience, &"role".into(), &"Mike".into()).expect("role");
    let json = r#"{"id":1,"role":"Mike","session_id":"s1","created_ms":5,"experience":{"request":"make 2048","commands":"[]","outcome":"done"}}"#;
    Reflect::set(&experience, &"json".into(), &json.into()).expect("json");
    tx.object_store("experiences").expect("experiences").put(&experience).expect("put");
    let settings = tx.object_store("settings").expect("settings");
    for (key, value) in [
        ("app", r#"{"theme":"dark","remember_key":true,"last_session":"s1"}"#),
        ("api_key", r#""sk-live-SECRET-v5""#),
        ("experience_counter", "1"),
    ] {
        settings.put_with_key(&value.into(), &key.into()).expect("setting");
    }
    assert_eq!(end.await.expect("ended").as_bool(), Some(true), "committed");
    db.close();

    let store = IdbStore::open(&name).await.expect("open migrates");
    let back = store.load_session("s1").await.expect("the v5 session is there");
    assert_eq!(back, data, "every record of the session came over");
    let copy = store.duplicate_session("s1", "copy", 7).await.expect("the migrated database takes writes");
    assert_eq!(copy.id, "s2", "the session counter carried over");
    store.close();

    let db = open_raw(&name, None).await;
    assert_eq!(db.version() as u32, SCHEMA_VERSION);
    let names = store_names(&db);
    assert!(!names.iter().any(|n| n == "experiences") && names.iter().any(|n| n == "settings"), "{names:?}");
    let tx = db.transaction_with_str("settings").expect("tx");
    let keys = idb::issued(tx.object_store("settings").expect("settings").get_all_keys()).expect("keys").await.expect("read");
    let keys: Vec<String> = Array::from(&keys).iter().filter_map(|k| k.as_string()).collect();
    db.close();
    assert_eq!(keys, ["session_counter"], "the app's settings, the key and the experiences' counter are gone");

    // It resumes under a lease, as before.
    let store = IdbStore::open(&name).await.expect("open");
    store.acquire_lock("s1", "tab", 1, 1_000_000).await.expect("lease");
    commit_forty_more(&store, &mut team, back, |batch| assert!(batch.messages.len() == 1)).await;
    store.close();
    assert_reopened(&name, &team, "the whole team").await;
}

/// A commit whose lease has run out by its own clock is not claimed: it
/// reads the session row, so a session another tab deleted once the
/// lease ran out is not written back (deleting removes the claims).
#[wasm_bindgen_test]
async fn a_commit_after_its_lease_ran_out_does_not_write_a_deleted_session_back() {
    let (name, a, b, id) = claimed_by_a("deleted-after-lease").await;
    assert_eq!(b.delete_session(&id, 3).await, Err(StoreError::Locked { by: "tab-a".into() }), "not while a's lease runs");
    b.delete_session(&id, 10_002).await.expect("b deletes it once the lease ran out");
    assert_eq!(a.commit(&id, append_one(2, 10_003, Some("tab-a"))).await, Err(StoreError::NotFound(id.clone())));
    assert_eq!(a.list_sessions().await.expect("list"), vec![], "not written back");
    a.close();
    b.close();
    for store in ["sessions", "tails", "claims", "locks"] {
        assert_eq!(rows_in(&name, store).await, 0, "{store}");
    }
}
