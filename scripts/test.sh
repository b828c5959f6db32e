#!/usr/bin/env bash
# Quick start, command 2: every test layer, in order; exits non-zero on the
# first failure. Layers: native core tests, the test servers' own tests,
# wasm tests in headless Chromium, a release build of the site, and
# end-to-end tests driving that build in Chromium. Everything runs against
# servers on 127.0.0.1 that this script starts and stops.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

LOGS="$ROOT/target/test-logs"
mkdir -p "$LOGS"
: > "$LOGS/all.log"
T0=$(date +%s)
SERVER_PID=""

cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

step() {
  local name="$1"; shift
  local t=$(date +%s)
  printf '\n\033[1m== %s\033[0m\n' "$name"
  if ! "$@" 2>&1 | tee -a "$LOGS/all.log"; then
    printf '\n\033[31mFAILED: %s\033[0m (log: %s)\n' "$name" "$LOGS/all.log"
    exit 1
  fi
  printf '\033[2m(%s: %ss)\033[0m\n' "$name" "$(( $(date +%s) - t ))"
}

# 1. The pure core, natively: no network, no clock.
step "native tests (cargo test)" cargo test --quiet

# 2. The local LLM and static servers the browser tests rely on.
step "test servers (node --test)" node --test tests/support/

# 3. Start the scripted LLM server for the browser layers. The wasm tests
#    bake its URL in at compile time, so a stable port spares a rebuild of
#    every wasm test crate on the next run; if the port is taken, any free
#    port works (the tests then recompile). TABTEAM_TEST_PORT picks
#    another stable port (parallel checkouts on one machine).
start_llm_server() {
  node tests/support/llm-server.mjs --exit-with-parent --port "$1" > "$LOGS/llm-server.out" 2> "$LOGS/llm-server.err" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    grep -q '^LLM_SERVER_URL=' "$LOGS/llm-server.out" 2>/dev/null && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
start_llm_server "${TABTEAM_TEST_PORT:-41733}" || { SERVER_PID=""; start_llm_server 0; } || true
LLM_SERVER_URL="$(sed -n 's/^LLM_SERVER_URL=//p' "$LOGS/llm-server.out")"
[ -n "$LLM_SERVER_URL" ] || { echo "the test LLM server did not start:"; cat "$LOGS/llm-server.err"; exit 1; }
export LLM_SERVER_URL
echo "test LLM server at $LLM_SERVER_URL"

# 4. Browser-only code and the cross-target core tests, in headless Chromium.
export CHROMEDRIVER=/usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT=120
step "browser tests (wasm-bindgen-test, headless Chromium)" \
  env TABTEAM_LLM_URL="$LLM_SERVER_URL" cargo test --target wasm32-unknown-unknown --lib --tests

# 5. The site, as a person gets it.
step "release build (trunk build --release)" trunk build --release
step "bundle sizes and budgets (scripts/bundle-size.sh)" bash scripts/bundle-size.sh

# 5b. The embeddable widget's package (pkg/), copied with its demo into dist/widget/.
step "widget build (scripts/build-widget.sh)" bash scripts/build-widget.sh

# 6. End to end: Playwright drives Chromium through the built site.
step "end-to-end (node --test, Playwright + Chromium)" node --test --test-concurrency=1 tests/e2e/

# One closing line over every layer: cargo's "test result: ... N passed;
# M failed" lines and node's TAP "# pass N" / "# fail N" summed.
read -r passed failed < <(awk '
  /test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed/ { p += $4; f += $6 }
  /^# pass [0-9]+$/ { p += $3 }
  /^# fail [0-9]+$/ { f += $3 }
  END { print p + 0, f + 0 }' "$LOGS/all.log")
echo
echo "all layers green in $(( $(date +%s) - T0 ))s"
echo "total: $passed passed, $failed failed"
