#!/usr/bin/env bash
# Transcendental activations before/after, and yolov4 608 forward passes against OpenCV, alternating.
#
#   BEFORE=/path/to/old/foldkit AFTER=.build/release/foldkit bash Docs/bench/activations.sh
#
# 1. Micro benchmark: a 1x1 convolution 32->32 on 608x608 (seeded weights) with activation=linear, mish,
#    swish, logistic; `foldkit bench` times the in-process forward pass (minimum of 5). The activation's
#    cost is its time minus linear's (medians over $ROUNDS rounds), over 608*608*32 = 11.83 M elements.
# 2. yolov4.cfg at 608x608 (seeded weights): `foldkit bench` float32 and float64 forward passes of both
#    binaries and opencv_forward.py, one after the other in each of $ROUNDS rounds.
# Prints the raw lines; Docs/Performance.md has the figures of the last run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BEFORE=${BEFORE:?set BEFORE to the foldkit binary to compare with}
AFTER=${AFTER:-$ROOT/.build/release/foldkit}
ROUNDS=${ROUNDS:-3}
TMP=${BENCH_TMP:-/tmp/foldkit-activations}
CFG=${CFG:-$ROOT/../shared/darknet-cfg/yolov4.cfg}
mkdir -p "$TMP"
for act in linear mish swish logistic; do
  printf '[net]\nwidth=608\nheight=608\nchannels=32\n\n[convolutional]\nsize=1\nstride=1\npad=0\nfilters=32\nactivation=%s\n' "$act" > "$TMP/act-$act.cfg"
done
[ -f "$TMP/act.weights" ] || "$AFTER" seed-weights "$TMP/act-linear.cfg" --seed 1 --out "$TMP/act.weights" >/dev/null
[ -f "$TMP/yolov4.weights" ] || "$AFTER" seed-weights "$CFG" --seed 1 --out "$TMP/yolov4.weights" >/dev/null
for round in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
    for act in linear mish swish logistic; do
      "$bin" bench --cfg "$TMP/act-$act.cfg" --weights "$TMP/act.weights" --input-size 608 --runs 5 2>&1 \
        | awk -v s="$side" -v a="$act" '/^forward float32/ {f=$5} /^forward float64/ {d=$5} END {print "micro", s, a, f, d}'
    done
  done
done
for round in $(seq 1 "$ROUNDS"); do
  for side in before after; do
    bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
    "$bin" bench --cfg "$CFG" --weights "$TMP/yolov4.weights" --input-size 608 --runs 3 2>&1 | grep '^forward' | sed "s/^/$side /"
  done
  python3 Docs/bench/opencv_forward.py "$CFG" "$TMP/yolov4.weights" --size 608 --runs 3
done
