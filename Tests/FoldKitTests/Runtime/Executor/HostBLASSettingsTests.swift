import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// A program that links FoldKit keeps its own BLAS settings: running a network changes no OpenBLAS thread
/// count, whichever `ProductThreading` the executor uses.
final class HostBLASSettingsTests: XCTestCase {
    func testForwardPassesLeaveOpenBLASThreadsAsTheHostSetThem() throws {
        guard let found = OpenBLASThreads.count else { throw XCTSkip("OpenBLAS only (Accelerate keeps its own threading)") }
        defer { OpenBLASThreads.setCount(found) }
        // Convolutions on the pointwise, im2col and Winograd paths and a connected layer: every product kind.
        let input = ActivationShape(channels: 16, height: 20, width: 20)
        let network = try RuntimeTestSupport.network(input: input) { builder in
            let source = RuntimeTestSupport.source
            func conv(_ i: Int, _ o: Int, _ k: Int) -> LayerKind {
                .convolution(
                    Convolution(
                        inputChannels: i, outputChannels: o, kernelHeight: k, kernelWidth: k,
                        padding: k == 3 ? Padding2D(top: 1, left: 1, bottom: 1, right: 1) : .zero,
                        weights: WeightTensor(shape: [o, i, k, k], values: RuntimeTestSupport.seeded(o * i * k * k)), bias: nil))
            }
            try builder.append(kind: conv(16, 32, 3), inputs: [Network.inputIndex], source: source)
            try builder.append(kind: conv(32, 16, 1), inputs: [0], source: source)
            try builder.append(kind: conv(16, 8, 5), inputs: [1], source: source)
            let flat = 8 * 16 * 16
            try builder.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: flat, outputCount: 10, weights: WeightTensor(shape: [10, flat], values: RuntimeTestSupport.seeded(10 * flat)),
                        bias: nil)),
                inputs: [2], source: source)
        }
        let values = RuntimeTestSupport.seeded(input.count)
        for host in [3, 1] {
            OpenBLASThreads.setCount(host)
            for threading in ProductThreading.allCases {
                _ = try Executor<Float>(network: network, options: ExecutorOptions(productThreading: threading)).run(input: values)
                _ = try Executor<Double>(network: network, options: ExecutorOptions(productThreading: threading)).run(input: values.map(Double.init))
                XCTAssertEqual(OpenBLASThreads.count, host, "a forward pass with \(threading) products changed OpenBLAS's threads")
            }
        }
    }
}
