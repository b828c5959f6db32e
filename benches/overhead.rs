//! `cargo bench --bench overhead`: the framework-overhead scenarios of
//! `shared/bench/SCENARIOS.md`, natively, timed with `std::time::Instant`,
//! printed as a table beside MetaGPT 0.8.2's figures. A benchmark, not a
//! test: `cargo test` neither builds nor runs it.
//!
//! S6 needs fresh processes: the bench runs its own executable again with
//! `TABTEAM_BENCH_STARTUP` set, and that child only builds a team and
//! reports how long it took from the first line of `main`, the wall-clock
//! moment it was built (so the parent can also count exec and loading),
//! and its memory.

mod scenarios;

use std::process::Command;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use scenarios::heap::HeapWatch;
use scenarios::measure::median;
use scenarios::{table, Figure, Startup};

const STARTUP_CHILD: &str = "TABTEAM_BENCH_STARTUP";
const STARTUP_RUNS: usize = 7;
/// Untimed passes for instruction counts (see `scenarios::drive`).
const DRIVE: &str = "TABTEAM_BENCH_DRIVE";

static EPOCH: OnceLock<Instant> = OnceLock::new();

fn now_ms() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
}

/// glibc hands the top of its heap back to the kernel whenever more than
/// 128 KiB of it is free, and every page it gets back later is a page
/// fault plus a zeroed page. S5 keeps each prompt (~20 KB by step 1,000)
/// in the scripted model's log while freeing the step's temporaries, so
/// whether a step trims and re-faults depends on the order of its
/// allocations: one such order made the last 100 steps 3-20× slower
/// (33,000 page faults in a run instead of 14,000) with no change in the
/// work done. In the tab, wasm's allocator never returns memory, so the
/// native bench does the same: no trimming, 16 MiB of headroom at the top.
/// (The start-up child, S6, is measured before this, as a process starts.)
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
        const M_TOP_PAD: std::ffi::c_int = -2;
        // SAFETY: mallopt only sets the allocator's tuning; both values are
        // valid (a threshold beyond any heap we reach, a 16 MiB pad).
        unsafe {
            mallopt(M_TRIM_THRESHOLD, i32::MAX);
            mallopt(M_TOP_PAD, 16 << 20);
        }
    }
}

fn main() {
    let started = Instant::now();
    if std::env::var_os(STARTUP_CHILD).is_some() {
        return startup_child(started);
    }
    keep_freed_memory();
    if let Ok(spec) = std::env::var(DRIVE) {
        return scenarios::drive::drive(&spec);
    }
    // `cargo bench --bench overhead -- S2 S5` runs only those scenarios
    // (Cargo passes its own `--bench` flag too: flags are not names).
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let begin = now_ms();
    let mut figures: Vec<Figure> = Vec::new();
    let mut step = |name: &str, f: &mut dyn FnMut() -> Vec<Figure>| {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            return;
        }
        let t0 = now_ms();
        figures.extend(f());
        eprintln!("[bench] {name}: {:.1} s", (now_ms() - t0) / 1e3);
    };
    step("S1 pipeline", &mut || futures::executor::block_on(scenarios::s1_pipeline(now_ms)));
    step("S2 broadcast", &mut || futures::executor::block_on(scenarios::s2_broadcast(now_ms)));
    step("S3 memory", &mut || scenarios::s3_memory(now_ms));
    step("S4 plan", &mut || scenarios::s4_plan(now_ms));
    step("S5 react", &mut || futures::executor::block_on(scenarios::s5_react(now_ms)));
    step("S6 start-up", &mut || scenarios::startup_figures(startup()));
    let title = format!(
        "tabteam framework overhead, native ({}-{}, bench profile = release: opt-level \"z\", LTO), medians; took {:.1} s",
        std::env::consts::ARCH,
        std::env::consts::OS,
        (now_ms() - begin) / 1e3
    );
    println!("{}", table::render(&title, &figures));
}

/// The child of S6: build a team, report, exit.
fn startup_child(started: Instant) {
    let watch = HeapWatch::start();
    let team = scenarios::build_pipeline();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let built_at = SystemTime::now().duration_since(UNIX_EPOCH).expect("a clock after 1970").as_nanos();
    let heap = watch.live();
    drop(watch);
    std::hint::black_box(&team);
    println!("{ms} {built_at} {heap} {}", peak_rss().unwrap_or(f64::NAN));
}

/// S6: the median over fresh processes.
fn startup() -> Startup {
    let exe = std::env::current_exe().expect("the bench's own executable");
    let mut readings: Vec<[f64; 4]> = Vec::new();
    for _ in 0..STARTUP_RUNS {
        let spawned = SystemTime::now().duration_since(UNIX_EPOCH).expect("a clock after 1970").as_nanos();
        let out = Command::new(&exe).env(STARTUP_CHILD, "1").output().expect("run the start-up child");
        assert!(out.status.success(), "S6 child failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let fields: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(fields.len(), 4, "S6 child said {text:?}");
        let built_at: u128 = fields[1].parse().expect("a time");
        readings.push([
            fields[0].parse().expect("ms"),
            built_at.saturating_sub(spawned) as f64 / 1e6,
            fields[2].parse().expect("bytes"),
            fields[3].parse().expect("bytes"),
        ]);
    }
    let column = |i: usize| median(&readings.iter().map(|r| r[i]).collect::<Vec<_>>());
    Startup {
        span: "first line of main → built team",
        ms: column(0),
        more: vec![("spawn → built team (exec and loading too)", column(1))],
        memory: vec![("peak resident memory of that process", column(3)), ("heap of the built team", column(2))],
        memory_comparable: true,
    }
}

/// The process's peak resident set (Linux's VmHWM), in bytes.
fn peak_rss() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}
