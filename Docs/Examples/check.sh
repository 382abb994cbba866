#!/usr/bin/env bash
# Checks that FoldKitPlugin regenerates blobs exactly when it should (Docs/Plugin.md), on the example
# package Docs/Examples/YoloFastest:
#   1. `swift build` puts yolo-fastest-1.1.blobs/ (manifest.json + every blob it lists) into the
#      target's resource bundle, and the example reads it back from Bundle.module;
#   2. a second build with nothing changed does not run the conversion again;
#   3. touching the .weights file (content unchanged, newer time) runs it again.
# Prints the seconds each build took. Exit 0 when all hold, 1 with the failing check otherwise.
# Usage: bash Docs/Examples/check.sh [extra swift build arguments, e.g. -c release]
set -euo pipefail
cd "$(dirname "$0")/YoloFastest"
model=Sources/YoloFastestExample/Model/yolo-fastest-1.1
log=$(mktemp)
marker=$(mktemp)
trap 'rm -f "$log" "$marker"' EXIT

fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }

# Runs `swift build "$@"`, keeping its output in $log; prints how long it took.
build() {
  local start end
  start=$(date +%s)
  if ! swift build "$@" >"$log" 2>&1; then cat "$log" >&2; fail "swift build $* failed"; fi
  end=$(date +%s)
  echo "  took $((end - start)) s"
}

converted() { grep -q "foldkit convert yolo-fastest-1.1.cfg yolo-fastest-1.1.weights" "$log"; }

echo "build 1 (whatever state .build is in)"
build "$@"
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
tail -1 "$log"

touch "$marker"
sleep 1
echo "build 2 (nothing changed)"
build "$@"
converted && fail "the second build ran foldkit convert again although nothing changed"
[ -z "$(find "$blobs/manifest.json" -newer "$marker")" ] || fail "manifest.json was rewritten by a build with nothing changed"
echo "  no conversion, manifest.json untouched"

echo "build 3 (touched $model.weights)"
touch "$model.weights"
build "$@"
converted || fail "touching the weights did not run foldkit convert"
[ -n "$(find "$blobs/manifest.json" -newer "$marker")" ] || fail "manifest.json in the bundle was not regenerated after touching the weights"
echo "  converted again, manifest.json in the bundle regenerated"
echo "check.sh: all checks passed"
