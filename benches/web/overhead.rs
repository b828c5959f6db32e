//! The browser runner of the framework-overhead scenarios of
//! `shared/bench/SCENARIOS.md`: the same scenarios as `benches/overhead.rs`,
//! in headless Chromium, timed with `performance.now()`, printing the same
//! table to the runner's output.
//!
//! A benchmark, not a test: Cargo.toml declares it `test = false`, so the
//! normal test command never runs it. `scripts/bench.sh` runs it with
//! `cargo test --target wasm32-unknown-unknown --release --test bench_web
//! -- --nocapture`. It is one test on purpose: S6 is read first, from the
//! page's own clock, before anything else has run. Then every scenario runs
//! twice, and only the second pass is reported (see `overhead`).
#![cfg(target_arch = "wasm32")]

#[path = "../scenarios/mod.rs"]
mod scenarios;

use scenarios::heap::HeapWatch;
use scenarios::{table, Figure, Startup};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

thread_local! {
    static PERFORMANCE: web_sys::Performance =
        web_sys::window().expect("a window").performance().expect("window.performance");
}

/// Milliseconds since navigation started.
fn now_ms() -> f64 {
    PERFORMANCE.with(web_sys::Performance::now)
}

/// Let the page's event loop run for `ms`: between scenarios (with 0), so
/// the WebDriver polling the page for output is not starved (rounds await
/// only microtasks, which never yield to it), and after the warm pass, so
/// the optimized code compiled in the background is ready.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.expect("a timeout resolves");
}

/// `performance.memory.usedJSHeapSize` where the browser has it (Chromium).
fn js_heap_bytes() -> Option<f64> {
    let performance: JsValue = PERFORMANCE.with(|p| p.clone().into());
    let memory = js_sys::Reflect::get(&performance, &"memory".into()).ok()?;
    js_sys::Reflect::get(&memory, &"usedJSHeapSize".into()).ok()?.as_f64()
}

/// The smallest step `performance.now()` takes, in µs, and whether the
/// page is cross-origin isolated (Chromium's clock is 5 µs then, 100 µs
/// otherwise, both with jitter).
fn clock_step() -> (f64, bool) {
    let mut step = f64::INFINITY;
    let mut last = now_ms();
    let mut changes = 0;
    while changes < 200 {
        let t = now_ms();
        if t > last {
            step = step.min(t - last);
            last = t;
            changes += 1;
        }
    }
    let isolated = js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    (step * 1e3, isolated)
}

fn wasm_memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size::<0>() * 65_536) as f64
}

/// S1 to S5 in order, letting the page breathe between them.
async fn run_scenarios(log: bool) -> Vec<Figure> {
    let mut figures = Vec::new();
    let took = |name: &str, t0: f64| {
        if log {
            console_log!("[bench] {name}: {:.1} s", (now_ms() - t0) / 1e3);
        }
    };
    let t0 = now_ms();
    figures.extend(scenarios::s1_pipeline(now_ms).await);
    took("S1 pipeline", t0);
    sleep(0).await;
    let t0 = now_ms();
    figures.extend(scenarios::s2_broadcast(now_ms).await);
    took("S2 broadcast", t0);
    sleep(0).await;
    let t0 = now_ms();
    figures.extend(scenarios::s3_memory(now_ms));
    took("S3 memory", t0);
    sleep(0).await;
    let t0 = now_ms();
    figures.extend(scenarios::s4_plan(now_ms));
    took("S4 plan", t0);
    sleep(0).await;
    let t0 = now_ms();
    figures.extend(scenarios::s5_react(now_ms).await);
    took("S5 react", t0);
    figures
}

#[wasm_bindgen_test]
async fn overhead() {
    // S6 first: the page's clock started at navigation.
    let watch = HeapWatch::start();
    let before = now_ms();
    let team = scenarios::build_pipeline();
    let built_at = now_ms();
    let heap = watch.live();
    drop(watch);
    let mut memory = vec![("wasm linear memory at built team", wasm_memory_bytes()), ("heap of the built team", heap)];
    if let Some(js) = js_heap_bytes() {
        memory.push(("JS heap at built team (performance.memory)", js));
    }
    drop(team);
    let startup = Startup {
        span: "navigation → built team",
        ms: built_at,
        more: vec![("first team build alone", built_at - before)],
        memory,
        memory_comparable: false,
    };

    let (step_us, isolated) = clock_step();
    // A warm pass, not reported: V8 runs new wasm code from its baseline
    // compiler and swaps in optimized code, compiled in the background, on
    // a function's next entry (wasm has no on-stack replacement). With LTO
    // each scenario has the core inlined into its own functions, so only
    // running the scenarios themselves warms them.
    let begin = now_ms();
    run_scenarios(false).await;
    sleep(300).await;
    console_log!("[bench] warm pass: {:.1} s", (now_ms() - begin) / 1e3);
    let begin = now_ms();
    let mut figures = run_scenarios(true).await;
    figures.extend(scenarios::startup_figures(startup));
    figures.push(Figure::bytes("—", "wasm linear memory at the end", wasm_memory_bytes()));

    let title = format!(
        "tabteam framework overhead, headless Chromium (wasm32, release: opt-level \"z\", LTO), medians; \
clock step {step_us:.1} µs (cross-origin isolated: {isolated}); took {:.1} s",
        (now_ms() - begin) / 1e3
    );
    console_log!("{}", table::render(&title, &figures));
}
