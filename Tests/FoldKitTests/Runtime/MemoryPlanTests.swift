import FoldKitTestSupport
import XCTest

@testable import FoldKit

/// A pass's peak memory, worked out by hand for small networks: the input, the outputs still to be
/// read, the network's outputs, the layer's own output and scratch, and the parameters it holds.
final class MemoryPlanTests: XCTestCase {
    private let source = LayerSource(file: "t", section: "test")

    func testChainReleasesWhatNoLaterLayerReads() throws {
        // input 2x4x4 (32) -> 1x1 conv to 3 channels (48, 6 weights + 3 bias) -> relu (48) -> global avg (3).
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 2, height: 4, width: 4))
        let conv = Convolution(
            inputChannels: 2, outputChannels: 3, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [3, 2, 1, 1], values: [Float](repeating: 1, count: 6)), bias: WeightTensor(shape: [3], values: [0, 0, 0]))
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: source)
        try builder.append(kind: .activation(.relu), inputs: [0], source: source)
        try builder.append(kind: .globalAveragePool, inputs: [1], source: source)
        let network = Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst, layers: builder.layers,
            outputs: [2], epsilonConvention: .darknet)
        // Peaks: conv 32 + 48 (pointwise: no scratch) = 80; relu 32 + 48 + 48 = 128; then conv's output is
        // released: 32 + 48 + 3 = 83. Largest 128 values, plus 9 parameters held by a prepared pass.
        XCTAssertEqual(MemoryPlan.passBytes(network, Double.self, options: ExecutorOptions()), (128 + 9) * 8)
        XCTAssertEqual(MemoryPlan.passBytes(network, Float.self, options: ExecutorOptions()), (128 + 9) * 4)
        // Streaming parameters holds one layer's (the conv's 9).
        XCTAssertEqual(MemoryPlan.passBytes(network, Double.self, options: ExecutorOptions(streamParameters: true)), (128 + 9) * 8)
    }

    func testIm2ColScratchCounts() throws {
        // input 1x5x5 -> 3x3 conv, pad 1, 1 filter: im2col columns 9 x 25 = 225 values beside input 25 and output 25.
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 1, height: 5, width: 5))
        let conv = Convolution(
            inputChannels: 1, outputChannels: 1, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .uniform(1),
            weights: WeightTensor(shape: [1, 1, 3, 3], values: [Float](repeating: 1, count: 9)), bias: nil)
        try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: source)
        let network = Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst, layers: builder.layers,
            outputs: [0], epsilonConvention: .darknet)
        // Stride 2: output 1x3x3 = 9, columns 9 x 9 = 81.
        XCTAssertEqual(MemoryPlan.passBytes(network, Float.self, options: ExecutorOptions()), (25 + 9 + 81 + 9) * 4)
    }

    func testByteSuffixes() {
        XCTAssertEqual(MemoryPlan.gigabytes(2_147_483_648), "2.1 GB")
        XCTAssertEqual(MemoryPlan.gigabytes(512_000_000), "512 MB")
    }
}
