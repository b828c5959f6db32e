//! Timing helpers: the clock type, medians, and the two ways an operation
//! is timed (batched calls, or one timed call after untimed set-up).
//!
//! The browser's `performance.now()` is coarse (5 µs when cross-origin
//! isolated, as wasm-bindgen-test's server makes it, 100 µs otherwise), so
//! nothing short is ever timed alone: cheap calls are timed in batches of
//! at least a few milliseconds, and calls that need set-up are timed many
//! times and averaged before the median is taken.

/// Milliseconds since an arbitrary origin.
pub type Now = fn() -> f64;

/// The median; the mean of the middle two for an even count.
pub fn median(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// Milliseconds per call of `f`: batches sized to take at least `BATCH_MS`,
/// `RUNS` of them, the median per call.
pub fn per_call(now: Now, mut f: impl FnMut()) -> f64 {
    const BATCH_MS: f64 = 2.0;
    const RUNS: usize = 7;
    const MAX_BATCH: u64 = 1 << 24;
    // Grow the batch until it is long enough to read on a coarse clock.
    let mut batch: u64 = 1;
    loop {
        let t0 = now();
        for _ in 0..batch {
            f();
        }
        let elapsed = now() - t0;
        if elapsed >= BATCH_MS || batch >= MAX_BATCH {
            break;
        }
        let factor = if elapsed <= 0.0 { 16.0 } else { (BATCH_MS * 1.2 / elapsed).clamp(2.0, 16.0) };
        batch = ((batch as f64 * factor) as u64).min(MAX_BATCH);
    }
    let samples: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t0 = now();
            for _ in 0..batch {
                f();
            }
            (now() - t0) / batch as f64
        })
        .collect();
    median(&samples)
}

/// The median over `runs` of the mean over `reps` of what `timed_rep`
/// returns: the milliseconds of its timed part, its set-up untimed.
pub fn median_of_means(runs: usize, reps: usize, mut timed_rep: impl FnMut() -> f64) -> f64 {
    let means: Vec<f64> = (0..runs).map(|_| (0..reps).map(|_| timed_rep()).sum::<f64>() / reps as f64).collect();
    median(&means)
}
