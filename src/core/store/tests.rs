//! Native tests of the store port: the contract against `MemoryStore`
//! (one test per case), the snapshot diff, and the export's migrations.

use futures::executor::block_on;

use super::contract;
use super::*;
use crate::core::cost::PriceTable;
use crate::core::llm::scripted::ScriptedLlm;
use crate::core::message::{Message, MessageId};
use crate::core::snapshot::TeamSnapshot;
use crate::core::team::Team;

macro_rules! memory_contract {
    ($($case:ident),* $(,)?) => {
        mod memory_contract {
            $(
                #[test]
                fn $case() {
                    let store = super::MemoryStore::default();
                    futures::executor::block_on(super::contract::$case(&store));
                }
            )*
        }
    };
}
crate::for_each_contract_case!(memory_contract);

#[test]
fn memory_two_handles_share_one_database() {
    let a = MemoryStore::default();
    let b = a.clone();
    block_on(contract::two_handles_share_one_database(&a, &b));
}

#[test]
fn memory_role_list_edits_from_a_handle_that_does_not_know_the_session() {
    let a = MemoryStore::default();
    let b = a.clone();
    block_on(contract::role_list_edits_from_a_connection_that_does_not_know_the_session(&a, &b));
}

#[test]
fn a_store_is_usable_as_a_trait_object() {
    let store: std::rc::Rc<dyn Store> = std::rc::Rc::new(MemoryStore::default());
    block_on(contract::sessions_are_created_listed_renamed_and_deleted(&*store));
}

/// A named edit of a test value.
type Change<T> = Box<dyn Fn(&mut T)>;

fn empty_team() -> Team {
    Team::new("t", std::rc::Rc::new(ScriptedLlm::new("m", [])), Default::default())
}

fn with_message(mut snap: TeamSnapshot, id: u64) -> TeamSnapshot {
    snap.messages.push(Message::new(MessageId(id), format!("message {id}")));
    snap.history.push(MessageId(id));
    snap
}

#[test]
fn the_diff_of_a_snapshot_with_itself_is_empty() {
    let snap = with_message(empty_team().snapshot(), 1);
    let batch = Batch::between(Some(&snap), &snap);
    assert!(batch.is_empty(), "{batch:?}");
    assert_eq!(batch.len(), 0);
}

#[test]
fn the_full_batch_holds_everything_once() {
    let team = empty_team();
    team.env.world.files.borrow_mut().write("a.md", "1").expect("write");
    team.env.world.files.borrow_mut().write("a.md", "2").expect("write");
    team.ledger.borrow_mut().record("x", "m", Default::default());
    let snap = with_message(with_message(team.snapshot(), 1), 2);
    let batch = Batch::full(&snap);
    assert!(batch.meta.is_some() && batch.ledger.is_some());
    assert_eq!(batch.messages.len(), 2);
    assert_eq!(batch.files.iter().map(|f| (f.path.as_str(), f.version)).collect::<Vec<_>>(), [("a.md", 1), ("a.md", 2)]);
    assert_eq!(batch.costs.len(), 1);
    assert!(!batch.costs_replaced && batch.files_removed.is_empty() && batch.roles_removed.is_empty());
}

#[test]
fn the_diff_names_only_what_changed() {
    let base = with_message(empty_team().snapshot(), 1);
    // (what changed, the fields of the batch that must be set)
    let cases: Vec<(&str, Change<TeamSnapshot>, &[&str])> = vec![
        ("a new message", Box::new(|s| *s = with_message(s.clone(), 2)), &["history", "messages"]),
        ("the round", Box::new(|s| s.round += 1), &["meta"]),
        ("the budget", Box::new(|s| s.ledger.budget = 9.0), &["ledger"]),
        ("the prices", Box::new(|s| s.ledger.prices = PriceTable::empty()), &["ledger"]),
        ("a cost", Box::new(|s| drop(s.ledger.record("r", "gpt-4o", Default::default()))), &["ledger", "costs"]),
        ("a file", Box::new(|s| drop(s.files.write("x.rs", "x"))), &["files"]),
    ];
    for (what, change, want) in cases {
        let mut cur = base.clone();
        change(&mut cur);
        let b = Batch::between(Some(&base), &cur);
        let set: Vec<&str> = [
            ("meta", b.meta.is_some()),
            ("history", b.history.is_some()),
            ("ledger", b.ledger.is_some()),
            ("messages", !b.messages.is_empty()),
            ("roles", !b.roles.is_empty() || !b.roles_removed.is_empty()),
            ("files", !b.files.is_empty() || !b.files_removed.is_empty()),
            ("costs", !b.costs.is_empty() || b.costs_replaced),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| name)
        .collect();
        assert_eq!(set, want, "{what}");
    }
}

#[test]
fn the_diff_of_roles_writes_changed_and_moved_roles_and_removes_gone_ones() {
    use crate::core::snapshot::RoleSnapshot;
    let role = |name: &str| RoleSnapshot {
        name: name.into(),
        memory: vec![],
        working_memory: vec![],
        buffer: vec![],
        news: vec![],
        state: -1,
        latest_observed: None,
        pending: false,
        progress: Default::default(),
        plan: Default::default(),
        journal: vec![],
    };
    let mut prev = empty_team().snapshot();
    prev.roles = vec![role("A"), role("B"), role("C")];
    let mut cur = prev.clone();
    cur.roles[0].state = 0; // A changed
    cur.roles.remove(1); // B gone, so C moves to index 1
    let b = Batch::between(Some(&prev), &cur);
    let written: Vec<(u32, &str)> = b.roles.iter().map(|r| (r.index, r.name.as_str())).collect();
    assert_eq!(written, [(0, "A"), (1, "C")]);
    assert_eq!(b.roles_removed, ["B"]);
}

#[test]
fn session_data_round_trips_a_snapshot_and_finds_dangling_pointers() {
    let team = empty_team();
    team.env.world.files.borrow_mut().write("docs/a.md", "x").expect("write");
    team.ledger.borrow_mut().record("r", "gpt-4o", Default::default());
    team.ledger.borrow_mut().record("r", "gpt-4o", Default::default());
    let snap = with_message(team.snapshot(), 1);
    let record = NewSession {
        title: "t".into(),
        idea: "i".into(),
        team_kind: "solo".into(),
        settings: SessionSettings::default(),
        now_ms: 0,
    }
    .into_record();
    let data = SessionData::from_snapshot(record.clone(), &snap);
    assert_eq!(data.snapshot(), Ok(Some(snap.clone())));
    assert_eq!(SessionData::new(record.clone()).snapshot(), Ok(None));

    let cases: Vec<(&str, Change<SessionData>, &str)> = vec![
        ("no message", Box::new(|d| d.messages.clear()), "referenced"),
        ("no ledger", Box::new(|d| d.ledger = None), "ledger"),
        ("a missing version", Box::new(|d| d.files[0].version = 2), "missing version 1"),
        ("a bad path", Box::new(|d| d.files[0].path = "../etc".into()), "not a valid project path"),
        ("an extra cost", Box::new(|d| d.costs.push(crate::core::cost::CostLedger::default().record("r", "m", Default::default()))), "cost entries"),
        ("a missing cost", Box::new(|d| drop(d.costs.remove(0))), "entry 1 has number 2"),
        ("no meta", Box::new(|d| d.meta = None), "no meta"),
    ];
    for (what, spoil, says) in cases {
        let mut bad = SessionData::from_snapshot(record.clone(), &snap);
        spoil(&mut bad);
        match bad.snapshot() {
            Err(StoreError::Corrupt(m)) => assert!(m.contains(says), "{what}: {m}"),
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn export_migrations() {
    let v1 = serde_json::json!({"files": {"files": {"b.md": ["1", "2"], "a.md": ["x"]}}, "session": 1});
    let v2 = migrate_export(v1, 1).expect("migrate");
    assert_eq!(
        v2,
        serde_json::json!({"session": 1, "files": [
            {"path": "a.md", "version": 1, "content": "x"},
            {"path": "b.md", "version": 1, "content": "1"},
            {"path": "b.md", "version": 2, "content": "2"}
        ]})
    );
    let same = serde_json::json!({"files": []});
    assert_eq!(migrate_export(same.clone(), SCHEMA_VERSION), Ok(same));
    assert_eq!(migrate_export(serde_json::json!({}), SCHEMA_VERSION + 1), Err(StoreError::TooNew { found: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION }));
    assert!(matches!(migrate_export(serde_json::json!({"files": 3}), 1), Err(StoreError::Corrupt(_))));
    assert!(matches!(migrate_export(serde_json::json!({}), 0), Err(StoreError::Corrupt(_))));
}

#[test]
fn errors_read_as_sentences() {
    let cases = [
        (StoreError::QuotaExceeded, "storage for this site is full"),
        (StoreError::Blocked, "Close the other tabteam tabs"),
        (StoreError::Locked { by: "tab-9".into() }, "open in another tab (tab-9)"),
        (StoreError::Unavailable("no indexedDB".into()), "private window"),
        (StoreError::TooNew { found: 3, supported: 2 }, "schema 3; this one reads up to 2"),
    ];
    for (e, says) in cases {
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[test]
fn settings_have_no_key_field() {
    let json = serde_json::to_string(&SessionSettings::default()).expect("json");
    assert!(!json.to_lowercase().contains("key"), "{json}");
    let with_key: SessionSettings =
        serde_json::from_str(r#"{"provider":"openai","base_url":"","model":"m","budget":1.0,"rounds":3,"api_key":"sk-x"}"#)
            .expect("an unknown field is ignored");
    assert!(!serde_json::to_string(&with_key).expect("json").contains("sk-x"));
}

#[test]
fn the_writer_commits_only_changes_and_keeps_the_delta_after_a_failure() {
    use crate::core::llm::scripted::Turn;
    block_on(async {
        let store = MemoryStore::default();
        let record = store
            .create_session(NewSession {
                title: "w".into(),
                idea: "i".into(),
                team_kind: "solo".into(),
                settings: SessionSettings::default(),
                now_ms: 1,
            })
            .await
            .expect("create");
        let llm = ScriptedLlm::new("m", ["a", "b"].map(|t| Turn::with_usage(t, 10, 5)));
        let mut team = Team::new("t", std::rc::Rc::new(llm), Default::default());
        team.hire([crate::core::role::Role::new(
            crate::core::role::RoleSpec::new("Alice", "PM").watch(["UserRequirement"]),
            vec![std::rc::Rc::new(crate::core::action::AskAction::new("Write", "Write."))],
        )]);
        let mut writer = SessionWriter::new(record.id.clone(), "tab-a", None);
        team.run_project("i");
        assert!(writer.save(&store, team.snapshot(), Some(SessionStatus::Running), 2).await.expect("save") > 0);
        assert_eq!(writer.save(&store, team.snapshot(), None, 3).await, Ok(0), "nothing changed, nothing written");

        team.run(1).await;
        store.fail_after_writes(0);
        assert_eq!(writer.save(&store, team.snapshot(), None, 4).await, Err(StoreError::QuotaExceeded));
        team.publish_user_message("more", &[]);
        writer.save(&store, team.snapshot(), None, 5).await.expect("the next save carries both changes");
        let back = store.load_session(&record.id).await.expect("load");
        assert_eq!(back.snapshot().expect("snapshot"), Some(team.snapshot()));
        assert_eq!((back.session.status, back.session.updated_ms), (SessionStatus::Running, 5));

        store.acquire_lock(&record.id, "tab-b", 6, 1_000).await.expect("another tab");
        team.publish_user_message("again", &[]);
        assert_eq!(writer.save(&store, team.snapshot(), None, 7).await, Err(StoreError::Locked { by: "tab-b".into() }));
    });
}

/// The tracker finds a role changed in any one field, a list changed in
/// place at the same length among them (it compares the lists' lengths
/// first, then their contents), and writes the same batch as the diff
/// of the two snapshots.
#[test]
fn the_tracker_finds_a_role_changed_in_any_one_field() {
    use crate::core::gate::JournalEntry;
    use crate::core::snapshot::OwnedFrame;
    let mut base = empty_team().snapshot();
    for id in 1..=4 {
        base = with_message(base, id);
    }
    base.roles = vec![crate::core::snapshot::RoleSnapshot {
        name: "A".into(),
        memory: vec![MessageId(1), MessageId(2)],
        working_memory: vec![MessageId(2)],
        buffer: vec![MessageId(3)],
        news: vec![MessageId(3)],
        state: 0,
        latest_observed: Some(MessageId(2)),
        pending: false,
        progress: Default::default(),
        plan: Default::default(),
        journal: vec![],
    }];
    let edits: Vec<(&str, Change<crate::core::snapshot::RoleSnapshot>)> = vec![
        ("memory, same length", Box::new(|r| r.memory[1] = MessageId(4))),
        ("working memory, same length", Box::new(|r| r.working_memory[0] = MessageId(1))),
        ("buffer, same length", Box::new(|r| r.buffer[0] = MessageId(4))),
        ("news, same length", Box::new(|r| r.news[0] = MessageId(4))),
        ("buffer, longer", Box::new(|r| r.buffer.push(MessageId(4)))),
        ("state", Box::new(|r| r.state = -1)),
        ("latest observed", Box::new(|r| r.latest_observed = None)),
        ("pending", Box::new(|r| r.pending = true)),
        ("progress", Box::new(|r| r.progress.actions_taken = 1)),
        ("plan", Box::new(|r| r.plan.goal = "g".into())),
        ("journal", Box::new(|r| r.journal.push(JournalEntry { request: 1, answer: "a".into() }))),
        ("name", Box::new(|r| r.name = "B".into())),
    ];
    for (what, edit) in edits {
        let tracker = Tracker::new(Some(&base));
        let mut cur = base.clone();
        edit(&mut cur.roles[0]);
        let owned = OwnedFrame::of(&cur).expect("every list points at a message");
        let changes = tracker.changes(&owned.frame(&cur));
        assert_eq!(changes.batch.roles.len(), 1, "{what}: the role is written");
        assert_eq!(changes.batch, Batch::between(Some(&base), &cur), "{what}");
    }
    let unchanged = Tracker::new(Some(&base)).changes(&OwnedFrame::of(&base).expect("frame").frame(&base));
    assert!(unchanged.batch.is_empty(), "{:?}", unchanged.batch);
}

/// A pipeline of five roles (R0 watches the user, Rk Stage(k-1)) restored
/// with `n` messages: message i is stage i % 5's, and role k remembers
/// its own stage's messages and its predecessor's (~2n/5 ids each); its
/// buffer and news hold the last of its predecessor's.
fn long_team(n: u64) -> Team {
    use crate::core::action::AskAction;
    use crate::core::message::USER_REQUIREMENT;
    use crate::core::role::{Role, RoleSpec};
    let mut team = empty_team();
    team.hire((0..5).map(|k| {
        let watch = if k == 0 { USER_REQUIREMENT.to_string() } else { format!("Stage{}", k - 1) };
        Role::new(
            RoleSpec::new(&format!("R{k}"), &format!("Stage{k}")).watch([watch]),
            vec![std::rc::Rc::new(AskAction::new(&format!("Stage{k}"), "Do it."))],
        )
    }));
    let mut snap = team.snapshot();
    for id in 1..=n {
        snap = with_message(snap, id);
        snap.ids.next_id();
    }
    for (k, role) in snap.roles.iter_mut().enumerate() {
        let (own, before) = (k as u64, (k as u64 + 4) % 5);
        role.memory = (1..=n).filter(|i| i % 5 == own || i % 5 == before).map(MessageId).collect();
        let last = (1..=n).rev().find(|i| i % 5 == before).map(MessageId);
        role.buffer = last.into_iter().collect();
        role.news = role.buffer.clone();
        role.latest_observed = last;
    }
    team.restore(snap).expect("restore");
    team
}

/// At 10,000 messages a checkpoint's batch carries what changed, not the
/// session: the history's new id, and per changed role only its lists'
/// new ends (or a cut, when a list was consumed), each list that did not
/// change left out. It is the batch of the two snapshots' diff, and once
/// committed the tracker holds the team as it is.
#[test]
fn a_checkpoint_at_ten_thousand_messages_carries_only_the_new_ends() {
    use crate::core::store::{ListEdit, RoleEdit};
    let mut team = long_team(10_000);
    let saved = team.snapshot();
    assert!(saved.roles.iter().all(|r| r.memory.len() >= 3_999), "every role remembers thousands of messages");
    let mut tracker = Tracker::new(Some(&saved));
    let edit = |keep: usize, append: &[u64]| Some(ListEdit { keep, append: append.iter().copied().map(MessageId).collect() });

    // A user message (every role's buffer grows) and R1 remembers a
    // message it had not.
    let said = team.publish_user_message("more", &[]);
    let old = team.env.history()[11].clone();
    team.env.role_mut("R1").expect("R1").state.memory.add(old.clone());
    let changes = team.with_frame(|frame| tracker.changes(frame));
    let batch = &changes.batch;
    assert_eq!(batch.history, edit(10_000, &[said.id.0]));
    assert_eq!(batch.messages, [(*said).clone()], "only the new message");
    let r1_memory = saved.roles[1].memory.len();
    let want: Vec<RoleEdit> = (0..5)
        .map(|k| RoleEdit {
            index: k,
            name: format!("R{k}"),
            head: None,
            lists: [(k == 1).then(|| edit(r1_memory, &[old.id.0])).flatten(), None, edit(1, &[said.id.0]), None],
        })
        .collect();
    assert_eq!(batch.roles, want, "per role only the lists' new ends");
    let now = team.snapshot();
    assert_eq!(*batch, Batch::between(Some(&saved), &now));
    let mut applied = saved.roles.clone();
    for e in &batch.roles {
        e.apply(&mut applied[e.index as usize]);
    }
    assert_eq!(applied, now.roles, "the edits applied to the saved roles are the live ones");
    tracker.committed(changes.pending);
    assert!(team.with_frame(|frame| tracker.changes(frame)).batch.is_empty(), "the tracker holds the team as it is");

    // Not appends: R0's buffer consumed, R2 forgets its newest memory, R3
    // decides something (its head changes).
    let taken = team.env.world.post.borrow_mut().take("R0");
    assert_eq!(taken.len(), 2);
    team.env.role_mut("R2").expect("R2").state.memory.pop_newest();
    team.env.role_mut("R3").expect("R3").state.state = 0;
    let changes = team.with_frame(|frame| tracker.changes(frame));
    let r2_memory = saved.roles[2].memory.len();
    let r3_head = now.roles[3].head().to_head();
    let want = vec![
        RoleEdit { index: 0, name: "R0".into(), head: None, lists: [None, None, edit(0, &[]), None] },
        RoleEdit { index: 2, name: "R2".into(), head: None, lists: [edit(r2_memory - 1, &[]), None, None, None] },
        RoleEdit { index: 3, name: "R3".into(), head: Some(crate::core::snapshot::RoleHead { state: 0, ..r3_head }), lists: Default::default() },
    ];
    assert_eq!(changes.batch.roles, want);
    assert!(changes.batch.messages.is_empty() && changes.batch.history.is_none());
    assert_eq!(changes.batch, Batch::between(Some(&now), &team.snapshot()));
}
