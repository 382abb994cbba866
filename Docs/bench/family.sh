#!/usr/bin/env bash
# Forward passes of every Darknet cfg in ../shared/darknet-cfg that OpenCV can read, FoldKit (float32
# folded, float64 original) against OpenCV 4.x DNN, alternating in one script (Docs/bench/family.py).
#
#   swift build -c release --product foldkit
#   bash Docs/bench/family.sh [OUT.md]        # ROUNDS=2 RUNS=3 by default; under 10 minutes
#
# Needs python3 with numpy and opencv-python-headless 4.x. Seeded weights go to $BENCH_TMP
# (default /tmp/foldkit-family). Writes the markdown table to OUT.md too when given.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-}
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "FoldKit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), OpenCV $(python3 -c 'import cv2; print(cv2.__version__)'); load average at start $LOAD."
  echo
  python3 Docs/bench/family.py --foldkit "${FOLDKIT:-.build/release/foldkit}" --tmp "${BENCH_TMP:-/tmp/foldkit-family}" \
    --rounds "${ROUNDS:-2}" --runs "${RUNS:-3}" ${ONLY:+--only "$ONLY"}
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
