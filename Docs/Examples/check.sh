#!/usr/bin/env bash
# Checks that the example package Docs/Examples/YoloFastest, once built, stays built (Docs/Plugin.md,
# "Rebuilds"). The example uses FoldKitBinaryPlugin, whose prebuilt `foldkit` comes from
# Plugins/FoldKitBinaryPlugin/foldkit.artifactbundle.zip: make it first with Scripts/make-artifactbundle.sh.
#   1. `swift build` (whatever state .build is in) puts yolo-fastest-1.1.blobs/ (manifest.json + every blob
#      it lists) into the target's resource bundle, the example reads it back from Bundle.module and prints
#      the boxes of dog.jpg, no file of the FoldKit checkout gets a compiler warning, and nothing of the
#      converter is compiled (the command line, readers, writers, verifier, swift-protobuf, argument-parser,
#      ZIPFoundation): the plugin's tool is the prebuilt one, the app links FoldKitLoader and FoldKitCPUEngine;
#   2. `swift build` with nothing changed runs no compile, link or wrap step and no conversion, and leaves
#      the bundle's manifest.json alone;
#   3. touching the .weights file (content unchanged, newer time) runs the conversion again, copies the new
#      folder into the bundle, and compiles and links nothing but (at most) the example's own target.
# SwiftPM 6.3 plans the build again on the first rebuild after a fresh .build (it always does, with or
# without plugins); with the prebuilt tool that planning builds nothing (Docs/Plugin.md explains why the
# source-built plugin's does). When build 1 started from a fresh .build, rule 2 is checked on builds 2 and
# 3 (build 2 may plan again, build 3 may not); otherwise on build 2. Steps are read from SwiftPM's
# "[i/n] ..." lines. Prints the seconds each build took. Exit 0 when all hold, 1 with the failing check
# otherwise.
#
# Usage: bash Docs/Examples/check.sh [--copy DIR] [swift build arguments, e.g. -c release]
#   --copy DIR  check a copy of the example in DIR instead of the example in this checkout: DIR is made
#               from Docs/Examples/YoloFastest when it holds no Package.swift, and either way its FoldKit
#               and FoldKitBinaryPlugin dependencies are pointed at this checkout (or at $FOLDKIT_ROOT when
#               set). DIR must be on a file system that may run programs (not a noexec /tmp).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
foldkit=$(cd "${FOLDKIT_ROOT:-$here/../..}" && pwd)
package=$here/YoloFastest
if [ "${1:-}" = "--copy" ]; then
  [ -n "${2:-}" ] || { echo "check.sh: --copy needs a directory" >&2; exit 1; }
  package=$2
  shift 2
  if [ ! -f "$package/Package.swift" ]; then
    mkdir -p "$package"
    cp -R "$here/YoloFastest/." "$package/"
    rm -rf "$package/.build"
  fi
  package=$(cd "$package" && pwd)
  # The example names its dependencies `.package(name: "FoldKit", path: "...")` and
  # `.package(name: "FoldKitBinaryPlugin", path: "...")`; point them here.
  sed -i.orig -E -e 's|(\.package\(name: "FoldKit", path: )"[^"]*"|\1"'"$foldkit"'"|' \
    -e 's|(\.package\(name: "FoldKitBinaryPlugin", path: )"[^"]*"|\1"'"$foldkit/Plugins/FoldKitBinaryPlugin"'"|' "$package/Package.swift"
  rm -f "$package/Package.swift.orig"
  grep -q "path: \"$foldkit\"" "$package/Package.swift" && grep -q "path: \"$foldkit/Plugins/FoldKitBinaryPlugin\"" "$package/Package.swift" || {
    echo "check.sh: FAIL: could not point $package/Package.swift at $foldkit" >&2
    exit 1
  }
fi
[ -f "$foldkit/Plugins/FoldKitBinaryPlugin/foldkit.artifactbundle.zip" ] || {
  echo "check.sh: FAIL: no $foldkit/Plugins/FoldKitBinaryPlugin/foldkit.artifactbundle.zip: run bash Scripts/make-artifactbundle.sh in $foldkit first" >&2
  exit 1
}
cd "$package"
args=("$@")
echo "package $package, FoldKit $foldkit"
model=Sources/YoloFastestExample/Model/yolo-fastest-1.1
log=$(mktemp)
marker=$(mktemp)
trap 'rm -f "$log" "$marker"' EXIT

fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }

# Runs `swift build "$@"`, keeping its output in $log; prints how long it took and what it ran.
build() {
  local start end
  start=$(date +%s)
  if ! swift build "$@" >"$log" 2>&1; then cat "$log" >&2; fail "swift build $* failed"; fi
  end=$(date +%s)
  echo "  took $((end - start)) s; $(summary)"
}

# The build steps of the last build, one per line: SwiftPM's "[i/n] Compiling M f.swift", "[i/n] Linking P",
# ... without the plugin-script lines ("Compiling plugin P", printed on every build even when the plugin is
# cached) and the auxiliary files SwiftPM writes only when their contents change ("Write ...").
steps() { grep -E '^\[[0-9]+/[0-9]+\] ' "$log" | sed -E 's/^\[[0-9]+\/[0-9]+\] //' | grep -vE '^(Compiling plugin |Write )' || true; }
# Compile, link and debug-wrap steps (C and Swift).
compiles() { steps | grep -E '^(Compiling|Emitting module|Linking|Wrapping AST|Archiving|Merging module) ' || true; }
converts() { steps | grep -E '^foldkit convert ' || true; }
planned() { grep -qE '(^|\] )Planning build' "$log"; }
summary() {
  local c v
  c=$(compiles | grep -c . || true)
  v=$(converts | grep -c . || true)
  echo "$c compile/link steps, $v conversions$(planned && echo ", planned again" || true)"
}

# Fresh: no llbuild manifest yet for this configuration (SwiftPM then plans without recording it, and plans again
# on the next build).
config=debug
case " $* " in *" -c release "* | *" --configuration release "* | *" -crelease "*) config=release ;; esac
fresh=no
[ -f ".build/$config.yaml" ] || fresh=yes
echo "build 1 (fresh .build: $fresh)"
build "$@"
# Nothing of the converter: the command line (the plugin's foldkit is prebuilt), the readers, the writers, the
# verifier, the library that re-exports them, and the packages only they use. The app links FoldKitLoader and
# FoldKitCPUEngine (the executor, the network rebuilt from the blob folder, image decoding).
converter='FoldKitCLI|foldkit|ArgumentParser|ArgumentParserToolInfo|FoldKit|FoldKitIO|FoldKitVerify|FoldKitDarknet|FoldKitKeras|CHDF5'
converter+='|FoldKitONNX|FoldKitONNXProto|FoldKitNCNN|FoldKitTFLite|SwiftProtobuf|ZIPFoundation|Crypto|CCryptoBoringSSL.*'
cli=$(compiles | grep -E "^(Compiling|Emitting module|Linking|Wrapping AST|Merging module|Archiving) ($converter)( |\$)" || true)
[ -z "$cli" ] || fail "the build compiled part of the converter, which an app does not link:"$'\n'"$(echo "$cli" | head -5)"
# Warnings in FoldKit's own files (a dependency's, such as ZIPFoundation's unhandled-file note, are theirs).
warnings=$(grep -E "^$foldkit/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
[ -z "$warnings" ] || fail "FoldKit's own code has compiler warnings in the example's build:"$'\n'"$warnings"
bin=$(swift build "$@" --show-bin-path)
bundle=$(ls -d "$bin"/*_YoloFastestExample.resources 2>/dev/null | head -1)
[ -n "$bundle" ] || fail "no *_YoloFastestExample.resources bundle in $bin"
blobs="$bundle/yolo-fastest-1.1.blobs"
[ -f "$blobs/manifest.json" ] || fail "$blobs/manifest.json missing"
# Every file the manifest lists is in the bundle.
files=$(grep -o '"file" *: *"[^"]*"' "$blobs/manifest.json" | sed 's/.*"\([^"]*\)"$/\1/')
[ -n "$files" ] || fail "manifest.json lists no blob files"
for f in $files; do [ -f "$blobs/$f" ] || fail "$blobs/$f listed in manifest.json but missing"; done
echo "  $(echo "$files" | wc -l) blobs + manifest.json in $blobs"
"$bin/YoloFastestExample" >"$log" 2>&1 || { cat "$log" >&2; fail "the example could not read its blobs"; }
grep -q " boxes in dog.jpg" "$log" || { cat "$log" >&2; fail "the example printed no boxes of dog.jpg"; }
sed -n '/ boxes in dog.jpg/,$p' "$log"

# Builds with nothing changed: no compile, link or conversion, manifest.json left alone. After a fresh
# .build the first of them may be planned again (SwiftPM's, Docs/Plugin.md; it then copies the unchanged
# blob folder into the bundle again), the second may not.
nothing_changed() {
  touch "$marker"
  sleep 1
  echo "build $1 (nothing changed$([ "$2" = may-plan ] && echo "; SwiftPM plans again after a fresh .build"))"
  build ${args[@]+"${args[@]}"}
  if [ "$2" != may-plan ]; then planned && fail "SwiftPM planned the build again although nothing changed"; fi
  ran=$(compiles)
  [ -z "$ran" ] || fail "a build with nothing changed compiled or linked:"$'\n'"$ran"
  [ -z "$(converts)" ] || fail "a build with nothing changed ran foldkit convert again"
  if [ -n "$(find "$blobs/manifest.json" -newer "$marker")" ]; then
    # A planned build copies the generated folder into the bundle again (SwiftPM's resource copy, not a
    # conversion: the plugin's output is unchanged); a build that is not planned must leave it alone.
    [ "$2" = may-plan ] && planned || fail "manifest.json was rewritten by a build with nothing changed"
    echo "  no compile, link or conversion; the planned build copied the unchanged blob folder into the bundle again"
  else
    echo "  no compile, link or conversion; manifest.json untouched"
  fi
}
if [ "$fresh" = yes ]; then
  nothing_changed 2 may-plan
  nothing_changed 3 no-plan
  next=4
else
  nothing_changed 2 no-plan
  next=3
fi

echo "build $next (touched $model.weights)"
touch "$model.weights"
build "$@"
[ -n "$(converts)" ] || fail "touching the weights did not run foldkit convert"
[ -n "$(find "$blobs/manifest.json" -newer "$marker")" ] || fail "manifest.json in the bundle was not regenerated after touching the weights"
# Only the example's own target may be compiled or linked again (its resources changed).
ran=$(compiles | grep -vE '^(Compiling|Emitting module|Linking|Wrapping AST|Merging module) YoloFastestExample( |$)' || true)
[ -z "$ran" ] || fail "touching the weights compiled or linked more than the example's own target:"$'\n'"$ran"
echo "  converted again, manifest.json in the bundle regenerated, nothing of FoldKit compiled or linked"
echo "check.sh: all checks passed"
