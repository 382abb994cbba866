import FoldKitCore
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitNCNN

/// The param files and weight buffers `NCNNExporter` writes for single operations: which ncnn layers, with
/// which params, Splits where a blob is read twice, floats ncnn's parser reads back exactly, and the storage
/// flags of model.bin. Numbers computed by ncnn on these models are checked by the engine tests
/// (Fixtures/engines/engine_check.py --engines ncnn, `EngineCheckTests`).
final class NCNNExporterTests: XCTestCase {
    private let source = LayerSource(file: "test.cfg", section: "[test]")

    /// A network of one layer of `kind` on a C x H x W input.
    private func network(_ kind: LayerKind, input: ActivationShape = ActivationShape(channels: 8, height: 6, width: 6)) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        let index = try builder.append(kind: kind, inputs: [Network.inputIndex], source: source)
        return Network(
            format: .darknet, sourceFiles: ["test.cfg"], inputShape: input, inputOrder: .channelsFirst, layers: builder.layers, outputs: [index],
            epsilonConvention: .darknet)
    }

    private func layers(_ network: Network, options: NCNNExportOptions = .init()) throws -> [NCNNLayer] {
        try NCNNExporter.lower(network: network, outputs: [(name: "out", layer: network.layers.count - 1)], options: options)
    }

    private func types(_ layers: [NCNNLayer]) -> [String] { layers.map(\.type) }

    private func param(_ layer: NCNNLayer, _ id: Int) -> NCNNParam? { layer.params.first { $0.id == id }?.value }

    private func conv(outputs: Int = 2, activation: Activation = .linear) -> Convolution {
        Convolution(
            inputChannels: 8, outputChannels: outputs, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [outputs, 8, 1, 1], values: (0..<(outputs * 8)).map(Float.init)),
            bias: WeightTensor(shape: [outputs], values: (0..<outputs).map { Float($0) + 0.5 }), activation: activation)
    }

    func testParamFileHasTheMagicTheCountsAndOneLineALayer() throws {
        let layers = try self.layers(try network(.convolution(conv(activation: .leaky(slope: 0.1)))))
        XCTAssertEqual(types(layers), ["Input", "Convolution"])
        let lines = try NCNNParamFile.text(layers).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "7767517")
        XCTAssertEqual(lines[1], "2 2", "two layers, two blobs")
        let input = lines[2].split(separator: " ", omittingEmptySubsequences: true)
        XCTAssertEqual(Array(input), ["Input", "input", "0", "1", "input", "0=6", "1=6", "2=8"])
        let convolution = lines[3].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        XCTAssertEqual(Array(convolution.prefix(6)), ["Convolution", "out", "1", "1", "input", "out"], "the output blob is named as asked")
        XCTAssertTrue(
            convolution.contains("0=2") && convolution.contains("1=1") && convolution.contains("5=1") && convolution.contains("6=16"),
            "\(convolution)")
        XCTAssertFalse(
            convolution.contains { $0.hasPrefix("11=") || $0.hasPrefix("3=") || $0.hasPrefix("4=") }, "ncnn's defaults left out: \(convolution)")
        XCTAssertTrue(convolution.contains("9=2") && convolution.contains("-23310=1,0.1"), "leaky fused with its slope: \(convolution)")
    }

    func testABlobReadTwiceGetsASplit() throws {
        // gelu's composition reads x five times ((x*x)*x: three, x*0.797885, x*0.5).
        let layers = try self.layers(try network(.activation(.gelu)))
        let split = try XCTUnwrap(layers.first { $0.type == "Split" })
        XCTAssertEqual(split.bottoms, ["input"])
        XCTAssertEqual(split.tops.count, 5)
        var readers: [String: Int] = [:]
        for layer in layers { for bottom in layer.bottoms { readers[bottom, default: 0] += 1 } }
        XCTAssertEqual(readers.values.max(), 1, "every blob read once: \(readers)")
        let text = try NCNNParamFile.text(layers)
        let blobs = Set(layers.flatMap(\.tops))
        XCTAssertTrue(text.hasPrefix("7767517\n\(layers.count) \(blobs.count)\n"))
    }

    func testFloatsAreWrittenSoNCNNsParserReadsThemBack() throws {
        var generator = SplitMix64(seed: 7)
        var values: [Float] = [
            0.1, 2.5, -1.6732632, 1.0507009, 0.797885, 0.035677, 1e-5, 65504, 6, 0, -0.0, .leastNormalMagnitude, .greatestFiniteMagnitude,
        ]
        for _ in 0..<20_000 {
            values.append(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
        }
        for v in values where v.isFinite {
            let text = try NCNNParamFile.format(v, layer: "test")
            XCTAssertLessThanOrEqual(text.count, 15, text)
            XCTAssertTrue(text.contains(".") || text.contains("e"), "ncnn reads a float only with a point or an exponent: \(text)")
            XCTAssertEqual(NCNNParamFile.parse(text)?.bitPattern, v.bitPattern, "\(v) as \(text)")
        }
        XCTAssertEqual(try NCNNParamFile.format(0.1, layer: "test"), "0.1")
        XCTAssertThrowsError(try NCNNParamFile.format(.infinity, layer: "test"))
    }

    func testUpsampleHasItsRealStrideAndFallsBackWhereFloatRoundingWouldPickAnotherRow() throws {
        let three = try layers(try network(.upsample(Upsample(strideY: 3, strideX: 3, scale: 0.5))))
        XCTAssertEqual(types(three), ["Input", "Interp", "BinaryOp"])
        let interp = three[1]
        guard case .int(1) = param(interp, 0), case .float(3) = param(interp, 1), case .float(3) = param(interp, 2) else {
            return XCTFail("nearest, scales 3: \(interp.params)")
        }
        XCTAssertTrue(NCNNNearestIndex.matchesDarknet(extent: 608, stride: 2))
        XCTAssertFalse(NCNNNearestIndex.matchesDarknet(extent: 13, stride: 41), "1.f/41 in float32 picks row k-1 for some row 41k")
        let wide = try layers(try network(.upsample(Upsample(strideY: 41, strideX: 41)), input: ActivationShape(channels: 2, height: 13, width: 13)))
        XCTAssertEqual(types(wide), ["Input", "DeconvolutionDepthWise"])
    }

    func testDarknetReorgIsReshapeReorgModeOneReshape() throws {
        let layers = try self.layers(try network(.reorg(Reorg(stride: 2, flavor: .darknetReorg))))
        XCTAssertEqual(types(layers), ["Input", "Reshape", "Reorg", "Reshape"])
        guard case .int(12) = param(layers[1], 0), case .int(12) = param(layers[1], 1), case .int(2) = param(layers[1], 2) else {
            return XCTFail("read as 2 x 12 x 12: \(layers[1].params)")
        }
        guard case .int(1) = param(layers[2], 1) else { return XCTFail("space to depth is mode 1: \(layers[2].params)") }
        let threeD = try self.layers(try network(.reorg(Reorg(stride: 2, flavor: .darknetReorg3d))))
        XCTAssertEqual(types(threeD), ["Input", "Reorg"])
    }

    func testFloat16WeightsCarryTheHalfTagAndArePaddedToFourBytes() throws {
        let weight = NCNNWeight(storage: .flagged, count: 3, hint: "W", layer: nil, file: nil) { [0, 1, -2] }
        let half = try NCNNModelBin.bytes(weight, weightType: .float16)
        XCTAssertEqual(half, Data([0x47, 0x6B, 0x30, 0x01, 0x00, 0x00, 0x00, 0x3C, 0x00, 0xC0, 0x00, 0x00]))
        let single = try NCNNModelBin.bytes(weight, weightType: .float32)
        XCTAssertEqual(single.prefix(4), Data([0, 0, 0, 0]), "flag 0 before float32 values")
        XCTAssertEqual(single.count, 16)
        let bias = NCNNWeight(storage: .raw, count: 1, hint: "B", layer: nil, file: nil) { [1] }
        XCTAssertEqual(try NCNNModelBin.bytes(bias, weightType: .float16), Data([0x00, 0x00, 0x80, 0x3F]), "a raw buffer is float32, no flag")
        let large = NCNNWeight(storage: .flagged, count: 1, hint: "W", layer: "layer 0 [convolutional]", file: nil) { [70000] }
        XCTAssertThrowsError(try NCNNModelBin.bytes(large, weightType: .float16)) { error in
            XCTAssertTrue("\(error)".contains("layer 0 [convolutional]"), "\(error)")
        }
    }

    func testRefusalsNameTheLayerAndTheReason() throws {
        let negative = try network(.activation(.clippedRelu(maxValue: 6, negativeSlope: -0.1, threshold: 0)))
        XCTAssertThrowsError(try layers(negative)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("no exact ncnn lowering") && text.contains("negative slope") && text.contains("[test]"), text)
        }
        let padded = Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1, padding: .uniform(2))
        XCTAssertThrowsError(try layers(try network(.pooling(padded)))) { error in
            XCTAssertTrue("\(error)".contains("wholly in the padding"), "\(error)")
        }
    }

    func testAHeadPassingItsInputThroughIsANoopAliasOfThatBlob() throws {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 8, height: 6, width: 6))
        let first = try builder.append(kind: .convolution(conv()), inputs: [Network.inputIndex], source: source)
        let head = try builder.append(kind: .identity(reason: "test"), inputs: [first], source: source)
        let net = Network(
            format: .darknet, sourceFiles: ["test.cfg"], inputShape: ActivationShape(channels: 8, height: 6, width: 6), inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [head], epsilonConvention: .darknet)
        let layers = try NCNNExporter.lower(network: net, outputs: [(name: "layer_001_raw", layer: head)], options: .init())
        XCTAssertEqual(types(layers), ["Input", "Convolution", "Noop"])
        XCTAssertEqual(layers[1].tops, ["layer_000"])
        XCTAssertEqual(layers[2].bottoms, ["layer_000"])
        XCTAssertEqual(layers[2].tops, ["layer_001_raw"])
    }

    /// Group normalization is written out on a G x C/G x (H * W) Mat, not as ncnn's GroupNorm: 8 channels in 2
    /// groups over 6 x 6 is Reshape w=36 h=4 c=2, Reduction mean over axes h and w (kept), sub, square, mean,
    /// + epsilon, sqrt, div, Reshape back to 6 x 6 x 8, then gamma and beta as C x 1 x 1 MemoryData; the
    /// grouped and the centred Mats, each read twice, get a Split.
    func testGroupNormalizationIsWrittenOutOnTheGroupedMat() throws {
        let gamma = WeightTensor(shape: [8], values: (0..<8).map { Float($0) + 1 }),
            beta = WeightTensor(shape: [8], values: [Float](repeating: 0.5, count: 8))
        let layers = try self.layers(try network(.groupNormalization(GroupNormalization(groups: 2, gamma: gamma, beta: beta, epsilon: 1e-5))))
        XCTAssertEqual(
            types(layers),
            [
                "Input", "Reshape", "Split", "Reduction", "BinaryOp", "Split", "BinaryOp", "Reduction", "BinaryOp", "UnaryOp", "BinaryOp", "Reshape",
                "MemoryData", "BinaryOp", "MemoryData", "BinaryOp",
            ])
        XCTAssertFalse(types(layers).contains("GroupNorm"))
        guard case .int(36) = param(layers[1], 0), case .int(4) = param(layers[1], 1), case .int(2) = param(layers[1], 2) else {
            return XCTFail("grouped as 2 x 4 x 36: \(layers[1].params)")
        }
        guard case .int(3) = param(layers[3], 0), case .ints([1, 2]) = param(layers[3], 3), case .int(1) = param(layers[3], 4) else {
            return XCTFail("a kept mean over h and w: \(layers[3].params)")
        }
        guard case .int(6) = param(layers[11], 0), case .int(6) = param(layers[11], 1), case .int(8) = param(layers[11], 2) else {
            return XCTFail("back to 8 x 6 x 6: \(layers[11].params)")
        }
        guard case .int(1) = param(layers[12], 0), case .int(1) = param(layers[12], 1), case .int(8) = param(layers[12], 2) else {
            return XCTFail("gamma is 8 x 1 x 1: \(layers[12].params)")
        }
    }
}
