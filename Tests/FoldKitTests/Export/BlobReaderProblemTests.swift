import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

final class BlobReaderProblemTests: XCTestCase {
    /// conv(2->3, 3x3, BN) -> PReLU: blobs conv0_W, conv0_b, prelu1_alpha.
    private func writtenFolder() throws -> (folder: URL, network: Network) {
        let dir = try TestData.temporaryDirectory()
        let sourceFile = dir.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: sourceFile)
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 2, height: 3, width: 3))
        let bn = BatchNorm(
            gamma: WeightTensor(shape: [3], values: [1, 2, 0.5]), beta: WeightTensor(shape: [3], values: [0, 0.1, 0.2]),
            mean: WeightTensor(shape: [3], values: [0.1, 0.2, 0.3]), variance: WeightTensor(shape: [3], values: [1, 2, 3]),
            convention: .darknet)
        let conv = Convolution(
            inputChannels: 2, outputChannels: 3, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [3, 2, 3, 3], values: (0..<54).map { Float($0 % 5) * 0.2 - 0.4 }), bias: nil, batchNorm: bn)
        let source = LayerSource(file: sourceFile.path, section: "[convolutional]", line: 1)
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: source)
        try builder.append(kind: .prelu(alpha: WeightTensor(shape: [3], values: [0.1, 0.2, 0.3])), inputs: [0], source: source)
        let network = Network(
            format: .darknet, sourceFiles: [sourceFile.path], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
        let folder = dir.appendingPathComponent("blobs")
        try BlobWriter.write(network: network, to: folder)
        return (folder, network)
    }

    func testIntactFolderHasNoProblemsAndRebuilds() throws {
        let (folder, network) = try writtenFolder()
        let result = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(result.problems, [])
        XCTAssertNotNil(result.network)
        XCTAssertEqual(result.manifest.tensors.map(\.role), [.weights, .bias, .alpha])
    }

    func testEachDamageGivesItsKind() throws {
        let (folder, network) = try writtenFolder()
        let weights = folder.appendingPathComponent("conv0_W.bin")
        let bias = folder.appendingPathComponent("conv0_b.bin")
        var changed = try Data(contentsOf: bias)
        changed[0] ^= 1
        try changed.write(to: bias)
        var result = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(result.problems.map(\.kind), [.checksumMismatch])
        XCTAssertEqual(result.problems.first?.missing, false)
        XCTAssertNotNil(result.network, "a changed file of the right size still rebuilds")

        try Data(try Data(contentsOf: weights).dropLast(4)).write(to: weights)
        result = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(result.problems.map(\.kind), [.sizeMismatch, .checksumMismatch])
        XCTAssertEqual(result.problems[0].problem, "size of conv0_W differs from the manifest (expected 216 bytes, found 212 bytes)")
        XCTAssertNil(result.network, "a file of the wrong size cannot be rebuilt")

        try FileManager.default.removeItem(at: weights)
        result = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(result.problems.map(\.kind), [.missingFile, .checksumMismatch])
        XCTAssertEqual(result.problems.map(\.missing), [true, false])
        XCTAssertNil(result.network)
    }

    func testChangedSourceIsItsOwnKind() throws {
        let (folder, network) = try writtenFolder()
        try Data("[net]\nbatch=2\n".utf8).write(to: URL(fileURLWithPath: network.sourceFiles[0]))
        let result = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(result.problems.map(\.kind), [.sourceChanged])
        XCTAssertEqual(result.problems.first?.tensor, "(source)")
    }

    /// The JSON keeps the fields reports have always had; the kind is not one of them.
    func testJSONHasTheSameFieldsAsBefore() throws {
        let problem = BlobReader.Problem(tensor: "conv0_W", file: "conv0_W.bin", problem: "file is missing", kind: .missingFile)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(problem)) as? [String: Any]
        XCTAssertEqual(object?.keys.sorted(), ["file", "missing", "problem", "tensor"])
        XCTAssertEqual(object?["missing"] as? Bool, true)
        XCTAssertEqual(try JSONDecoder().decode(BlobReader.Problem.self, from: JSONEncoder().encode(problem)), problem)
    }
}
