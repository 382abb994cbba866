#!/usr/bin/env bash
# Two FoldKit builds side by side on yolov3 416x416 (seeded weights): are the blobs the same bytes, and
# is either slower? Every timing alternates between the two builds so that a slow spell of the shared
# machine falls on both.
#
#   bash Docs/bench/compare.sh BEFORE/foldkit AFTER/foldkit [OUT.md]
#
# Needs hyperfine and ../shared/darknet-cfg/yolov3.cfg. Whole-process figures: hyperfine's minimum and
# median of $RUNS runs each, the two commands interleaved. In-process forward passes: `foldkit bench`,
# $ROUNDS rounds alternating, minimum over all runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
A=$1; B=$2; OUT=${3:-}
RUNS=${RUNS:-7}; ROUNDS=${ROUNDS:-3}
TMP=${BENCH_TMP:-/tmp/foldkit-compare}
CFG=${CFG:-$PWD/../shared/darknet-cfg/yolov3.cfg}
mkdir -p "$TMP"
W=$TMP/yolov3.weights
[ -f "$W" ] || "$A" seed-weights "$CFG" --seed 1 --out "$W" >/dev/null

rm -rf "$TMP/a" "$TMP/b"
"$A" convert "$CFG" "$W" --out "$TMP/a" >/dev/null
"$B" convert "$CFG" "$W" --out "$TMP/b" >/dev/null
SAME=$(diff -r "$TMP/a" "$TMP/b" >/dev/null && echo "identical (every blob and manifest.json)" || echo "DIFFERENT")

pair() {  # name, then the command with {} for the binary -> "a_min a_med b_min b_med"
  local name=$1 cmd=$2
  hyperfine --style none -r "$RUNS" -w 1 --export-json "$TMP/$name.json" \
    --prepare "rm -rf $TMP/out; sync" "${cmd//\{\}/$A}" "${cmd//\{\}/$B}" >/dev/null
  python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["results"]
print(" ".join("%.3f %.3f" % (min(x["times"]), sorted(x["times"])[len(x["times"])//2]) for x in r))' "$TMP/$name.json"
}
read CA CAM CB CBM < <(pair convert "{} convert $CFG $W --out $TMP/out")
read VA VAM VB VBM < <(pair verify "{} verify $CFG $W")

for round in $(seq 1 "$ROUNDS"); do
  "$A" bench --cfg "$CFG" --weights "$W" --runs 5 --json "$TMP/a-$round.json" >/dev/null
  "$B" bench --cfg "$CFG" --weights "$W" --runs 5 --json "$TMP/b-$round.json" >/dev/null
done
m() { python3 -c 'import json,sys
print("%.1f" % (1000 * min(json.load(open("%s/%s-%d.json" % (sys.argv[1], sys.argv[2], i)))[sys.argv[4]]["minimum"] for i in range(1, int(sys.argv[3]) + 1))))' "$TMP" "$1" "$ROUNDS" "$2"; }
r() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) / float(sys.argv[1])))" "$1" "$2"; }

TABLE=$(cat <<MD
yolov3 416x416, seeded weights (seed 1); load average at start $(cut -d' ' -f1-3 /proc/loadavg).
before = \`$A\`, after = \`$B\`. Blobs: $SAME.

| what | before (min / median) | after (min / median) | after / before (min) |
|---|---|---|---|
| convert, wall | $CA / $CAM s | $CB / $CBM s | $(r "$CA" "$CB") |
| verify, wall | $VA / $VAM s | $VB / $VBM s | $(r "$VA" "$VB") |
| forward float32 (folded), in process | $(m a "forward float32 (folded)") ms | $(m b "forward float32 (folded)") ms | $(r "$(m a "forward float32 (folded)")" "$(m b "forward float32 (folded)")") |
| forward float64 (original), in process | $(m a "forward float64 (original)") ms | $(m b "forward float64 (original)") ms | $(r "$(m a "forward float64 (original)")" "$(m b "forward float64 (original)")") |
MD
)
echo "$TABLE"
[ -z "$OUT" ] || echo "$TABLE" > "$OUT"
