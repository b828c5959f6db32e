#!/usr/bin/env bash
# The release bundle's size as a visitor downloads it at start-up: the
# start-up wasm module, the wasm-bindgen JS glue, the split loader and the
# snippets (dist/app-<hash>/, see scripts/build-split.sh and
# scripts/content-version.mjs), each gzip -9, in bytes.
# Lazily loaded assets are listed apart: the split wasm modules (fetched
# after the first render) and mermaid, the highlighter (when needed).
# Run after `trunk build --release`. Fails when the start-up bundle or the
# run module is over its budget (scripts/test.sh runs it after the build):
# START_BUDGET_BYTES (default 350,000: issue #21's 350 KB) and
# RUN_BUDGET_BYTES (default 400,000, under issue #37's goal of 450 KB: the
# run module measured 392,532 B on 2026-11-28 once the Project side's tabs,
# the share page and the sandbox's work moved to the module `project`, see
# src/ui/lazy_project.rs; a ratchet with a little room; then 425,500:
# 424,764 B once the codecs' request writing and stream decoding (~21 KB)
# left the start-up module for it (presets name a `Protocol`, not a
# `&dyn Codec`) with images in requests, issue #34: the start-up bundle
# went from 347,749 to 337,761 B) and
# PROJECT_BUDGET_BYTES (default 220,000: split_project.wasm measured
# 210,940 B the same day; fetched when the Project side first shows).
# The run module counts with the chunks it loads (code it shares with
# `project`, which wasm-split-cli puts in chunk_N.wasm, fetched with
# whichever comes first): what a first run fetches before its answers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
app=$(find dist -maxdepth 1 -type d -name 'app-*')
[ "$(echo "$app" | wc -w)" = 1 ] || { echo "bundle-size: expected one dist/app-<hash>/, found: ${app:-none}" >&2; exit 1; }
total=0
# wasm-bindgen snippets (app-<hash>/snippets/) load with the glue at start-up.
for f in $app/tabteam-site_bg.wasm $app/*.js $(find $app/snippets -name "*.js" 2>/dev/null); do
  n=$(gzip -9 -c "$f" | wc -c)
  printf '%-50s %8d raw %8d gzip\n' "${f#dist/}" "$(wc -c < "$f")" "$n"
  total=$((total + n))
done
printf 'bundle (wasm + JS, gzip -9): %d bytes (%.1f KiB)\n' "$total" "$(echo "$total / 1024" | bc -l)"
lazy_wasm=0
for f in $(find $app -maxdepth 1 -name "*.wasm" ! -name "tabteam-site_bg.wasm" | sort); do
  n=$(gzip -9 -c "$f" | wc -c)
  printf '%-50s %8d raw %8d gzip (lazy)\n' "${f#dist/}" "$(wc -c < "$f")" "$n"
  lazy_wasm=$((lazy_wasm + n))
done
printf 'split wasm modules (gzip -9, fetched after the first render): %d bytes\n' "$lazy_wasm"
# The chunks the run module's loader fetches with it, read from the split
# loader as build-split.sh wrote it (dist/ has it minified).
loader=target/split-site/app/__wasm_split.js
[ -f "$loader" ] || { echo "bundle-size: no $loader; run trunk build --release" >&2; exit 1; }
run_chunks=$(node -e '
  const js = require("fs").readFileSync(process.argv[1], "utf8");
  const at = js.indexOf("__wasm_split_load_run");
  const next = js.indexOf("__wasm_split_load_", at + 1);
  const deps = js.slice(at, next < 0 ? js.length : next).match(/__chunk_[0-9]+/g) || [];
  console.log([...new Set(deps)].map((d) => d.slice(2) + ".wasm").join(" "));' "$loader")
run=0
for f in split_run.wasm $run_chunks; do
  [ -f "$app/$f" ] || { echo "bundle-size: the run module's loader names $f, which is not in $app" >&2; exit 1; }
  run=$((run + $(gzip -9 -c "$app/$f" | wc -c)))
done
start_budget=${START_BUDGET_BYTES:-350000}
run_budget=${RUN_BUDGET_BYTES:-425500}
project=$(gzip -9 -c "$app/split_project.wasm" | wc -c)
project_budget=${PROJECT_BUDGET_BYTES:-220000}
printf 'run module (split_run.wasm with %s, gzip -9): %d bytes\n' "${run_chunks:-no chunks}" "$run"
printf 'budgets: start-up bundle %d of %d bytes, run module %d of %d bytes, project module %d of %d bytes\n' "$total" "$start_budget" "$run" "$run_budget" "$project" "$project_budget"
if [ -d dist/lazy ]; then
  lazy=$(find dist/lazy -type f -name '*.*js' -exec cat {} + | gzip -9 | wc -c)
  printf 'lazily loaded (dist/lazy, gzip -9, not in the bundle): %d bytes\n' "$lazy"
fi
over=0
if [ "$total" -gt "$start_budget" ]; then
  echo "OVER BUDGET: the start-up bundle is over its size budget by $(( total - start_budget )) bytes; see README.md (status)" >&2
  over=1
fi
if [ "$run" -gt "$run_budget" ]; then
  echo "OVER BUDGET: the run module (split_run.wasm and its chunks) is over its size budget by $(( run - run_budget )) bytes; find what grew with scripts/wasm-funcs.mjs (see its header) and README.md (status)" >&2
  over=1
fi
if [ "$project" -gt "$project_budget" ]; then
  echo "OVER BUDGET: the module project (split_project.wasm) is over its size budget by $(( project - project_budget )) bytes; find what grew with scripts/wasm-funcs.mjs (see its header)" >&2
  over=1
fi
exit "$over"
