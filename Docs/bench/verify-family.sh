#!/usr/bin/env bash
# Runs `foldkit verify` over a family of networks nobody tuned it to: every cfg in ../shared/darknet-cfg
# (yolov3-tiny_xnor excepted: binary weights), with seeded weights from each generator (uniform, he,
# wide) and seeds 1 and 2, in float32 and with --fp16. Prints one row per run: the exit code, the
# per-layer verdict of each precision (layers over tolerance), the largest max dev / allowed, the boxes,
# and with --fp16 the float16 range hazard named first as the cause. Needs a release build
# (swift build -c release); JSON reports are kept in $OUT.
#   FOLDKIT=path/to/foldkit CFGS=dir OUT=dir GENERATORS="uniform he wide" SEEDS="1 2" bash Docs/bench/verify-family.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FOLDKIT=${FOLDKIT:-$ROOT/.build/release/foldkit}
CFGS=${CFGS:-$ROOT/../shared/darknet-cfg}
OUT=${OUT:-$(mktemp -d /tmp/verify-family.XXXXXX)}
GENERATORS=${GENERATORS:-"uniform he wide"}
SEEDS=${SEEDS:-"1 2"}
mkdir -p "$OUT"
echo "reports in $OUT"
printf "| cfg | generator | seed | mode | exit | float32 layers over | float16 layers over | largest dev/allowed | boxes | float16 cause |\n|---|---|---|---|---|---|---|---|---|---|\n"
for cfg in "$CFGS"/*.cfg; do
  name=$(basename "$cfg" .cfg)
  [ "$name" = yolov3-tiny_xnor ] && continue
  for generator in $GENERATORS; do
    for seed in $SEEDS; do
      weights="$OUT/$name.weights"
      "$FOLDKIT" seed-weights "$cfg" --seed "$seed" --generator "$generator" --out "$weights" > /dev/null || { echo "| $name | $generator | $seed | - | seed-weights failed |"; continue; }
      for mode in fp32 fp16; do
        stem="$OUT/$name-$generator-$seed-$mode"
        flag=""; [ "$mode" = fp16 ] && flag="--fp16"
        "$FOLDKIT" verify "$cfg" "$weights" $flag --json "$stem.json" > "$stem.txt" 2>&1
        code=$?
        python3 - "$stem.json" "$name" "$generator" "$seed" "$mode" "$code" <<'PY'
import json, sys
path, name, generator, seed, mode, code = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    print(f"| {name} | {generator} | {seed} | {mode} | {code} | (no report) | | | | |"); sys.exit()
over = {p["precision"]: sum(not l["pass"] for l in p["layers"]) for p in r["precisions"]}
# Largest max dev / allowed among the layers that pass (JSON writes infinities as strings).
closest = max((float(l["candidate"]["maxAbsDeviation"]) / float(l["allowed"]) if float(l["allowed"]) > 0 else 0)
              for p in r["precisions"] for l in p["layers"] if l["pass"])
boxes = "-" if r.get("detections") is None else ("agree" if r["detections"]["pass"] else "DIFFER")
cause = r.get("float16FailureCause")
cause = "-" if cause is None else ("none" if not cause else f'{cause[0]["kind"].split(" (")[0]} (layer {cause[0]["layer"]})')
print(f'| {name} | {generator} | {seed} | {mode} | {code} | {over.get("float32", "-")} | {over.get("float16 storage", "-")} | {closest:.3g} | {boxes} | {cause} |')
PY
      done
      rm -f "$weights"
    done
  done
done
