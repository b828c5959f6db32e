#!/usr/bin/env bash
# The eval: the built site on the task set (eval/tasks/), with the provider
# of the TABTEAM_EVAL_* environment variables; prints the report's table.
# `bash scripts/eval.sh --help` explains the options. Build the site first
# (trunk build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
exec node eval/run.mjs "$@"
