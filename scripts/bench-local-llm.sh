#!/usr/bin/env bash
# Issue #30's measured figures: the small model with and without the answer
# schema over N calls each of the single assistant's first think request
# (default 50): time to first token and tokens/s natively, then how the
# team's own parser takes the answers (parsed, repaired, refused).
# Usage: bash scripts/bench-local-llm.sh [--calls N] [--max-tokens N]
# Installs node-llama-cpp and the model first (tests/support/setup-llama.sh). The in-tab (wllama)
# figures are not measured here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tests/support/setup-llama.sh
node scripts/bench-local-llm.mjs "$@"
echo "how the team's parser takes the answers (target/bench-local-llm/answers.jsonl):"
cargo run --quiet --example classify_answers < target/bench-local-llm/answers.jsonl
