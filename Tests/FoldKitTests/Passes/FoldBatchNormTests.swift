import XCTest

@testable import FoldKit

final class FoldBatchNormTests: XCTestCase {
    /// The convolution as the fold pass leaves it.
    private func fold(_ c: Convolution) throws -> Convolution {
        guard case .convolution(let folded) = try FoldBatchNorm.fold(.convolution(c), reader: FloatSpanReader()) else {
            throw FoldKitError(.usage, "the fold did not return a convolution")
        }
        return folded
    }

    private func convolution(bias: [Float]?, convention: EpsilonConvention) -> Convolution {
        // 2 outputs, 1 input, 1x2 kernel.
        Convolution(
            inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 2,
            weights: WeightTensor(shape: [2, 1, 1, 2], values: [1, 2, 3, 4]),
            bias: bias.map { WeightTensor(shape: [2], values: $0) },
            batchNorm: BatchNorm(
                gamma: WeightTensor(shape: [2], values: [2, 0.5]), beta: WeightTensor(shape: [2], values: [0.25, -1]),
                mean: WeightTensor(shape: [2], values: [1, -2]), variance: WeightTensor(shape: [2], values: [4, 0.25]),
                convention: convention),
            activation: .leaky(slope: 0.1))
    }

    func testInsideSqrtFoldMatchesHandComputation() throws {
        let folded = try fold(convolution(bias: nil, convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt)))
        // s = gamma / sqrt(var) = [2/2, 0.5/0.5] = [1, 1]; b' = beta - mean*s = [0.25 - 1, -1 + 2] = [-0.75, 1]
        XCTAssertEqual(try folded.weights.floats(), [1, 2, 3, 4])
        XCTAssertEqual(try folded.bias?.floats(), [-0.75, 1])
        XCTAssertNil(folded.batchNorm)
        XCTAssertEqual(folded.activation, .leaky(slope: 0.1))
    }

    func testEpsilonPlacementAndLayerBias() throws {
        let eps = 0.01
        let inside = try fold(convolution(bias: [0.5, 0.5], convention: EpsilonConvention(epsilon: eps, placement: .insideSqrt)))
        let outside = try fold(convolution(bias: [0.5, 0.5], convention: EpsilonConvention(epsilon: eps, placement: .outsideSqrt)))
        let sInside = [2 / (4 + eps).squareRoot(), 0.5 / (0.25 + eps).squareRoot()]
        let sOutside = [2 / (2 + eps), 0.5 / (0.5 + eps)]
        let w: [Double] = [1, 2, 3, 4]
        XCTAssertEqual(try inside.weights.floats(), (0..<4).map { Float(w[$0] * sInside[$0 / 2]) })
        XCTAssertEqual(try outside.weights.floats(), (0..<4).map { Float(w[$0] * sOutside[$0 / 2]) })
        // b' = (beta - mean*s) + b*s
        XCTAssertEqual(
            try inside.bias?.floats(), [Float((0.25 - 1 * sInside[0]) + 0.5 * sInside[0]), Float((-1 + 2 * sInside[1]) + 0.5 * sInside[1])])
        XCTAssertNotEqual(try inside.weights.floats(), try outside.weights.floats())
    }

    func testStandaloneBatchNormBecomesChannelAffine() throws {
        let bn = BatchNorm(
            gamma: nil, beta: nil, mean: WeightTensor(shape: [1], values: [3]), variance: WeightTensor(shape: [1], values: [4]),
            convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt))
        guard case .channelAffine(let affine) = try FoldBatchNorm.fold(.batchNorm(bn), reader: FloatSpanReader()) else {
            return XCTFail("expected channelAffine")
        }
        XCTAssertEqual(try affine.scale.floats(), [0.5])
        XCTAssertEqual(try affine.shift.floats(), [-1.5])
    }

    /// A stand-alone batch norm whose gamma (or beta) is shorter than its mean is an error naming the
    /// tensor, not a read past the gamma's end.
    func testStandaloneBatchNormWithShortTensorsIsRefused() {
        let three = WeightTensor(shape: [3], values: [1, 2, 3]), two = WeightTensor(shape: [2], values: [1, 2])
        for (gamma, beta, name) in [(two, three, "gamma"), (three, two, "beta")] {
            let bn = BatchNorm(gamma: gamma, beta: beta, mean: three, variance: three, convention: .darknet)
            let network = try? RuntimeTestSupport.single(.batchNorm(bn), input: ActivationShape(channels: 3, height: 1, width: 1))
            XCTAssertThrowsError(try FoldBatchNorm.apply(to: XCTUnwrap(network))) { error in
                XCTAssertEqual((error as? FoldKitError)?.message, "batch norm size does not match the layer's outputs")
                XCTAssertEqual((error as? FoldKitError)?.found, "2 (\(name))")
            }
        }
    }

    func testFoldingIsDeterministic() throws {
        let conv = convolution(bias: [0.1, 0.2], convention: .darknet)
        let a = try fold(conv), b = try fold(conv)
        XCTAssertEqual(try a.weights.floats().map(\.bitPattern), try b.weights.floats().map(\.bitPattern))
    }
}

final class FoldBatchNormNetworkTests: XCTestCase {
    private func network(layers: Int, missingWeightsAt broken: Int? = nil) throws -> Network {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 2, height: 3, width: 3))
        var rng = SplitMix64(seed: 3)
        for i in 0..<layers {
            let weights = WeightTensor(shape: [2, 2, 1, 1], values: (0..<4).map { _ in rng.nextFloat(in: -1, 1) })
            // The fold reads the batch-norm statistics (the weights only when they are used): a file that is
            // not there fails it at that layer.
            let mean =
                broken == i
                ? WeightTensor(shape: [2], span: FileSpan(path: "/nonexistent/w.weights", byteOffset: 0, count: 2))
                : WeightTensor(shape: [2], values: [0.2, 0.3])
            let bn = BatchNorm(
                gamma: WeightTensor(shape: [2], values: [rng.nextFloat(in: 0.5, 1.5), 1]), beta: WeightTensor(shape: [2], values: [0.1, -0.1]),
                mean: mean, variance: WeightTensor(shape: [2], values: [rng.nextFloat(in: 0.5, 1.5), 2]),
                convention: .darknet)
            let conv = Convolution(inputChannels: 2, outputChannels: 2, kernelHeight: 1, kernelWidth: 1, weights: weights, bias: nil, batchNorm: bn)
            try builder.append(kind: .convolution(conv), inputs: [i - 1], source: LayerSource(file: "n.cfg", section: "[convolutional]"))
        }
        return Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
    }

    func testWholeNetworkEqualsLayerByLayerFold() throws {
        let net = try network(layers: 40)
        let folded = try FoldBatchNorm.apply(to: net)
        XCTAssertEqual(folded.layers.count, net.layers.count)
        for (a, b) in zip(folded.layers, net.layers) {
            guard case .convolution(let got) = a.kind, case .convolution(let expected) = try FoldBatchNorm.fold(b.kind, reader: FloatSpanReader())
            else {
                return XCTFail()
            }
            XCTAssertNil(got.batchNorm)
            XCTAssertEqual(try got.weights.floats().map(\.bitPattern), try expected.weights.floats().map(\.bitPattern))
            XCTAssertEqual(try got.bias?.floats().map(\.bitPattern), try expected.bias?.floats().map(\.bitPattern))
        }
    }

    func testErrorNamesTheEarliestFailingLayer() throws {
        XCTAssertThrowsError(try FoldBatchNorm.apply(to: network(layers: 12, missingWeightsAt: 7))) { error in
            XCTAssertEqual((error as? FoldKitError)?.layer, "layer 7 [convolutional]", "\(error)")
        }
    }
}
