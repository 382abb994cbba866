import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

final class BlobWriterTests: XCTestCase {
    /// conv(3->4, 3x3, BN) -> maxpool -> connected(4*2*2 -> 5)
    private func smallNetwork(sourceFile: String) throws -> Network {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 3, height: 4, width: 4))
        let weights: [Float] = (0..<108).map { (i: Int) -> Float in Float(i % 7) * 0.1 - 0.3 }
        let bn = BatchNorm(
            gamma: WeightTensor(shape: [4], values: [1, 2, 0.5, 1.5]), beta: WeightTensor(shape: [4], values: [0, 0.1, 0.2, 0.3]),
            mean: WeightTensor(shape: [4], values: [0.1, 0.2, 0.3, 0.4]), variance: WeightTensor(shape: [4], values: [1, 2, 3, 4]),
            convention: .darknet)
        let conv = Convolution(
            inputChannels: 3, outputChannels: 4, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [4, 3, 3, 3], values: weights), bias: nil, batchNorm: bn, activation: .leaky(slope: 0.1))
        let source = LayerSource(file: sourceFile, section: "[convolutional]", line: 1)
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: source)
        try builder.append(kind: .pooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [0], source: source)
        let fc = FullyConnected(
            inputCount: 16, outputCount: 5, weights: WeightTensor(shape: [5, 16], values: (0..<80).map { (i: Int) -> Float in Float(i) }),
            bias: WeightTensor(shape: [5], values: [1, 2, 3, 4, 5]))
        try builder.append(kind: .fullyConnected(fc), inputs: [1], source: source)
        return Network(
            format: .darknet, sourceFiles: [sourceFile], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
    }

    func testWritesFoldedBlobsManifestAndChecksums() throws {
        let dir = try TestData.temporaryDirectory()
        let sourceFile = dir.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: sourceFile)
        let network = try smallNetwork(sourceFile: sourceFile.path)
        let out = dir.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: out)

        XCTAssertEqual(manifest.tensors.map(\.file), ["conv0_W.bin", "conv0_b.bin", "fc2_W.bin", "fc2_b.bin"])
        XCTAssertEqual(manifest.tensors[0].shape, [4, 3, 3, 3])
        XCTAssertEqual(manifest.tensors[0].layout, .ohwi)
        XCTAssertEqual(manifest.source.bnEpsilon, 1e-5)
        XCTAssertEqual(manifest.source.bnEpsilonMode, "inside")
        XCTAssertEqual(manifest.layers[0].foldedBatchNorm, true)

        // Folded conv weight for output 1, input 2, y 0, x 1 in OHWI.
        guard case .convolution(let conv) = network.layers[0].kind else { return XCTFail() }
        let w = try conv.weights.floats()
        let s1 = 2.0 / (2.0 + 1e-5).squareRoot()
        let blob = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv0_W.bin")))
        XCTAssertEqual(blob[((1 * 3 + 0) * 3 + 1) * 3 + 2], Float(Double(w[((1 * 3 + 2) * 3 + 0) * 3 + 1]) * s1))

        // The connected layer's input is 4x2x2: OHWI puts channel last.
        let fcBlob = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("fc2_W.bin")))
        XCTAssertEqual(manifest.tensors[2].shape, [5, 2, 2, 4])
        XCTAssertEqual(fcBlob[((3 * 2 + 1) * 2 + 0) * 4 + 2], Float(3 * 16 + (2 * 2 + 1) * 2 + 0))

        for tensor in manifest.tensors {
            let path = out.appendingPathComponent(tensor.file).path
            XCTAssertEqual(try Checksum.sha256Hex(fileAt: path), tensor.sha256, tensor.file)
        }
        let decoded = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        XCTAssertEqual(decoded, manifest)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("partial") }
        XCTAssertEqual(leftovers, [])
    }

    func testSameInputGivesByteIdenticalOutput() throws {
        let dir = try TestData.temporaryDirectory()
        let sourceFile = dir.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: sourceFile)
        let network = try smallNetwork(sourceFile: sourceFile.path)
        let a = try BlobWriter.write(network: network, to: dir.appendingPathComponent("a"))
        let b = try BlobWriter.write(network: network, to: dir.appendingPathComponent("b"))
        XCTAssertEqual(a, b)
    }

    func testFailureLeavesNothingAndKeepsOldOutput() throws {
        let dir = try TestData.temporaryDirectory()
        let out = dir.appendingPathComponent("blobs")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: out.appendingPathComponent("keep.txt"))
        // A file-backed tensor whose file does not exist makes writing fail midway.
        var network = try smallNetwork(sourceFile: dir.appendingPathComponent("missing.cfg").path)
        network.sourceFiles = []
        guard case .convolution(var conv) = network.layers[0].kind else { return XCTFail() }
        conv.weights = WeightTensor(
            shape: [4, 3, 3, 3], span: FileSpan(path: dir.appendingPathComponent("missing.weights").path, byteOffset: 20, count: 108))
        network.layers[0].kind = .convolution(conv)
        XCTAssertThrowsError(try BlobWriter.write(network: network, to: out))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["keep.txt"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["blobs"])
    }
}
