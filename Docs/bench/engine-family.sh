#!/usr/bin/env bash
# Runs Fixtures/engines/engine_check.py (foldkit export --format onnx, onnx.checker full_check, ONNX Runtime and
# OpenVINO on test_data_set_0, foldkit verify --engine-outputs) over every cfg of darknet's own cfg folder
# (../shared/darknet-cfg-all and its yolov1/), seeded weights (seed-weights --seed SEED --generator GENERATOR, default he), at
# SIZE x SIZE (160; cfgs with [connected], [local] or [crop] at their own size, which those fix; yolov4-p6,
# yolov4-sam-mish-csp-reorg-bfm and cspx-p7-mish(_hp) at 256, whose routes join grids darknet also refuses to
# join at 160), first in float32, then with --dtype float16. yolo9000 reads its data/9k.tree (tree= in the cfg).
# The recurrent and binary cfgs (SOURCE.txt's list) must be refused naming their section: rows
# "refused-by-design". CFGS="name ..." (as the table names them) runs only those; REPORT_ONLY=1 runs nothing and
# rebuilds the rows from the logs an earlier run left in OUT.
# Rows: float32: exit of engine_check, ONNX Runtime's max |ort - ref| / max |ref| over the outputs against
# the bound (1e-4, 1e-3 past 60 layers), OpenVINO's max |ov - ort| / max |ort| (bound 1e-4), foldkit verify
# --engine-outputs exit per engine, seconds, the first error or failure; float16: exit, model bytes
# float16 / float32 (<= 0.55), verify --fp16 exit per engine and the float16 hazard it names when it exits 2.
# ENGINES (default onnxruntime,openvino) goes to engine_check's --engines: ENGINES=ncnn runs the same over
# `foldkit export --format ncnn` on ncnn alone (its column: max |ncnn - ref| / max |ref|, bound as ORT's; bytes:
# model.param + model.bin); ENGINES=litert over `foldkit export --format tflite` on LiteRT (columns: its default
# kernels and its builtin kernels alone, each max |litert - ref| / max |ref|; bytes: model.tflite).
# Needs a release build (swift build -c release) and python3 with onnx, onnxruntime, openvino, ncnn, ai-edge-litert
# (.ci/install).
# he weights saturate some networks' outputs (a softmax one-hot, logistic heads at exactly 0 or 1), which then
# match whatever the engines compute up to a sign-preserving error: GENERATOR=uniform reruns those unsaturated.
#   FOLDKIT=path/to/foldkit SIZE=160 SEED=1 GENERATOR=he OUT=dir bash Docs/bench/engine-family.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FOLDKIT=${FOLDKIT:-$ROOT/.build/release/foldkit}
SHARED=${FOLDKIT_SHARED:-$ROOT/../shared}
ALL=${CFG_ALL:-$SHARED/darknet-cfg-all}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/engine-family.XXXXXX")}
SIZE=${SIZE:-160}
SEED=${SEED:-1}
GENERATOR=${GENERATOR:-he}
ENGINES=${ENGINES:-onnxruntime,openvino}
TIMEOUT=${TIMEOUT:-3600}
CHECK="$ROOT/Fixtures/engines/engine_check.py"
# Refused by design: recurrent and binary (SOURCE.txt).
REFUSED="rnn rnn.train gru lstm.train crnn.train yolov3-tiny_occlusion_track tiny-yolo_xnor yolov3-tiny_xnor darknet53_448_xnor yolov1/xyolo.test"
mkdir -p "$OUT"
echo "reports in $OUT; $("$FOLDKIT" --version 2>/dev/null)" >&2
: > "$OUT/rows32.md"
: > "$OUT/rows16.md"
for cfg in "$ALL"/*.cfg "$ALL"/yolov1/*.cfg; do
  name=$(basename "$cfg" .cfg)
  case $cfg in */yolov1/*) name="yolov1/$name" ;; esac
  if [ -n "${CFGS:-}" ] && ! [[ " $CFGS " == *" $name "* ]]; then continue; fi
  size="--height $SIZE --width $SIZE"
  label=$SIZE
  # [connected], [local] and [crop] fix the input size (weights or windows): those run at their own.
  grep -qE '^\[(connected|conn|local|crop)\]' "$cfg" && { size=""; label=own; }
  case $name in
    yolov4-p6|yolov4-sam-mish-csp-reorg-bfm|cspx-p7-mish|cspx-p7-mish_hp) size="--height 256 --width 256"; label=256 ;;
  esac
  expected=run
  for r in $REFUSED; do [ "$name" = "$r" ] && expected=refused; done
  stem="$OUT/${name//\//-}"
  weights="$stem.weights"
  if [ -n "${REPORT_ONLY:-}" ]; then
    [ -s "$stem.seed.err" ] && grep -q error "$stem.seed.err" && seeded=no || seeded=yes
  elif "$FOLDKIT" seed-weights "$cfg" --seed "$SEED" --generator "$GENERATOR" --out "$weights" > /dev/null 2> "$stem.seed.err"; then
    seeded=yes
  else
    seeded=no
  fi
  if [ "$seeded" = no ]; then
    message=$(grep -m1 'error' "$stem.seed.err" | head -c 200 | tr '\n|' '  ')
    verdict=$([ "$expected" = refused ] && echo "refused-by-design" || echo "REFUSED (seed-weights)")
    echo "| $name | - | 1 | | | | | $verdict: $message |" | tee -a "$OUT/rows32.md"
    echo "| $name | 1 | | | $verdict | |" >> "$OUT/rows16.md"
    continue
  fi
  for dtype in float32 float16; do
    [ -n "${REPORT_ONLY:-}" ] && continue
    work="$stem-$dtype"
    started=$(date +%s)
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" python3 "$CHECK" --foldkit "$FOLDKIT" --out "$work" --engines "$ENGINES" --dtype "$dtype" --json "$work.json" $size \
      -- "$cfg" "$weights" > "$work.log" 2>&1
    code=$?
    seconds=$(( $(date +%s) - started ))
    if [[ "$ENGINES" == ncnn ]]; then
      bytes=$(( $(stat -c %s "$work/export-ncnn/model.param" 2>/dev/null || echo 0) + $(stat -c %s "$work/export-ncnn/model.bin" 2>/dev/null || echo 0) ))
    elif [[ "$ENGINES" == litert ]]; then
      bytes=$(stat -c %s "$work/export-tflite/model.tflite" 2>/dev/null || echo 0)
    else
      bytes=$(stat -c %s "$work/export/model.onnx" 2>/dev/null || echo 0)
    fi
    echo "$code $seconds $bytes" > "$work.status"
  done
  python3 - "$stem" "$name" "$label" "$expected" "$OUT/rows32.md" "$OUT/rows16.md" "$ENGINES" <<'PY'
import json, re, sys
stem, name, label, expected, rows32, rows16, engines = sys.argv[1:]
engines = engines.split(",")

def load(dtype):
    code, seconds, size = open(f"{stem}-{dtype}.status").read().split()
    try:
        record = json.load(open(f"{stem}-{dtype}.json"))
    except Exception:
        record = {}
    log = open(f"{stem}-{dtype}.log", errors="replace").read()
    return int(code), int(seconds), int(size), record, log

def clean(text, limit=220):
    return re.sub(r"\s+", " ", text.replace("|", "/")).strip()[:limit]

def problem(code, record, log):
    if code == 124:
        return "timeout"
    found = record.get("errors", []) + record.get("failures", [])
    if found:
        text = found[0]
        # an error's first line that says something (export's own message, an engine's exception)
        lines = [l for l in text.splitlines() if l.strip() and not l.startswith("$")]
        text = next((l for l in lines if "error" in l.lower()), lines[0] if lines else text)
        return clean(text)
    if code not in (0, 2):
        tail = [l for l in log.splitlines() if l.strip()]
        return clean(tail[-1] if tail else f"exit {code}")
    return ""

def worst(record, engine):
    figures = [o[engine] for o in record.get("outputs", {}).values() if engine in o]
    if not figures:
        return None, None
    top = max(figures, key=lambda f: f["relative"])
    return top["relative"], top["bound"]

def verdicts(record):
    v = record.get("verify", {})
    return "/".join(str(v.get(e, "-")) for e in engines)

def figure(record, engine):
    # ONNX Runtime and ncnn against the reference (with the bound), OpenVINO against ONNX Runtime (1e-4).
    value, bound = worst(record, engine)
    if value is None:
        return "-"
    if engine == "openvino":
        return f"{value:.2e}" + ("" if value <= 1e-4 else " OVER")
    return f"{value:.2e} ({bound:.0e})" + ("" if value <= bound else " OVER")

code, seconds, size32, record, log = load("float32")
message = problem(code, record, log)
if expected == "refused":
    message = "NOT REFUSED " + message
with open(rows32, "a") as f:
    # LiteRT is judged twice by engine_check: its default kernels (litert) and its builtin kernels alone.
    columns = engines + (["litert-builtin"] if "litert" in engines else [])
    figures = " | ".join(figure(record, e) for e in columns)
    row = f"| {name} | {label} | {code} | {figures} | {verdicts(record)} | {seconds} | {message} |"
    f.write(row + "\n")
print(row, flush=True)

code16, seconds16, size16, record16, log16 = load("float16")
ratio = f"{size16 / size32:.3f}" if size32 and size16 else "-"
if size32 and size16 and size16 / size32 > 0.55:
    ratio += " OVER"
cause = ""
if any(v == 2 for v in record16.get("verify", {}).values()):
    # verify's FAIL line names the float16 range hazard of the first layer over tolerance (or says there is none
    # at or before it); a FAIL with no layer over (boxes differ) names none: its own words, marked.
    causes = re.findall(r"cause: float16 range hazard: ([^;\n]*)", log16)
    fails = [l[len("FAIL: "):] for l in log16.splitlines() if l.startswith("FAIL: ")]
    if causes:
        cause = clean(causes[0], 160)
    elif "no float16 range hazard at or before it" in log16:
        cause = "NO HAZARD NAMED: " + clean(fails[0], 120)
    elif fails:
        cause = "NO HAZARD NAMED: " + clean(fails[0], 120)
message16 = problem(code16, record16, log16) if code16 not in (0, 2) else ""
with open(rows16, "a") as f:
    f.write(f"| {name} | {code16} | {ratio} | {verdicts(record16)} | {'; '.join(x for x in (cause, message16) if x)} | {seconds16} |\n")
PY
  rm -rf "$weights" "$stem-float32" "$stem-float16"
done
{
  if [[ "$ENGINES" == ncnn ]]; then
    printf "## float32\n\n| cfg | size | exit | ncnn vs reference (bound) | verify ncnn | s | error / failure |\n|---|---|---|---|---|---|---|\n"
  elif [[ "$ENGINES" == litert ]]; then
    printf "## float32\n\n| cfg | size | exit | LiteRT vs reference (bound) | LiteRT builtin kernels vs reference (bound) | verify litert | s | error / failure |\n|---|---|---|---|---|---|---|---|\n"
  else
    printf "## float32\n\n| cfg | size | exit | ORT vs reference (bound) | OpenVINO vs ORT | verify ORT/OV | s | error / failure |\n|---|---|---|---|---|---|---|---|\n"
  fi
  cat "$OUT/rows32.md"
  printf "\n## float16\n\n| cfg | exit | bytes float16/float32 | verify --fp16 %s | float16 hazard named / error | s |\n|---|---|---|---|---|---|\n" "$ENGINES"
  cat "$OUT/rows16.md"
} > "$OUT/table.md"
python3 - "$OUT/rows32.md" "$OUT/rows16.md" <<'PY' | tee "$OUT/summary.txt"
import sys
def rows(path):
    return [[c.strip() for c in l.split("|")[1:-1]] for l in open(path) if l.startswith("| ")]
r32, r16 = rows(sys.argv[1]), rows(sys.argv[2])
refused = [r for r in r32 if r[-1].startswith("refused-by-design")]
run32 = [r for r in r32 if r[1] != "-"]
run16 = [r for r in r16 if r[1] != "1" or not r[4].startswith("refused")]
print(f"summary: {len(r32)} cfgs; refused by design: {len(refused)} ({', '.join(r[0] for r in refused)}); "
      f"float32: {len(run32)} run, exit 0: {sum(r[2] == '0' for r in run32)}, exit 2: {sum(r[2] == '2' for r in run32)}, "
      f"exit 1: {sum(r[2] not in ('0', '2') for r in run32)}; "
      f"float16: {len(run16)} run, exit 0: {sum(r[1] == '0' for r in run16)}, exit 2 naming a float16 hazard: "
      f"{sum(r[1] == '2' and bool(r[4]) and 'NO HAZARD' not in r[4] for r in run16)}, exit 2 naming none: "
      f"{sum(r[1] == '2' and (not r[4] or 'NO HAZARD' in r[4]) for r in run16)}, exit 1: {sum(r[1] not in ('0', '2') for r in run16)}, "
      f"ratio over 0.55: {sum('OVER' in r[2] for r in run16)}")
bad = [r for r in run32 if r[2] != "0"] + [r for r in run16 if r[1] not in ("0", "2") or (r[1] == "2" and (not r[4] or "NO HAZARD" in r[4])) or "OVER" in r[2]]
bad += [r for r in r32 if r[1] == "-" and not r[-1].startswith("refused-by-design")]
print("rows outside the contract:", len(bad))
for r in bad:
    print("  " + " | ".join(r))
PY
echo "table in $OUT/table.md" >&2
