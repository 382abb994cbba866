#!/bin/sh
# Regenerates Sources/FoldKitONNXProto/ONNXModel.pb.swift from onnx-model.proto (onnx's ModelProto and the
# messages it is made of, trimmed; see the comment at its top). Run from anywhere; needs protoc and
# protoc-gen-swift.
#
# The committed file was generated with:
#   protoc 3.21.12 (Debian bookworm: apt-get install -y protobuf-compiler; `protoc --version` prints
#     "libprotoc 3.21.12")
#   protoc-gen-swift 1.39.0, built from apple/swift-protobuf at tag 1.39.0 (the version Package.swift
#     depends on; generated code and the SwiftProtobuf library must come from the same release):
#     git clone https://github.com/apple/swift-protobuf && git -C swift-protobuf checkout 1.39.0
#     (cd swift-protobuf && swift build -c release --product protoc-gen-swift)
#   and then:
#     PROTOC_GEN_SWIFT=swift-protobuf/.build/release/protoc-gen-swift Fixtures/onnx/generate-swift.sh
#
# Options: Visibility=Public (FoldKitONNXProto is a module of its own, whose users are other targets);
# FileNaming=DropPath. protoc-gen-swift puts `// swift-format-ignore-file` at the top itself, so the
# formatter and linter leave the generated code as it is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
plugin=${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}
if [ -z "$plugin" ] || [ ! -x "$plugin" ]; then
    echo "generate-swift.sh: set PROTOC_GEN_SWIFT to a protoc-gen-swift 1.39.0 binary (see the comment at the top)" >&2
    exit 1
fi
version=$("$plugin" --version)
case "$version" in
*1.39.0*) ;;
*) echo "generate-swift.sh: protoc-gen-swift reports '$version', expected 1.39.0" >&2; exit 1 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
protoc --plugin=protoc-gen-swift="$plugin" --proto_path="$here" \
    --swift_opt=Visibility=Public --swift_opt=FileNaming=DropPath --swift_out="$work" onnx-model.proto
out="$root/Sources/FoldKitONNXProto/ONNXModel.pb.swift"
mkdir -p "$(dirname "$out")"
{
    echo "// Made by Fixtures/onnx/generate-swift.sh ($(protoc --version), $version) from"
    echo "// Fixtures/onnx/onnx-model.proto."
    cat "$work/onnx-model.pb.swift"
} >"$out"
echo "wrote $out"
