#!/usr/bin/env bash
# Builds and runs the whole test suite under a sanitizer (Docs/Security.md, "Fuzzing and sanitizers").
#
#   Fuzz/sanitizers.sh address     # AddressSanitizer + LeakSanitizer, scratch .build-asan
#   Fuzz/sanitizers.sh undefined   # UndefinedBehaviorSanitizer (C code), scratch .build-ubsan
#   Fuzz/sanitizers.sh address --filter 'OutputSafetyTests'   # extra arguments go to swift test
#
# Child `foldkit` processes started by the CLI tests inherit the same options. Fuzz/lsan.supp
# suppresses one leak in the ZIPFoundation dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${SWIFT_BIN:-/opt/swift/usr/bin}:$PATH"
KIND=${1:-address}
shift || true
# swiftc has no -sanitize=undefined on Linux (`swift build --sanitize=undefined` fails: "unsupported
# option"); Swift code traps on overflow and out-of-bounds access by itself in debug builds. So the
# undefined run compiles the C code of the package (our C targets: CCPUFeatures, CVectorMath, CWinograd,
# CDeviationScan, CEarlySignals) with clang's -fsanitize=undefined, aborting on the first report.
case $KIND in
    address) SCRATCH=.build-asan; BUILD_FLAGS=(--sanitize=address); TEST_FLAGS=(--sanitize=address) ;;
    undefined) SCRATCH=.build-ubsan; TEST_FLAGS=()
        BUILD_FLAGS=(-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
                     -Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined) ;;
    *) echo "usage: $0 address|undefined [swift test arguments]" >&2; exit 64 ;;
esac
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
[ "${SKIP_BUILD:-0}" = 1 ] || swift build --build-tests "${BUILD_FLAGS[@]}" --scratch-path "$SCRATCH"
swift test --skip-build ${TEST_FLAGS[@]+"${TEST_FLAGS[@]}"} --scratch-path "$SCRATCH" "$@"
