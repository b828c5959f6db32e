#!/usr/bin/env bash
# The release bundle's size as a visitor downloads it at start-up: the
# start-up wasm module, the wasm-bindgen JS glue, the split loader and the
# snippets (dist/app-<hash>/, see scripts/build-split.sh and
# scripts/content-version.mjs), each gzip -9, in bytes.
# Lazily loaded assets are listed apart: the split wasm modules (fetched
# after the first render) and mermaid, the highlighter (when needed).
# Run after `trunk build --release`.
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
if [ -d dist/lazy ]; then
  lazy=$(find dist/lazy -type f -name '*.*js' -exec cat {} + | gzip -9 | wc -c)
  printf 'lazily loaded (dist/lazy, gzip -9, not in the bundle): %d bytes\n' "$lazy"
fi
