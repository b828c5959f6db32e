#!/usr/bin/env bash
# The benchmark command: the framework-overhead scenarios of
# shared/bench/SCENARIOS.md, natively and then in headless Chromium, both in
# release builds, then the storage figures of issue #6 in headless
# Chromium, each printing its table. Benchmarks are not tests:
# scripts/test.sh never runs them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

# The release profile's `panic = "abort"` makes Cargo build the library
# twice for a bench or test target (once with it for the cdylib, once
# without for the target's own dependencies); both copies write the same
# unhashed `libtabteam.rlib` / `tabteam.wasm`, which warns and can link the
# wasm bench against the wrong twin (two js-sys copies: LTO fails). Benches
# and tests are built to unwind natively whatever the profile says, and
# wasm32-unknown-unknown always aborts, so unsetting it changes no code.
export CARGO_PROFILE_RELEASE_PANIC=unwind

# 1. Native (benches/overhead.rs).
cargo bench --bench overhead

# 2. Headless Chromium (benches/web/overhead.rs, the `bench_web` target).
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=900
cargo test --target wasm32-unknown-unknown --release --test bench_web -- --nocapture

# 3. Storage in headless Chromium: commit latency and restore from
# IndexedDB (benches/web/storage.rs, the `bench_web_store` target; issue #6).
cargo test --target wasm32-unknown-unknown --release --test bench_web_store -- --nocapture
# 3. The site itself: bundle size, first render, long tasks while three
#    roles stream (scripts/bench-site.sh).
bash scripts/bench-site.sh
