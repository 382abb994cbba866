import XCTest

@testable import FoldKit

/// The analytic parts of verify's per-layer tolerance, recomputed by hand from the documented formula
/// (Sources/FoldKitVerify/ToleranceBudget.swift, Docs/Verify.md "Tolerance"):
///
///     floor(layer) = 16 * u * sqrt(K) * max|ref|   (float32, u = 2^-24);  16 * 2^-11 * max|ref| (float16 storage)
///     carried(layer) = gain * (largest or sum of the inputs' allowances) + floor, for layers with gain <= 1
final class ToleranceBudgetTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// input 3x8x8
    /// 0 conv 3->4 3x3 pad 1           K = 3*3*3 = 27
    /// 1 maxpool 2/2 (of 0)            K = 1
    /// 2 avgpool 2/2 (of 0)            K = 2*2 = 4
    /// 3 shortcut [1, 2]               K = 2 inputs
    /// 4 conv 4->4 3x3 groups 2 (of 3) K = 2*3*3 = 18
    /// 5 global average pool (of 4)    K = 4*4 = 16 (input plane)
    /// 6 connected 4->3                K = 4
    /// 7 softmax                       K = 3 elements
    /// 8 leaky (of 6)                  K = 1
    private func network() throws -> Network {
        func conv(_ i: Int, _ o: Int, groups: Int) -> LayerKind {
            .convolution(
                Convolution(
                    inputChannels: i, outputChannels: o, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1), groups: groups,
                    weights: WeightTensor(shape: [o, i / groups, 3, 3], values: S.seeded(o * i / groups * 9)), bias: S.tensor(S.seeded(o))))
        }
        return try S.network(input: ActivationShape(channels: 3, height: 8, width: 8)) { b in
            let c0 = try b.append(kind: conv(3, 4, groups: 1), inputs: [Network.inputIndex], source: S.source)
            let p1 = try b.append(
                kind: .pooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [c0], source: S.source)
            let p2 = try b.append(
                kind: .pooling(Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [c0], source: S.source)
            let s3 = try b.append(kind: .sum(ElementwiseSum()), inputs: [p1, p2], source: S.source)
            let c4 = try b.append(kind: conv(4, 4, groups: 2), inputs: [s3], source: S.source)
            let g5 = try b.append(kind: .globalAveragePool, inputs: [c4], source: S.source)
            let f6 = try b.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: 4, outputCount: 3, weights: WeightTensor(shape: [3, 4], values: S.seeded(12)),
                        bias: nil)), inputs: [g5], source: S.source)
            try b.append(kind: .softmax(.flattened(groups: 1)), inputs: [f6], source: S.source)
            try b.append(kind: .activation(.leaky(slope: 0.1)), inputs: [f6], source: S.source)
        }
    }

    func testAccumulationLengths() throws {
        let net = try network()
        XCTAssertEqual(net.layers.map { ToleranceBudget.accumulationLength($0, network: net) }, [27, 1, 4, 2, 18, 16, 4, 3, 1])
    }

    /// floor(layer) = 16 * u * sqrt(K) in float32 (u = 2^-24), 16 * 2^-11 with float16 storage.
    func testFloorCoefficients() throws {
        let net = try network()
        let k: [Double] = [27, 1, 4, 2, 18, 16, 4, 3, 1]
        for (i, layer) in net.layers.enumerated() {
            XCTAssertEqual(
                ToleranceBudget.floorCoefficient(layer, network: net, precision: .float32), 16 * 0x1.0p-24 * k[i].squareRoot(),
                accuracy: 1e-15, "layer \(i)")
            XCTAssertEqual(ToleranceBudget.floorCoefficient(layer, network: net, precision: .float16Storage), 16 * 0x1.0p-11, "layer \(i)")
        }
        // Spot value written out: 16 * 2^-24 * sqrt(27) = 4.95544e-6.
        XCTAssertEqual(ToleranceBudget.floorCoefficient(net.layers[0], network: net, precision: .float32), 4.95544e-6, accuracy: 1e-10)
    }

    /// Which layers carry their inputs' allowances (cannot grow an absolute error) and how they combine.
    func testCarryGains() throws {
        let net = try network()
        let gains = net.layers.map { ToleranceBudget.carryGain($0).map { "\($0.gain) \($0.combination)" } ?? "none" }
        // conv, maxpool, avgpool, shortcut (sum of inputs), grouped conv, global average pool, connected,
        // softmax (Jacobian max-norm <= 1/2), leaky 0.1 (slopes 1 and 0.1).
        XCTAssertEqual(gains, ["none", "1.0 largest", "1.0 largest", "1.0 sum", "none", "1.0 largest", "none", "0.5 largest", "1.0 largest"])
    }

    /// sup |f'| per activation: at most 1 carries, more than 1 (swish, mish, gelu, selu, leaky slope > 1) does not.
    func testLipschitzBounds() {
        XCTAssertEqual(ToleranceBudget.lipschitzBound(.relu6), 1)
        XCTAssertEqual(ToleranceBudget.lipschitzBound(.logistic), 0.25)
        XCTAssertEqual(ToleranceBudget.lipschitzBound(.tanh), 1)
        XCTAssertEqual(ToleranceBudget.lipschitzBound(.leaky(slope: 0.1)), 1)
        XCTAssertNil(ToleranceBudget.lipschitzBound(.leaky(slope: 1.5)))
        XCTAssertNil(ToleranceBudget.lipschitzBound(.mish))
        XCTAssertNil(ToleranceBudget.lipschitzBound(.swish))
    }

    /// input 4x3x3
    /// 0 deconv 4->2 3x3 stride 2 (of input)   K = 4 * ceil(3/2) * ceil(3/2) = 16, carries nothing
    /// 1 deconv 4->2 4x2 stride (1, 3)         K = 4 * 4 * 1 = 16
    /// 2.. merges of the input and a layer norm of it, a channel window, bilinear upsampling by 2 (scale 1 and 2)
    func testNewKindsLengthsAndGains() throws {
        func deconv(_ kh: Int, _ kw: Int, _ sy: Int, _ sx: Int) -> LayerKind {
            .transposedConvolution(
                TransposedConvolution(
                    weights: WeightTensor(shape: [2, 4, kh, kw], values: S.seeded(8 * kh * kw)), bias: nil, outputChannels: 2, inputChannels: 4,
                    kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx, offsetY: 0, offsetX: 0, outputHeight: 5, outputWidth: 5,
                    activation: .linear))
        }
        let net = try S.network(input: ActivationShape(channels: 4, height: 3, width: 3)) { b in
            try b.append(kind: deconv(3, 3, 2, 2), inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: deconv(4, 2, 1, 3), inputs: [Network.inputIndex], source: S.source)
            let norm = try b.append(
                kind: .layerNormalization(LayerNormalization(gamma: nil, beta: nil, epsilon: 1e-3)), inputs: [Network.inputIndex], source: S.source)
            for operation in MergeOperation.allCases {
                let inputs = operation == .subtract || operation == .divide ? [Network.inputIndex, norm] : [Network.inputIndex, norm, norm]
                try b.append(kind: .merge(ElementwiseMerge(operation)), inputs: inputs, source: S.source)
            }
            try b.append(kind: .channelRange(ChannelRange(offset: -1, channels: 3)), inputs: [Network.inputIndex], source: S.source)
            try b.append(
                kind: .upsample(Upsample(strideY: 2, strideX: 2, interpolation: .bilinear)), inputs: [Network.inputIndex], source: S.source)
            try b.append(
                kind: .upsample(Upsample(strideY: 2, strideX: 2, scale: 2, interpolation: .bilinear)), inputs: [Network.inputIndex],
                source: S.source)
        }
        // deconvs, layer norm (4 channels), add (3 inputs), subtract (2), multiply, divide, average (3),
        // maximum, minimum, channel window, upsamplings.
        XCTAssertEqual(
            net.layers.map { ToleranceBudget.accumulationLength($0, network: net) }, [16, 16, 4, 3, 2, 1, 1, 3, 1, 1, 1, 1, 1])
        let gains = net.layers.map { ToleranceBudget.carryGain($0).map { "\($0.gain) \($0.combination)" } ?? "none" }
        XCTAssertEqual(
            gains,
            [
                "none", "none", "none", "1.0 sum", "1.0 sum", "none", "none", "1.0 largest", "1.0 largest", "1.0 largest", "1.0 largest",
                "1.0 largest", "none",
            ])
    }

    /// A group normalization sums each group's n * H * W values into its mean and variance: 8 channels in 4
    /// groups over 3 x 5 positions is 2 * 15 = 30 terms, in 1 group 120; its gain is not bounded (none).
    func testGroupNormalizationLengthIsAGroupsValues() throws {
        let net = try S.network(input: ActivationShape(channels: 8, height: 3, width: 5)) { b in
            for groups in [4, 1, 8] {
                try b.append(
                    kind: .groupNormalization(GroupNormalization(groups: groups, gamma: nil, beta: nil, epsilon: 1e-3)), inputs: [Network.inputIndex],
                    source: S.source)
            }
        }
        XCTAssertEqual(net.layers.map { ToleranceBudget.accumulationLength($0, network: net) }, [30, 120, 15])
        XCTAssertEqual(net.layers.map { ToleranceBudget.carryGain($0).map { "\($0.gain)" } ?? "none" }, ["none", "none", "none"])
    }

    func testControlFactors() {
        XCTAssertEqual(ToleranceBudget.controlFactor(.float32), 8)
        XCTAssertEqual(ToleranceBudget.controlFactor(.float16Storage), 16)
    }

    /// Folded boxes with float16 storage may lose 16 times the control's IoU shortfall, never more than
    /// the fixed minimum demands; in float32 (no finite control) the fixed minimum stands.
    func testMinimumBoxIoU() {
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 1, precision: .float16Storage), 0.99)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 0.9999, precision: .float16Storage), 0.99)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 0.99, precision: .float16Storage), 0.84, accuracy: 1e-5)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 0.9, precision: .float16Storage), 0)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: .nan, precision: .float16Storage), 0.99)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 0.99, precision: .float32), 0.92, accuracy: 1e-5)
        XCTAssertEqual(ToleranceBudget.minimumBoxIoU(fixed: 0.99, controlSmallestIoU: 0.99999, precision: .float32), 0.99)
    }
}
