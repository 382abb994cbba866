#!/usr/bin/env bash
# What reading an HDF5 model in the helper process costs `foldkit convert` (Docs/Performance.md, "HDF5
# helper"): convert with the helper (libhdf5 in the helper only, the model handed back), convert with
# FOLDKIT_HDF5_IN_PROCESS=1, and the convert baseline (cp of the model, then sha256sum of the model and the
# blobs, as Performance.md's), interleaved, RUNS rounds, each time in seconds; then per model the minimum
# and median of each column and of the helper's cost (helper - in process, round by round), and whether
# both ways wrote the same bytes.
#   FOLDKIT=.build/release/foldkit RUNS=5 bash Docs/bench/hdf5-helper.sh model.h5 [model2.keras ...]
# The 66 MB model of Performance.md: python3 Docs/bench/make_keras_64mb.py /tmp/keras64.h5
set -u
FOLDKIT=${FOLDKIT:-.build/release/foldkit}
RUNS=${RUNS:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hdf5-helper.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f / %.3f", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf "| model | MB | round | convert with helper s | convert in process s | cp + SHA-256 s |\n|---|---|---|---|---|---|\n"
: > "$WORK/summary"
for model in "$@"; do
  mb=$(( $(stat -c %s "$model") / 1000000 ))
  "$FOLDKIT" convert "$model" --out "$WORK/warm" > /dev/null || exit 1
  : > "$WORK/times"
  for round in $(seq 1 "$RUNS"); do
    rm -rf "$WORK/a" "$WORK/b" "$WORK/copy"
    t0=$(now); "$FOLDKIT" convert "$model" --out "$WORK/a" > /dev/null; t1=$(now)
    FOLDKIT_HDF5_IN_PROCESS=1 "$FOLDKIT" convert "$model" --out "$WORK/b" > /dev/null; t2=$(now)
    cp "$model" "$WORK/copy" && sha256sum "$model" "$WORK"/a/*.bin > /dev/null; t3=$(now)
    read -r h p c < <(echo "$t1 - $t0; $t2 - $t1; $t3 - $t2" | bc | tr '\n' ' ')
    echo "$h $p $c" >> "$WORK/times"
    printf "| %s | %s | %s | %.3f | %.3f | %.3f |\n" "$(basename "$model")" "$mb" "$round" "$h" "$p" "$c"
  done
  same=yes; diff -r "$WORK/a" "$WORK/b" > /dev/null || same=no
  printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$(basename "$model")" "$mb" \
    "$(awk '{ print $1 }' "$WORK/times" | stats)" "$(awk '{ print $2 }' "$WORK/times" | stats)" \
    "$(awk '{ print $1 - $2 }' "$WORK/times" | stats)" "$(awk '{ print $3 }' "$WORK/times" | stats)" "$same" >> "$WORK/summary"
done
printf "\nmin / median over %s rounds:\n\n" "$RUNS"
printf "| model | MB | with helper s | in process s | helper's cost s (per round) | cp + SHA-256 s | same blobs |\n|---|---|---|---|---|---|---|\n"
cat "$WORK/summary"
