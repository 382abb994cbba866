#!/usr/bin/env bash
# Snapshot what one foldkit binary does on every real model in the shared folder, so that two
# binaries (before and after a refactor) can be proved to behave the same:
#
#   bash Docs/bench/real-models-snapshot.sh FOLDKIT_BINARY OUT_DIR [SHARED_DIR]
#   bash Docs/bench/real-models-snapshot.sh --compare OUT_DIR_A OUT_DIR_B
#
# SHARED_DIR (the folder holding real-models/) defaults to $FOLDKIT_SHARED, else ../shared beside the
# repository root. OUT_DIR must not exist yet, or be empty.
#
# Models (discovered in SHARED_DIR/real-models/<folder>/):
#   - Darknet: every X.cfg with an X.weights beside it.
#   - Keras:   every .h5 / .hdf5 / .keras file on its own (weights-only .h5 files are refused: the
#              refusal is recorded like any other outcome), and every .json that is a Keras model
#              description (top-level "class_name" and "config") with the .h5 beside it whose name
#              holds "weights" and shares the longest prefix with the .json's name, passed as
#              `config.json weights.h5` (Docs/CLI.md). Other .json files (e.g. detector metadata) are
#              skipped and listed in OUT_DIR/INFO.txt.
#   - SIZE_VARIANTS below: models whose input size is undefined (None) run once more at a fixed size.
#
# Per model, into OUT_DIR/<folder>/<file>[+<file>][@HxW]/ (each command also leaves NAME.stderr and
# NAME.rc, its exit code; refused models thus record their exit code and error line):
#   inspect.json                 inspect --json
#   convert-<layout>.json        convert --json, blobs in blobs-<layout>/, for the default layout (run
#                                without --layout) and every other layout `convert --help` lists
#   fixtures-<layout>.json       fixtures --npz --json --seed SEED, pack in fixtures-<layout>/, likewise
#   verify-float32.json (+.txt)  verify --seed SEED --json FILE (the text report is the .txt)
#   verify-fp16.json (+.txt)     the same with --fp16
#   verify-blobs.json (+.txt)    the same (float32) with --blobs blobs-<default layout>
#   verify-image-<img>.json      verify --image IMG for each .jpg/.png beside the model (detectors'
#                                boxes are only exercised on real images)
#
# OUT_DIR/SUMMARY.txt has one line per output file, sorted: `path  sha256=HEX`, or for .rc files
# `path  exit=N`. Blob and fixture files are hashed as written (they must be byte-identical); the
# command outputs are hashed after normalising (see normalise() in the Python part):
#   - JSON documents: parsed with python3 json and re-dumped key-sorted, without the fields that vary
#     between runs of the same binary or that name the machine:
#       convert / fixtures / inspect --json: top-level `seconds` (wall time of the command) and
#                                            `toolVersion` (FoldKit version string)
#       verify --json:                       top-level `timings` (per-phase wall times) and, should a
#                                            report carry it, `toolVersion`
#     and with the absolute OUT_DIR and SHARED_DIR/real-models paths in any string (e.g. convert's
#     and fixtures' `out`) replaced by <OUT> and <MODELS>. The reports hold no dates.
#   - verify's text report (.txt): without its `time: ...` line (phase timings); paths replaced.
#   - stderr: paths replaced.
# OUT_DIR/INFO.txt (not compared) has the binary, its version, the models skipped and the run time.
#
# Every command runs from the model's folder with bare file names, so messages name the files the
# same way wherever SHARED_DIR is. NO_COLOR and CI are set so no colour or progress line reaches the
# logs. Commands run one at a time (the binary already uses every core for its matrix products).
# Needs bash and python3 (hashes via hashlib; no pip packages). With the 2026-11 shared models a
# snapshot is 33 model runs, ~9600 SUMMARY lines and ~1.5 GB (the fixture packs); a debug build takes
# about 4 minutes on 2 cores. Two runs of one binary give identical SUMMARY files.

set -u -o pipefail
export LC_ALL=C NO_COLOR=1 CI=1
shopt -s nullglob

# Seed of the synthetic input for fixtures and verify. Not the default (0), so a binary that ignored
# --seed would show up as a difference.
SEED=1

# Models that read nothing without a size (input (None, None, None, C)): "<folder>/<file> H W".
# MTCNN's P-Net is made for 12 x 12 (the example in Docs/CLI.md). The plain run is kept too: its
# refusal ("model input height/width is undefined") is an outcome to keep as well.
SIZE_VARIANTS=(
  "keras_dl4j_mtcnn_12net/12net.h5 12 12"
)

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

usage() {
  echo "usage: bash Docs/bench/real-models-snapshot.sh FOLDKIT_BINARY OUT_DIR [SHARED_DIR]" >&2
  echo "       bash Docs/bench/real-models-snapshot.sh --compare OUT_DIR_A OUT_DIR_B" >&2
  exit 2
}

# ---------------------------------------------------------------------------------------------------
# Python helpers: help parsing, model discovery, normalisation, SUMMARY writing and comparing.
# Called as: python3 -c "$PY" COMMAND ARGS...
read -r -d '' PY <<'PYEOF'
import difflib, hashlib, json, os, re, sys

def layouts(help_text):
    """The values and default of --layout in a command's --help: 'default v1 v2 ...' (default first)."""
    lines = help_text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith("--layout <layout>"))
    block = [lines[start]]
    for l in lines[start + 1:]:
        if l.lstrip().startswith("-"):
            break
        block.append(l)
    text = " ".join(" ".join(block).split())
    m = re.search(r"\(values: ([^;)]+); default: ([^)]+)\)", text)
    values = [v.strip() for v in m.group(1).split(",")]
    default = m.group(2).strip().lower()
    assert default in values, (default, values)
    return [default] + [v for v in values if v != default]

def is_keras_config(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(d, dict) and "class_name" in d and "config" in d

def common_prefix(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n

def discover(models_dir):
    """Print one line per model: 'id<TAB>folder<TAB>file1[<TAB>file2]', and 'skip<TAB>path<TAB>why'."""
    for folder in sorted(os.listdir(models_dir)):
        d = os.path.join(models_dir, folder)
        if not os.path.isdir(d):
            continue
        names = sorted(os.listdir(d))
        for n in names:
            stem, ext = os.path.splitext(n)
            if ext == ".cfg":
                if stem + ".weights" in names:
                    print(f"{folder}/{n}+{stem}.weights\t{folder}\t{n}\t{stem}.weights")
                else:
                    print(f"skip\t{folder}/{n}\tno {stem}.weights beside it")
            elif ext in (".h5", ".hdf5", ".keras"):
                print(f"{folder}/{n}\t{folder}\t{n}")
            elif ext == ".json":
                if not is_keras_config(os.path.join(d, n)):
                    print(f"skip\t{folder}/{n}\tnot a Keras model description (no class_name/config)")
                    continue
                weights = [w for w in names if os.path.splitext(w)[1] in (".h5", ".hdf5")
                           and "weights" in w.lower()]
                if not weights:
                    print(f"skip\t{folder}/{n}\tno weights .h5 beside it")
                    continue
                w = max(weights, key=lambda w: (common_prefix(stem, w), w))
                print(f"{folder}/{n}+{w}\t{folder}\t{n}\t{w}")

# Top-level JSON fields that vary between runs of the same binary (see the header of the script).
VOLATILE = {
    "foldkit convert": ("seconds", "toolVersion"),
    "foldkit fixtures": ("seconds", "toolVersion"),
    "foldkit inspect": ("seconds", "toolVersion"),
    "foldkit verify": ("timings", "toolVersion"),
}

def replace_paths(s, paths):
    for path, token in paths:
        s = s.replace(path, token)
    return s

def walk(v, paths):
    if isinstance(v, str):
        return replace_paths(v, paths)
    if isinstance(v, list):
        return [walk(x, paths) for x in v]
    if isinstance(v, dict):
        return {k: walk(x, paths) for k, x in v.items()}
    return v

def normalise(path, rel, paths):
    """The bytes hashed for a file: as written inside blobs-*/fixtures-*, normalised elsewhere."""
    with open(path, "rb") as f:
        data = f.read()
    parts = rel.split("/")   # <folder>/<model>/[blobs-L|fixtures-L/]file
    if any(p.startswith(("blobs-", "fixtures-")) for p in parts[2:-1]):
        return data
    text = data.decode("utf-8", errors="surrogateescape")
    if rel.endswith(".json"):
        try:
            doc = json.loads(text)
        except ValueError:
            return replace_paths(text, paths).encode("utf-8", errors="surrogateescape")
        if isinstance(doc, dict):
            for key in VOLATILE.get(doc.get("tool"), ()):
                doc.pop(key, None)
        doc = walk(doc, paths)
        return (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()
    if rel.endswith(".txt") and "/verify-" in rel:
        text = "".join(l for l in text.splitlines(True) if not l.startswith("time: "))
    return replace_paths(text, paths).encode("utf-8", errors="surrogateescape")

def path_tokens(out_dir):
    """Absolute paths to hide in outputs: this OUT_DIR and the real-models folder it was made from."""
    out_dir = os.path.realpath(out_dir)
    tokens = [(out_dir, "<OUT>")]
    try:
        with open(os.path.join(out_dir, "MODELS_DIR")) as f:
            tokens.append((f.read().strip(), "<MODELS>"))
    except OSError:
        pass
    return tokens

def outputs(out_dir):
    """Relative paths of every output file (model folders only; SUMMARY/INFO/MODELS_DIR excluded)."""
    result = []
    for root, dirs, files in os.walk(out_dir):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), out_dir)
            if "/" in rel:
                result.append(rel)
    return sorted(result)

def summary(out_dir):
    paths = path_tokens(out_dir)
    lines = []
    for rel in outputs(out_dir):
        full = os.path.join(out_dir, rel)
        if rel.endswith(".rc"):
            with open(full) as f:
                lines.append(f"{rel}  exit={f.read().strip()}")
        else:
            digest = hashlib.sha256(normalise(full, rel, paths)).hexdigest()
            lines.append(f"{rel}  sha256={digest}")
    with open(os.path.join(out_dir, "SUMMARY.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} lines in {os.path.join(out_dir, 'SUMMARY.txt')}")

def compare(a, b):
    def read(d):
        with open(os.path.join(d, "SUMMARY.txt")) as f:
            return dict(l.rstrip("\n").split("  ", 1) for l in f if l.strip())
    sa, sb = read(a), read(b)
    differing = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
    if not differing:
        print(f"identical: {len(sa)} lines")
        return 0
    print(f"{len(differing)} of {len(set(sa) | set(sb))} lines differ:")
    for k in differing:
        print(f"- {k}  {sa.get(k, '(absent)')}")
        print(f"+ {k}  {sb.get(k, '(absent)')}")
    # For differing command outputs, show what differs after normalisation (first lines only).
    shown = 0
    for k in differing:
        if k not in sa or k not in sb or k.endswith(".rc") or shown >= 10:
            continue
        parts = k.split("/")
        if any(p.startswith(("blobs-", "fixtures-")) for p in parts[2:-1]):
            continue
        na = normalise(os.path.join(a, k), k, path_tokens(a)).decode(errors="replace").splitlines()
        nb = normalise(os.path.join(b, k), k, path_tokens(b)).decode(errors="replace").splitlines()
        diff = list(difflib.unified_diff(na, nb, f"A/{k}", f"B/{k}", n=2, lineterm=""))
        print("\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else ""))
        shown += 1
    return 1

cmd = sys.argv[1]
if cmd == "layouts":
    print(" ".join(layouts(sys.stdin.read())))
elif cmd == "discover":
    discover(sys.argv[2])
elif cmd == "summary":
    summary(sys.argv[2])
elif cmd == "compare":
    sys.exit(compare(sys.argv[2], sys.argv[3]))
PYEOF

# ---------------------------------------------------------------------------------------------------
# --compare A B: exit 0 when the two SUMMARY files agree, 1 (printing the differing lines) otherwise.
if [[ "${1:-}" == "--compare" ]]; then
  [[ $# -eq 3 ]] || usage
  for d in "$2" "$3"; do
    [[ -f "$d/SUMMARY.txt" ]] || { echo "error: $d/SUMMARY.txt not found" >&2; exit 2; }
  done
  python3 -c "$PY" compare "$2" "$3"
  exit $?
fi

[[ $# -ge 2 && $# -le 3 ]] || usage
FOLDKIT=$(realpath "$1")
OUT_DIR=$2
SHARED_DIR=${3:-${FOLDKIT_SHARED:-$REPO_ROOT/../shared}}
MODELS_DIR=$(realpath "$SHARED_DIR/real-models") || exit 2
[[ -x "$FOLDKIT" ]] || { echo "error: $FOLDKIT is not an executable" >&2; exit 2; }
[[ -d "$MODELS_DIR" ]] || { echo "error: $MODELS_DIR is not a folder" >&2; exit 2; }
if [[ -e "$OUT_DIR" && -n "$(ls -A "$OUT_DIR" 2>/dev/null)" ]]; then
  echo "error: $OUT_DIR exists and is not empty (the snapshot needs a fresh folder)" >&2
  exit 2
fi
mkdir -p "$OUT_DIR"
OUT_DIR=$(realpath "$OUT_DIR")
echo "$MODELS_DIR" > "$OUT_DIR/MODELS_DIR"   # read back to hide the path when normalising
START=$(date +%s)

# Layouts offered by this binary, default first (taken from --help, so a layout added later is
# snapshotted too and shows up as a difference).
read -r -a CONVERT_LAYOUTS <<< "$("$FOLDKIT" convert --help | python3 -c "$PY" layouts)" || exit 2
read -r -a FIXTURE_LAYOUTS <<< "$("$FOLDKIT" fixtures --help | python3 -c "$PY" layouts)" || exit 2
DEFAULT_LAYOUT=${CONVERT_LAYOUTS[0]}

{
  echo "binary: $FOLDKIT"
  echo "version: $("$FOLDKIT" --version)"
  echo "models: $MODELS_DIR"
  echo "seed: $SEED"
  echo "convert layouts (default first): ${CONVERT_LAYOUTS[*]}"
  echo "fixture layouts (default first): ${FIXTURE_LAYOUTS[*]}"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$OUT_DIR/INFO.txt"

# run NAME DIR ARGS...: run the binary with ARGS in the model's folder; stdout to DIR/NAME, stderr to
# DIR/BASE.stderr and the exit code to DIR/BASE.rc, BASE being NAME without .json / .txt.
run() {
  local name=$1 dir=$2; shift 2
  local stdout=$dir/$name
  local base=${name%.json}; base=${base%.txt}
  ( cd "$MODEL_FOLDER" && "$FOLDKIT" "$@" ) > "$stdout" 2> "$dir/$base.stderr"
  echo $? > "$dir/$base.rc"
  echo "  $(cat "$dir/$base.rc")  $name"
}

# snapshot ID FOLDER EXTRA_ARGS FILES...: every command on one model.
snapshot() {
  local id=$1; MODEL_FOLDER=$MODELS_DIR/$2; local extra=$3; shift 3
  local files=("$@") dir=$OUT_DIR/$id layout img
  local -a size=()
  [[ -n "$extra" ]] && read -r -a size <<< "$extra"
  mkdir -p "$dir"
  echo "$id"

  run inspect.json "$dir" inspect "${files[@]}" "${size[@]}" --json

  for layout in "${CONVERT_LAYOUTS[@]}"; do
    local flag=(--layout "$layout")
    [[ "$layout" == "$DEFAULT_LAYOUT" ]] && flag=()   # the default is what no --layout gives
    run "convert-$layout.json" "$dir" convert "${files[@]}" "${size[@]}" \
      --out "$dir/blobs-$layout" "${flag[@]}" --json
  done

  for layout in "${FIXTURE_LAYOUTS[@]}"; do
    local flag=(--layout "$layout")
    [[ "$layout" == "${FIXTURE_LAYOUTS[0]}" ]] && flag=()
    run "fixtures-$layout.json" "$dir" fixtures "${files[@]}" "${size[@]}" --seed "$SEED" \
      --out "$dir/fixtures-$layout" "${flag[@]}" --npz --json
  done

  # verify writes the JSON report itself (--json FILE); its text report goes to stdout (.txt).
  run verify-float32.txt "$dir" verify "${files[@]}" "${size[@]}" --seed "$SEED" \
    --json "$dir/verify-float32.json"
  run verify-fp16.txt "$dir" verify "${files[@]}" "${size[@]}" --seed "$SEED" --fp16 \
    --json "$dir/verify-fp16.json"
  run verify-blobs.txt "$dir" verify "${files[@]}" "${size[@]}" --seed "$SEED" \
    --blobs "$dir/blobs-$DEFAULT_LAYOUT" --json "$dir/verify-blobs.json"
  for img in "$MODEL_FOLDER"/*.jpg "$MODEL_FOLDER"/*.png; do
    img=${img##*/}
    run "verify-image-$img.txt" "$dir" verify "${files[@]}" "${size[@]}" --image "$img" \
      --json "$dir/verify-image-$img.json"
  done
}

# Discover, then run one model at a time.
MODELS=()
while IFS=$'\t' read -r id folder a b; do
  if [[ "$id" == skip ]]; then
    echo "skipped: $folder ($a)" >> "$OUT_DIR/INFO.txt"
    continue
  fi
  MODELS+=("$id"$'\t'"$folder"$'\t'"$a"$'\t'"${b:-}")
done < <(python3 -c "$PY" discover "$MODELS_DIR")

for entry in "${MODELS[@]}"; do
  IFS=$'\t' read -r id folder a b <<< "$entry"
  files=("$a"); [[ -n "$b" ]] && files+=("$b")
  snapshot "$id" "$folder" "" "${files[@]}"
  for variant in "${SIZE_VARIANTS[@]}"; do
    read -r vmodel vh vw <<< "$variant"
    if [[ "$vmodel" == "$id" ]]; then
      snapshot "$id@${vh}x${vw}" "$folder" "--height $vh --width $vw" "${files[@]}"
    fi
  done
done

python3 -c "$PY" summary "$OUT_DIR" || exit 1
END=$(date +%s)
{
  echo "models: ${#MODELS[@]} (plus ${#SIZE_VARIANTS[@]} size variant(s))"
  echo "refused (inspect exit code not 0):"
  grep -L '^0$' "$OUT_DIR"/*/*/inspect.rc | sed "s|^$OUT_DIR/|  |; s|/inspect.rc$||"
  echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ) ($((END - START)) s)"
} >> "$OUT_DIR/INFO.txt"
echo "snapshot in $OUT_DIR ($((END - START)) s); see INFO.txt and SUMMARY.txt"
