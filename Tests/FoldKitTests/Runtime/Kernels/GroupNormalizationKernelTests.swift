import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Group normalization over contiguous channel groups (`GroupNormalization`): a map with gamma and beta by
/// hand, larger maps with 1, 3 and 6 groups against the formula written out here, file-backed
/// parameters, the groups, sizes and epsilons shape inference refuses, and the blobs it is written as; in
/// float64 and float32.
final class GroupNormalizationKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// 4 x 1 x 2 in 2 groups, epsilon 0.75. Group 0, channels 0 and 1 = [1.5, 2.5], [1.5, 2.5]: mean 2,
    /// variance 0.25, sd sqrt(0.25 + 0.75) = 1 -> [-0.5, 0.5], [-0.5, 0.5]. Group 1, channels 2 and 3 =
    /// [2.5, 7.5], [5.5, 4.5]: mean 5, deviations [-2.5, 2.5, 0.5, -0.5], variance 13/4 = 3.25, sd
    /// sqrt(3.25 + 0.75) = 2 -> [-1.25, 1.25], [0.25, -0.25]. Then gamma [2, -1, 0.5, 4] and beta [0, 1, -1, 0.5].
    func testMapWithGammaAndBeta() throws {
        let shape = ActivationShape(channels: 4, height: 1, width: 2)
        let input: [Float] = [1.5, 2.5, 1.5, 2.5, 2.5, 7.5, 5.5, 4.5]
        let normalization = GroupNormalization(groups: 2, gamma: S.tensor([2, -1, 0.5, 4]), beta: S.tensor([0, 1, -1, 0.5]), epsilon: 0.75)
        let network = try S.single(.groupNormalization(normalization), input: shape)
        XCTAssertEqual(network.layers[0].kind.typeName, "groupnorm")
        XCTAssertEqual(network.layers[0].outputShape, shape)
        XCTAssertEqual(try S.runDouble(network, input: input), [-1, 1, 1.5, 0.5, -1.625, -0.375, 1.5, -0.5])
        XCTAssertEqual(try S.runFloat(network, input: input), [-1, 1, 1.5, 0.5, -1.625, -0.375, 1.5, -0.5])
        XCTAssertEqual(LayerKind.groupNormalization(normalization).parameters.map(\.role), [.gamma, .beta])
        let bare = try S.single(.groupNormalization(GroupNormalization(groups: 2, gamma: nil, beta: nil, epsilon: 0.75)), input: shape)
        XCTAssertEqual(try S.runDouble(bare, input: input), [-0.5, 0.5, -0.5, 0.5, -1.25, 1.25, 0.25, -0.25])
        // Only beta (Keras scale=False).
        let betaOnly = try S.single(
            .groupNormalization(GroupNormalization(groups: 2, gamma: nil, beta: S.tensor([0, 1, -1, 0.5]), epsilon: 0.75)), input: shape)
        XCTAssertEqual(try S.runFloat(betaOnly, input: input), [-0.5, 0.5, 0.5, 1.5, -2.25, 0.25, 0.75, 0.25])
    }

    /// A 6 x 9 x 11 map in 1 group (a layer normalization of the whole map), 3 groups and 6 (an instance
    /// normalization) against the formula, straight loops in float64 over each group's channels and positions.
    func testLargeMapsMatchTheFormula() throws {
        let shape = ActivationShape(channels: 6, height: 9, width: 11)
        let plane = shape.planeSize
        let input = S.seeded(shape.count, seed: 31).map { 3 * $0 + 1 }
        let gamma = S.seeded(6, seed: 32), beta = S.seeded(6, seed: 33)
        let epsilon = 1e-3
        for groups in [1, 3, 6] {
            let network = try S.single(
                .groupNormalization(GroupNormalization(groups: groups, gamma: S.tensor(gamma), beta: S.tensor(beta), epsilon: epsilon)),
                input: shape)
            let n = 6 / groups
            var expected = [Double](repeating: 0, count: shape.count)
            for g in 0..<groups {
                let channels = (g * n)..<((g + 1) * n)
                let x = channels.flatMap { c in (0..<plane).map { Double(input[c * plane + $0]) } }
                let mean = x.reduce(0, +) / Double(x.count)
                let variance = x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(x.count)
                for c in channels {
                    for p in 0..<plane {
                        expected[c * plane + p] =
                            (Double(input[c * plane + p]) - mean) / (variance + epsilon).squareRoot() * Double(gamma[c]) + Double(beta[c])
                    }
                }
            }
            S.assertClose(try S.runDouble(network, input: input), expected, tolerance: 1e-13)
            S.assertClose(try S.runFloat(network, input: input), expected, tolerance: 1e-5)
            S.assertClose(try S.runDouble(network, input: input, options: ExecutorOptions(streamParameters: true)), expected, tolerance: 1e-13)
        }
    }

    /// gamma and beta read from a file at init; one value short is an error naming the group-norm tensor.
    func testFileBackedParameters() throws {
        let directory = try TestData.temporaryDirectory()
        let file = directory.appendingPathComponent("gn.bin")
        var data = Data()
        for v: Float in [9, 2, -1, 0.5, 4, 0, 1, -1, 0.5] { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: file)
        let shape = ActivationShape(channels: 4, height: 1, width: 2)
        let normalization = GroupNormalization(
            groups: 2, gamma: WeightTensor(shape: [4], span: FileSpan(path: file.path, byteOffset: 4, count: 4)),
            beta: WeightTensor(shape: [4], span: FileSpan(path: file.path, byteOffset: 20, count: 4)), epsilon: 0.75)
        let network = try S.single(.groupNormalization(normalization), input: shape)
        XCTAssertEqual(try S.runDouble(network, input: [1.5, 2.5, 1.5, 2.5, 2.5, 7.5, 5.5, 4.5]), [-1, 1, 1.5, 0.5, -1.625, -0.375, 1.5, -0.5])
        let short = GroupNormalization(
            groups: 2, gamma: WeightTensor(shape: [4], span: FileSpan(path: file.path, byteOffset: 4, count: 3)), beta: nil, epsilon: 0.75)
        let broken = try S.single(.groupNormalization(short), input: shape)
        XCTAssertThrowsError(try Executor<Float>(network: broken)) { error in
            XCTAssertEqual((error as? FoldKitError)?.message, "group-norm gamma has the wrong number of values")
            XCTAssertEqual((error as? FoldKitError)?.found, "3")
        }
    }

    private func refusal(_ normalization: GroupNormalization, channels: Int = 4) -> FoldKitError? {
        do {
            _ = try LayerKind.groupNormalization(normalization).outputShape(for: [ActivationShape(channels: channels, height: 2, width: 2)])
            return nil
        } catch {
            return error as? FoldKitError
        }
    }

    func testShapeInferenceRefusesGroupsSizesAndEpsilons() {
        let four = S.tensor([1, 2, 3, 4]), two = S.tensor([1, 2])
        for groups in [0, -1, 3, 8] {
            let e = refusal(GroupNormalization(groups: groups, gamma: nil, beta: nil, epsilon: 1e-3))
            XCTAssertEqual(e?.message, "group normalization groups must divide the channels", "\(groups)")
            XCTAssertEqual(e?.found, "\(groups)")
        }
        XCTAssertEqual(refusal(GroupNormalization(groups: 2, gamma: two, beta: four, epsilon: 1e-3))?.message, "group normalization gamma size")
        XCTAssertEqual(refusal(GroupNormalization(groups: 2, gamma: four, beta: two, epsilon: 1e-3))?.message, "group normalization beta size")
        for epsilon in [-1e-3, .nan, .infinity] {
            XCTAssertEqual(
                refusal(GroupNormalization(groups: 2, gamma: nil, beta: nil, epsilon: epsilon))?.message,
                "group normalization epsilon must be finite and at least 0", "\(epsilon)")
        }
        for groups in [1, 2, 4] { XCTAssertNil(refusal(GroupNormalization(groups: groups, gamma: four, beta: four, epsilon: 0))) }
    }

    /// Written as `<prefix>_gamma.bin` and `<prefix>_beta.bin` ([C], ones and zeros for a missing one), the
    /// groups and epsilon in the manifest; read back, the network runs the same.
    func testBlobsAndManifest() throws {
        let directory = try TestData.temporaryDirectory()
        let source = directory.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: source)
        let shape = ActivationShape(channels: 4, height: 1, width: 2)
        var builder = NetworkBuilder(inputShape: shape)
        try builder.append(
            kind: .groupNormalization(GroupNormalization(groups: 2, gamma: S.tensor([2, -1, 0.5, 4]), beta: nil, epsilon: 0.75)),
            inputs: [Network.inputIndex], source: LayerSource(file: source.path, section: "[test]"))
        let network = Network(
            format: .darknet, sourceFiles: [source.path], inputShape: shape, inputOrder: .channelsFirst, layers: builder.layers, outputs: [],
            epsilonConvention: .darknet)
        let folder = directory.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: folder)
        XCTAssertEqual(manifest.tensors.map(\.file), ["groupnorm0_gamma.bin", "groupnorm0_beta.bin"])
        XCTAssertEqual(manifest.tensors.map(\.role), [.gamma, .beta])
        XCTAssertEqual(manifest.tensors.map(\.shape), [[4], [4]])
        XCTAssertEqual(manifest.layers[0].type, "groupnorm")
        XCTAssertEqual(manifest.layers[0].groups, 2)
        XCTAssertEqual(manifest.layers[0].epsilon, 0.75)
        let beta = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: folder.appendingPathComponent("groupnorm0_beta.bin")))
        XCTAssertEqual(beta, [0, 0, 0, 0])
        let read = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(read.problems, [])
        let rebuilt = try XCTUnwrap(read.network)
        XCTAssertEqual(try S.runDouble(rebuilt, input: [1.5, 2.5, 1.5, 2.5, 2.5, 7.5, 5.5, 4.5]), [-1, 1, 0.5, -0.5, -0.625, 0.625, 1, -1])
    }
}
