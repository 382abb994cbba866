import FoldKitCore
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitTFLite

/// The .tflite files `TFLiteExporter` writes for single operations, decoded by flatc with LiteRT's own schema
/// (Fixtures/litert/schema.fbs): the operators, their options and versions, tensor shapes, the constants'
/// buffers (offset and size, after the FlatBuffer) holding the weights in LiteRT's layouts, float16 weights
/// behind DEQUANTIZE, the metadata entry, and refusals by name. Numbers computed by LiteRT on exported models
/// are checked by the engine tests (Fixtures/engines/engine_check.py --engines litert, `EngineCheckTests`).
final class TFLiteExporterTests: XCTestCase {
    private let source = LayerSource(file: "test.cfg", section: "[test]")
    private let schema = TestData.fixture("litert/schema.fbs")

    /// A network of one layer of `kind` on a C x H x W input.
    private func network(_ kind: LayerKind, input: ActivationShape = ActivationShape(channels: 4, height: 5, width: 6)) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        let index = try builder.append(kind: kind, inputs: [Network.inputIndex], source: source)
        return Network(
            format: .darknet, sourceFiles: ["test.cfg"], inputShape: input, inputOrder: .channelsFirst, layers: builder.layers, outputs: [index],
            epsilonConvention: .darknet)
    }

    /// Writes `network` and returns the file's bytes and flatc's JSON of it.
    private func export(_ network: Network, options: TFLiteExportOptions = .init()) throws -> (bytes: [UInt8], json: [String: Any]) {
        let dir = try TestData.temporaryDirectory("foldkit-tflite")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("model.tflite")
        let summary = try TFLiteExporter.write(
            network: network, outputs: [(name: "out", layer: network.layers.count - 1)], options: options,
            metadata: [(name: "foldkit", bytes: Array(#"{"foldkit.layers": 1}"#.utf8))], description: "test", to: url)
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(summary.bytes, bytes.count)
        return (bytes, try FlatcDecoder.decode(bytes, schema: schema))
    }

    private func graph(_ json: [String: Any]) throws -> [String: Any] {
        try XCTUnwrap((json["subgraphs"] as? [[String: Any]])?.first)
    }

    /// The builtin names of the operators, in order.
    private func operators(_ json: [String: Any]) throws -> [String] {
        let codes = try XCTUnwrap(json["operator_codes"] as? [[String: Any]]).map { $0["builtin_code"] as? String ?? "?" }
        return try XCTUnwrap(graph(json)["operators"] as? [[String: Any]]).map { codes[$0["opcode_index"] as? Int ?? 0] }
    }

    private func tensors(_ json: [String: Any]) throws -> [[String: Any]] { try XCTUnwrap(graph(json)["tensors"] as? [[String: Any]]) }

    /// The float32 values of constant tensor `tensor` read from the file at its buffer's offset.
    private func floats(_ bytes: [UInt8], _ json: [String: Any], tensor: [String: Any]) throws -> [Float] {
        let buffers = try XCTUnwrap(json["buffers"] as? [[String: Any]])
        let buffer = buffers[try XCTUnwrap(tensor["buffer"] as? Int)]
        let offset = try XCTUnwrap((buffer["offset"] as? NSNumber)?.intValue), size = try XCTUnwrap((buffer["size"] as? NSNumber)?.intValue)
        XCTAssertEqual(offset % 16, 0, "constants start at multiples of 16 bytes")
        return stride(from: offset, to: offset + size, by: 4).map { i in
            Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
        }
    }

    private func conv(groups: Int = 1, outputs: Int = 3, activation: Activation = .linear, padding: Padding2D = .uniform(1)) -> Convolution {
        let perGroup = 4 / groups
        return Convolution(
            inputChannels: 4, outputChannels: outputs, kernelHeight: 3, kernelWidth: 2, padding: padding, groups: groups,
            weights: WeightTensor(shape: [outputs, perGroup, 3, 2], values: (0..<(outputs * perGroup * 6)).map(Float.init)),
            bias: WeightTensor(shape: [outputs], values: (0..<outputs).map { Float($0) + 0.5 }), activation: activation)
    }

    func testConvolutionIsPadThenConv2DWithOHWIWeightsAndReluFused() throws {
        let (bytes, json) = try export(try network(.convolution(conv(activation: .relu))))
        XCTAssertEqual(json["version"] as? Int, 3)
        XCTAssertEqual(try operators(json), ["PAD", "CONV_2D"])
        let graph = try graph(json)
        let tensors = try tensors(json)
        XCTAssertEqual(tensors[0]["name"] as? String, "input")
        XCTAssertEqual(tensors[0]["shape"] as? [Int], [1, 5, 6, 4], "NHWC input")
        let conv = try XCTUnwrap((graph["operators"] as? [[String: Any]])?.last)
        let options = try XCTUnwrap(conv["builtin_options"] as? [String: Any])
        XCTAssertEqual(conv["builtin_options_type"] as? String, "Conv2DOptions")
        XCTAssertEqual(options["padding"] as? String, "VALID")
        XCTAssertEqual(options["fused_activation_function"] as? String, "RELU")
        let inputs = try XCTUnwrap(conv["inputs"] as? [Int])
        XCTAssertEqual(tensors[inputs[1]]["shape"] as? [Int], [3, 3, 2, 4], "OHWI")
        let w = try floats(bytes, json, tensor: tensors[inputs[1]])
        // OHWI [o][y][x][i] = OIHW value o*24 + i*6 + y*2 + x.
        for (o, y, x, i) in [(0, 0, 0, 1), (2, 1, 1, 3), (1, 2, 0, 2)] {
            XCTAssertEqual(w[((o * 3 + y) * 2 + x) * 4 + i], Float(o * 24 + i * 6 + y * 2 + x), "w[\(o)][\(y)][\(x)][\(i)]")
        }
        XCTAssertEqual(try floats(bytes, json, tensor: tensors[inputs[2]]), [0.5, 1.5, 2.5])
        let output = try XCTUnwrap((graph["outputs"] as? [Int])?.first)
        XCTAssertEqual(tensors[output]["name"] as? String, "out")
        XCTAssertEqual(tensors[output]["shape"] as? [Int], [1, 5, 7, 3])
        let metadata = try XCTUnwrap(json["metadata"] as? [[String: Any]])
        XCTAssertEqual(metadata.first?["name"] as? String, "foldkit")
        let buffers = try XCTUnwrap(json["buffers"] as? [[String: Any]])
        let text = try XCTUnwrap(buffers[try XCTUnwrap(metadata.first?["buffer"] as? Int)]["data"] as? [Int])
        XCTAssertEqual(String(decoding: text.map { UInt8($0) }, as: UTF8.self), #"{"foldkit.layers": 1}"#)
    }

    /// darknet's pad = k/2 at stride 1 is LiteRT's SAME padding exactly: no PAD. At stride 2 on an even input
    /// darknet pads one row before, SAME none: PAD, then VALID.
    func testSamePaddingIsUsedWhereItIsExactlyTheLayersPadding() throws {
        func padding(stride: Int) throws -> (operators: [String], padding: String?) {
            let c = Convolution(
                inputChannels: 4, outputChannels: 2, kernelHeight: 3, kernelWidth: 3, strideY: stride, strideX: stride, padding: .uniform(1),
                weights: WeightTensor(shape: [2, 4, 3, 3], values: [Float](repeating: 0.5, count: 72)), bias: nil)
            let json = try export(try network(.convolution(c), input: ActivationShape(channels: 4, height: 6, width: 6))).json
            let conv = try XCTUnwrap((try graph(json)["operators"] as? [[String: Any]])?.last)
            return (try operators(json), (conv["builtin_options"] as? [String: Any])?["padding"] as? String)
        }
        let one = try padding(stride: 1), two = try padding(stride: 2)
        XCTAssertEqual(one.operators, ["CONV_2D"])
        XCTAssertEqual(one.padding, "SAME")
        XCTAssertEqual(two.operators, ["PAD", "CONV_2D"])
        XCTAssertEqual(two.padding, "VALID")
    }

    func testDepthwiseConvolutionHasWeightsOneHWOAndItsMultiplier() throws {
        let (bytes, json) = try export(try network(.convolution(conv(groups: 4, outputs: 8, activation: .relu6, padding: .zero))))
        XCTAssertEqual(try operators(json), ["DEPTHWISE_CONV_2D"])
        let op = try XCTUnwrap((try graph(json)["operators"] as? [[String: Any]])?.first)
        let options = try XCTUnwrap(op["builtin_options"] as? [String: Any])
        XCTAssertEqual(options["depth_multiplier"] as? Int, 2)
        XCTAssertEqual(options["fused_activation_function"] as? String, "RELU6")
        let tensors = try tensors(json)
        let weights = tensors[try XCTUnwrap((op["inputs"] as? [Int])?[1])]
        XCTAssertEqual(weights["shape"] as? [Int], [1, 3, 2, 8])
        let w = try floats(bytes, json, tensor: weights)
        // [0][y][x][o] = OIHW value o*6 + y*2 + x.
        XCTAssertEqual(w[(2 * 2 + 1) * 8 + 5], Float(5 * 6 + 2 * 2 + 1))
    }

    /// Weights of at least 128 values are float16 behind a DEQUANTIZE (version 3, LiteRT's float16 input);
    /// the bias of 6 values stays float32, its DEQUANTIZE costing more bytes than half precision saves.
    func testFloat16WeightsAreHalfConstantsBehindDequantize() throws {
        let (bytes, json) = try export(
            try network(.convolution(conv(outputs: 6, padding: .zero))), options: TFLiteExportOptions(weightType: .float16))
        XCTAssertEqual(try operators(json), ["DEQUANTIZE", "CONV_2D"])
        let codes = try XCTUnwrap(json["operator_codes"] as? [[String: Any]])
        XCTAssertEqual(codes.first { $0["builtin_code"] as? String == "DEQUANTIZE" }?["version"] as? Int, 3, "DEQUANTIZE of float16 is version 3")
        let tensors = try tensors(json)
        let half = try XCTUnwrap(tensors.first { $0["type"] as? String == "FLOAT16" })
        XCTAssertEqual(half["shape"] as? [Int], [6, 3, 2, 4])
        let buffers = try XCTUnwrap(json["buffers"] as? [[String: Any]])
        let buffer = buffers[try XCTUnwrap(half["buffer"] as? Int)]
        let offset = try XCTUnwrap((buffer["offset"] as? NSNumber)?.intValue)
        XCTAssertEqual((buffer["size"] as? NSNumber)?.intValue, 144 * 2)
        // OHWI [1][0][1][2] = OIHW value 1*24 + 2*6 + 0*2 + 1 = 37, as binary16 0x50A0.
        let i = offset + 2 * (((1 * 3 + 0) * 2 + 1) * 4 + 2)
        XCTAssertEqual(UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8, 0x50A0)
        let bias = try XCTUnwrap(tensors.first { ($0["shape"] as? [Int]) == [6] })
        XCTAssertEqual(bias["type"] as? String, "FLOAT32")
        XCTAssertEqual(try floats(bytes, json, tensor: bias), [0.5, 1.5, 2.5, 3.5, 4.5, 5.5])
    }

    func testAWeightPastFloat16sRangeIsRefusedNamingTheLayer() throws {
        var c = conv(outputs: 6, padding: .zero)
        c.weights = WeightTensor(shape: [6, 4, 3, 2], values: [Float](repeating: 1, count: 143) + [70_000])
        XCTAssertThrowsError(try export(try network(.convolution(c)), options: TFLiteExportOptions(weightType: .float16))) { error in
            XCTAssertTrue("\(error)".contains("[test]") && "\(error)".contains("65504"), "\(error)")
        }
    }

    func testUnfoldedBatchNormAndEmptyPoolWindowsAreRefusedByName() throws {
        var c = conv()
        c.batchNorm = BatchNorm(
            gamma: WeightTensor(shape: [3], values: [1, 1, 1]), beta: WeightTensor(shape: [3], values: [0, 0, 0]),
            mean: WeightTensor(shape: [3], values: [0, 0, 0]), variance: WeightTensor(shape: [3], values: [1, 1, 1]), convention: .darknet)
        XCTAssertThrowsError(try TFLiteExporter.lower(network: try network(.convolution(c)), outputs: [("out", 0)], options: .init())) { error in
            XCTAssertTrue("\(error)".contains("no exact LiteRT lowering") && "\(error)".contains("[test]"), "\(error)")
        }
        let pool = Pooling(
            kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1, padding: Padding2D(top: 2, left: 0, bottom: 0, right: 0))
        XCTAssertThrowsError(try TFLiteExporter.lower(network: try network(.pooling(pool)), outputs: [("out", 0)], options: .init())) { error in
            XCTAssertTrue("\(error)".contains("wholly in the padding"), "\(error)")
        }
    }

    /// A darknet max pool of size 2147483647 (any 32-bit size is a valid cfg value) pads its input by 2^31 - 2:
    /// the padded tensor's side is past what LiteRT's int32 shapes hold, so the layer is refused by name, not
    /// written wrong or crashed on.
    func testSizesPastInt32AreRefusedByName() throws {
        let size = Int(Int32.max), before = (size - 1) / 2
        let pool = Pooling(
            kind: .max, kernelHeight: size, kernelWidth: size, strideY: 2, strideX: 2,
            padding: Padding2D(top: before, left: before, bottom: size - 1 - before, right: size - 1 - before))
        XCTAssertThrowsError(try TFLiteExporter.lower(network: try network(.pooling(pool)), outputs: [("out", 0)], options: .init())) { error in
            XCTAssertTrue("\(error)".contains("32-bit integers") && "\(error)".contains("[test]"), "\(error)")
        }
    }

    func testNearestUpsampleIsResizeWhereLiteRTsIndexIsDarknetsElseABroadcast() throws {
        XCTAssertTrue(TFLiteNearestIndex.matchesDarknet(extent: 13, stride: 2))
        XCTAssertTrue(TFLiteNearestIndex.matchesDarknet(extent: 4, stride: 3))
        XCTAssertFalse(TFLiteNearestIndex.matchesDarknet(extent: 4, stride: 41), "4 / 164 rounds below 1/41 in float32")
        let resized = try export(try network(.upsample(Upsample(strideY: 3, strideX: 3)), input: ActivationShape(channels: 2, height: 4, width: 4)))
        XCTAssertEqual(try operators(resized.json), ["RESIZE_NEAREST_NEIGHBOR"])
        let spread = try export(try network(.upsample(Upsample(strideY: 41, strideX: 41)), input: ActivationShape(channels: 2, height: 4, width: 4)))
        XCTAssertEqual(try operators(spread.json), ["RESHAPE", "BROADCAST_TO", "RESHAPE"])
        let codes = try XCTUnwrap(spread.json["operator_codes"] as? [[String: Any]])
        XCTAssertEqual(codes.first { $0["builtin_code"] as? String == "BROADCAST_TO" }?["version"] as? Int, 2, "LiteRT registers BROADCAST_TO from 2")
    }

    /// An average pool leaving darknet's padding out of the divisor, with pads other than SAME's ([local_avgpool]
    /// size 2, padding 1 on each side): the zero-padded average times k² / the window's inside positions.
    func testAveragePoolingWithoutThePaddingInTheCountIsRescaledByTheInsidePositions() throws {
        let pool = Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1, padding: .uniform(1))
        let (bytes, json) = try export(try network(.pooling(pool), input: ActivationShape(channels: 2, height: 3, width: 3)))
        XCTAssertEqual(try operators(json), ["PAD", "AVERAGE_POOL_2D", "MUL"])
        let tensors = try tensors(json)
        let scale = try XCTUnwrap(tensors.first { ($0["shape"] as? [Int]) == [1, 4, 4, 1] })
        // Corners see one input position, edges two, the middle four: 4/1, 4/2, 4/4.
        XCTAssertEqual(try floats(bytes, json, tensor: scale), [4, 2, 2, 4, 2, 1, 1, 2, 2, 1, 1, 2, 4, 2, 2, 4])
    }

    func testPermutedMovesAxesAsTranspose() {
        // [2, 3] -> [3, 2].
        XCTAssertEqual(TFLiteGraphBuilder.permuted([0, 1, 2, 3, 4, 5], from: [2, 3], order: [1, 0]), [0, 3, 1, 4, 2, 5])
        // [2, 1, 2, 2] (OIHW) -> [1, 2, 2, 2] (1HWO).
        XCTAssertEqual(TFLiteGraphBuilder.permuted((0..<8).map(Float.init), from: [2, 1, 2, 2], order: [1, 2, 3, 0]), [0, 4, 1, 5, 2, 6, 3, 7])
    }

    /// Group normalization on the NHWC tensor, every tensor of rank 4 (version 1 of every operator): 4 channels
    /// in 2 groups over 5 x 6 is RESHAPE to [1, 30, 2, 2], MEAN over axes 1 and 3 to [1, 1, 2, 1], SUB, MUL,
    /// MEAN, ADD epsilon, SQRT, DIV, RESHAPE back to [1, 5, 6, 4], then gamma (MUL) and beta (ADD).
    func testGroupNormalizationIsComposedOnTheGroupedTensor() throws {
        let gamma = WeightTensor(shape: [4], values: [1, 2, 3, 4]), beta = WeightTensor(shape: [4], values: [0.5, 0, -0.5, 1])
        let (bytes, json) = try export(try network(.groupNormalization(GroupNormalization(groups: 2, gamma: gamma, beta: beta, epsilon: 1e-3))))
        XCTAssertEqual(try operators(json), ["RESHAPE", "MEAN", "SUB", "MUL", "MEAN", "ADD", "SQRT", "DIV", "RESHAPE", "MUL", "ADD"])
        let codes = try XCTUnwrap(json["operator_codes"] as? [[String: Any]])
        XCTAssertEqual(Set(codes.map { $0["version"] as? Int ?? 1 }), [1])
        let tensors = try tensors(json)
        let ops = try XCTUnwrap(try graph(json)["operators"] as? [[String: Any]])
        func outputShape(_ i: Int) -> [Int]? { (ops[i]["outputs"] as? [Int]).flatMap { tensors[$0[0]]["shape"] as? [Int] } }
        XCTAssertEqual(outputShape(0), [1, 30, 2, 2])
        XCTAssertEqual(outputShape(1), [1, 1, 2, 1])
        XCTAssertEqual(outputShape(8), [1, 5, 6, 4])
        XCTAssertTrue(tensors.allSatisfy { ($0["shape"] as? [Int])?.count ?? 0 <= 4 }, "no tensor past rank 4")
        let axes = try XCTUnwrap((ops[1]["inputs"] as? [Int])?.last)
        XCTAssertEqual(tensors[axes]["shape"] as? [Int], [2])
        let scale = try XCTUnwrap((ops[9]["inputs"] as? [Int])?.last)
        XCTAssertEqual(try floats(bytes, json, tensor: tensors[scale]), [1, 2, 3, 4])
        let shift = try XCTUnwrap((ops[10]["inputs"] as? [Int])?.last)
        XCTAssertEqual(try floats(bytes, json, tensor: tensors[shift]), [0.5, 0, -0.5, 1])
    }
}
