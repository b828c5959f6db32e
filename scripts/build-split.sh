#!/usr/bin/env bash
# Builds the site's wasm split (issues #7, #37): the start-up module, the
# module `run` that `ui::lazy`'s split points fetch after the first render,
# the module `project` of `ui::lazy_project`'s (the Project side, the share
# page, the sandbox's work), and chunk_N.wasm, the code both reach, which
# their loaders in __wasm_split.js fetch with either.
#
#   cargo rustc (feature `split`, linked with --emit-relocs)
#     → wasm-split-cli (wasm_split_cli_support: main module, split module(s),
#       __wasm_split.js, the loader the main module imports)
#     → wasm-bindgen --target web --keep-lld-exports on the main module
#       (the split module shares its memory, table and exports)
#     → wasm-opt on every module (release).
#
# Usage: build-split.sh OUT_DIR [release|debug]. Trunk runs it as a
# pre_build hook (Trunk.toml) into target/split-site/app/, which index.html
# copies to dist/app/ (renamed app-<content hash>/ by the post-build hook,
# scripts/content-version.mjs). Needs the tools scripts/setup.sh installs,
# and finds them itself: npm's wasm-opt 132 in node_modules/.bin (never
# Debian's, whose modules crash at load) and cargo's bin folder are put
# first on PATH, so a plain `trunk build --release` works as typed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
OUT="${1:?usage: build-split.sh OUT_DIR [release|debug]}"
PROFILE="${2:-${TRUNK_PROFILE:-release}}"
NAME="tabteam-site"
TARGET="wasm32-unknown-unknown"
cd "$ROOT"

flags=()
dir="debug"
tools=(cargo wasm-split-cli wasm-bindgen)
if [ "$PROFILE" = "release" ]; then flags+=(--release); dir="release"; tools+=(wasm-opt); fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "build-split.sh: $tool is not installed; run: bash scripts/setup.sh" >&2; exit 1; }
done
if [ "$PROFILE" = "release" ] && [ "$(wasm-opt --version)" != "wasm-opt version 132 (version_132)" ]; then
  echo "build-split.sh: $(command -v wasm-opt) is not npm's wasm-opt 132; run: bash scripts/setup.sh" >&2; exit 1
fi
# The relocations tell the splitter what refers to what; only the final link
# needs them, so `cargo rustc` passes the flag to the binary's rustc alone
# and the dependencies stay as built.
cargo rustc --quiet "${flags[@]}" --target "$TARGET" --bin "$NAME" --features split -- -Clink-args=--emit-relocs
input="target/$TARGET/$dir/$NAME.wasm"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# (It warns about `ui::lazy::loaded`, whose only use is its preload.)
wasm-split-cli "$input" "$work" --out-name "$NAME" >"$work/split.log" 2>&1 || { cat "$work/split.log" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
wasm-bindgen --target web --keep-lld-exports --no-typescript --out-name "$NAME" --out-dir "$OUT" "$work/$NAME.wasm"
rm -f "$OUT/package.json"
for f in "$work"/*.wasm; do
  [ "$(basename "$f")" = "$NAME.wasm" ] || cp "$f" "$OUT/"
done
cp "$work/__wasm_split.js" "$OUT/"

if [ "$PROFILE" = "release" ]; then
  for f in "$OUT"/*.wasm; do
    wasm-opt -Os --strip-producers --strip-target-features --strip-debug \
      --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
      "$f" -o "$f.opt"
    mv "$f.opt" "$f"
  done
fi
