#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets (Docs/Security.md, "Fuzzing and sanitizers").
#
# The readers' targets (FoldKitCore, FoldKitDarknet, FoldKitKeras and ZIPFoundation) are compiled by
# SwiftPM with coverage instrumentation and AddressSanitizer into .build-fuzz; each fuzz target is
# then compiled with `swiftc -sanitize=fuzzer,address` and linked against those objects. The .npy
# reader lives in the FoldKit target, which pulls in BLAS, crypto and image libraries: its two files
# (Sources/FoldKitIO/Export/NPYFile.swift, NPYHeader.swift) are compiled into its fuzz target instead.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT_BIN=${SWIFT_BIN:-/opt/swift/usr/bin}
export PATH="$SWIFT_BIN:$PATH"
SCRATCH=.build-fuzz
OUT=$SCRATCH/fuzzers
mkdir -p "$OUT"

FLAGS=(-Xswiftc -sanitize=fuzzer,address --scratch-path "$SCRATCH")
swift build --target FoldKitDarknet "${FLAGS[@]}"
swift build --target FoldKitKeras "${FLAGS[@]}"

BIN=$(swift build "${FLAGS[@]}" --show-bin-path)
HDF5_CFLAGS=$(pkg-config --cflags hdf5)
HDF5_LIBS=$(pkg-config --libs hdf5)
objects() { for target in "$@"; do ls "$BIN/$target.build/"*.o; done; }
SWIFTC=(swiftc -O -g -parse-as-library -sanitize=fuzzer,address -I "$BIN/Modules" -I Sources/CHDF5
        -I "$SCRATCH/checkouts/ZIPFoundation/Sources/CZLib")
for flag in $HDF5_CFLAGS; do SWIFTC+=(-Xcc "$flag"); done

build_target() {  # name, extra sources..., -- objects' targets...
    local name=$1; shift
    local sources=()
    while [ "$1" != "--" ]; do sources+=("$1"); shift; done; shift
    echo "fuzz target $name"
    # shellcheck disable=SC2046
    # ld.gold warns once per ASan helper symbol ("Cannot export local symbol"): not ours, not useful.
    "${SWIFTC[@]}" -module-name "$name" "${sources[@]}" $(objects "$@") $HDF5_LIBS -lz -o "$OUT/$name" 2>&1 |
        { grep -v "Cannot export local symbol" || true; }
    [ -x "$OUT/$name" ]
}

build_target FuzzCfgParser Fuzz/Targets/FuzzCfgParser.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitDarknet
build_target FuzzDarknetWeights Fuzz/Targets/FuzzDarknetWeights.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitDarknet
build_target FuzzKerasConfig Fuzz/Targets/FuzzKerasConfig.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitKeras ZIPFoundation
build_target FuzzKerasArchive Fuzz/Targets/FuzzKerasArchive.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitKeras ZIPFoundation
build_target FuzzHDF5File Fuzz/Targets/FuzzHDF5File.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitKeras ZIPFoundation
build_target FuzzKerasArchiveWeights Fuzz/Targets/FuzzKerasArchiveWeights.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection FoldKitKeras ZIPFoundation
# The .npy reader's two files (the file and its header parser), which import what they need.
build_target FuzzNPYReader Fuzz/Targets/FuzzNPYReader.swift Sources/FoldKitIO/Export/NPYFile.swift Sources/FoldKitIO/Export/NPYHeader.swift -- FoldKitBlobFormat FoldKitCore FoldKitDetection
