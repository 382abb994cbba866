import Foundation
import XCTest

@testable import FoldKit

/// Softmax, shortcut sums (Darknet's shortcut_cpu written out here), products, affine maps, PReLU,
/// standalone batch norm and fully connected layers.
final class ArithmeticKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testSoftmaxFlattenedGroups() throws {
        let network = try S.single(.softmax(.flattened(groups: 2)), input: ActivationShape(channels: 2, height: 1, width: 2))
        let ln3 = Float(log(3.0))
        let out = try S.runDouble(network, input: [0, ln3, 1000, 1000])
        // exp(ln 3) is 3 up to the float32 rounding of ln 3
        let e = exp(Double(ln3))
        S.assertClose(out, [1 / (1 + e), e / (1 + e), 0.5, 0.5], tolerance: 1e-15)
        XCTAssertEqual(out[0], 0.25, accuracy: 1e-7)
    }

    func testSoftmaxPerPixelOverChannels() throws {
        // 2 channels x 1 x 2: pixel 0 has (0, ln 3), pixel 1 has (5, 5)
        let network = try S.single(.softmax(.perPixelChannels), input: ActivationShape(channels: 2, height: 1, width: 2))
        let out = try S.runDouble(network, input: [0, 5, Float(log(3.0)), 5])
        S.assertClose(out, [0.25, 0.5, 0.75, 0.5], tolerance: 1e-7)
    }

    /// darknet blas.c shortcut_cpu (batch 1): (w1, h1, c1) is the added layer, (w2, h2, c2) the output.
    static func shortcutCPU(w1: Int, h1: Int, c1: Int, add: [Double], w2: Int, h2: Int, c2: Int, out: inout [Double]) {
        var stride = w1 / w2, sample = w2 / w1
        if stride < 1 { stride = 1 }
        if sample < 1 { sample = 1 }
        let minw = min(w1, w2), minh = min(h1, h2), minc = min(c1, c2)
        for k in 0..<minc {
            for j in 0..<minh {
                for i in 0..<minw {
                    let outIndex = i * sample + w2 * (j * sample + h2 * k)
                    let addIndex = i * stride + w1 * (j * stride + h1 * k)
                    out[outIndex] += add[addIndex]
                }
            }
        }
    }

    func checkShortcut(first: ActivationShape, second: ActivationShape) throws {
        // The network input is the two tensors one after the other (a vector); two connected layers with
        // 0/1 weights select each part, reshapes give them their shapes, and the sum joins them.
        let a = S.seeded(first.count, seed: 1), b = S.seeded(second.count, seed: 2)
        let combined = try S.network(input: ActivationShape(channels: first.count + second.count, height: 1, width: 1)) { builder in
            let total = first.count + second.count
            func selector(offset: Int, count: Int) -> [Float] {
                var w = [Float](repeating: 0, count: count * total)
                for i in 0..<count { w[i * total + offset + i] = 1 }
                return w
            }
            let pa = try builder.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: total, outputCount: first.count,
                        weights: WeightTensor(shape: [first.count, total], values: selector(offset: 0, count: first.count)), bias: nil)),
                inputs: [Network.inputIndex], source: S.source)
            let pb = try builder.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: total, outputCount: second.count,
                        weights: WeightTensor(shape: [second.count, total], values: selector(offset: first.count, count: second.count)), bias: nil)),
                inputs: [Network.inputIndex], source: S.source)
            let ra = try builder.append(kind: .reshape(Reshape(target: first, order: .channelsFirst)), inputs: [pa], source: S.source)
            let rb = try builder.append(kind: .reshape(Reshape(target: second, order: .channelsFirst)), inputs: [pb], source: S.source)
            try builder.append(kind: .sum(ElementwiseSum(activation: .leaky(slope: 0.1))), inputs: [ra, rb], source: S.source)
        }
        let out = try S.runDouble(combined, input: a + b)
        var expected = a.map(Double.init)
        Self.shortcutCPU(
            w1: second.width, h1: second.height, c1: second.channels, add: b.map(Double.init),
            w2: first.width, h2: first.height, c2: first.channels, out: &expected)
        expected = expected.map { $0 > 0 ? $0 : Double(Float(0.1)) * $0 }
        XCTAssertEqual(combined.layers.last?.outputShape, first)
        S.assertClose(out, expected, tolerance: 1e-15)
    }

    func testShortcutSameShape() throws {
        try checkShortcut(first: ActivationShape(channels: 2, height: 3, width: 3), second: ActivationShape(channels: 2, height: 3, width: 3))
    }

    func testShortcutFewerAndMoreChannels() throws {
        try checkShortcut(first: ActivationShape(channels: 4, height: 2, width: 3), second: ActivationShape(channels: 2, height: 2, width: 3))
        try checkShortcut(first: ActivationShape(channels: 2, height: 2, width: 3), second: ActivationShape(channels: 5, height: 2, width: 3))
    }

    func testShortcutDifferentSpatialSizes() throws {
        try checkShortcut(first: ActivationShape(channels: 2, height: 2, width: 2), second: ActivationShape(channels: 3, height: 4, width: 4))
        try checkShortcut(first: ActivationShape(channels: 3, height: 4, width: 4), second: ActivationShape(channels: 2, height: 2, width: 2))
    }

    // Same-shape sums big enough to be split across cores (67 600 elements), with two and three inputs:
    // y = conv1x1(x) = 2x + 1 per channel, then x + y = 3x + 1 and x + y + x = 4x + 1 (exact in float64).
    func testLargeSameShapeSumsWithTwoAndThreeInputs() throws {
        let shape = ActivationShape(channels: 4, height: 130, width: 130)
        let x = S.seeded(shape.count, seed: 5)
        var diagonal = [Float](repeating: 0, count: 16)
        for c in 0..<4 { diagonal[c * 5] = 2 }
        let network = try S.network(input: shape, outputs: [1, 2]) { builder in
            let y = try builder.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 4, outputChannels: 4, kernelHeight: 1, kernelWidth: 1,
                        weights: WeightTensor(shape: [4, 4, 1, 1], values: diagonal), bias: S.tensor([1, 1, 1, 1]))),
                inputs: [Network.inputIndex], source: S.source)
            try builder.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [Network.inputIndex, y], source: S.source)
            try builder.append(
                kind: .sum(ElementwiseSum(activation: .linear)), inputs: [Network.inputIndex, y, Network.inputIndex], source: S.source)
        }
        let outputs = try Executor<Double>(network: network).run(input: x.map(Double.init))
        S.assertClose(outputs[1], x.map { 3 * Double($0) + 1 }, tolerance: 1e-12)
        S.assertClose(outputs[2], x.map { 4 * Double($0) + 1 }, tolerance: 1e-12)
    }

    func testShortcutByHand() throws {
        // out 1 x 2 x 2 = [1, 2, 3, 4]; add 1 x 1 x 1 = [10]: sample = 2, only out[0] gets it
        var out: [Double] = [1, 2, 3, 4]
        Self.shortcutCPU(w1: 1, h1: 1, c1: 1, add: [10], w2: 2, h2: 2, c2: 1, out: &out)
        XCTAssertEqual(out, [11, 2, 3, 4])
    }

    func testProductBroadcastsPerChannelScales() throws {
        let network = try S.network(input: ActivationShape(channels: 2, height: 1, width: 2)) { b in
            try b.append(kind: .globalMaxPool, inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .product, inputs: [Network.inputIndex, 0], source: S.source)
            try b.append(kind: .product, inputs: [0, Network.inputIndex], source: S.source)
            try b.append(kind: .product, inputs: [Network.inputIndex, Network.inputIndex], source: S.source)
        }
        let out = try Executor<Double>(network: network).run(input: [1, 2, -3, 4])
        XCTAssertEqual(out[0], [2, 4])
        XCTAssertEqual(out[1], [2, 4, -12, 16])
        XCTAssertEqual(out[2], [2, 4, -12, 16])
        XCTAssertEqual(out[3], [1, 4, 9, 16])
    }

    func testChannelAffineAndPReLU() throws {
        let shape = ActivationShape(channels: 2, height: 1, width: 2)
        let affine = try S.single(.channelAffine(ChannelAffine(scale: S.tensor([2, -1]), shift: S.tensor([1, 0.5]))), input: shape)
        XCTAssertEqual(try S.runDouble(affine, input: [1, -1, 2, 3]), [3, -1, -1.5, -2.5])
        let perChannel = try S.single(.prelu(alpha: S.tensor([0.5, 0.25])), input: shape)
        XCTAssertEqual(try S.runDouble(perChannel, input: [-2, 3, -4, 0]), [-1, 3, -1, 0])
        let perElement = try S.single(.prelu(alpha: WeightTensor(shape: [2, 1, 2], values: [1, 2, 3, 4])), input: shape)
        XCTAssertEqual(try S.runDouble(perElement, input: [-1, -1, -1, 5]), [-1, -2, -3, 5])
    }

    func testStandaloneBatchNormConventions() throws {
        func run(_ placement: EpsilonPlacement) throws -> [Double] {
            let bn = BatchNorm(
                gamma: S.tensor([2]), beta: S.tensor([1]), mean: S.tensor([0.5]), variance: S.tensor([4]),
                convention: EpsilonConvention(epsilon: 0.25, placement: placement))
            return try S.runDouble(try S.single(.batchNorm(bn), input: ActivationShape(channels: 1, height: 1, width: 2)), input: [0.5, 2.5])
        }
        // inside: 2 * (x - 0.5) / sqrt(4.25) + 1; outside: 2 * (x - 0.5) / 2.25 + 1
        S.assertClose(try run(.insideSqrt), [1, 1 + 4 / 4.25.squareRoot()], tolerance: 1e-15)
        S.assertClose(try run(.outsideSqrt), [1, 1 + 4 / 2.25], tolerance: 1e-15)
    }

    func testFullyConnectedWithBatchNormAndActivation() throws {
        let w: [Float] = [1, 2, 3, -1, -2, -3]
        let bn = BatchNorm(
            gamma: nil, beta: S.tensor([0, 1]), mean: S.tensor([1, 0]), variance: S.tensor([3, 0]),
            convention: EpsilonConvention(epsilon: 1, placement: .insideSqrt))
        let fc = FullyConnected(
            inputCount: 3, outputCount: 2, weights: WeightTensor(shape: [2, 3], values: w), bias: S.tensor([1, 1]),
            batchNorm: bn, activation: .relu)
        // input 3 x 1 x 1 = [1, 1, 1]: z = [7, -5]; bn: (7-1)/2 = 3, (-5-0)/1 + 1 = -4 -> relu [3, 0]
        XCTAssertEqual(try S.runDouble(try S.single(.fullyConnected(fc), input: .vector(3)), input: [1, 1, 1]), [3, 0])
    }
}
