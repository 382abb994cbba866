#!/usr/bin/env bash
# Builds `foldkit` in release and packs it as an artifact bundle (SE-0305) for FoldKitBinaryPlugin
# (Docs/Plugin.md, "The prebuilt foldkit"):
#
#   bash Scripts/make-artifactbundle.sh [OTHER.artifactbundle.zip ...]
#
# Run from the repository root (or anywhere: it changes there). It writes
# Plugins/FoldKitBinaryPlugin/foldkit.artifactbundle.zip (or $FOLDKIT_BUNDLE_OUT) holding
#   foldkit.artifactbundle/info.json                          schemaVersion 1.0, artifact `foldkit`, type executable
#   foldkit.artifactbundle/foldkit-TRIPLE/bin/foldkit         one variant per platform, TRIPLE as `swift` names it
# and prints the path and the checksum `swift package compute-checksum` gives (the one a release puts
# beside the bundle's URL in a `.binaryTarget(name:url:checksum:)`). The variant is the machine's own:
# x86_64-unknown-linux-gnu on this project's Linux machines, arm64-apple-macosx on Apple silicon. Variants
# of other platforms come from bundles made there, named as arguments: their variant folders are copied
# in and info.json lists all of them.
#
# On Linux the Swift runtime and Foundation are linked in (--static-swift-stdlib), so the binary needs no
# Swift toolchain, only the system libraries `.ci/install` installs (the script prints them, from ldd).
# macOS has the Swift runtime in the system; the bundle's binary needs Homebrew's hdf5, jpeg-turbo, libpng
# there, as the source build does (README, "Set up on macOS").
#
# Files are given a fixed date and zipped in a fixed order, so the same binary gives the same checksum.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${FOLDKIT_BUNDLE_OUT:-$root/Plugins/FoldKitBinaryPlugin/foldkit.artifactbundle.zip}
case $out in /*) ;; *) out=$root/$out ;; esac

others=()
for other in "$@"; do
  [ -f "$other" ] || { echo "make-artifactbundle.sh: no such bundle: $other" >&2; exit 64; }
  others+=("$(cd "$(dirname "$other")" && pwd)/$(basename "$other")")
done

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/FoldKitIO/Support/FoldKitVersion.swift)
[ -n "$version" ] || { echo "make-artifactbundle.sh: no version in Sources/FoldKitIO/Support/FoldKitVersion.swift" >&2; exit 1; }
triple=$(swift -print-target-info | sed -n 's/.*"unversionedTriple": *"\([^"]*\)".*/\1/p' | head -1)
[ -n "$triple" ] || { echo "make-artifactbundle.sh: swift -print-target-info names no target triple" >&2; exit 1; }

flags=(-c release --product foldkit)
case $(uname -s) in Linux) flags+=(--static-swift-stdlib) ;; esac
echo "building foldkit $version for $triple: swift build ${flags[*]}"
swift build "${flags[@]}"
binary=$(swift build "${flags[@]}" --show-bin-path)/foldkit

# The bundle, assembled afresh in .build/artifactbundle.
stage=$root/.build/artifactbundle
bundle=$stage/foldkit.artifactbundle
rm -rf "$stage"
mkdir -p "$bundle"
for other in ${others[@]+"${others[@]}"}; do
  unpacked=$stage/other
  rm -rf "$unpacked"
  mkdir -p "$unpacked"
  unzip -q "$other" -d "$unpacked"
  for variant in "$unpacked"/foldkit.artifactbundle/foldkit-*/; do
    name=$(basename "$variant")
    [ "$name" = "foldkit-$triple" ] && continue   # this machine's build replaces it
    cp -R "$variant" "$bundle/$name"
  done
  rm -rf "$unpacked"
done
mkdir -p "$bundle/foldkit-$triple/bin"
cp "$binary" "$bundle/foldkit-$triple/bin/foldkit"
# Debug information off (a release build has it), symbols kept for backtraces.
strip -S "$bundle/foldkit-$triple/bin/foldkit"

variants=""
for variant in "$bundle"/foldkit-*/; do
  name=$(basename "$variant")
  [ -x "$variant/bin/foldkit" ] || { echo "make-artifactbundle.sh: $name has no bin/foldkit" >&2; exit 1; }
  [ -z "$variants" ] || variants+=","
  variants+=$'\n'"        { \"path\": \"$name/bin/foldkit\", \"supportedTriples\": [\"${name#foldkit-}\"] }"
done
cat >"$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "foldkit": {
      "version": "$version",
      "type": "executable",
      "variants": [$variants
      ]
    }
  }
}
JSON

find "$bundle" -exec touch -h -t 200001010000 {} +
mkdir -p "$(dirname "$out")"
rm -f "$out"
(cd "$stage" && find foldkit.artifactbundle | LC_ALL=C sort | zip -q -X -y "$out" -@)

echo
echo "variant $triple: $("$bundle/foldkit-$triple/bin/foldkit" --version), $(wc -c <"$bundle/foldkit-$triple/bin/foldkit") bytes"
if command -v ldd >/dev/null; then
  # The libraries the binary names itself (ELF NEEDED); ldd adds what those load in turn.
  echo "shared libraries it links: $(objdump -p "$bundle/foldkit-$triple/bin/foldkit" | awk '/NEEDED/ {print $2}' | tr '\n' ' ')"
  missing=$(ldd "$bundle/foldkit-$triple/bin/foldkit" | grep 'not found' || true)
  [ -z "$missing" ] || { echo "make-artifactbundle.sh: libraries not found on this machine:"$'\n'"$missing" >&2; exit 1; }
  echo "with what they load, $(ldd "$bundle/foldkit-$triple/bin/foldkit" | grep -c '=>') libraries, all found (ldd)"
fi
echo
echo "wrote $out"
echo "checksum $(swift package compute-checksum "$out")"
