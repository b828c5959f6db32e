#!/usr/bin/env bash
# The site's benchmarks: the start-up bundle (scripts/bundle-size.sh), then
# in Chromium (scripts/bench-site.mjs) first render, long tasks while three
# roles stream, and a 2,000-message session opened and scrolled; at the end
# the four figures issue #21 asks for, together. Builds the release site
# first. Benchmarks are not tests: scripts/test.sh never runs them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
trunk build --release
sizes=$(mktemp)
figures=$(mktemp)
trap 'rm -f "$sizes" "$figures"' EXIT
bash scripts/bundle-size.sh | tee "$sizes"
node scripts/bench-site.mjs | tee "$figures"
echo
echo "== The four figures (issue #21) =="
grep '^bundle ' "$sizes" | sed 's/$/ (goal ≤ 350 KB gzip)/'
grep -E '^first render \(' "$figures"
grep -E "^a session of|^  opening it|^  scrolling its|^  the longest main-thread task's CPU" "$figures"
grep -E '^main-thread tasks over 50 ms while they stream' "$figures"
