#!/usr/bin/env bash
# The release bundle's size as a visitor downloads it: the wasm module and
# Trunk's JS glue, each gzip -9, in bytes. Lazily loaded assets (mermaid,
# the highlighter) are listed apart: they are fetched only when needed.
# Run after `trunk build --release`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
total=0
# wasm-bindgen snippets (dist/snippets/) load with the glue at start-up.
for f in dist/*.wasm dist/tabteam-site-*.js $(find dist/snippets -name "*.js" 2>/dev/null); do
  n=$(gzip -9 -c "$f" | wc -c)
  printf '%-50s %8d raw %8d gzip\n' "${f#dist/}" "$(wc -c < "$f")" "$n"
  total=$((total + n))
done
printf 'bundle (wasm + JS, gzip -9): %d bytes (%.1f KiB)\n' "$total" "$(echo "$total / 1024" | bc -l)"
if [ -d dist/lazy ]; then
  lazy=$(find dist/lazy -type f -name '*.*js' -exec cat {} + | gzip -9 | wc -c)
  printf 'lazily loaded (dist/lazy, gzip -9, not in the bundle): %d bytes\n' "$lazy"
fi
