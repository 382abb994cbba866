#!/usr/bin/env bash
# Mutation fuzzing of real model files with the `foldkit` binary (Fuzz/mutate.py; Docs/Security.md,
# "Mutation fuzzing of real files").
#
#   Fuzz/mutate.sh [runs, default 3000] [seed, default 1] [more Fuzz/mutate.py options]
#
# FOLDKIT names the binary (default .build/release/foldkit: `swift build -c release --product foldkit`).
# Seeds from ../shared/real-models are skipped with a note when that folder is absent. Runs one
# command at a time at low priority; findings, runs.jsonl and summary.md go to ../mutation-findings.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3000}
SEED=${2:-1}
shift 2 || shift $# || true
exec nice -n 10 python3 Fuzz/mutate.py --foldkit "${FOLDKIT:-.build/release/foldkit}" --runs "$RUNS" --seed "$SEED" "$@"
