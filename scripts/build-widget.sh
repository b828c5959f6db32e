#!/usr/bin/env bash
# Build the embeddable widget into pkg/: the library without the site
# (no Leptos) with the `widget` feature, wasm-bindgen's ES module glue,
# wasm-opt -Os, and the JS minified (esbuild). Then assemble the package
# and the demo pages (all of www/widget/) in target/widget-demo/ and, when
# dist/ exists (after `trunk build`), copy that to dist/widget/ so one
# static server serves the site and the demo. Prints the package's sizes (raw and gzip) and
# checks the budgets (250,000 bytes gzip for the plain package,
# WIDGET_BUDGET_BYTES overrides; 420,000 for the package with the keeping
# engine, WIDGET_KEEP_BUDGET_BYTES overrides; a build above either fails
# unless WIDGET_BUDGET_STRICT=0, see STRICT_DEFAULT below).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

# Two engines: `tabteam` (feature `widget`) and `tabteam_keep` (feature
# `widget-keep`: also the IndexedDB store, for widgets with `storageKey`;
# the JS loads it only for them).
engine() {
  local name=$1 features=$2
  cargo build --release --lib --target wasm32-unknown-unknown --no-default-features --features "$features"
  wasm-bindgen --target web --no-typescript --out-dir pkg --out-name "$name" \
    target/wasm32-unknown-unknown/release/tabteam.wasm
  # -Os is ~500 bytes gzip smaller than -Oz here; the producers and target
  # features sections are for tools, not browsers (~250 bytes).
  # --low-memory-unused (~2,160 bytes gzip) lets wasm-opt fold a constant
  # added to a pointer into the load's offset, which is exact unless the sum
  # wraps into addresses 0..1024. Rust's wasm puts its 1 MiB stack there
  # (growing down from 1 MiB, data above it), so those addresses are only
  # reached when the stack is all but exhausted, and Rust never adds an
  # offset to a null or tiny pointer.
  wasm-opt -Os --converge --low-memory-unused --strip-producers --strip-target-features \
    "pkg/${name}_bg.wasm" -o "pkg/${name}_bg.wasm"
  # The generated glue, minified by esbuild.
  esbuild --minify --format=esm --target=es2022 --log-level=warning "pkg/$name.js" --outfile="pkg/$name.js" --allow-overwrite
}
engine tabteam_keep widget-keep
engine tabteam widget
# The hand-written element (src/widget/tabteam-widget.js), minified.
esbuild --minify --format=esm --target=es2022 --log-level=warning src/widget/tabteam-widget.js --outfile=pkg/tabteam-widget.js

size() { printf '%-28s %8d bytes raw %8d bytes gzip\n' "$1" "$(wc -c < "$1")" "$(gzip -9 -c "$1" | wc -c)"; }
gz() { local n=0 f; for f in "$@"; do n=$(( n + $(gzip -9 -c "$f" | wc -c) )); done; echo "$n"; }
for f in pkg/tabteam_bg.wasm pkg/tabteam.js pkg/tabteam_keep_bg.wasm pkg/tabteam_keep.js pkg/tabteam-widget.js; do size "$f"; done
# What a page downloads: the element, the plain engine's glue (imported
# statically) and one engine's wasm (and glue).
total=$(gz pkg/tabteam_bg.wasm pkg/tabteam.js pkg/tabteam-widget.js)
keep_total=$(gz pkg/tabteam_keep_bg.wasm pkg/tabteam_keep.js pkg/tabteam.js pkg/tabteam-widget.js)
budget=${WIDGET_BUDGET_BYTES:-250000}
# The keeping engine's budget (issue #37): what it weighed when it got one
# (406,434 B on 2026-11-27) and a little room, so growth is a decision
# someone takes, not a drift nobody sees.
keep_budget=${WIDGET_KEEP_BUDGET_BYTES:-420000}
echo "widget package (wasm + JS), gzip: $total bytes (budget $budget)"
echo "with storageKey (the keeping engine instead), gzip: $keep_total bytes (budget $keep_budget)"
# The budgets are issue #8's and #37's goals: a build over either fails
# (STRICT_DEFAULT=1; WIDGET_BUDGET_STRICT=0 only warns, for measuring a
# change that is over).
STRICT_DEFAULT=1
over=0
if [ "$total" -gt "$budget" ]; then
  echo "OVER BUDGET: the widget package is over its size budget by $(( total - budget )) bytes; see README.md (status) and docs/decisions/widget-keep.md" >&2
  over=1
fi
if [ "$keep_total" -gt "$keep_budget" ]; then
  echo "OVER BUDGET: the widget package with the keeping engine is over its size budget by $(( keep_total - keep_budget )) bytes; see docs/decisions/widget-keep.md" >&2
  over=1
fi
if [ "$over" = 1 ] && [ "${WIDGET_BUDGET_STRICT:-$STRICT_DEFAULT}" = 1 ]; then exit 1; fi

# The demo as served: the page at widget/, the package at widget/pkg/.
# scripts/serve.sh has Trunk's post-build hook copy this folder into every
# build it serves (TABTEAM_WIDGET_DEMO).
demo=target/widget-demo
rm -rf "$demo"
mkdir -p "$demo/pkg"
cp pkg/tabteam_bg.wasm pkg/tabteam.js pkg/tabteam_keep_bg.wasm pkg/tabteam_keep.js pkg/tabteam-widget.js pkg/package.json "$demo/pkg/"
cp www/widget/* "$demo/"
if [ -d dist ]; then
  rm -rf dist/widget
  cp -r "$demo" dist/widget
  echo "copied the package and the demo into dist/widget/"
fi
