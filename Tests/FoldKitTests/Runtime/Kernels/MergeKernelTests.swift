import XCTest

@testable import FoldKit

/// Element-wise merges (`ElementwiseMerge`): every operation on equal shapes and with C x 1 x 1 and 1 x 1 x 1
/// inputs broadcast, values worked out by hand, in float64 and float32; left-to-right accumulation; and the
/// input counts and shapes shape inference refuses.
final class MergeKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// A (the input, 2 x 1 x 3) = [1, -2, 0.5 | 3, -0.25, 4]
    /// B = channel affine of A, scale [2, -1], shift [1, 0.5]  = [3, -3, 2 | -2.5, 0.75, -3.5]
    /// C = channel affine of A, scale [0.5, 3], shift [-1, 2]  = [-0.5, -2, -0.75 | 11, 1.25, 14]
    /// V = global max pool of A (2 x 1 x 1)                   = [1 | 4]
    /// P = connected 6 -> 1 of A, weights 0.5, bias 0.875      = 0.5 * 6.25 + 0.875 = [4] (1 x 1 x 1)
    let a: [Float] = [1, -2, 0.5, 3, -0.25, 4]
    let shape = ActivationShape(channels: 2, height: 1, width: 3)

    /// The network above followed by `merges` (each an operation and its inputs among a, b, c, v, p).
    private func network(_ merges: [(MergeOperation, [String])]) throws -> Network {
        try S.network(input: shape) { builder in
            let source = S.source
            let b = try builder.append(
                kind: .channelAffine(ChannelAffine(scale: S.tensor([2, -1]), shift: S.tensor([1, 0.5]))), inputs: [Network.inputIndex], source: source
            )
            let c = try builder.append(
                kind: .channelAffine(ChannelAffine(scale: S.tensor([0.5, 3]), shift: S.tensor([-1, 2]))), inputs: [Network.inputIndex], source: source
            )
            let v = try builder.append(kind: .globalMaxPool, inputs: [Network.inputIndex], source: source)
            let p = try builder.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: 6, outputCount: 1, weights: WeightTensor(shape: [1, 6], values: [Float](repeating: 0.5, count: 6)),
                        bias: S.tensor([0.875]))),
                inputs: [Network.inputIndex], source: source)
            let names = ["a": Network.inputIndex, "b": b, "c": c, "v": v, "p": p]
            for (operation, inputs) in merges {
                try builder.append(kind: .merge(ElementwiseMerge(operation)), inputs: inputs.map { names[$0]! }, source: source)
            }
        }
    }

    /// Each merge's expected output, the first four layers' outputs checked along the way.
    private func check(_ cases: [(MergeOperation, [String], [Double], ActivationShape)], file: StaticString = #filePath, line: UInt = #line) throws {
        let net = try network(cases.map { ($0.0, $0.1) })
        let double = try Executor<Double>(network: net).run(input: a.map(Double.init))
        let float = try Executor<Float>(network: net).run(input: a)
        XCTAssertEqual(double[0], [3, -3, 2, -2.5, 0.75, -3.5], file: file, line: line)
        XCTAssertEqual(double[1], [-0.5, -2, -0.75, 11, 1.25, 14], file: file, line: line)
        XCTAssertEqual(double[2], [1, 4], file: file, line: line)
        XCTAssertEqual(double[3], [4], file: file, line: line)
        for (k, (operation, inputs, expected, outputShape)) in cases.enumerated() {
            let layer = 4 + k
            let what = "\(operation.rawValue)(\(inputs.joined(separator: ", ")))"
            XCTAssertEqual(net.layers[layer].outputShape, outputShape, what, file: file, line: line)
            XCTAssertEqual(net.layers[layer].kind.typeName, operation.rawValue, file: file, line: line)
            S.assertClose(double[layer], expected, tolerance: 1e-15, file: file, line: line)
            S.assertClose(float[layer], expected, tolerance: 1e-6, file: file, line: line)
        }
    }

    func testEqualShapes() throws {
        try check([
            (.add, ["a", "b", "c"], [3.5, -7, 1.75, 11.5, 1.75, 14.5], shape),
            (.subtract, ["b", "a"], [2, -1, 1.5, -5.5, 1, -7.5], shape),
            (.multiply, ["a", "b", "c"], [-1.5, -12, -0.75, -82.5, -0.234375, -196], shape),
            (.divide, ["c", "a"], [-0.5, 1, -1.5, 11.0 / 3, -5, 3.5], shape),
            (.average, ["a", "b", "c"], [3.5 / 3, -7.0 / 3, 1.75 / 3, 11.5 / 3, 1.75 / 3, 14.5 / 3], shape),
            (.maximum, ["a", "b", "c"], [3, -2, 2, 11, 1.25, 14], shape),
            (.minimum, ["c", "b", "a"], [-0.5, -3, -0.75, -2.5, -0.25, -3.5], shape),
        ])
    }

    func testPerChannelAndSingleValueBroadcast() throws {
        try check([
            // V = [1 | 4] over each channel's plane, P = 4 everywhere.
            (.multiply, ["a", "v"], [1, -2, 0.5, 12, -1, 16], shape),
            (.subtract, ["v", "a"], [0, 3, 0.5, 1, 4.25, 0], shape),
            (.divide, ["a", "p"], [0.25, -0.5, 0.125, 0.75, -0.0625, 1], shape),
            (.divide, ["p", "v"], [4, 1], ActivationShape(channels: 2, height: 1, width: 1)),
            (.add, ["p", "v"], [5, 8], ActivationShape(channels: 2, height: 1, width: 1)),
            (.add, ["v", "a", "p"], [6, 3, 5.5, 11, 7.75, 12], shape),
            (.average, ["a", "p"], [2.5, 1, 2.25, 3.5, 1.875, 4], shape),
            (.maximum, ["v", "b"], [3, 1, 2, 4, 4, 4], shape),
            (.minimum, ["b", "p", "a"], [1, -3, 0.5, -2.5, -0.25, -3.5], shape),
            (.maximum, ["p", "p"], [4], ActivationShape(channels: 1, height: 1, width: 1)),
        ])
    }

    /// ((x0 + x1) + x2) in input order: in float32 1 + 2^-24 rounds to 1 (ties to even), so 1 + 2^-24 + 2^-24
    /// stays 1, while 2^-24 + 2^-24 + 1 = 1 + 2^-23 exactly. Average divides that sum by 3 once.
    func testAccumulatesLeftToRightInInputOrder() throws {
        let tiny = Float(0x1.0p-24)
        let net = try S.network(input: .vector(3)) { builder in
            var picks: [Int] = []
            for k in 0..<3 {
                var w: [Float] = [0, 0, 0]
                w[k] = 1
                picks.append(
                    try builder.append(
                        kind: .fullyConnected(
                            FullyConnected(inputCount: 3, outputCount: 1, weights: WeightTensor(shape: [1, 3], values: w), bias: nil)),
                        inputs: [Network.inputIndex], source: S.source))
            }
            try builder.append(kind: .merge(ElementwiseMerge(.add)), inputs: [picks[0], picks[1], picks[2]], source: S.source)
            try builder.append(kind: .merge(ElementwiseMerge(.add)), inputs: [picks[1], picks[2], picks[0]], source: S.source)
            try builder.append(kind: .merge(ElementwiseMerge(.average)), inputs: [picks[1], picks[2], picks[0]], source: S.source)
        }
        let float = try Executor<Float>(network: net).run(input: [1, tiny, tiny])
        XCTAssertEqual(float[3], [1])
        XCTAssertEqual(float[4], [1 + 2 * tiny])
        XCTAssertEqual(float[5], [(1 + 2 * tiny) / 3])
        let double = try Executor<Double>(network: net).run(input: [1, Double(tiny), Double(tiny)])
        XCTAssertEqual(double[3], [1 + 0x1.0p-23])
        XCTAssertEqual(double[4], [1 + 0x1.0p-23])
    }

    /// A large equal-shape merge of four inputs against the formula written out element by element.
    func testLargeMergesMatchTheFormula() throws {
        let big = ActivationShape(channels: 3, height: 40, width: 41)
        let x = S.seeded(big.count, seed: 7)
        let net = try S.network(input: big) { builder in
            let y = try builder.append(
                kind: .channelAffine(ChannelAffine(scale: S.tensor([2, -3, 0.5]), shift: S.tensor([1, 2, -1]))), inputs: [Network.inputIndex],
                source: S.source)
            for operation in MergeOperation.allCases {
                let inputs =
                    operation == .subtract || operation == .divide ? [Network.inputIndex, y] : [Network.inputIndex, y, y, Network.inputIndex]
                try builder.append(kind: .merge(ElementwiseMerge(operation)), inputs: inputs, source: S.source)
            }
        }
        let double = try Executor<Double>(network: net).run(input: x.map(Double.init))
        let float = try Executor<Float>(network: net).run(input: x)
        let scale: [Float] = [2, -3, 0.5], shift: [Float] = [1, 2, -1]
        /// The merge of p = x and q = y (the affine map) in the order of the layer's inputs, in float64.
        func merged(_ operation: MergeOperation, _ p: Double, _ q: Double) -> Double {
            switch operation {
            case .add: return ((p + q) + q) + p
            case .subtract: return p - q
            case .multiply: return ((p * q) * q) * p
            case .divide: return p / q
            case .average: return (((p + q) + q) + p) / 4
            case .maximum: return max(p, q)
            case .minimum: return min(p, q)
            }
        }
        for (k, operation) in MergeOperation.allCases.enumerated() {
            var expected: [Double] = [], expectedFromFloat: [Double] = [], bound = 0.0
            for i in 0..<big.count {
                let c = i / big.planeSize
                let p = Double(x[i]), q = Double(scale[c]) * p + Double(shift[c])
                expected.append(merged(operation, p, q))
                // The float32 run merges the float32 y: its error, not the merge's, would dominate a quotient.
                let qf = Double(scale[c] * x[i] + shift[c])
                expectedFromFloat.append(merged(operation, p, qf))
                bound = max(bound, abs(expectedFromFloat[i]), 2 * abs(p) + 2 * abs(qf))
            }
            XCTAssertEqual(double[1 + k], expected, operation.rawValue)
            S.assertClose(float[1 + k], expectedFromFloat, tolerance: 1e-6 * bound)
        }
    }

    private func refusal(_ operation: MergeOperation, _ shapes: [ActivationShape]) -> String? {
        do {
            _ = try LayerKind.merge(ElementwiseMerge(operation)).outputShape(for: shapes)
            return nil
        } catch let error as FoldKitError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testShapeInferenceRefusesWrongCountsAndShapes() {
        let map = ActivationShape(channels: 2, height: 2, width: 2)
        XCTAssertEqual(refusal(.subtract, [map, map, map]), "subtract needs exactly two inputs")
        XCTAssertEqual(refusal(.divide, [map]), "divide needs exactly two inputs")
        XCTAssertEqual(refusal(.add, [map]), "add needs at least two inputs")
        XCTAssertEqual(refusal(.maximum, [map]), "maximum needs at least two inputs")
        let unbroadcastable = "add inputs cannot be broadcast to one shape"
        // Another plane size, another channel count, a 1 x H x W plane, a C x H x 1 column, and H x W vs W x H.
        XCTAssertEqual(refusal(.add, [map, ActivationShape(channels: 2, height: 2, width: 1)]), unbroadcastable)
        XCTAssertEqual(refusal(.add, [map, ActivationShape(channels: 3, height: 1, width: 1)]), unbroadcastable)
        XCTAssertEqual(refusal(.add, [ActivationShape(channels: 1, height: 2, width: 2), map]), unbroadcastable)
        XCTAssertEqual(
            refusal(.add, [ActivationShape(channels: 2, height: 1, width: 1), ActivationShape(channels: 1, height: 2, width: 2)]), unbroadcastable)
        XCTAssertEqual(
            refusal(.add, [ActivationShape(channels: 1, height: 2, width: 3), ActivationShape(channels: 1, height: 3, width: 2)]), unbroadcastable)
        XCTAssertEqual(
            refusal(.multiply, [map, map, ActivationShape(channels: 4, height: 1, width: 1)]), "multiply inputs cannot be broadcast to one shape")
        // Accepted: the full shape whatever the order, with C x 1 x 1 and 1 x 1 x 1 inputs.
        for operation in MergeOperation.allCases {
            XCTAssertNil(refusal(operation, [ActivationShape(channels: 2, height: 1, width: 1), map]), operation.rawValue)
        }
        XCTAssertEqual(
            try LayerKind.merge(ElementwiseMerge(.add)).outputShape(for: [.vector(1), .vector(2), map, .vector(1)]), map)
    }
}
