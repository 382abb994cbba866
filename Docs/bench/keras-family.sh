#!/usr/bin/env bash
# Runs the Keras reference family (Docs/bench/keras-family.py) with a foldkit build and writes its table.
# Needs python3 with tensorflow-cpu and tf-keras (pip install tensorflow-cpu tf-keras). Extra arguments
# go to the script: --quick (one network per family), --only SUBSTR, --timeout SECONDS, --keep, --engines
# (export to onnx, ONNX Runtime against Keras, verify --engine-outputs).
#   FOLDKIT=path/to/foldkit TMP=dir OUT=table.md bash Docs/bench/keras-family.sh --quick
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FOLDKIT=${FOLDKIT:-$ROOT/.build/release/foldkit}
TMP=${TMP:-/tmp/foldkit-keras-family}
OUT=${OUT:-$TMP/keras-family.md}
mkdir -p "$TMP"
nice -n 10 python3 "$ROOT/Docs/bench/keras-family.py" --foldkit "$FOLDKIT" --tmp "$TMP" --out "$OUT" "$@"
