//! The fixed pipeline's scripted 2048 project: the idea, the model's
//! answers of its first run (one per call, in call order) and of the
//! follow-up "add a restart button". Our own test data, in `testdata/`;
//! the game and its test in them are real (the test passes under
//! `node --test` against the game's code). `company::tests`,
//! `session::tests` and `benches/tokens.rs` run it.
//!
//! Test support only: compiled for tests and with the `bench-support`
//! feature, never into the site or the widget.

/// The idea of the 2048 run.
pub const IDEA: &str = "Write a 2048 game in HTML and JavaScript that runs in the browser.";

/// The model's answers in the 2048 run, one per call, in call order.
pub const TURNS: [&str; 7] = [
    include_str!("testdata/2048_sop/01_write_prd.txt"),
    include_str!("testdata/2048_sop/02_write_design.txt"),
    include_str!("testdata/2048_sop/03_write_tasks.txt"),
    include_str!("testdata/2048_sop/04_index_html.txt"),
    include_str!("testdata/2048_sop/05_style_css.txt"),
    include_str!("testdata/2048_sop/06_game_js.txt"),
    include_str!("testdata/2048_sop/07_test_game_js.txt"),
];
/// The answers to the follow-up "add a restart button" after the 2048 run
/// (incremental development): the refined PRD, design and task list, the
/// two files of its incremental change, and game.js's tests (the rules did
/// not change, so neither do they).
pub const RESTART_TURNS: [&str; 6] = [
    include_str!("testdata/2048_sop_restart/01_refine_prd.txt"),
    include_str!("testdata/2048_sop_restart/02_refine_design.txt"),
    include_str!("testdata/2048_sop_restart/03_refine_tasks.txt"),
    include_str!("testdata/2048_sop_restart/04_index_html.txt"),
    include_str!("testdata/2048_sop_restart/05_game_js.txt"),
    include_str!("testdata/2048_sop_restart/06_test_game_js.txt"),
];
