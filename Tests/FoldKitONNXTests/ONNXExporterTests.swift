import FoldKitCore
import FoldKitONNXProto
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitONNX

/// The onnx graphs `ONNXExporter` writes for single operations: which operators, with which attributes, and
/// the file read back by swift-protobuf's own parser. Numbers computed by engines on these graphs are
/// checked by the engine tests (Fixtures/engines/engine_check.py, `EngineCheckTests`).
final class ONNXExporterTests: XCTestCase {
    private let source = LayerSource(file: "test.cfg", section: "[test]")

    /// A network of one layer of `kind` on a C x H x W input.
    private func network(_ kind: LayerKind, input: ActivationShape = ActivationShape(channels: 8, height: 6, width: 6)) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        let index = try builder.append(kind: kind, inputs: [Network.inputIndex], source: source)
        return Network(
            format: .darknet, sourceFiles: ["test.cfg"], inputShape: input, inputOrder: .channelsFirst, layers: builder.layers, outputs: [index],
            epsilonConvention: .darknet)
    }

    private func model(_ network: Network, options: ONNXExportOptions = .init()) throws -> (Onnx_ModelProto, [ONNXInitializer]) {
        let last = network.layers.count - 1
        let shape = network.layers[last].outputShape
        return try ONNXExporter.model(
            network: network, outputs: [ONNXGraphOutput(name: "out", layer: last, shape: [1, shape.channels, shape.height, shape.width])],
            metadata: ["k": "v"], producerVersion: "test", options: options)
    }

    private func operators(_ model: Onnx_ModelProto) -> [String] { model.graph.node.map(\.opType) }

    private func attribute(_ node: Onnx_NodeProto, _ name: String) -> Onnx_AttributeProto? { node.attribute.first { $0.name == name } }

    func testUpsampleAtStrideThreeIsNearestAsymmetricFloor() throws {
        let (model, initializers) = try self.model(try network(.upsample(Upsample(strideY: 3, strideX: 3))))
        let resize = try XCTUnwrap(model.graph.node.first { $0.opType == "Resize" })
        XCTAssertEqual(attribute(resize, "mode").map { String(decoding: $0.s, as: UTF8.self) }, "nearest")
        XCTAssertEqual(attribute(resize, "coordinate_transformation_mode").map { String(decoding: $0.s, as: UTF8.self) }, "asymmetric")
        XCTAssertEqual(attribute(resize, "nearest_mode").map { String(decoding: $0.s, as: UTF8.self) }, "floor")
        let scales = try XCTUnwrap(initializers.first { $0.name == resize.input[2] })
        XCTAssertEqual(scales.dataType, 1, "Resize's scales are float32 whatever the model's type")
        guard case .floats(let read) = scales.payload else { return XCTFail("scales are floats") }
        XCTAssertEqual(try read(), [1, 1, 3, 3])
        XCTAssertEqual(resize.input[1], "", "no roi")
    }

    func testDarknetReorgIsReshapeAndTransposeNotSpaceToDepth() throws {
        let (model, _) = try self.model(try network(.reorg(Reorg(stride: 2, flavor: .darknetReorg))))
        XCTAssertEqual(operators(model), ["Reshape", "Transpose", "Reshape", "Identity"])
        let transpose = try XCTUnwrap(model.graph.node.first { $0.opType == "Transpose" })
        XCTAssertEqual(attribute(transpose, "perm")?.ints, [2, 4, 0, 1, 3])
    }

    func testMishIsComposedBelowOpsetEighteenAndAnOperatorFrom() throws {
        let net = try network(.activation(.mish))
        XCTAssertEqual(operators(try model(net, options: .init(opset: 17)).0), ["Softplus", "Tanh", "Mul", "Identity"])
        XCTAssertEqual(operators(try model(net, options: .init(opset: 18)).0), ["Mish", "Identity"])
        XCTAssertEqual(try model(net, options: .init(opset: 18)).0.opsetImport.first?.version, 18)
    }

    func testFloat16CastsAtBothEndsAndStoresHalfWeights() throws {
        let conv = Convolution(
            inputChannels: 8, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [2, 8, 1, 1], values: (0..<16).map(Float.init)),
            bias: WeightTensor(shape: [2], values: [0.5, -0.5]))
        let (model, initializers) = try self.model(try network(.convolution(conv)), options: .init(elementType: .float16))
        XCTAssertEqual(operators(model), ["Cast", "Conv", "Cast"])
        XCTAssertEqual(model.graph.input.first?.type.tensorType.elemType, 1, "the model's input stays float32")
        XCTAssertEqual(model.graph.output.first?.type.tensorType.elemType, 1, "the model's output stays float32")
        let weights = try XCTUnwrap(initializers.first { $0.dims == [2, 8, 1, 1] })
        let tensor = try ONNXModelFile.tensor(weights)
        XCTAssertEqual(tensor.dataType, 10)
        XCTAssertEqual(tensor.rawData.count, 32, "2 bytes a value")
        XCTAssertEqual(tensor.rawData.prefix(4), Data([0x00, 0x00, 0x00, 0x3C]), "0 and 1 as binary16, little-endian")
    }

    func testFloat16RefusesAWeightPastItsRangeNamingTheLayer() throws {
        let conv = Convolution(
            inputChannels: 8, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [1, 8, 1, 1], values: [1, 2, 3, 70000, 5, 6, 7, 8]), bias: nil)
        let net = try network(.convolution(conv))
        let url = try TestData.temporaryDirectory("onnx-fp16").appendingPathComponent("model.onnx")
        let outputs = [ONNXGraphOutput(name: "out", layer: 0, shape: [1, 1, 6, 6])]
        XCTAssertThrowsError(
            try ONNXExporter.write(
                network: net, outputs: outputs, metadata: [:], producerVersion: "t", options: .init(elementType: .float16), to: url)
        ) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("layer 0 [test]") && text.contains("65504") && text.contains("70000"), text)
        }
    }

    func testAnAverageWindowNoLargerThanItsPaddingIsRefusedByName() throws {
        let pool = Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1, padding: .uniform(2))
        XCTAssertThrowsError(try model(try network(.pooling(pool)))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("no exact ONNX lowering") && text.contains("layer 0 [test]"), text)
        }
    }

    func testAMaxWindowNoLargerThanItsPaddingIsPaddedWithMinusInfinity() throws {
        let pool = Pooling(
            kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2, padding: Padding2D(top: 0, left: 0, bottom: 2, right: 2))
        let (model, initializers) = try self.model(try network(.pooling(pool)))
        XCTAssertEqual(operators(model), ["Pad", "MaxPool", "Identity"])
        let value = try XCTUnwrap(initializers.first { $0.name == model.graph.node[0].input[2] })
        guard case .floats(let read) = value.payload else { return XCTFail("pad value is a float") }
        XCTAssertEqual(try read(), [-.infinity])
    }

    func testOpsetsOutsideTheLoweredRangeAreRefused() throws {
        let net = try network(.activation(.relu))
        XCTAssertThrowsError(try model(net, options: .init(opset: 12)))
        XCTAssertThrowsError(try model(net, options: .init(opset: 24)))
    }

    func testStreamedFileParsesAsOneModelWithEveryInitializerInOrder() throws {
        let conv = Convolution(
            inputChannels: 8, outputChannels: 3, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [3, 8, 3, 3], values: (0..<216).map { Float($0) / 7 }), bias: WeightTensor(shape: [3], values: [1, 2, 3]),
            activation: .leaky(slope: 0.1))
        let net = try network(.convolution(conv))
        let url = try TestData.temporaryDirectory("onnx-stream").appendingPathComponent("model.onnx")
        let outputs = [ONNXGraphOutput(name: "out", layer: 0, shape: [1, 3, 6, 6])]
        let summary = try ONNXExporter.write(
            network: net, outputs: outputs, metadata: ["foldkit.test": "1"], producerVersion: "t", options: .init(), to: url)
        let data = try Data(contentsOf: url)
        XCTAssertEqual(summary.bytes, data.count)
        let parsed = try Onnx_ModelProto(serializedBytes: data)
        XCTAssertEqual(parsed.graph.node.map(\.opType), ["Conv", "LeakyRelu", "Identity"])
        XCTAssertEqual(parsed.graph.initializer.map(\.dims), [[3, 8, 3, 3], [3]])
        let weights = parsed.graph.initializer[0].rawData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        XCTAssertEqual(weights, (0..<216).map { Float($0) / 7 })
        XCTAssertEqual(parsed.metadataProps.map(\.key), ["foldkit.test"])
        XCTAssertEqual(parsed.producerName, "foldkit")
        XCTAssertEqual(parsed.irVersion, 8)
        let conv0 = parsed.graph.node[0]
        XCTAssertEqual(attribute(conv0, "pads")?.ints, [1, 1, 1, 1])
    }

    func testAShortcutAcrossChannelCountsSlicesAndPads() throws {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 8, height: 4, width: 4))
        let narrow = try builder.append(kind: .channelRange(ChannelRange(offset: 0, channels: 4)), inputs: [Network.inputIndex], source: source)
        let sum = try builder.append(kind: .sum(ElementwiseSum()), inputs: [Network.inputIndex, narrow], source: source)
        let net = Network(
            format: .darknet, sourceFiles: ["t.cfg"], inputShape: builder.inputShape, inputOrder: .channelsFirst, layers: builder.layers,
            outputs: [sum], epsilonConvention: .darknet)
        let (model, _) = try self.model(net)
        // channel window: Slice; shortcut: the 4-channel input padded with zeros to 8 channels, then Add.
        XCTAssertEqual(operators(model), ["Slice", "Pad", "Add", "Identity"])
    }

    /// Group normalization is written out on [1, G, C/G * H * W] at every opset, onnx's GroupNormalization
    /// (opset 18, its scale per group until 21) never: 8 channels in 4 groups over 6 x 6 is [1, 4, 72];
    /// ReduceMean over axis 2 (an attribute up to opset 17, an input from 18), Reshape back, gamma Mul
    /// [1, 8, 1, 1], no Add without a beta.
    func testGroupNormalizationIsWrittenOutOnTheGroupedTensor() throws {
        let gamma = WeightTensor(shape: [8], values: (0..<8).map { Float($0) / 4 + 0.5 })
        let net = try network(.groupNormalization(GroupNormalization(groups: 4, gamma: gamma, beta: nil, epsilon: 1e-3)))
        for opset in [13, 17, 18, 21] {
            let (model, initializers) = try self.model(net, options: .init(opset: opset))
            XCTAssertEqual(
                operators(model), ["Reshape", "ReduceMean", "Sub", "Mul", "ReduceMean", "Add", "Sqrt", "Div", "Reshape", "Mul", "Identity"],
                "opset \(opset)")
            func int64s(_ name: String) throws -> [Int64] {
                let initializer = try XCTUnwrap(initializers.first { $0.name == name }, name)
                guard case .int64s(let values) = initializer.payload else {
                    XCTFail("\(name) is not int64")
                    return []
                }
                return values
            }
            let reshapes = model.graph.node.filter { $0.opType == "Reshape" }
            XCTAssertEqual(try int64s(reshapes[0].input[1]), [1, 4, 72], "opset \(opset)")
            XCTAssertEqual(try int64s(reshapes[1].input[1]), [1, 8, 6, 6], "opset \(opset)")
            let mean = try XCTUnwrap(model.graph.node.first { $0.opType == "ReduceMean" })
            if opset >= 18 {
                XCTAssertEqual(try int64s(mean.input[1]), [2])
            } else {
                XCTAssertEqual(attribute(mean, "axes")?.ints, [2])
            }
            XCTAssertEqual(attribute(mean, "keepdims")?.i, 1)
            let scale = try XCTUnwrap(model.graph.node.last { $0.opType == "Mul" })
            XCTAssertEqual(initializers.first { $0.name == scale.input[1] }?.dims, [1, 8, 1, 1])
        }
    }
}
