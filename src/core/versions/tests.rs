//! Versions: closing requests, restoring without losing history, the
//! digest check, test-breaking marks, and the diff.

use super::*;

fn spend(calls: u64, cost: f64) -> Spend {
    Spend { calls, prompt_tokens: calls * 100, completion_tokens: calls * 10, cost, ..Spend::default() }
}

fn passing(passed: u32, failed: u32) -> Option<TestSummary> {
    Some(TestSummary { passed, failed })
}

/// Two requests: the idea (index.html, style.css), then a red title.
fn two_versions() -> (ProjectLog, ProjectFiles) {
    let mut log = ProjectLog::default();
    let mut files = ProjectFiles::default();
    log.open(RequestKind::Idea, "a 2048 game", spend(0, 0.0));
    files.write("index.html", "<h1>2048</h1>\n<div id=board></div>\n").unwrap();
    files.write("style.css", "h1 { color: black; }\nbody { margin: 0; }\n").unwrap();
    log.close(&files, spend(12, 0.5), passing(3, 0)).unwrap();
    log.open(RequestKind::FollowUp, "make the title red", spend(12, 0.5));
    files.write("style.css", "h1 { color: red; }\nbody { margin: 0; }\n").unwrap();
    log.close(&files, spend(15, 0.6), passing(3, 0)).unwrap();
    (log, files)
}

#[test]
fn a_request_closes_into_a_version_with_its_files_and_what_it_cost() {
    let (log, files) = two_versions();
    let v2 = log.version(2).unwrap();
    assert_eq!((v2.kind, v2.request.as_str()), (RequestKind::FollowUp, "make the title red"));
    assert_eq!(v2.files.get("style.css").unwrap().version, 2);
    assert_eq!(v2.files.get("index.html").unwrap().version, 1);
    assert_eq!(v2.spent.calls, 3);
    assert!((v2.spent.cost - 0.1).abs() < 1e-9);
    assert_eq!(v2.tests, passing(3, 0));
    assert!(!v2.breaks_tests);
    assert!(log.open.is_none());
    assert_eq!(files.read("style.css").unwrap(), "h1 { color: red; }\nbody { margin: 0; }\n");
    // Nothing open: nothing to close.
    let mut log = log;
    assert!(log.close(&files, spend(20, 1.0), None).is_none());
    assert_eq!(log.versions.len(), 2);
}

#[test]
fn the_diff_shows_only_what_changed() {
    let (log, files) = two_versions();
    let diffs = diff_versions(&log, &files, 2).unwrap();
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!((diffs[0].path.as_str(), diffs[0].change), ("style.css", FileChange::Changed));
    let shown: Vec<(LineTag, &str)> = diffs[0].lines.iter().map(|l| (l.tag, l.text.as_str())).collect();
    assert_eq!(
        shown,
        [(LineTag::Removed, "h1 { color: black; }"), (LineTag::Added, "h1 { color: red; }"), (LineTag::Same, "body { margin: 0; }")]
    );
    // The first version: every file added.
    let first = diff_versions(&log, &files, 1).unwrap();
    assert_eq!(first.iter().map(|d| (d.path.as_str(), d.change)).collect::<Vec<_>>(), [("index.html", FileChange::Added), ("style.css", FileChange::Added)]);
    assert_eq!(diff_versions(&log, &files, 9), Err(VersionError::NoSuchVersion(9)));
}

#[test]
fn distant_changes_make_separate_hunks() {
    let mut log = ProjectLog::default();
    let mut files = ProjectFiles::default();
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 2\n", "line two\n").replace("line 19\n", "line nineteen\n");
    log.open(RequestKind::Idea, "x", Spend::default());
    files.write("a.txt", old).unwrap();
    log.close(&files, Spend::default(), None);
    log.open(RequestKind::FollowUp, "y", Spend::default());
    files.write("a.txt", new).unwrap();
    log.close(&files, Spend::default(), None);
    let lines = &diff_versions(&log, &files, 2).unwrap()[0].lines;
    assert_eq!(lines.iter().filter(|l| l.tag == LineTag::Gap).count(), 1);
    assert!(lines.len() < 20, "unchanged middle left out: {lines:?}");
}

#[test]
fn restore_puts_the_files_back_as_new_versions_and_loses_nothing() {
    let (mut log, mut files) = two_versions();
    files.write("extra.js", "console.log(1)\n").unwrap();
    let restored = log.restore(&mut files, 1).unwrap().clone();
    assert_eq!(restored.number, 3);
    assert_eq!(restored.kind, RequestKind::Restore { from: 1 });
    assert_eq!(files.read("style.css").unwrap(), "h1 { color: black; }\nbody { margin: 0; }\n");
    assert_eq!(files.version("style.css").unwrap(), 3, "a new file version, the old ones kept");
    assert_eq!(files.version("index.html").unwrap(), 1, "an unchanged file is not rewritten");
    assert!(!files.exists("extra.js"));
    assert_eq!(log.removed.get("extra.js").unwrap(), &["console.log(1)\n"]);
    assert_eq!(log.notes.len(), 1);
    assert!(log.notes[0].contains("restored the project to version 1") && log.notes[0].contains("removed: extra.js"), "{}", log.notes[0]);
    // Version 2 can be restored again: nothing was lost.
    log.restore(&mut files, 2).unwrap();
    assert_eq!(files.read("style.css").unwrap(), "h1 { color: red; }\nbody { margin: 0; }\n");
    assert_eq!(log.versions.len(), 4);
    assert_eq!(log.restore(&mut files, 7).unwrap_err(), VersionError::NoSuchVersion(7));
}

#[test]
fn a_file_deleted_and_written_again_is_not_restored_wrong() {
    let (mut log, mut files) = two_versions();
    files.delete("style.css").unwrap();
    files.write("style.css", "p { }\n").unwrap();
    files.write("style.css", "p { color: blue; }\n").unwrap();
    // style.css is at version 2 again, but with other content.
    let before = files.clone();
    assert_eq!(log.restore(&mut files, 2), Err(VersionError::Lost { number: 2, path: "style.css".into() }));
    assert_eq!(files, before, "nothing changed");
}

#[test]
fn a_version_that_fails_tests_the_one_before_passed_is_marked() {
    let (mut log, mut files) = two_versions();
    log.open(RequestKind::FollowUp, "add a score", spend(15, 0.6));
    files.write("game.js", "bad").unwrap();
    let v3 = log.close(&files, spend(18, 0.7), passing(2, 1)).unwrap();
    assert!(v3.breaks_tests);
    assert_eq!(log.last_passing().map(|v| v.number), Some(2));
    // Failing after failing is not "breaking".
    log.open(RequestKind::FollowUp, "again", spend(18, 0.7));
    let v4 = log.close(&files, spend(19, 0.8), passing(1, 2)).unwrap();
    assert!(!v4.breaks_tests);
}

#[test]
fn hand_edits_are_remembered_and_noted_once() {
    let (mut log, mut files) = two_versions();
    let v = files.write("style.css", "h1 { color: green; }\n").unwrap();
    log.hand_edit(&files, "style.css", v);
    let v = files.write("style.css", "h1 { color: teal; }\n").unwrap();
    log.hand_edit(&files, "style.css", v);
    assert!(log.by_hand("style.css", 3) && log.by_hand("style.css", 4) && !log.by_hand("style.css", 2));
    assert_eq!(log.take_notes(), ["The user edited style.css by hand; read it before you change it."]);
    assert!(log.take_notes().is_empty());
}

#[test]
fn the_log_round_trips_through_json_and_older_sessions_have_none() {
    let (mut log, mut files) = two_versions();
    files.write("x.js", "1").unwrap();
    log.restore(&mut files, 1).unwrap();
    log.open(RequestKind::Fix, "TypeError at game.js:3", spend(1, 0.1));
    let json = serde_json::to_string(&log).unwrap();
    assert_eq!(serde_json::from_str::<ProjectLog>(&json).unwrap(), log);
    assert_eq!(serde_json::from_str::<ProjectLog>("{}").unwrap(), ProjectLog::default());
}

#[test]
fn the_digest_is_fnv1a() {
    // The published FNV-1a 64 test vectors.
    assert_eq!(digest(""), 0xcbf29ce484222325);
    assert_eq!(digest("a"), 0xaf63dc4c8601ec8c);
    assert_eq!(digest("foobar"), 0x85944171f73967e8);
}
