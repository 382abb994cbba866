import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `share_index` (TridentNet, resnet152_trident.cfg): a [convolutional] computing with an earlier one's
/// weights, biases and batch norm under its own dilation, with nothing of its own in the weights file.
final class SharedConvolutionTests: XCTestCase {
    private let cfg = """
        [net]
        width=9
        height=9
        channels=3

        [convolutional]
        batch_normalize=1
        filters=3
        size=3
        pad=1
        activation=leaky

        [convolutional]
        share_index=0
        dilation=2
        batch_normalize=1
        filters=3
        size=3
        pad=1
        activation=linear

        [shortcut]
        from=-2
        activation=linear
        """

    func testSharedLayerReadsTheSameTensorsAndComputesWithItsOwnDilation() throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cfgPath = directory.appendingPathComponent("t.cfg").path, weightsPath = directory.appendingPathComponent("t.weights").path
        try cfg.write(toFile: cfgPath, atomically: true, encoding: .utf8)
        try DarknetSeededWeights.write(cfgPath: cfgPath, seed: 3, generator: .wide, to: weightsPath)
        // One layer's tensors: 20-byte header, biases, scales, mean, variance (3 each) and 3*3*3*3 weights.
        let size = try FileManager.default.attributesOfItem(atPath: weightsPath)[.size] as? Int
        XCTAssertEqual(size, 20 + 4 * (4 * 3 + 3 * 3 * 3 * 3))
        let network = try DarknetReader.read(cfgPath: cfgPath, weightsPath: weightsPath)
        guard case .convolution(let first) = network.layers[0].kind, case .convolution(let shared) = network.layers[1].kind else {
            return XCTFail("layers 0 and 1 are convolutions")
        }
        XCTAssertEqual(try shared.weights.floats(), try first.weights.floats())
        XCTAssertEqual(try shared.batchNorm?.gamma?.floats(), try first.batchNorm?.gamma?.floats())
        XCTAssertEqual(shared.dilationY, 2)
        XCTAssertEqual(first.dilationY, 1)
        XCTAssertEqual(shared.activation, .linear)
        // Dilation 2 reads other pixels than dilation 1 would with the same weights: the shared layer's
        // output differs from the same convolution without its own dilation. The fold verifies in both
        // precisions.
        let input = ModelInput(values: (0..<network.inputShape.count).map { Float($0 % 11) / 11 }, origin: "test")
        let outputs = try Executor<Double>(network: network).run(input: input.values.map(Double.init), retention: .all)
        XCTAssertEqual(network.layers[1].outputShape, network.layers[0].outputShape)
        var undilated = network
        var plain = shared
        (plain.dilationY, plain.dilationX, plain.padding) = (1, 1, first.padding)
        undilated.layers[1].kind = .convolution(plain)
        let undilatedOutputs = try Executor<Double>(network: undilated).run(input: input.values.map(Double.init), retention: .all)
        XCTAssertNotEqual(outputs[1], undilatedOutputs[1])
        let report = try Verifier.verify(
            original: network, folded: FoldBatchNorm.apply(to: network), input: input, options: .init(float16: true))
        XCTAssertTrue(report.passed, report.text())
    }
}
