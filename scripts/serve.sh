#!/usr/bin/env bash
# Quick start, command 1: build the site and serve it at http://127.0.0.1:8080.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
echo "tabteam: building and serving at http://127.0.0.1:8080 (Ctrl-C stops)"
exec trunk serve --release
