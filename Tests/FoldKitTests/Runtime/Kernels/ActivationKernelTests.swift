import Foundation
import XCTest

@testable import FoldKit

/// Activations against hand-computed values and the formulas of Darknet's activations.h / Keras written out here.
final class ActivationKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport
    static let points: [Float] = [-30, -21, -20, -19.5, -3, -2, -1.5, -1, -0.5, -0.0, 0, 0.25, 1, 2.5, 5.9, 6, 7, 19.5, 20, 21, 30]

    func run(_ activation: Activation, _ input: [Float] = points) throws -> [Double] {
        try S.runDouble(try S.single(.activation(activation), input: .vector(input.count)), input: input)
    }

    func check(
        _ activation: Activation, tolerance: Double = 1e-12, file: StaticString = #filePath, line: UInt = #line,
        _ formula: (Double) -> Double
    ) throws {
        let expected = Self.points.map { formula(Double($0)) }
        S.assertClose(try run(activation), expected, tolerance: tolerance, file: file, line: line)
    }

    func testHandComputedValues() throws {
        XCTAssertEqual(try run(.relu, [-2, 3]), [0, 3])
        XCTAssertEqual(try run(.leaky(slope: 0.1), [-2, 3]), [-2 * Double(Float(0.1)), 3])
        XCTAssertEqual(try run(.relu6, [-1, 3, 7]), [0, 3, 6])
        XCTAssertEqual(try run(.hardMish, [-3, -1, 2]), [0, -0.5, 2])
        S.assertClose(try run(.hardSigmoid, [-3, 1, 3]), [0, 0.7, 1], tolerance: 1e-15)
        XCTAssertEqual(try run(.softplus, [0])[0], log(2), accuracy: 1e-15)
        XCTAssertEqual(try run(.logistic, [0])[0], 0.5)
        XCTAssertEqual(try run(.swish, [2])[0], 2 / (1 + exp(-2)), accuracy: 1e-15)
        // mish: softplus is x itself above 20, so mish(25) = 25 * tanh(25) = 25 in float64
        XCTAssertEqual(try run(.mish, [25])[0], 25)
        XCTAssertEqual(try run(.elu(alpha: 1), [-1])[0], exp(-1) - 1, accuracy: 1e-15)
        XCTAssertEqual(try run(.clippedRelu(maxValue: 4, negativeSlope: 0.5, threshold: 1), [-1, 0.5, 2, 5]), [-1, -0.25, 2, 4])
    }

    func testDarknetFormulas() throws {
        try check(.linear) { $0 }
        try check(.logistic) { 1 / (1 + exp(-$0)) }
        try check(.tanh) { tanh($0) }
        try check(.elu(alpha: 1)) { $0 >= 0 ? $0 : exp($0) - 1 }
        try check(.kerasSelu) { 1.0507009873554805 * ($0 >= 0 ? $0 : 1.6732632423543772 * (exp($0) - 1)) }
        // Darknet's activations.h: (x >= 0)*1.0507*x + (x < 0)*1.0507*1.6732*(exp(x)-1)
        try check(.darknetSelu) { $0 >= 0 ? 1.0507 * $0 : 1.0507 * 1.6732 * (exp($0) - 1) }
        try check(.swish) { $0 / (1 + exp(-$0)) }
        try check(.mish) { x in
            let softplus = x > 20 ? x : (x < -20 ? exp(x) : log(exp(x) + 1))
            return x * tanh(softplus)
        }
        // Darknet's activations.h: 0.5*x*(1 + tanhf(0.797885*x + 0.035677*powf(x, 3)))
        try check(.gelu) { 0.5 * $0 * (1 + tanh(0.797885 * $0 + 0.035677 * pow($0, 3))) }
        try check(.hardMish) { $0 > 0 ? $0 : ($0 > -2 ? $0 * $0 / 2 + $0 : 0) }
    }

    func testKerasFormulas() throws {
        try check(.softplus) { log(1 + exp($0)) }
        try check(.hardSigmoid) { min(max(0.2 * $0 + 0.5, 0), 1) }
        // Keras 3 (keras/src/activations/activations.py): hard_sigmoid = relu6(x + 3) / 6, hard_silu = x * hard_sigmoid(x),
        // gelu(approximate=False) = 0.5 x (1 + erf(x / sqrt(2))).
        try check(.hardSigmoidRelu6) { min(max($0 + 3, 0), 6) / 6 }
        try check(.hardSwish) { $0 * min(max($0 + 3, 0), 6) / 6 }
        try check(.geluErf) { 0.5 * $0 * (1 + erf($0 / 2.0.squareRoot())) }
        try check(.clippedRelu(maxValue: nil, negativeSlope: 0.25, threshold: -1)) { $0 >= -1 ? $0 : 0.25 * ($0 + 1) }
        try check(.elu(alpha: 0.5)) { $0 >= 0 ? $0 : 0.5 * (exp($0) - 1) }
    }

    func testSoftplusDoesNotOverflowInFloat() throws {
        let out = try S.runFloat(try S.single(.activation(.softplus), input: .vector(2)), input: [100, -50])
        XCTAssertEqual(out[0], 100)
        XCTAssertEqual(Double(out[1]), exp(-50), accuracy: 1e-6 * exp(-50))
    }

    func testFloatMatchesDoubleWithinFloatRounding() throws {
        let input = (0..<200).map { Float($0 - 100) * 0.173 }
        for activation: Activation in [.mish, .swish, .gelu, .geluErf, .kerasSelu, .logistic, .tanh, .softplus, .elu(alpha: 1), .hardSwish] {
            let double = try run(activation, input)
            let float = try S.runFloat(try S.single(.activation(activation), input: .vector(input.count)), input: input)
            for i in input.indices {
                XCTAssertEqual(Double(float[i]), double[i], accuracy: 4e-7 * max(1, abs(double[i])), "\(activation.name) at \(input[i])")
            }
        }
    }
}
