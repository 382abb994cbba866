@testable import FoldKit
import XCTest

/// The default per-layer tolerance of `verify`, recomputed by hand from the documented formula
/// (Sources/FoldKit/Verify/ToleranceBudget.swift, Docs/Verify.md):
///
///     local(layer)  = 16 * u * sqrt(K)            u = 2^-24 (float32) or 2^-11 (float16), plus 16 * 2^-11 with float16 storage
///     budget(layer) = max over inputs budget(input) + local(layer)   (the network input has budget 0)
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
            .convolution(Convolution(inputChannels: i, outputChannels: o, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1), groups: groups,
                                     weights: WeightTensor(shape: [o, i / groups, 3, 3], values: S.seeded(o * i / groups * 9)), bias: S.tensor(S.seeded(o))))
        }
        return try S.network(input: ActivationShape(channels: 3, height: 8, width: 8)) { b in
            let c0 = try b.append(kind: conv(3, 4, groups: 1), inputs: [Network.inputIndex], source: S.source)
            let p1 = try b.append(kind: .pooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [c0], source: S.source)
            let p2 = try b.append(kind: .pooling(Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [c0], source: S.source)
            let s3 = try b.append(kind: .sum(ElementwiseSum()), inputs: [p1, p2], source: S.source)
            let c4 = try b.append(kind: conv(4, 4, groups: 2), inputs: [s3], source: S.source)
            let g5 = try b.append(kind: .globalAveragePool, inputs: [c4], source: S.source)
            let f6 = try b.append(kind: .fullyConnected(FullyConnected(inputCount: 4, outputCount: 3, weights: WeightTensor(shape: [3, 4], values: S.seeded(12)),
                                                                         bias: nil)), inputs: [g5], source: S.source)
            try b.append(kind: .softmax(.flattened(groups: 1)), inputs: [f6], source: S.source)
            try b.append(kind: .activation(.leaky(slope: 0.1)), inputs: [f6], source: S.source)
        }
    }

    func testAccumulationLengths() throws {
        let net = try network()
        XCTAssertEqual(net.layers.map { ToleranceBudget.accumulationLength($0, network: net) }, [27, 1, 4, 2, 18, 16, 4, 3, 1])
    }

    func testFloat32BudgetsFollowTheGraph() throws {
        let u = 0x1.0p-24
        func local(_ k: Double) -> Double { 16 * u * k.squareRoot() }
        let b0 = local(27)
        let b1 = b0 + local(1)
        let b2 = b0 + local(4)
        let b3 = max(b1, b2) + local(2)   // the larger of the two inputs' budgets carries through
        let b4 = b3 + local(18)
        let b5 = b4 + local(16)
        let b6 = b5 + local(4)
        let b7 = b6 + local(3)
        let b8 = b6 + local(1)            // reads layer 6, not 7
        let expected = [b0, b1, b2, b3, b4, b5, b6, b7, b8]
        let found = ToleranceBudget.relativeBudgets(for: try network(), float16: false)
        XCTAssertEqual(found.count, expected.count)
        for (i, (f, e)) in zip(found, expected).enumerated() {
            XCTAssertEqual(f, e, accuracy: 1e-12 * e, "layer \(i)")
        }
        // Spot value written out: 16 * 2^-24 * sqrt(27) = 4.95544e-6.
        XCTAssertEqual(found[0], 4.95544e-6, accuracy: 1e-10)
    }

    func testFloat16BudgetsAddStorageRounding() throws {
        let u = 0x1.0p-11
        func local(_ k: Double) -> Double { 16 * u * k.squareRoot() + 16 * u }
        let b0 = local(27), b1 = b0 + local(1), b2 = b0 + local(4), b3 = max(b1, b2) + local(2)
        let b4 = b3 + local(18), b5 = b4 + local(16), b6 = b5 + local(4)
        let expected = [b0, b1, b2, b3, b4, b5, b6, b6 + local(3), b6 + local(1)]
        let found = ToleranceBudget.relativeBudgets(for: try network(), float16: true)
        XCTAssertEqual(found.count, expected.count)
        for (i, (f, e)) in zip(found, expected).enumerated() {
            XCTAssertEqual(f, e, accuracy: 1e-12 * e, "layer \(i)")
        }
        // 16 * 2^-11 * (sqrt(27) + 1) = 0.0484074
        XCTAssertEqual(found[0], 0.0484074, accuracy: 1e-7)
    }
}
