#!/usr/bin/env bash
# Replays libFuzzer inputs of FuzzHDF5File (crash-*, oom-*, timeout-*, leak-* files: raw HDF5 bytes that
# made libhdf5 fail inside the fuzz process) through the real `foldkit convert`, as a user would meet
# them: each is copied to a .h5 name and converted. Prints one row per input: exit code (or the signal),
# seconds, peak RSS of the command and its helper process, the first line of the message. The contract:
# exit 1 (or 0), never a signal, under 20 s and 1 GiB, nothing written (Docs/Security.md, "Crash inputs
# replayed through the command").
#   FOLDKIT=.build/release/foldkit bash Fuzz/replay-through-cli.sh DIR...
set -u
FOLDKIT=${FOLDKIT:-.build/release/foldkit}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/replay.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
printf "| input | exit | seconds | peak RSS MiB | message |\n|---|---|---|---|---|\n"
bad=0; total=0
for dir in "$@"; do
  for input in "$dir"/crash-* "$dir"/oom-* "$dir"/timeout-* "$dir"/leak-*; do
    [ -f "$input" ] || continue
    total=$((total + 1))
    cp "$input" "$WORK/model.h5"
    rm -rf "$WORK/out"
    /usr/bin/time -f "%e %M" -o "$WORK/time" timeout -s KILL 60 "$FOLDKIT" convert "$WORK/model.h5" --out "$WORK/out" > /dev/null 2> "$WORK/err"
    code=$?
    read -r seconds kib < <(tail -n 1 "$WORK/time") || { seconds=0; kib=0; }
    [ "$code" -gt 128 ] && code="signal $((code - 128))"
    message=$(grep -m1 "error" "$WORK/err" | cut -c1-140 | tr '|' ' ')
    leftover=""; [ -e "$WORK/out" ] && leftover=" (output left behind)"
    echo "| $(basename "$input" | cut -c1-20) | $code | $seconds | $((kib / 1024)) | $message$leftover |"
    case "$code" in 0|1) ;; *) bad=$((bad + 1)) ;; esac
    [ -n "$leftover" ] && bad=$((bad + 1))
    awk -v s="$seconds" -v k="$kib" 'BEGIN { exit !(s > 20 || k > 1048576) }' && bad=$((bad + 1))
  done
done
echo
echo "inputs: $total, outside the contract: $bad"
