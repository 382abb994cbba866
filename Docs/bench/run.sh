#!/usr/bin/env bash
# FoldKit performance benchmark: one run on one machine, baselines side by side.
#
#   bash Docs/bench/run.sh [OUT.md]
#
# Needs: a release build (swift build -c release), hyperfine, python3 with numpy, opencv-python-headless<5,
# h5py and tf_keras, and ../shared/darknet-cfg/yolov3.cfg. Writes its scratch files under $BENCH_TMP
# (default /tmp/foldkit-bench) and the markdown table to OUT.md (default: stdout only).
# Whole-process figures come from hyperfine (minimum and median of $RUNS runs; outputs removed and
# dirty pages flushed with `sync` before every run, for cp as for FoldKit); peak RSS from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUNS=${RUNS:-7}
TMP=${BENCH_TMP:-/tmp/foldkit-bench}
FOLDKIT=${FOLDKIT:-$ROOT/.build/release/foldkit}
CFG=${CFG:-$ROOT/../shared/darknet-cfg/yolov3.cfg}
OUT=${1:-}
mkdir -p "$TMP"
WEIGHTS=$TMP/yolov3.weights
KERAS=$TMP/keras64.h5
[ -x "$FOLDKIT" ] || { echo "build first: swift build -c release" >&2; exit 1; }
[ -f "$WEIGHTS" ] || "$FOLDKIT" seed-weights "$CFG" --seed 1 --out "$WEIGHTS" >/dev/null
[ -f "$KERAS" ] || python3 Docs/bench/make_keras_64mb.py "$KERAS" >/dev/null 2>&1

# hyperfine JSON -> "min median" in seconds
stats() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; t=sorted(r["times"]); print("%.3f %.3f" % (t[0], t[len(t)//2]))' "$1"; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }   # peak RSS in KB
hf() { local json=$1; shift; hyperfine --style none -r "$RUNS" -w 1 --export-json "$json" "$@" >/dev/null; stats "$json"; }

echo "== machine" >&2
MACHINE=$(lscpu | awk -F: '/^Model name|^CPU\(s\)|^Thread|^L2|^L3/ {gsub(/^ +/,"",$2); printf "%s: %s; ", $1, $2}')
MEM=$(free -g | awk '/Mem:/ {print $2 " GiB"}')
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== convert vs cp vs numpy" >&2
read CP_MIN CP_MED < <(hf "$TMP/cp.json" --prepare "rm -f $TMP/copy.weights; sync" "cp $WEIGHTS $TMP/copy.weights")
read FK_MIN FK_MED < <(hf "$TMP/convert.json" --prepare "rm -rf $TMP/blobs; sync" "$FOLDKIT convert $CFG $WEIGHTS --out $TMP/blobs")
read NP_MIN NP_MED < <(hf "$TMP/numpy.json" --prepare "rm -rf $TMP/np; sync" "python3 Docs/bench/numpy_convert.py $CFG $WEIGHTS $TMP/np")
read NS_MIN NS_MED < <(hf "$TMP/numpy-sha.json" --prepare "rm -rf $TMP/np; sync" "python3 Docs/bench/numpy_convert.py $CFG $WEIGHTS $TMP/np --sha256")
rm -f "$TMP/copy.weights"; sync; CP_RSS=$(rss cp "$WEIGHTS" "$TMP/copy.weights")
rm -rf "$TMP/blobs"; sync; FK_RSS=$(rss "$FOLDKIT" convert "$CFG" "$WEIGHTS" --out "$TMP/blobs")
rm -rf "$TMP/np"; sync; NP_RSS=$(rss python3 Docs/bench/numpy_convert.py "$CFG" "$WEIGHTS" "$TMP/np")
SAME=yes; for f in "$TMP"/np/*.bin; do cmp -s "$f" "$TMP/blobs/$(basename "$f")" || SAME=no; done

echo "== verify end to end vs OpenCV two passes" >&2
read VF_MIN VF_MED < <(hf "$TMP/verify.json" "$FOLDKIT verify $CFG $WEIGHTS")
read OV_MIN OV_MED < <(hf "$TMP/opencv2.json" "python3 Docs/bench/opencv_two_passes.py $CFG $WEIGHTS")

echo "== Keras read vs h5py" >&2
read KR_MIN KR_MED < <(hf "$TMP/keras.json" "$FOLDKIT inspect $KERAS")
read HP_MIN HP_MED < <(hf "$TMP/h5py.json" "python3 Docs/bench/h5py_read.py $KERAS")
H5PY_IN=$(for i in 1 2 3 4 5; do python3 Docs/bench/h5py_read.py "$KERAS"; done | sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' | sort -n | head -1)

echo "== in-process: forward passes, decode, Keras read (foldkit bench), OpenCV forward" >&2
# Forward passes alternate with OpenCV's for $ROUNDS rounds, so that a slow spell of the shared machine
# does not fall on one side only; each figure is the minimum over all rounds (and the median of the rounds' medians).
ROUNDS=${ROUNDS:-3}
for round in $(seq 1 "$ROUNDS"); do
  # The Keras read in process (the reader's own time; the commands read in the HDF5 helper, hdf5-helper.sh).
  FOLDKIT_HDF5_IN_PROCESS=1 "$FOLDKIT" bench --cfg "$CFG" --weights "$WEIGHTS" --keras "$KERAS" --runs 5 --json "$TMP/bench-$round.json" > "$TMP/bench-$round.txt"
  python3 Docs/bench/opencv_forward.py "$CFG" "$WEIGHTS" --runs 5 > "$TMP/opencv_forward-$round.txt"
done
cp "$TMP/bench-1.txt" "$TMP/bench.txt"
b() { python3 -c '
import json, sys, statistics
rs = [json.load(open("%s/bench-%d.json" % (sys.argv[1], i)))[sys.argv[3]] for i in range(1, int(sys.argv[2]) + 1)]
print("%.3f %.3f" % (min(r["minimum"] for r in rs) * 1000, statistics.median(r["median"] for r in rs) * 1000))' "$TMP" "$ROUNDS" "$1"; }
read F32_MIN F32_MED < <(b "forward float32 (folded)")
read F64_MIN F64_MED < <(b "forward float64 (original)")
read DEC_MIN DEC_MED < <(b "decode+nms 288x288")
read DEC3_MIN DEC3_MED < <(b "decode+nms 320x320")
read KIN_MIN KIN_MED < <(b "keras read")
read CV_MIN CV_MED < <(cat "$TMP"/opencv_forward-*.txt | sed -n 's/.*min \([0-9.]*\) ms median \([0-9.]*\) ms.*/\1 \2/p' \
  | python3 -c 'import sys, statistics; r=[tuple(map(float, l.split())) for l in sys.stdin]; print("%.1f %.1f" % (min(a for a, _ in r), statistics.median(b for _, b in r)))')
SHA=$(sed -n 's/^sha256 *\([0-9.]*\) GB.*/\1/p' "$TMP/bench.txt")

r() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
met() { python3 -c "import sys; print('met' if float(sys.argv[1]) <= float(sys.argv[2]) else 'NOT met')" "$1" "$2"; }
MB=$(python3 -c "import os,sys; print('%.0f' % (os.path.getsize(sys.argv[1]) / 1e6))" "$WEIGHTS")
SHA_FLOOR=$(python3 -c "import sys; print('%.3f' % (2 * float(sys.argv[1]) / 1e3 / float(sys.argv[2])))" "$MB" "$SHA")

TABLE=$(cat <<MD
Machine: $MACHINE$MEM RAM; load average at start $LOAD. FoldKit $(git -C "$ROOT" rev-parse --short HEAD), OpenCV $(python3 -c 'import cv2; print(cv2.__version__)'), numpy $(python3 -c 'import numpy; print(numpy.__version__)'), h5py $(python3 -c 'import h5py; print(h5py.__version__)').
Whole-process times are hyperfine's minimum / median of $RUNS runs; in-process times (forward passes alternating with OpenCV's for $ROUNDS rounds of 5 runs after a warm-up) are the minimum over all runs / the median of the rounds' medians.

| what | FoldKit | baseline | ratio (min) | target | verdict |
|---|---|---|---|---|---|
| convert yolov3 ($MB MB) vs cp, wall | $FK_MIN / $FK_MED s | cp $CP_MIN / $CP_MED s | $(r "$FK_MIN" "$CP_MIN")x cp | <= 1.25x cp | $(met "$(r "$FK_MIN" "$CP_MIN")" 1.25) |
| convert vs numpy script, wall | $FK_MIN s | numpy $NP_MIN / $NP_MED s (with sha256: $NS_MIN s) | numpy is $(r "$NP_MIN" "$FK_MIN")x slower | numpy >= 1.5x slower | $(met 1.5 "$(r "$NP_MIN" "$FK_MIN")") |
| convert peak RSS | $((FK_RSS / 1024)) MiB | cp $((CP_RSS / 1024)) MiB, numpy $((NP_RSS / 1024)) MiB | | <= 100 MiB | $(met "$((FK_RSS / 1024))" 100) |
| convert output equals numpy's bytes | $SAME | | | identical | $( [ "$SAME" = yes ] && echo met || echo NOT met) |
| sha256 of $MB MB in + $MB MB out, one core | $SHA_FLOOR s CPU ($SHA GB/s) | | $(r "$SHA_FLOOR" "$CP_MIN")x cp | (floor of convert with checksums) | |
| forward float32 (folded) 416x416, 2 cores | $F32_MIN / $F32_MED ms | OpenCV $CV_MIN / $CV_MED ms | $(r "$F32_MIN" "$CV_MIN")x OpenCV | <= 1.25x | $(met "$(r "$F32_MIN" "$CV_MIN")" 1.25) |
| forward float64 (original) 416x416, 2 cores | $F64_MIN / $F64_MED ms | OpenCV $CV_MIN / $CV_MED ms | $(r "$F64_MIN" "$CV_MIN")x OpenCV | <= 2.5x | $(met "$(r "$F64_MIN" "$CV_MIN")" 2.5) |
| verify yolov3 416x416 end to end, wall | $VF_MIN / $VF_MED s | OpenCV two passes $OV_MIN / $OV_MED s | $(r "$VF_MIN" "$OV_MIN")x | <= 1x | $(met "$(r "$VF_MIN" "$OV_MIN")" 1) |
| Keras 66 MB .h5, whole process (foldkit inspect) | $KR_MIN / $KR_MED s | h5py script $HP_MIN / $HP_MED s | $(r "$KR_MIN" "$HP_MIN")x | <= 1x | $(met "$(r "$KR_MIN" "$HP_MIN")" 1) |
| Keras 66 MB .h5, in process (read + HWIO->OIHW) | $KIN_MIN / $KIN_MED ms | h5py read only $H5PY_IN ms | $(r "$KIN_MIN" "$H5PY_IN")x | | |
| decode + NMS, 417 classes, 288x288 (5103 boxes), 1 core | $DEC_MIN / $DEC_MED ms | | | < 2 ms | $(met "$DEC_MIN" 2) |
| decode + NMS, 417 classes, 320x320 (6300 boxes), 1 core | $DEC3_MIN / $DEC3_MED ms | | | < 2 ms | $(met "$DEC3_MIN" 2) |
MD
)
echo "$TABLE"
[ -z "$OUT" ] || echo "$TABLE" > "$OUT"
