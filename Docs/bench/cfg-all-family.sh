#!/usr/bin/env bash
# Runs `foldkit verify` over every cfg of darknet's own cfg folder (../shared/darknet-cfg-all and its
# yolov1/), with seeded weights from each generator (uniform, he, wide), in float32 and with --fp16, at
# SIZE x SIZE (160; cfgs with [connected], [local] or [crop] at their own size, which those fix; yolov4-p6,
# cspx-p7-mish(_hp) and yolov4-sam-mish-csp-reorg-bfm at 256, whose routes join grids darknet also refuses
# to join at 160). CFGS="name ..." (as the table names them) runs only those.
# The recurrent and binary cfgs (SOURCE.txt's list) must be refused naming their section; yolo9000.cfg is
# run as it is (refused if its 9k.tree is damaged) and again beside a whole synthetic tree of its 9418
# classes (yolo9000+tree). One row a run: exit code, layers over tolerance per precision, elements
# judged ill-conditioned (ok*), the largest max dev / allowed of passing layers, boxes, float16 cause.
# Needs a release build (swift build -c release). Summary at the end.
#   FOLDKIT=path/to/foldkit SIZE=160 GENERATORS="uniform he wide" SEED=1 bash Docs/bench/cfg-all-family.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FOLDKIT=${FOLDKIT:-$ROOT/.build/release/foldkit}
ALL=${CFG_ALL:-$ROOT/../shared/darknet-cfg-all}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cfg-all-family.XXXXXX")}
SIZE=${SIZE:-160}
GENERATORS=${GENERATORS:-"uniform he wide"}
SEED=${SEED:-1}
# Refused by design (recurrent, binary), and yolo9000 while its 9k.tree is the damaged copy (NUL bytes).
REFUSED="rnn rnn.train gru lstm.train crnn.train yolov3-tiny_occlusion_track tiny-yolo_xnor yolov3-tiny_xnor darknet53_448_xnor yolov1/xyolo.test"
tr -d '\r' < "$ALL/9k.tree" | grep -qaP '\x00' && REFUSED="$REFUSED yolo9000"
mkdir -p "$OUT"
echo "reports in $OUT; $("$FOLDKIT" --version 2>/dev/null)"
# yolo9000 beside a whole tree: 18 roots, class k >= 18 under (k - 18) / 4.
mkdir -p "$OUT/yolo9000+tree"
cp "$ALL/yolo9000.cfg" "$OUT/yolo9000+tree/yolo9000+tree.cfg"
python3 -c "print('\n'.join(f'n{k} {-1 if k < 18 else (k - 18) // 4}' for k in range(9418)))" > "$OUT/yolo9000+tree/9k.tree"
printf "| cfg | generator | mode | exit | float32 layers over | float16 layers over | ok* elements | largest dev/allowed | boxes | float16 cause / refusal |\n|---|---|---|---|---|---|---|---|---|---|\n"
for cfg in "$ALL"/*.cfg "$ALL"/yolov1/*.cfg "$OUT/yolo9000+tree/yolo9000+tree.cfg"; do
  name=$(basename "$cfg" .cfg)
  case $cfg in */yolov1/*) name="yolov1/$name" ;; esac
  if [ -n "${CFGS:-}" ] && ! [[ " $CFGS " == *" $name "* ]]; then continue; fi
  size="--height $SIZE --width $SIZE"
  # [connected], [local] and [crop] fix the input size (weights or windows): those run at their own.
  grep -qE '^\[(connected|conn|local|crop)\]' "$cfg" && size=""
  case $name in
    yolov4-p6|yolov4-sam-mish-csp-reorg-bfm|cspx-p7-mish|cspx-p7-mish_hp) size="--height 256 --width 256" ;;
  esac
  expected=run
  for r in $REFUSED; do [ "$name" = "$r" ] && expected=refused; done
  for generator in $GENERATORS; do
    weights="$OUT/${name//\//-}.weights"
    if ! "$FOLDKIT" seed-weights "$cfg" --seed "$SEED" --generator "$generator" --out "$weights" > /dev/null 2> "$weights.err"; then
      message=$(head -c 160 "$weights.err" | tr '\n|' '  ')
      echo "| $name | $generator | - | 1 | | | | | | $expected: $message |"
      continue
    fi
    for mode in fp32 fp16; do
      stem="$OUT/${name//\//-}-$generator-$mode"
      rm -f "$stem.json"
      flag=""; [ "$mode" = fp16 ] && flag="--fp16"
      # shellcheck disable=SC2086
      timeout 900 "$FOLDKIT" verify "$cfg" "$weights" $size $flag --json "$stem.json" > "$stem.txt" 2>&1
      code=$?
      python3 - "$stem.json" "$stem.txt" "$name" "$generator" "$mode" "$code" "$expected" <<'PY'
import json, sys
path, text, name, generator, mode, code, expected = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    message = open(text).read().strip().splitlines()
    message = (message[-1] if message else "")[:160].replace("|", " ")
    print(f"| {name} | {generator} | {mode} | {code} | | | | | | {expected}: {message} |"); sys.exit()
over = {p["precision"]: sum(not l["pass"] for l in p["layers"]) for p in r["precisions"]}
excused = sum((l.get("conditioning") or {}).get("illConditioned", 0) for p in r["precisions"] for l in p["layers"] if l["pass"])
closest = max((float(l["candidate"]["maxAbsDeviation"]) / float(l["allowed"]) if float(l["allowed"]) > 0 else 0)
              for p in r["precisions"] for l in p["layers"] if l["pass"] and not l.get("conditioning"))
boxes = "-" if r.get("detections") is None else ("agree" if r["detections"]["pass"] else "DIFFER")
cause = r.get("float16FailureCause")
cause = "-" if cause is None else ("none" if not cause else f'{cause[0]["kind"].split(" (")[0]} (layer {cause[0]["layer"]})')
if expected == "refused":
    cause = "NOT REFUSED"
print(f'| {name} | {generator} | {mode} | {code} | {over.get("float32", "-")} | {over.get("float16 storage", "-")} | {excused} | {closest:.3g} | {boxes} | {cause} |')
PY
    done
    rm -f "$weights"
  done
done | tee "$OUT/table.md"
python3 - "$OUT/table.md" <<'PY'
import sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| ") and not l.startswith("| cfg")]
rows = [[c.strip() for c in r] for r in rows]
fp32 = [r for r in rows if r[2] == "fp32"]
fp16 = [r for r in rows if r[2] == "fp16"]
refusals = [r for r in rows if r[2] == "-"]
expected_refusals = [r for r in refusals if r[9].startswith("refused")]
print(f"\nsummary: {len(fp32)} float32 runs, exit 0: {sum(r[3] == '0' for r in fp32)}; "
      f"{len(fp16)} --fp16 runs, exit 0: {sum(r[3] == '0' for r in fp16)}, exit 2 naming a float16 hazard: "
      f"{sum(r[3] == '2' and r[9] not in ('-', 'none') for r in fp16)}; "
      f"refused at seed-weights: {len(refusals)} ({len(expected_refusals)} expected)")
bad = [r for r in rows if (r[2] == "fp32" and r[3] != "0") or (r[2] == "fp16" and r[3] not in ("0", "2"))
       or (r[2] == "fp16" and r[3] == "2" and r[9] in ("-", "none")) or (r[2] == "-" and not r[9].startswith("refused"))
       or r[9] == "NOT REFUSED"]
print("runs outside the contract:", len(bad))
for r in bad:
    print("  " + " | ".join(r))
PY
