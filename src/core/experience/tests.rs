//! Tests for the experience pool: BM25 picks the closest request, ties go
//! to the most recent, weak or no matches give nothing, the pool is
//! bounded, it survives serde, and the example renders for the prompt.

use expect_test::expect;

use super::bm25::{scores, tokens};
use super::{render_example, Experience, ExperiencePool};

fn pool(requests: &[&str]) -> ExperiencePool {
    let mut pool = ExperiencePool::default();
    for (i, request) in requests.iter().enumerate() {
        pool.add(Experience::new(*request, format!("[{i}]"), "ok").of_role(ROLE));
    }
    pool
}

/// The kind of role the pools of these tests are about.
const ROLE: &str = "Engineer2";

const REQUESTS: &[&str] = &[
    "Write a 2048 game in Python with a command line interface",
    "Create a snake game for the browser using JavaScript and canvas",
    "Analyze the sales data set and plot monthly revenue trends",
];

/// The request of the best match for `query`, or "-".
fn best(pool: &ExperiencePool, query: &str, min_score: f64) -> String {
    pool.best_match(ROLE, query, min_score).map_or("-".to_owned(), |e| e.commands.clone())
}

#[test]
fn tokenizer() {
    let check = |text: &str, expect: &[&str]| assert_eq!(tokens(text), expect, "text: {text}");
    check("Write a 2048 game!", &["write", "a", "2048", "game"]);
    check("snake_game.py, v2", &["snake", "game", "py", "v2"]);
    check("写一个2048游戏", &["写", "一", "个", "2048", "游", "戏"]);
    check("ゲームを作る", &["ゲ", "ー", "ム", "を", "作", "る"]);
    check("ÉCOLE Straße", &["école", "straße"]);
    check("ŁÓDŹ ΣΟΦΙΑ ПРИВЕТ Ёлка", &["łódź", "σοφια", "привет", "ёлка"]);
    check("  --  ", &[]);
}

#[test]
fn bm25_picks_the_closest_request() {
    let pool = pool(REQUESTS);
    let check = |query: &str, expect: &str| assert_eq!(best(&pool, query, 0.0), expect, "query: {query}");
    check("make the 2048 game", "[0]");
    check("a snake game please", "[1]");
    check("plot the revenue in this data set", "[2]");
    check("a 2048 style puzzle for the browser using JavaScript canvas", "[1]");
    check("贪吃蛇", "-");
    check("", "-");
    // A common word still matches (BM25's IDF stays positive); min_score is
    // the caller's guard against such weak matches.
    check("the", "[2]");
    assert_eq!(best(&pool, "the", 1.0), "-");
    assert_eq!(best(&pool, "make the 2048 game", 1.0), "[0]");
}

#[test]
fn scores_follow_bm25() {
    // One document containing the single query term once, of average
    // length: idf = ln(1 + 0.5 / 1.5), tf part = 1.
    let got = scores("game", ["game"]);
    assert_eq!(got.len(), 1);
    assert!((got[0] - (1.0f64 + 0.5 / 1.5).ln()).abs() < 1e-12, "{got:?}");
    // A longer document scores lower for the same term count.
    let got = scores("game", ["game", "game of snakes and ladders"]);
    assert!(got[0] > got[1], "{got:?}");
    // Rarer terms weigh more.
    let got = scores("snake game", ["snake game", "2048 game", "tetris game"]);
    assert!(got[0] > got[1] && got[1] == got[2], "{got:?}");
    assert_eq!(scores("x", std::iter::empty::<&str>()), Vec::<f64>::new());
}

#[test]
fn ties_go_to_the_most_recent_and_min_score_filters() {
    let pool = pool(&["build a todo app", "build a todo app", "write a poem"]);
    assert_eq!(best(&pool, "todo app", 0.0), "[1]");
    let top = scores("todo app", pool.iter().map(|e| e.request.as_str()))[1];
    assert_eq!(best(&pool, "todo app", top), "[1]");
    assert_eq!(best(&pool, "todo app", top + 1e-9), "-");
    assert_eq!(best(&ExperiencePool::default(), "todo app", 0.0), "-");
}

#[test]
fn the_pool_keeps_the_most_recent() {
    let mut pool = ExperiencePool::with_capacity(3);
    for i in 0..5 {
        pool.add(Experience::new(format!("request {i}"), format!("[{i}]"), "").of_role(ROLE));
    }
    let kept: Vec<&str> = pool.iter().map(|e| e.commands.as_str()).collect();
    assert_eq!(kept, ["[2]", "[3]", "[4]"]);
    assert_eq!(best(&pool, "request 0", 0.0), "[4]", "0 is forgotten; the others tie on 'request'");
    assert_eq!(ExperiencePool::default().capacity(), 200);
    assert_eq!(ExperiencePool::with_capacity(0).capacity(), 1);

    let mut big = ExperiencePool::default();
    for i in 0..250 {
        big.add(Experience::new(format!("r{i}"), "[]", ""));
    }
    assert_eq!(big.len(), 200);
    assert_eq!(big.iter().next().map(|e| e.request.as_str()), Some("r50"));
}

/// Issue #32, item 11: the recorded prompts showed the engineer given the
/// team leader's `TeamLeader.publish_team_message` commands as his past
/// experience. Examples come from the same kind of role, or none.
#[test]
fn examples_come_from_the_same_role_only() {
    let mut pool = ExperiencePool::default();
    let lead = r#"[{"command_name":"TeamLeader.publish_team_message","args":{"send_to":"Alex"}}]"#;
    pool.add(Experience::new("make a 2048 game", lead, "ended").of_role("TeamLeader"));
    let check = |pool: &ExperiencePool, kind: &str, want: Option<&str>| {
        let got = pool.best_match(kind, "make a 2048 game in html", 0.0).map(|e| e.commands.as_str());
        assert_eq!(got, want, "as {kind:?}");
    };
    check(&pool, "TeamLeader", Some(lead));
    check(&pool, "Engineer2", None);
    check(&pool, "", None);
    // The engineer's own, once he has one, even when the leader's is closer.
    pool.add(Experience::new("write a game", r#"[{"command_name":"Editor.write"}]"#, "ended").of_role("Engineer2"));
    check(&pool, "Engineer2", Some(r#"[{"command_name":"Editor.write"}]"#));
    check(&pool, "TeamLeader", Some(lead));
    // An experience saved before roles were kept matches no role.
    let old: Experience = serde_json::from_str(r#"{"request":"make a 2048 game","commands":"[]","outcome":""}"#)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(old.role, "");
    let mut legacy = ExperiencePool::default();
    legacy.add(old);
    check(&legacy, "TeamLeader", None);
}

#[test]
fn serde_round_trip() {
    let pool = pool(REQUESTS);
    let text = serde_json::to_string(&pool).unwrap_or_else(|e| panic!("{e}"));
    let back: ExperiencePool = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, pool);
    assert_eq!(best(&back, "snake", 0.0), "[1]");
}

#[test]
fn example_for_the_prompt() {
    let experience = Experience::new(
        "Write a 2048 game\n",
        r#"[{"command_name": "Plan.append_task", "args": {"task_id": "1"}}]"#,
        "the game was written and reviewed",
    );
    expect![[r#"
        ## Past experience
        Request: Write a 2048 game
        Commands that worked:
        ```json
        [{"command_name": "Plan.append_task", "args": {"task_id": "1"}}]
        ```
        Outcome: the game was written and reviewed"#]]
    .assert_eq(&render_example(&experience));
    let no_outcome = Experience::new("r", "[]", " ");
    assert_eq!(render_example(&no_outcome), "## Past experience\nRequest: r\nCommands that worked:\n```json\n[]\n```");
    // What a RoleZero records: its commands already in a json block. The
    // example holds one block, not a block opened twice.
    let fenced = Experience::new("r", crate::core::commands::Command::render_block(&[]), "");
    assert_eq!(render_example(&fenced), "## Past experience\nRequest: r\nCommands that worked:\n```json\n[]\n```");
    let odd = Experience::new("r", "```\n[1]\n```", "");
    assert_eq!(render_example(&odd), "## Past experience\nRequest: r\nCommands that worked:\n```json\n[1]\n```");
    // Text that only starts with a fence is left as it is.
    let open = Experience::new("r", "```json\n[1]", "");
    assert!(render_example(&open).contains("```json\n```json\n[1]\n```"));
}
