import XCTest

@testable import FoldKit

/// Which stand-alone batch norms `BatchNormAttachment` attaches, on small hand-built networks in
/// both layer-naming conventions (Keras names: the BN layer goes; Darknet indices: it stays as an alias).
final class BatchNormAttachmentTests: XCTestCase {
    private static let input = ActivationShape(channels: 2, height: 3, width: 3)

    private func tensor(_ values: [Float]) -> WeightTensor { WeightTensor(shape: [values.count], values: values) }

    private var batchNorm: BatchNorm {
        BatchNorm(
            gamma: tensor([2, 0.5]), beta: tensor([0.25, -1]), mean: tensor([1, -2]), variance: tensor([4, 0.25]),
            convention: EpsilonConvention(epsilon: 1e-3, placement: .insideSqrt))
    }

    private func convolution(_ activation: Activation = .linear, batchNorm: BatchNorm? = nil) -> LayerKind {
        .convolution(
            Convolution(
                inputChannels: 2, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
                weights: WeightTensor(shape: [2, 2, 1, 1], values: [1, -0.5, 0.25, 2]), bias: tensor([0.1, -0.2]),
                batchNorm: batchNorm, activation: activation))
    }

    /// Layers named like the format names them; `layers` are (name, section, kind, inputs).
    private func network(
        _ format: Network.SourceFormat, outputs: [Int] = [], input: ActivationShape = input,
        _ layers: [(String, String, LayerKind, [Int])]
    ) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        for (name, section, kind, inputs) in layers {
            try builder.append(name: format == .darknet ? nil : name, kind: kind, inputs: inputs, source: LayerSource(file: "test", section: section))
        }
        return Network(
            format: format, sourceFiles: ["test"], inputShape: input, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: outputs, epsilonConvention: .darknet,
            layerIdentity: format == .darknet ? .index : .name, vectorsAreRank2: format == .keras)
    }

    /// conv (linear) -> bn -> relu.
    private func convBatchNormRelu(_ format: Network.SourceFormat, convActivation: Activation = .linear, outputs: [Int] = []) throws -> Network {
        try network(
            format, outputs: outputs,
            [
                ("conv", "Conv2D", convolution(convActivation), [Network.inputIndex]),
                ("bn", "BatchNormalization", .batchNorm(batchNorm), [0]),
                ("relu", "Activation", .activation(.relu), [1]),
            ])
    }

    private func attachedBatchNorm(_ kind: LayerKind) -> BatchNorm? {
        switch kind {
        case .convolution(let c): return c.batchNorm
        case .fullyConnected(let f): return f.batchNorm
        default: return nil
        }
    }

    func testKerasBatchNormAfterLinearConvolutionAttachesAndItsLayerGoes() throws {
        let net = try convBatchNormRelu(.keras, outputs: [2])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [.init(batchNorm: 1, producer: 0)])
        let attached = BatchNormAttachment.apply(to: net)
        XCTAssertEqual(attached.layers.map(\.name), ["conv", "relu"])
        XCTAssertEqual(attached.layers.map(\.index), [0, 1])
        XCTAssertEqual(attached.layers[0].source.section, "Conv2D+BatchNormalization")
        XCTAssertEqual(attachedBatchNorm(attached.layers[0].kind)?.mean.count, 2)
        XCTAssertEqual(attached.layers[1].inputs, [0])
        XCTAssertEqual(attached.outputs, [1])
    }

    func testKerasOutputOnTheBatchNormMovesToItsProducer() throws {
        let net = try network(
            .keras, outputs: [1, 2],
            [
                ("conv", "Conv2D", convolution(), [Network.inputIndex]),
                ("bn", "BatchNormalization", .batchNorm(batchNorm), [0]),
                ("pool", "GlobalAveragePooling2D", .globalAveragePool, [Network.inputIndex]),
            ])
        let attached = BatchNormAttachment.apply(to: net)
        XCTAssertEqual(attached.layers.map(\.name), ["conv", "pool"])
        XCTAssertEqual(attached.outputs, [0, 1])
    }

    func testDarknetBatchNormStaysInPlaceAsAnAliasSoIndicesKeepTheirMeaning() throws {
        let net = try convBatchNormRelu(.darknet)
        let attached = BatchNormAttachment.apply(to: net)
        XCTAssertEqual(attached.layers.map(\.name), ["0", "1", "2"])
        XCTAssertEqual(attached.layers.map(\.inputs), [[Network.inputIndex], [0], [1]])
        XCTAssertNotNil(attachedBatchNorm(attached.layers[0].kind))
        guard case .identity(let reason) = attached.layers[1].kind else { return XCTFail("layer 1 should be an alias: \(attached.layers[1].kind)") }
        XCTAssertEqual(reason, BatchNormAttachment.aliasReason)
        XCTAssertEqual(attached.layers[1].outputShape, net.layers[1].outputShape)
    }

    func testAttachingKeepsWhatTheNetworkComputes() throws {
        let values: [Float] = (0..<18).map { Float($0 % 7) * 0.3 - 0.9 }
        for format in [Network.SourceFormat.keras, .darknet] {
            let net = try convBatchNormRelu(format)
            let before = try Executor<Double>(network: net).run(input: values.map(Double.init)).last ?? []
            let after = try Executor<Double>(network: BatchNormAttachment.apply(to: net)).run(input: values.map(Double.init)).last ?? []
            XCTAssertEqual(before.count, 18)
            XCTAssertEqual(after.count, before.count, "\(format)")
            for (a, b) in zip(before, after) { XCTAssertEqual(a, b, accuracy: 1e-12, "\(format)") }
        }
    }

    func testFullyConnectedProducerAttaches() throws {
        let fc = FullyConnected(inputCount: 3, outputCount: 2, weights: WeightTensor(shape: [2, 3], values: [1, 2, 3, 4, 5, 6]), bias: nil)
        let net = try network(
            .keras, input: .vector(3),
            [
                ("dense", "Dense", .fullyConnected(fc), [Network.inputIndex]),
                ("bn", "BatchNormalization", .batchNorm(batchNorm), [0]),
                ("relu", "Activation", .activation(.relu), [1]),
            ])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [.init(batchNorm: 1, producer: 0)])
        XCTAssertEqual(BatchNormAttachment.apply(to: net).layers[0].source.section, "Dense+BatchNormalization")
    }

    func testNonlinearProducerDoesNotAttach() throws {
        for format in [Network.SourceFormat.keras, .darknet] {
            let net = try convBatchNormRelu(format, convActivation: .relu)
            XCTAssertEqual(BatchNormAttachment.attachments(in: net), [], "\(format)")
            XCTAssertEqual(BatchNormAttachment.apply(to: net).layers.count, 3)
        }
    }

    func testProducerWithASecondConsumerDoesNotAttach() throws {
        let net = try network(
            .keras,
            [
                ("conv", "Conv2D", convolution(), [Network.inputIndex]),
                ("bn", "BatchNormalization", .batchNorm(batchNorm), [0]),
                ("add", "Add", .sum(ElementwiseSum()), [0, 1]),
            ])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [])
    }

    func testProducerThatIsANetworkOutputDoesNotAttach() throws {
        let net = try convBatchNormRelu(.keras, outputs: [0, 2])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [])
        XCTAssertEqual(BatchNormAttachment.apply(to: net).layers.map(\.name), ["conv", "bn", "relu"])
    }

    func testProducerThatIsNotConvolutionOrFullyConnectedDoesNotAttach() throws {
        let net = try network(
            .keras,
            [
                (
                    "pool", "MaxPooling2D", .pooling(Pooling(kind: .max, kernelHeight: 1, kernelWidth: 1, strideY: 1, strideX: 1)),
                    [Network.inputIndex]
                ),
                ("bn", "BatchNormalization", .batchNorm(batchNorm), [0]),
            ])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [])
    }

    func testProducerThatAlreadyHasABatchNormDoesNotAttachASecond() throws {
        let net = try network(
            .darknet,
            [
                ("conv", "[convolutional]", convolution(batchNorm: batchNorm), [Network.inputIndex]),
                ("bn", "[batchnorm]", .batchNorm(batchNorm), [0]),
            ])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [])
    }

    func testBatchNormReadingTheNetworkInputStaysStandalone() throws {
        let net = try network(.keras, [("bn", "BatchNormalization", .batchNorm(batchNorm), [Network.inputIndex])])
        XCTAssertEqual(BatchNormAttachment.attachments(in: net), [])
    }
}
