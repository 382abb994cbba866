#!/usr/bin/env bash
# What reading an HDF5 model in a helper process first costs `foldkit convert` (Docs/Performance.md,
# "HDF5 helper"): convert with the helper, convert with FOLDKIT_HDF5_IN_PROCESS=1, and the convert baseline
# (cp of the model, then sha256sum of the model and the blobs, as Performance.md's), interleaved, RUNS rounds, each time in seconds.
#   FOLDKIT=.build/release/foldkit RUNS=5 bash Docs/bench/hdf5-helper.sh model.h5 [model2.keras ...]
set -u
FOLDKIT=${FOLDKIT:-.build/release/foldkit}
RUNS=${RUNS:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hdf5-helper.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
printf "| model | MB | round | convert with helper s | convert in process s | cp + SHA-256 s |\n|---|---|---|---|---|---|\n"
for model in "$@"; do
  mb=$(( $(stat -c %s "$model") / 1000000 ))
  "$FOLDKIT" convert "$model" --out "$WORK/warm" > /dev/null || exit 1
  for round in $(seq 1 "$RUNS"); do
    rm -rf "$WORK/a" "$WORK/b" "$WORK/copy"
    t0=$(now); "$FOLDKIT" convert "$model" --out "$WORK/a" > /dev/null; t1=$(now)
    FOLDKIT_HDF5_IN_PROCESS=1 "$FOLDKIT" convert "$model" --out "$WORK/b" > /dev/null; t2=$(now)
    cp "$model" "$WORK/copy" && sha256sum "$model" "$WORK"/a/*.bin > /dev/null; t3=$(now)
    printf "| %s | %s | %s | %.3f | %.3f | %.3f |\n" "$(basename "$model")" "$mb" "$round" \
      "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(echo "$t3 - $t2" | bc)"
  done
done
