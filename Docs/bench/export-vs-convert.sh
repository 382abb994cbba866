#!/usr/bin/env bash
# `foldkit export --format onnx` against `foldkit convert` on yolov4 608x608 (seeded he weights, 257.7 MB):
# the model alone (--no-test-data), the model with its test data set (one float64 forward pass of the
# original network), and convert (blobs + manifest), the three interleaved by hyperfine so that a slow
# spell of the shared machine falls on all of them; then each once under /usr/bin/time -v for peak RSS.
#
#   bash Docs/bench/export-vs-convert.sh path/to/release/foldkit
#
# Needs hyperfine (Debian's package) and ../shared/darknet-cfg-all/yolov4.cfg. Prints a Markdown table:
# minimum and median wall seconds of $RUNS runs, peak RSS, and the ratio of the minimums to convert's.
set -euo pipefail
cd "$(dirname "$0")/../.."
F=$1
RUNS=${RUNS:-5}
TMP=${BENCH_TMP:-/tmp/foldkit-export-bench}
CFG=${CFG:-$PWD/../shared/darknet-cfg-all/yolov4.cfg}
mkdir -p "$TMP"
W=$TMP/yolov4.weights
[ -f "$W" ] || "$F" seed-weights "$CFG" --seed 1 --generator he --out "$W" >/dev/null
SIZE="--height 608 --width 608"
NAMES=("export --no-test-data" "export (model + test_data_set_0)" "convert")
CMDS=(
  "$F export $CFG $W --format onnx $SIZE --no-test-data --out $TMP/out"
  "$F export $CFG $W --format onnx $SIZE --out $TMP/out"
  "$F convert $CFG $W $SIZE --out $TMP/out"
)
hyperfine --style none -r "$RUNS" -w 1 --export-json "$TMP/times.json" --prepare "rm -rf $TMP/out; sync" "${CMDS[@]}" >/dev/null
for i in 0 1 2; do
  rm -rf "$TMP/out"
  # shellcheck disable=SC2086 # the command line is meant to split into words
  /usr/bin/time -v ${CMDS[$i]} >/dev/null 2>"$TMP/rss-$i.txt"
done
python3 - "$TMP" "${NAMES[@]}" <<'PY'
import json, re, sys
tmp, names = sys.argv[1], sys.argv[2:]
results = json.load(open(f"{tmp}/times.json"))["results"]
rss = [int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(f"{tmp}/rss-{i}.txt").read()).group(1)) for i in range(3)]
base = min(results[2]["times"])
print("| command | min s | median s | peak RSS MiB | min / convert's min |")
print("|---|---|---|---|---|")
for name, r, kb in zip(names, results, rss):
    t = sorted(r["times"])
    print(f"| {name} | {t[0]:.3f} | {t[len(t)//2]:.3f} | {kb / 1024:.0f} | {t[0] / base:.2f}x |")
PY
