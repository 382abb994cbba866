#!/usr/bin/env bash
# Builds (Fuzz/build.sh) and runs every libFuzzer target for a bounded time, seeded from Fixtures/.
#
#   Fuzz/run.sh [seconds per target, default 60] [target ...]
#
# Corpora grow in .build-fuzz/corpus/<target> (kept between runs, never committed); crashes land
# in .build-fuzz/findings/<target>. A finding becomes a fix plus a regression input in
# Fixtures/malformed/fuzz/ (Tests/FoldKitTests/Support/FuzzRegressionTests.swift). Each target's
# last stats line (executions, coverage, corpus size) is printed at the end. Docs/Security.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(FuzzCfgParser FuzzDarknetWeights FuzzNPYReader FuzzKerasConfig FuzzKerasArchive FuzzHDF5File FuzzKerasArchiveWeights)
[ "${SKIP_BUILD:-0}" = 1 ] || Fuzz/build.sh
SCRATCH=.build-fuzz
# Swift's own crash backtracer reads arbitrary memory, which AddressSanitizer reports instead of the
# trap that started it; Fuzz/lsan.supp holds two leaks in dependencies (ZIPFoundation, Foundation).
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"

seed() {  # target, corpus folder: copies the Fixtures/ files the target reads
    local target=$1 corpus=$2
    case $target in
        FuzzCfgParser) cp Fixtures/darknet/cfg/*.cfg "$corpus"/ ;;
        FuzzDarknetWeights) head -c 4096 /dev/zero > "$corpus/zeros"
            # A valid file for the target's .cfg, from a built `foldkit` (swift build) when there is one.
            if [ -x .build/debug/foldkit ]; then
                .build/debug/foldkit seed-weights Fixtures/darknet/cfg/conv-basic.cfg --out "$corpus/seeded.weights" > /dev/null
            fi ;;
        FuzzNPYReader) find Fixtures -name '*.npy' -size -64k -exec cp {} "$corpus"/ \; ;;
        FuzzKerasConfig) find Fixtures/keras -name '*.json' -size -256k -exec cp {} "$corpus"/ \; ;;
        FuzzKerasArchive) find Fixtures/keras -name '*.keras' -size -256k -exec cp {} "$corpus"/ \; ;;
        FuzzHDF5File) find Fixtures/keras Fixtures/malformed/keras -name '*.h5' -size -256k -exec cp {} "$corpus"/ \; ;;
        FuzzKerasArchiveWeights) unzip -p Fixtures/keras/merges.keras model.weights.h5 > "$corpus/merges.weights.h5" ;;
    esac
    if [ -d Fixtures/malformed/fuzz/$target ]; then cp Fixtures/malformed/fuzz/$target/* "$corpus"/; fi
}

for target in "${TARGETS[@]}"; do
    corpus=$SCRATCH/corpus/$target findings=$SCRATCH/findings/$target
    mkdir -p "$corpus" "$findings"
    [ -n "$(ls -A "$corpus")" ] || seed "$target" "$corpus"
    echo "== $target: $SECONDS_PER_TARGET s, corpus $(ls "$corpus" | wc -l) files"
    status=0
    # libhdf5 asks malloc for whatever size a damaged header states (2^60 bytes) and reports the NULL it
    # gets as an error; under the fuzzer that request must fail as it does in a real process, not count as
    # a finding. Memory actually used is still bounded by -rss_limit_mb.
    malloc_limit=1024
    [ "$target" = FuzzHDF5File ] || [ "$target" = FuzzKerasArchiveWeights ] && malloc_limit=0
    ASAN_OPTIONS="allocator_may_return_null=1:${ASAN_OPTIONS:-}" \
    "$SCRATCH/fuzzers/$target" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -rss_limit_mb=2048 \
        -malloc_limit_mb="$malloc_limit" -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 \
        > "$SCRATCH/$target.log" 2>&1 || status=$?
    grep -E "^stat::number_of_executed_units|^stat::new_units_added|#[0-9]+.*(DONE|pulse)" "$SCRATCH/$target.log" | tail -3
    echo "   corpus now $(ls "$corpus" | wc -l) files; findings $(ls "$findings" | wc -l); exit $status"
done
