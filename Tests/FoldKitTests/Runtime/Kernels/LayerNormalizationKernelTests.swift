import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Layer normalization over the channels (`LayerNormalization`): a vector and a map with gamma and beta by
/// hand, a larger map against the formula written out here, file-backed parameters, the sizes and
/// epsilons shape inference refuses, and the blobs it is written as; in float64 and float32.
final class LayerNormalizationKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// [1, 2, 3, 6]: mean 3, deviations [-2, -1, 0, 3], variance 14/4 = 3.5; with epsilon 0.5 the
    /// denominator is sqrt(4) = 2.
    func testVectorWithoutGammaOrBeta() throws {
        let network = try S.single(.layerNormalization(LayerNormalization(gamma: nil, beta: nil, epsilon: 0.5)), input: .vector(4))
        XCTAssertEqual(network.layers[0].kind.typeName, "layernorm")
        XCTAssertEqual(network.layers[0].outputShape, .vector(4))
        XCTAssertEqual(try S.runDouble(network, input: [1, 2, 3, 6]), [-1, -0.5, 0, 1.5])
        XCTAssertEqual(try S.runFloat(network, input: [1, 2, 3, 6]), [-1, -0.5, 0, 1.5])
    }

    /// 2 x 1 x 3, channel 0 = [1, 4, -1], channel 1 = [2, 3, -1], epsilon 0.75:
    /// position 0 (1, 2): mean 1.5, variance 0.25, sd sqrt(1) -> (-0.5, 0.5);
    /// position 1 (4, 3): mean 3.5 -> (0.5, -0.5); position 2 (-1, -1): variance 0 -> (0, 0);
    /// then gamma [2, -3] and beta [0.5, 1]: channel 0 = [-0.5, 1.5, 0.5], channel 1 = [-0.5, 2.5, 1].
    func testMapWithGammaAndBeta() throws {
        let normalization = LayerNormalization(gamma: S.tensor([2, -3]), beta: S.tensor([0.5, 1]), epsilon: 0.75)
        let network = try S.single(.layerNormalization(normalization), input: ActivationShape(channels: 2, height: 1, width: 3))
        let input: [Float] = [1, 4, -1, 2, 3, -1]
        XCTAssertEqual(try S.runDouble(network, input: input), [-0.5, 1.5, 0.5, -0.5, 2.5, 1])
        XCTAssertEqual(try S.runFloat(network, input: input), [-0.5, 1.5, 0.5, -0.5, 2.5, 1])
        XCTAssertEqual(LayerKind.layerNormalization(normalization).parameters.map(\.role), [.gamma, .beta])
        // Only gamma, only beta.
        let gammaOnly = try S.single(
            .layerNormalization(LayerNormalization(gamma: S.tensor([2, -3]), beta: nil, epsilon: 0.75)),
            input: ActivationShape(channels: 2, height: 1, width: 3))
        XCTAssertEqual(try S.runDouble(gammaOnly, input: input), [-1, 1, 0, -1.5, 1.5, 0])
        let betaOnly = try S.single(
            .layerNormalization(LayerNormalization(gamma: nil, beta: S.tensor([0.5, 1]), epsilon: 0.75)),
            input: ActivationShape(channels: 2, height: 1, width: 3))
        XCTAssertEqual(try S.runFloat(betaOnly, input: input), [0, 1, 0.5, 1.5, 0.5, 1])
    }

    /// A 5 x 9 x 11 map (positions shared between the cores) against the formula, straight loops in float64.
    func testLargeMapMatchesTheFormula() throws {
        let shape = ActivationShape(channels: 5, height: 9, width: 11)
        let input = S.seeded(shape.count, seed: 21).map { 3 * $0 + 1 }
        let gamma = S.seeded(5, seed: 22), beta = S.seeded(5, seed: 23)
        let epsilon = 1e-3
        let network = try S.single(
            .layerNormalization(LayerNormalization(gamma: S.tensor(gamma), beta: S.tensor(beta), epsilon: epsilon)), input: shape)
        var expected = [Double](repeating: 0, count: shape.count)
        for p in 0..<shape.planeSize {
            let x = (0..<5).map { Double(input[$0 * shape.planeSize + p]) }
            let mean = x.reduce(0, +) / 5
            let variance = x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 5
            for c in 0..<5 {
                expected[c * shape.planeSize + p] = (x[c] - mean) / (variance + epsilon).squareRoot() * Double(gamma[c]) + Double(beta[c])
            }
        }
        S.assertClose(try S.runDouble(network, input: input), expected, tolerance: 1e-13)
        S.assertClose(try S.runFloat(network, input: input), expected, tolerance: 2e-6)
        // Parameters read and the scratch allocated while the layer runs.
        S.assertClose(try S.runDouble(network, input: input, options: ExecutorOptions(streamParameters: true)), expected, tolerance: 1e-13)
    }

    /// gamma and beta read from a file at init; one value short is an error naming the layer-norm tensor.
    func testFileBackedParameters() throws {
        let directory = try TestData.temporaryDirectory()
        let file = directory.appendingPathComponent("ln.bin")
        var data = Data()
        for v: Float in [9, 2, -3, 0.5, 1] { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: file)
        let normalization = LayerNormalization(
            gamma: WeightTensor(shape: [2], span: FileSpan(path: file.path, byteOffset: 4, count: 2)),
            beta: WeightTensor(shape: [2], span: FileSpan(path: file.path, byteOffset: 12, count: 2)), epsilon: 0.75)
        let network = try S.single(.layerNormalization(normalization), input: ActivationShape(channels: 2, height: 1, width: 3))
        XCTAssertEqual(try S.runDouble(network, input: [1, 4, -1, 2, 3, -1]), [-0.5, 1.5, 0.5, -0.5, 2.5, 1])
        let short = LayerNormalization(
            gamma: WeightTensor(shape: [2], span: FileSpan(path: file.path, byteOffset: 4, count: 1)), beta: nil, epsilon: 0.75)
        let broken = try S.single(.layerNormalization(short), input: ActivationShape(channels: 2, height: 1, width: 3))
        XCTAssertThrowsError(try Executor<Float>(network: broken)) { error in
            XCTAssertEqual((error as? FoldKitError)?.message, "layer-norm gamma has the wrong number of values")
            XCTAssertEqual((error as? FoldKitError)?.found, "1")
        }
    }

    private func refusal(_ normalization: LayerNormalization, channels: Int = 3) -> FoldKitError? {
        do {
            _ = try LayerKind.layerNormalization(normalization).outputShape(for: [ActivationShape(channels: channels, height: 2, width: 2)])
            return nil
        } catch {
            return error as? FoldKitError
        }
    }

    func testShapeInferenceRefusesWrongSizesAndEpsilons() {
        let three = S.tensor([1, 2, 3]), two = S.tensor([1, 2])
        XCTAssertEqual(refusal(LayerNormalization(gamma: two, beta: three, epsilon: 1e-3))?.message, "layer normalization gamma size")
        XCTAssertEqual(refusal(LayerNormalization(gamma: three, beta: two, epsilon: 1e-3))?.message, "layer normalization beta size")
        XCTAssertEqual(refusal(LayerNormalization(gamma: nil, beta: two, epsilon: 1e-3))?.found, "2")
        for epsilon in [-1e-3, .nan, .infinity] {
            XCTAssertEqual(
                refusal(LayerNormalization(gamma: nil, beta: nil, epsilon: epsilon))?.message,
                "layer normalization epsilon must be finite and at least 0", "\(epsilon)")
        }
        XCTAssertNil(refusal(LayerNormalization(gamma: three, beta: three, epsilon: 0)))
    }

    /// Written as `<prefix>_gamma.bin` and `<prefix>_beta.bin` ([C], ones and zeros for a missing one), the
    /// epsilon in the manifest; read back, the network runs the same.
    func testBlobsAndManifest() throws {
        let directory = try TestData.temporaryDirectory()
        let source = directory.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: source)
        let shape = ActivationShape(channels: 2, height: 1, width: 3)
        var builder = NetworkBuilder(inputShape: shape)
        let layerSource = LayerSource(file: source.path, section: "[test]")
        try builder.append(
            kind: .layerNormalization(LayerNormalization(gamma: S.tensor([2, -3]), beta: nil, epsilon: 0.75)), inputs: [Network.inputIndex],
            source: layerSource)
        let network = Network(
            format: .darknet, sourceFiles: [source.path], inputShape: shape, inputOrder: .channelsFirst, layers: builder.layers, outputs: [],
            epsilonConvention: .darknet)
        let folder = directory.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: folder)
        XCTAssertEqual(manifest.tensors.map(\.file), ["layernorm0_gamma.bin", "layernorm0_beta.bin"])
        XCTAssertEqual(manifest.tensors.map(\.role), [.gamma, .beta])
        XCTAssertEqual(manifest.tensors.map(\.shape), [[2], [2]])
        XCTAssertEqual(manifest.layers[0].type, "layernorm")
        XCTAssertEqual(manifest.layers[0].epsilon, 0.75)
        let beta = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: folder.appendingPathComponent("layernorm0_beta.bin")))
        XCTAssertEqual(beta, [0, 0])
        let read = try BlobReader.read(folder: folder, model: network)
        XCTAssertEqual(read.problems, [])
        let rebuilt = try XCTUnwrap(read.network)
        XCTAssertEqual(try S.runDouble(rebuilt, input: [1, 4, -1, 2, 3, -1]), [-1, 1, 0, -1.5, 1.5, 0])
    }
}
