#!/usr/bin/env bash
# Quick start, command 1: build the site and serve it at
# http://127.0.0.1:8080, with the widget demo at /widget/.
#
#   bash scripts/serve.sh         the release build (what visitors get: LTO,
#                                 the split, wasm-opt); slow to rebuild, so
#                                 no live reload
#   bash scripts/serve.sh --dev   a debug build for working on the code:
#                                 rebuilt on every save, the page reloads
#
# The widget package is built once, when this starts (scripts/build-widget.sh);
# Trunk's post-build hook copies it into every rebuild (TABTEAM_WIDGET_DEMO).
# A change to the widget's code needs a restart.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

case "${1:-}" in
  "") mode=release ;;
  --dev) mode=dev ;;
  *) echo "usage: bash scripts/serve.sh [--dev]" >&2; exit 2 ;;
esac

bash scripts/build-widget.sh
export TABTEAM_WIDGET_DEMO="$ROOT/target/widget-demo"

echo "tabteam: building ($mode) and serving at http://127.0.0.1:8080, the widget demo at /widget/ (Ctrl-C stops)"
if [ "$mode" = dev ]; then
  exec trunk serve
else
  exec trunk serve --release --no-autoreload
fi
