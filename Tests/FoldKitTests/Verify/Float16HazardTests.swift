import FoldKitTestSupport
import XCTest

@testable import FoldKit

final class Float16HazardTests: XCTestCase {
    func testNamesOverflowingAndSubnormalChannels() throws {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 1, height: 2, width: 2))
        let conv = Convolution(
            inputChannels: 1, outputChannels: 3, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [3, 1, 1, 1], values: [1, 70000, 1e-6]),
            bias: WeightTensor(shape: [3], values: [0, 0, -1e5]))
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: LayerSource(file: "t", section: "[convolutional]"))
        let network = Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
        let hazards = try Float16Hazard.scan(folded: network, outputs: [[0, 0, 0, 0, 7e4, 0, 0, 0, 0, 0, 0, 0]])
        XCTAssertEqual(hazards.first { $0.kind == .weightOverflow }?.channels, [1])
        XCTAssertEqual(hazards.first { $0.kind == .weightSubnormal }?.channels, [2])
        XCTAssertEqual(hazards.first { $0.kind == .biasOverflow }?.channels, [2])
        XCTAssertEqual(hazards.first { $0.kind == .activationOverflow }?.channels, [1])
    }

    /// The per-channel scale and shift of an affine (Rescaling, LayerScale, a standalone batch norm after
    /// folding) and a layer or group normalization's gamma and beta are stored in float16 too.
    func testNamesPerChannelScalesAndShifts() throws {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 2, height: 1, width: 1))
        let affine = ChannelAffine(scale: WeightTensor(shape: [2], values: [1e5, 1]), shift: WeightTensor(shape: [2], values: [0, 2e-7]))
        let norm = LayerNormalization(
            gamma: WeightTensor(shape: [2], values: [1, 1e-6]), beta: WeightTensor(shape: [2], values: [-7e4, 0]), epsilon: 1e-3)
        let source = LayerSource(file: "t", section: "test")
        try builder.append(kind: .channelAffine(affine), inputs: [Network.inputIndex], source: source)
        try builder.append(kind: .layerNormalization(norm), inputs: [0], source: source)
        let group = GroupNormalization(
            groups: 1, gamma: WeightTensor(shape: [2], values: [-8e4, 1e-6]), beta: WeightTensor(shape: [2], values: [0, 7e4]), epsilon: 1e-3)
        try builder.append(kind: .groupNormalization(group), inputs: [1], source: source)
        let network = Network(
            format: .keras, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsLast, layers: builder.layers, outputs: [],
            epsilonConvention: .darknet)
        let hazards = try Float16Hazard.scan(folded: network)
        XCTAssertEqual(hazards.filter { $0.layer == 0 }.map(\.kind), [.weightOverflow])
        XCTAssertEqual(hazards.first { $0.layer == 0 }?.channels, [0])
        XCTAssertEqual(hazards.filter { $0.layer == 1 }.map(\.kind), [.weightSubnormal, .biasOverflow])
        XCTAssertEqual(hazards.filter { $0.layer == 1 }.map(\.channels), [[1], [0]])
        XCTAssertEqual(hazards.filter { $0.layer == 2 }.map(\.kind), [.weightOverflow, .weightSubnormal, .biasOverflow])
        XCTAssertEqual(hazards.filter { $0.layer == 2 }.map(\.channels), [[0], [1], [1]])
    }

    /// MobileNetV2-YOLOv3-Nano has batch-norm variances of 5.6e-45; with the epsilon outside the square
    /// root and set to 0, the folded depthwise weights of layer 1 explode past float16's range.
    func testRealModelWithDenormalVarianceOverflows() throws {
        let folder = "real-models/MobileNetV2-YOLOv3-Nano-voc/MobileNetV2-YOLOv3-Nano-voc"
        let paths = [try TestData.sharedFile(folder + ".cfg").path, try TestData.sharedFile(folder + ".weights").path]
        let zero = try FoldBatchNorm.apply(to: ModelLoader.load(paths: paths, options: ModelOptions(epsilon: 0, epsilonPlacement: .outsideSqrt)))
        let overflow = try Float16Hazard.scan(folded: zero).filter { $0.kind == .weightOverflow }
        XCTAssertEqual(overflow.map(\.layer), [1])
        XCTAssertEqual(overflow.first?.channels, [3, 12, 13])
        // With Darknet's default sqrt(var + 1e-5) the same weights stay far inside the range.
        let safe = try FoldBatchNorm.apply(to: ModelLoader.load(paths: paths))
        XCTAssertTrue(try Float16Hazard.scan(folded: safe).filter { $0.kind == .weightOverflow }.isEmpty)
    }
}

/// `verify --engine-outputs --fp16` runs no float32 candidate; the activations past 65504 it names come
/// from the reference, so a float16 failure names them as its cause, ahead of a subnormal weight.
final class EngineOutputFloat16HazardTests: XCTestCase {
    func testEngineOutputsWithFloat16NameActivationsPastTheRange() throws {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 1, height: 2, width: 2))
        // Layer 0: channel 1's weight is a float16 subnormal; layer 1: 1000 x the input passes 65504.
        let small = Convolution(
            inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 1, weights: WeightTensor(shape: [2, 1, 1, 1], values: [1, 1e-6]),
            bias: WeightTensor(shape: [2], values: [0, 0]))
        try builder.append(kind: .convolution(small), inputs: [Network.inputIndex], source: LayerSource(file: "t", section: "[convolutional]"))
        let large = Convolution(
            inputChannels: 2, outputChannels: 1, kernelHeight: 1, kernelWidth: 1, weights: WeightTensor(shape: [1, 2, 1, 1], values: [1000, 0]),
            bias: WeightTensor(shape: [1], values: [0]))
        try builder.append(kind: .convolution(large), inputs: [0], source: LayerSource(file: "t", section: "[convolutional]"))
        let network = Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst, layers: builder.layers, outputs: [],
            epsilonConvention: .darknet)
        let input = ModelInput(values: [100, 90, 80, 70], origin: "test")
        // The engine computed in float32: exact values, 1e5 and more, past float16's range.
        let engine = [1: [100_000, 90_000, 80_000, 70_000] as [Float]]
        var options = Verifier.Options(engineOutputs: "engine")
        options.float16 = true
        let report = try Verifier.verifyEngineOutputs(original: network, engineOutputs: engine, input: input, options: options)
        let hazards = try XCTUnwrap(report.float16Hazards)
        XCTAssertEqual(hazards.first { $0.kind == .activationOverflow }?.layer, 1, report.text())
        XCTAssertEqual(hazards.first { $0.kind == .activationOverflow }?.magnitude, 100_000)
        XCTAssertEqual(hazards.first { $0.kind == .weightSubnormal }?.layer, 0)
        if let cause = report.float16FailureCause, !cause.isEmpty {
            XCTAssertEqual(cause.first?.kind, .activationOverflow, report.text())
        }
    }
}
