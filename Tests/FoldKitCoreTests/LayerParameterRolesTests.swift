import XCTest

@testable import FoldKitCore

/// `LayerKind.parameters` names each tensor of a layer with its `TensorRole`.
final class LayerParameterRolesTests: XCTestCase {
    func testLayerParametersCarryTheirRoles() {
        let bn = BatchNorm(
            gamma: nil, beta: WeightTensor(shape: [1], values: [0]), mean: WeightTensor(shape: [1], values: [0]),
            variance: WeightTensor(shape: [1], values: [1]), convention: .darknet)
        let conv = Convolution(
            inputChannels: 1, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [1, 1, 1, 1], values: [1]), bias: nil, batchNorm: bn)
        XCTAssertEqual(LayerKind.convolution(conv).parameters.map(\.role), [.weights, .beta, .mean, .variance])
    }
}
