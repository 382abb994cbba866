import FoldKitBlobFormat
import FoldKitBlobNetwork
import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// The streaming conversion (read a layer, fold and rearrange in place, write and hash on a second
/// thread, checksum the weights from the same reads) must write exactly what the plain in-memory path
/// writes: `FoldBatchNorm.apply` on the materialised network, then `WeightLayoutTransform.fromOIHW`.
final class StreamingConvertTests: XCTestCase {
    private static let cfgs = [
        "conv-basic.cfg", "connected.cfg", "maxpool-spp.cfg", "route-reorg.cfg", "shortcut-upsample.cfg",
        "yolo-head.cfg", "region-head.cfg", "attention.cfg", "darknet-only.cfg",
    ]

    func testStreamedBlobsEqualInMemoryFoldForEveryLayout() throws {
        let dir = try TestData.temporaryDirectory()
        for name in Self.cfgs {
            let cfg = TestData.fixture("darknet/cfg/\(name)").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 7, to: weights)
            let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
            let reference = try FoldBatchNorm.apply(to: network)
            for layout in WeightLayout.allCases {
                let out = dir.appendingPathComponent("\(name)-\(layout.rawValue)")
                let manifest = try BlobWriter.write(network: network, to: out, options: .init(layout: layout))
                var expectedFiles: [String] = []
                for layer in reference.layers {
                    let expected: [(String, [Float])]
                    switch layer.kind {
                    case .convolution(let c):
                        let dims = [c.outputChannels, c.inputChannels / c.groups, c.kernelHeight, c.kernelWidth]
                        let depthwise = WeightLayoutTransform.isDepthwise(groups: c.groups, dims: dims)
                        expected = [
                            (
                                "conv\(layer.index)_W.bin",
                                try WeightLayoutTransform.fromOIHW(try c.weights.floats(), dims: dims, to: layout, depthwise: depthwise)
                            ),
                            ("conv\(layer.index)_b.bin", try c.bias?.floats() ?? [Float](repeating: 0, count: c.outputChannels)),
                        ]
                    case .fullyConnected(let f):
                        let input = reference.shape(of: layer.inputs.first ?? Network.inputIndex)
                        let spatial = input.count == f.inputCount ? input : .vector(f.inputCount)
                        let dims = [f.outputCount, spatial.channels, spatial.height, spatial.width]
                        expected = [
                            ("fc\(layer.index)_W.bin", try WeightLayoutTransform.fromOIHW(try f.weights.floats(), dims: dims, to: layout)),
                            ("fc\(layer.index)_b.bin", try f.bias?.floats() ?? [Float](repeating: 0, count: f.outputCount)),
                        ]
                    case .channelAffine(let a):
                        expected = [
                            ("affine\(layer.index)_scale.bin", try a.scale.floats()), ("affine\(layer.index)_shift.bin", try a.shift.floats()),
                        ]
                    default:
                        expected = []
                    }
                    for (file, values) in expected {
                        expectedFiles.append(file)
                        let written = try Data(contentsOf: out.appendingPathComponent(file))
                        let want = values.withUnsafeBufferPointer { Data(buffer: $0) }
                        XCTAssertEqual(written, want, "\(name) \(layout.rawValue) \(file)")
                    }
                }
                XCTAssertEqual(manifest.tensors.map(\.file), expectedFiles, "\(name) \(layout.rawValue)")
                for tensor in manifest.tensors {
                    let path = out.appendingPathComponent(tensor.file).path
                    XCTAssertEqual(try Checksum.sha256Hex(fileAt: path), tensor.sha256, "\(name) \(tensor.file)")
                }
            }
        }
    }

    /// Weights go in chunks of whole output rows; whatever the chunk size (one row per chunk, a few rows,
    /// a whole tensor), the blobs and the manifest (digests included) are the same, and every digest is
    /// the file's.
    func testChunkSizeDoesNotChangeTheOutput() throws {
        let dir = try TestData.temporaryDirectory()
        for name in ["conv-basic.cfg", "connected.cfg", "yolo-head.cfg"] {
            let cfg = TestData.fixture("darknet/cfg/\(name)").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 11, to: weights)
            let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
            for layout in WeightLayout.allCases {
                let whole = dir.appendingPathComponent("\(name)-\(layout.rawValue)-whole")
                let reference = try BlobWriter.write(network: network, to: whole, options: .init(layout: layout, chunkBytes: 1 << 30))
                for chunkBytes in [1, 100, 4096] {
                    let out = dir.appendingPathComponent("\(name)-\(layout.rawValue)-\(chunkBytes)")
                    let manifest = try BlobWriter.write(network: network, to: out, options: .init(layout: layout, chunkBytes: chunkBytes))
                    XCTAssertEqual(manifest, reference, "\(name) \(layout.rawValue) chunks of \(chunkBytes) bytes")
                    for tensor in manifest.tensors {
                        let written = try Data(contentsOf: out.appendingPathComponent(tensor.file))
                        XCTAssertEqual(written, try Data(contentsOf: whole.appendingPathComponent(tensor.file)), "\(name) \(tensor.file)")
                        XCTAssertEqual(Checksum.sha256Hex(written), tensor.sha256, "\(name) \(tensor.file)")
                    }
                }
            }
        }
    }

    /// The source digests come from the conversion's own reads; they must equal an independent tool's
    /// digest of the whole file, also when tensors are read out of file order ([connected] keeps its
    /// batch norm after the weights) or when a layer's tensors leave gaps (the header).
    func testSourceDigestsMatchSha256sum() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { throw XCTSkip("sha256sum not installed") }
        let dir = try TestData.temporaryDirectory()
        for name in ["connected.cfg", "yolo-head.cfg"] {
            let cfg = TestData.fixture("darknet/cfg/\(name)").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 3, to: weights)
            let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
            let manifest = try BlobWriter.write(network: network, to: dir.appendingPathComponent("\(name)-out"))
            for file in [cfg, weights] {
                XCTAssertEqual(manifest.source.sha256[URL(fileURLWithPath: file).lastPathComponent], try sha256sum(file), "\(name) \(file)")
            }
        }
    }

    /// A hand-made network whose tensors point into a file backwards and with holes.
    func testSourceDigestWithReversedAndSparseSpans() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { throw XCTSkip("sha256sum not installed") }
        let dir = try TestData.temporaryDirectory()
        let file = dir.appendingPathComponent("blob.bin")
        let values = (0..<400).map { Float($0) * 0.25 - 7 }
        try values.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: file)
        // weights at floats 300..<354 (2x3x3x3), bias at 10..<12: read weights after bias but far apart.
        let conv = Convolution(
            inputChannels: 3, outputChannels: 2, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [2, 3, 3, 3], span: FileSpan(path: file.path, byteOffset: 1200, count: 54)),
            bias: WeightTensor(shape: [2], span: FileSpan(path: file.path, byteOffset: 40, count: 2)),
            batchNorm: nil, activation: .linear)
        let conv2 = Convolution(
            inputChannels: 2, outputChannels: 1, kernelHeight: 1, kernelWidth: 1, padding: .uniform(0),
            weights: WeightTensor(shape: [1, 2, 1, 1], span: FileSpan(path: file.path, byteOffset: 8, count: 2)),
            bias: WeightTensor(shape: [1], span: FileSpan(path: file.path, byteOffset: 0, count: 1)),
            batchNorm: nil, activation: .linear)
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 3, height: 4, width: 4))
        let source = LayerSource(file: file.path, section: "[convolutional]", weightsByteRange: 0..<1600)
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: source)
        try builder.append(kind: .convolution(conv2), inputs: [0], source: source)
        let network = Network(
            format: .darknet, sourceFiles: [file.path], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
        let out = dir.appendingPathComponent("out")
        let manifest = try BlobWriter.write(network: network, to: out, options: .init(layout: .oihw))
        XCTAssertEqual(manifest.source.sha256["blob.bin"], try sha256sum(file.path))
        let w = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv1_W.bin")))
        XCTAssertEqual(w, [values[2], values[3]])
        let b = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv0_b.bin")))
        XCTAssertEqual(b, [values[10], values[11]])
    }

    private func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }
}
