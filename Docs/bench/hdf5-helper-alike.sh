#!/usr/bin/env bash
# Whether reading Keras models in the HDF5 helper process (the default) and in process
# (FOLDKIT_HDF5_IN_PROCESS=1) make the same outputs (Docs/Security.md, "HDF5 read in a helper process"):
# for each model file, `convert` both ways and, when MODEL.input.npy is beside it (as keras-family.py
# --keep leaves them), `fixtures --input` both ways; the exit codes, the messages and every byte written
# must agree. One row per model and command, then "files: N, commands: M, different: D" (exit 1 if D > 0).
#   FOLDKIT=.build/release/foldkit bash Docs/bench/hdf5-helper-alike.sh model.h5 [model.keras ...]
# The keras.applications quick run: python3 Docs/bench/keras-family.py --quick --keep --tmp DIR --out DIR/q.md
# (with --foldkit), then this script on DIR's *.h5 and *.keras files.
set -u
FOLDKIT=${FOLDKIT:-.build/release/foldkit}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hdf5-alike.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
files=0; commands=0; different=0
printf "| model | command | exit (helper / in process) | same |\n|---|---|---|---|\n"
compare() {  # label, command arguments with OUT for the output folder
  local label=$1; shift
  local a=() b=()
  for word in "$@"; do a+=("${word//OUT/$WORK/out}"); done
  rm -rf "$WORK/out" "$WORK/helped"
  "$FOLDKIT" "${a[@]}" > "$WORK/helped.out" 2> "$WORK/helped.err"; local ha=$?
  [ -e "$WORK/out" ] && mv "$WORK/out" "$WORK/helped"
  FOLDKIT_HDF5_IN_PROCESS=1 "$FOLDKIT" "${a[@]}" > "$WORK/direct.out" 2> "$WORK/direct.err"; local hb=$?
  local same=yes
  [ "$ha" = "$hb" ] || same=no
  # Timings aside (convert's "took", verify's "time:").
  cmp -s <(grep -v -e '^took ' -e '^time:' "$WORK/helped.out") <(grep -v -e '^took ' -e '^time:' "$WORK/direct.out") || same=no
  cmp -s "$WORK/helped.err" "$WORK/direct.err" || same=no
  if [ -e "$WORK/helped" ] || [ -e "$WORK/out" ]; then diff -r "$WORK/helped" "$WORK/out" > /dev/null 2>&1 || same=no; fi
  commands=$((commands + 1)); [ "$same" = yes ] || different=$((different + 1))
  printf "| %s | %s | %s / %s | %s |\n" "$label" "$1" "$ha" "$hb" "$same"
}
for model in "$@"; do
  files=$((files + 1))
  name=$(basename "$model")
  compare "$name" convert "$model" --out OUT
  if [ -f "$model.input.npy" ]; then compare "$name" fixtures "$model" --input "$model.input.npy" --out OUT; fi
done
echo
echo "files: $files, commands: $commands, different: $different"
[ "$different" = 0 ]
