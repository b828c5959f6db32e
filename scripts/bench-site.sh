#!/usr/bin/env bash
# The site's benchmarks (scripts/bench-site.mjs): bundle size, first render,
# and long tasks while three roles stream. Builds the release site first.
# Benchmarks are not tests: scripts/test.sh never runs them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
trunk build --release
bash scripts/bundle-size.sh
node scripts/bench-site.mjs
