import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// The control-based verdict of `Verifier.verify` on small networks built in code: a clamp after a large
/// layer raises no false alarm, fold errors are caught at the layer that makes them in float32 and with
/// float16 storage, and a float16 range problem is named as the cause when that is why float16 fails.
final class ControlToleranceTests: XCTestCase {
    typealias S = RuntimeTestSupport
    let shape = ActivationShape(channels: 3, height: 9, width: 8)

    private func batchNorm(_ channels: Int, seed: UInt64) -> BatchNorm {
        let r = S.seeded(4 * channels, seed: seed)
        return BatchNorm(
            gamma: S.tensor(r[0..<channels].map { 1 + 0.4 * $0 }), beta: S.tensor(r[channels..<(2 * channels)].map { 0.5 * $0 }),
            mean: S.tensor(r[(2 * channels)..<(3 * channels)].map { 0.3 * $0 }),
            variance: S.tensor(r[(3 * channels)...].map { 0.8 + 0.5 * $0 }), convention: .darknet)
    }

    private func convolution(_ input: Int, _ output: Int, scale: Float, seed: UInt64, activation: Activation) -> LayerKind {
        .convolution(
            Convolution(
                inputChannels: input, outputChannels: output, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                weights: WeightTensor(shape: [output, input, 3, 3], values: S.seeded(output * input * 9, seed: seed).map { $0 * scale }),
                bias: nil, batchNorm: batchNorm(output, seed: seed + 100), activation: activation))
    }

    /// conv (outputs up to ~30) -> relu6 -> conv -> shortcut with the relu6 output -> logistic.
    private func clampNetwork() throws -> Network {
        try S.network(input: shape, outputs: [4]) { b in
            let wide = try b.append(kind: convolution(3, 8, scale: 6, seed: 1, activation: .linear), inputs: [Network.inputIndex], source: S.source)
            let clamp = try b.append(kind: .activation(.relu6), inputs: [wide], source: S.source)
            let conv = try b.append(kind: convolution(8, 8, scale: 0.3, seed: 2, activation: .leaky(slope: 0.1)), inputs: [clamp], source: S.source)
            let sum = try b.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [conv, clamp], source: S.source)
            try b.append(kind: .activation(.logistic), inputs: [sum], source: S.source)
        }
    }

    private var input: ModelInput { ModelInput(values: S.seeded(shape.count, seed: 9).map { 2 * $0 }, origin: "seeded") }

    /// Scales output channel `channel` of the convolution at `layer` in a folded network by `factor`.
    private func scaleChannel(_ network: Network, layer: Int, channel: Int, by factor: Float) throws -> Network {
        var network = network
        guard case .convolution(var c) = network.layers[layer].kind else {
            throw FixtureProblem(
                "the test network of ControlToleranceTests", "layer \(layer) is \(network.layers[layer].kind.typeName), not a convolution")
        }
        var w = try c.weights.floats()
        let per = w.count / c.outputChannels
        for k in (channel * per)..<((channel + 1) * per) { w[k] *= factor }
        c.weights = WeightTensor(shape: c.weights.shape, values: w)
        if var bias = try c.bias?.floats() {
            bias[channel] *= factor
            c.bias = WeightTensor(shape: [bias.count], values: bias)
        }
        network.layers[layer].kind = .convolution(c)
        return network
    }

    func testClampCarriesItsInputsAllowanceAndPasses() throws {
        let network = try clampNetwork()
        for float16 in [false, true] {
            let report = try Verifier.verify(
                original: network, folded: FoldBatchNorm.apply(to: network), input: input, options: .init(float16: float16))
            XCTAssertTrue(report.passed, report.text())
            for verdict in report.precisions {
                let conv = verdict.layers[0], clamp = verdict.layers[1], sum = verdict.layers[3]
                XCTAssertGreaterThan(conv.maxAbsReference, 20, "the clamp's input reaches past 6")
                XCTAssertLessThanOrEqual(clamp.maxAbsReference, 6)
                XCTAssertEqual(clamp.allowedBy, "carried")
                XCTAssertGreaterThanOrEqual(clamp.allowed, conv.allowed, "|relu6'| <= 1 carries the input's absolute allowance")
                XCTAssertGreaterThanOrEqual(
                    try XCTUnwrap(sum.carried), verdict.layers[2].allowed + clamp.allowed, "a shortcut adds its inputs' allowances")
                XCTAssertNil(verdict.layers[2].carried, "a convolution can grow an error: nothing is carried through it")
            }
        }
    }

    /// One output channel 1% off in the folded network: caught at that layer, in float32 and with float16
    /// storage (there by the float32 judgement of the fold, which --fp16 runs too).
    func testOnePercentChannelErrorIsCaughtWhereItArises() throws {
        let network = try clampNetwork()
        let folded = try FoldBatchNorm.apply(to: network)
        for layer in [0, 2] {
            let broken = try scaleChannel(folded, layer: layer, channel: 3, by: 1.01)
            for float16 in [false, true] {
                let report = try Verifier.verify(original: network, folded: broken, input: input, options: .init(float16: float16))
                XCTAssertFalse(report.passed)
                XCTAssertEqual(report.firstLayerOverTolerance?.index, layer, report.text())
                XCTAssertEqual(report.firstLayerOverTolerance?.precision, .float32)
                XCTAssertTrue(report.text().contains("float32: "), report.text())
                XCTAssertTrue(report.text().contains("first: layer \(layer)"), report.text())
            }
        }
    }

    /// The allowance comes from the control: a channel off by 4 K x the control's relative deviation fails in
    /// float16 storage, where the old budget (carried float16 roundoff) allowed several percent.
    func testFloat16StorageVerdictIsGroundedInItsControl() throws {
        let network = try clampNetwork()
        let folded = try FoldBatchNorm.apply(to: network)
        let clean = try Verifier.verify(original: network, folded: folded, input: input, options: .init(float16: true))
        let half = try XCTUnwrap(clean.precisions.last)
        XCTAssertEqual(half.precision, .float16Storage)
        let conv = half.layers[2]
        XCTAssertTrue(conv.pass)
        XCTAssertLessThanOrEqual(conv.candidate.maxAbsDeviation, conv.allowed)
        XCTAssertEqual(conv.fromControl, ToleranceBudget.controlFactor(.float16Storage) * conv.control.maxAbsDeviation)
        let relativeError = Float(4 * ToleranceBudget.controlFactor(.float16Storage) * conv.control.relativeDeviation)
        let broken = try scaleChannel(folded, layer: 2, channel: 5, by: 1 + relativeError)
        let report = try Verifier.verify(original: network, folded: broken, input: input, options: .init(float16: true))
        XCTAssertFalse(try XCTUnwrap(report.precisions.last).pass, report.text())
    }

    /// A 1x1 layer whose batch norm multiplies by 70000: float32 passes; float16 storage overflows in the
    /// control and the candidate alike, fails, and names the range hazard as the cause.
    func testFloat16OverflowIsNamedAsTheCause() throws {
        let bn = BatchNorm(
            gamma: S.tensor([70000, 1]), beta: S.tensor([0, 0]), mean: S.tensor([0, 0]), variance: S.tensor([1 - 1e-5, 1 - 1e-5]),
            convention: .darknet)
        let network = try S.network(input: ActivationShape(channels: 1, height: 4, width: 4), outputs: [0]) { b in
            try b.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
                        weights: WeightTensor(shape: [2, 1, 1, 1], values: [1, 1]), bias: nil, batchNorm: bn)),
                inputs: [Network.inputIndex], source: S.source)
        }
        let values = (0..<16).map { Float($0) / 15 }
        let report = try Verifier.verify(
            original: network, folded: FoldBatchNorm.apply(to: network), input: ModelInput(values: values, origin: "ramp"),
            options: .init(float16: true))
        XCTAssertFalse(report.passed)
        XCTAssertTrue(report.precisions[0].pass, "float32 holds 70000")
        XCTAssertFalse(report.precisions[1].pass)
        let causes = try XCTUnwrap(report.float16FailureCause)
        XCTAssertTrue(causes.contains { $0.kind == .weightOverflow && $0.layer == 0 }, "\(causes)")
        XCTAssertTrue(causes.contains { $0.kind == .activationOverflow && $0.channels == [0] }, "\(causes)")
        XCTAssertTrue(report.text().contains("cause: float16 range hazard"), report.text())
        XCTAssertNotEqual(causes.first?.kind, .weightSubnormal, "values past 65504 are named first")
    }

    /// A network of the newer kinds after a convolution with a batch norm: a transposed convolution ('same')
    /// followed by a batch norm that stays a layer, layer normalization, channel windows, merges with
    /// per-channel broadcast, bilinear upsampling and group normalization. The fold is exact in float32 and
    /// with float16 storage, and the folded network rebuilt from its blobs passes too.
    func testNetworkOfTheNewerKindsPasses() throws {
        let network = try S.network(input: shape) { b in
            let conv = try b.append(
                kind: convolution(3, 8, scale: 1, seed: 3, activation: .leaky(slope: 0.1)), inputs: [Network.inputIndex], source: S.source)
            let deconv = try b.append(
                kind: .transposedConvolution(
                    TransposedConvolution(
                        weights: WeightTensor(shape: [4, 8, 3, 3], values: S.seeded(4 * 8 * 9, seed: 4).map { 0.3 * $0 }),
                        bias: S.tensor(S.seeded(4, seed: 5)), outputChannels: 4, inputChannels: 8, kernelHeight: 3, kernelWidth: 3,
                        strideY: 2, strideX: 2, offsetY: 0, offsetX: 0, outputHeight: 18, outputWidth: 16, activation: .relu)),
                inputs: [conv], source: S.source)
            let bn = try b.append(kind: .batchNorm(batchNorm(4, seed: 6)), inputs: [deconv], source: S.source)
            let norm = try b.append(
                kind: .layerNormalization(
                    LayerNormalization(gamma: S.tensor([1, 0.5, 2, -1]), beta: S.tensor([0, 0.25, -0.5, 1]), epsilon: 1e-3)),
                inputs: [bn], source: S.source)
            let padded = try b.append(kind: .channelRange(ChannelRange(offset: -1, channels: 6)), inputs: [norm], source: S.source)
            let sliced = try b.append(kind: .channelRange(ChannelRange(offset: 1, channels: 4)), inputs: [padded], source: S.source)
            let pooled = try b.append(kind: .globalAveragePool, inputs: [bn], source: S.source)
            let scaled = try b.append(kind: .merge(ElementwiseMerge(.multiply)), inputs: [sliced, pooled], source: S.source)
            let added = try b.append(kind: .merge(ElementwiseMerge(.add)), inputs: [scaled, bn, norm], source: S.source)
            let averaged = try b.append(kind: .merge(ElementwiseMerge(.average)), inputs: [added, pooled], source: S.source)
            let largest = try b.append(kind: .merge(ElementwiseMerge(.maximum)), inputs: [averaged, norm], source: S.source)
            let difference = try b.append(kind: .merge(ElementwiseMerge(.subtract)), inputs: [largest, bn], source: S.source)
            let upsampled = try b.append(
                kind: .upsample(Upsample(strideY: 2, strideX: 2, interpolation: .bilinear)), inputs: [difference], source: S.source)
            try b.append(
                kind: .groupNormalization(
                    GroupNormalization(groups: 2, gamma: S.tensor([1.5, -0.5, 0.75, 2]), beta: S.tensor([0.5, 0, -1, 0.25]), epsilon: 1e-3)),
                inputs: [upsampled], source: S.source)
        }
        let folded = try FoldBatchNorm.apply(to: network)
        guard case .channelAffine = folded.layers[2].kind else { return XCTFail("the batch norm after the deconv should stay a layer") }
        for float16 in [false, true] {
            let report = try Verifier.verify(original: network, folded: folded, input: input, options: .init(float16: float16))
            XCTAssertTrue(report.passed, report.text())
        }
        let directory = try TestData.temporaryDirectory()
        let source = directory.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: source)
        var onDisk = network
        onDisk.sourceFiles = [source.path]
        let blobs = directory.appendingPathComponent("blobs")
        try BlobWriter.write(network: onDisk, to: blobs, options: .init(layout: .sliced))
        let read = try BlobReader.read(folder: blobs, model: onDisk)
        XCTAssertEqual(read.problems, [])
        let report = try Verifier.verify(original: onDisk, folded: try XCTUnwrap(read.network), input: input, options: .init())
        XCTAssertTrue(report.passed, report.text())
    }

    func testLipschitzClassification() {
        for a: Activation in [
            .relu, .relu6, .logistic, .tanh, .hardSigmoid, .leaky(slope: 0.1), .linear, .softplus, .hardMish, .elu(alpha: 1),
            .clippedRelu(maxValue: 6, negativeSlope: 0, threshold: 0),
        ] {
            XCTAssertNotNil(ToleranceBudget.lipschitzBound(a), a.name)
        }
        for a: Activation in [.swish, .mish, .gelu, .kerasSelu, .leaky(slope: 1.5), .elu(alpha: 2)] {
            XCTAssertNil(ToleranceBudget.lipschitzBound(a), a.name)
        }
        XCTAssertEqual(ToleranceBudget.lipschitzBound(.logistic), 0.25)
    }
}
