@testable import FoldKitCore
import Foundation
import XCTest

final class TensorRoleTests: XCTestCase {
    /// The manifest's role strings (Docs/BlobFormat.md, "manifest.json") are the JSON of the roles.
    func testEncodesAsTheManifestStrings() throws {
        let roles: [TensorRole] = [.weights, .bias, .scale, .shift, .alpha, .gamma, .beta, .mean, .variance]
        let json = String(decoding: try JSONEncoder().encode(roles), as: UTF8.self)
        XCTAssertEqual(json, #"["weights","bias","scale","shift","alpha","bn_gamma","bn_beta","bn_mean","bn_variance"]"#)
        XCTAssertEqual(try JSONDecoder().decode([TensorRole].self, from: Data(json.utf8)), roles)
        XCTAssertThrowsError(try JSONDecoder().decode([TensorRole].self, from: Data(#"["kernel"]"#.utf8)))
    }

    func testLayerParametersCarryTheirRoles() {
        let bn = BatchNorm(gamma: nil, beta: WeightTensor(shape: [1], values: [0]), mean: WeightTensor(shape: [1], values: [0]),
                           variance: WeightTensor(shape: [1], values: [1]), convention: .darknet)
        let conv = Convolution(inputChannels: 1, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
                               weights: WeightTensor(shape: [1, 1, 1, 1], values: [1]), bias: nil, batchNorm: bn)
        XCTAssertEqual(LayerKind.convolution(conv).parameters.map(\.role), [.weights, .beta, .mean, .variance])
    }
}
