import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// Accuracy in ulps of the vectorised transcendental activations (TranscendentalActivation, VectorMath)
/// over the whole input range: subnormal to largest finite magnitudes, both signs, the formulas'
/// thresholds, ±0, ±Inf and NaN. float32 results are compared with the definitions evaluated in float64,
/// float64 results with the definitions evaluated in Float80 (x86-64's extended precision); both on the
/// SLEEF AVX2 path (when the CPU has it) and on the forced fallback path.
///
/// Error measure: |got - reference| / ulp(reference), after an absolute allowance of |x| times the
/// smallest subnormal: where e^w falls below the normal range it keeps only the bits a subnormal has, and
/// the formulas multiply it by x (swish, gelu, Darknet's mish below -20) - the same as Darknet's scalar code.
/// The bounds are the ones Docs/Activations.md states.
#if arch(x86_64) && os(Linux)
    final class TranscendentalActivationTests: XCTestCase {
        struct Case: Sendable {
            let activation: Activation
            let bound: Double
            let float: @Sendable (Float) -> Double
            let double: @Sendable (Double) -> Float80
        }

        static let c1 = 0.797885, c3 = 0.035677

        /// The definitions (Darknet's activations.h, Keras), written in the higher precision.
        static let cases: [Case] = [
            Case(
                activation: .logistic, bound: 2.5,
                float: { 1 / (1 + exp(-Double($0))) }, double: { 1 / (1 + exp(-Float80($0))) }),
            Case(
                activation: .swish, bound: 3,
                float: { Double($0) / (1 + exp(-Double($0))) }, double: { Float80($0) / (1 + exp(-Float80($0))) }),
            Case(
                activation: .tanh, bound: 1,
                float: { tanh(Double($0)) }, double: { tanh(Float80($0)) }),
            Case(
                activation: .mish, bound: 4,
                float: { v in
                    let x = Double(v)
                    return x * tanh(x > 20 ? x : (x < -20 ? exp(x) : log1p(exp(x))))
                },
                double: { v in
                    let x = Float80(v)
                    return x * tanh(x > 20 ? x : (x < -20 ? exp(x) : log1p(exp(x))))
                }),
            // log(1 + e^x); above 700 (float64) / 11000 (Float80) e^x overflows and log(1 + e^x) = x to far below an ulp.
            Case(
                activation: .softplus, bound: 2,
                float: { v in
                    let x = Double(v); return x > 700 ? x : log1p(exp(x))
                },
                double: { v in
                    let x = Float80(v); return x > 11000 ? x : log1p(exp(x))
                }),
            // 0.5 x (1 + tanh(u)) = x / (1 + e^-2u); u = 0.797885 x + 0.035677 x^3 rounded in the working precision
            // as the kernel (and Darknet) computes it: the bound is for what follows u.
            Case(
                activation: .gelu, bound: 3,
                float: { v in
                    let u = Float(c1) * v + Float(c3) * v * v * v
                    return Double(v) / (1 + exp(-2 * Double(u)))
                },
                double: { v in
                    let u = c1 * v + c3 * v * v * v
                    return Float80(v) / (1 + exp(-2 * Float80(u)))
                }),
            Case(
                activation: .elu(alpha: 1), bound: 1,
                float: { v in
                    let x = Double(v); return x >= 0 ? x : expm1(x)
                },
                double: { v in
                    let x = Float80(v); return x >= 0 ? x : expm1(x)
                }),
            Case(
                activation: .elu(alpha: 0.5), bound: 1.5,
                float: { v in
                    let x = Double(v); return x >= 0 ? x : Double(Float(0.5)) * expm1(x)
                },
                double: { v in
                    let x = Float80(v); return x >= 0 ? x : 0.5 * expm1(x)
                }),
            // selu's constants rounded to the working precision, as the kernel uses them.
            Case(
                activation: .kerasSelu, bound: 2,
                float: { v in
                    let x = Double(v)
                    return x >= 0 ? Double(Float(1.0507009873554805)) * x : Double(Float(1.0507009873554805 * 1.6732632423543772)) * expm1(x)
                },
                double: { v in
                    let x = Float80(v)
                    return x >= 0 ? Float80(1.0507009873554805) * x : Float80(1.0507009873554805 * 1.6732632423543772) * expm1(x)
                }),
        ]

        /// Inputs covering the whole range of T: magnitudes from the smallest subnormal to the largest finite
        /// value (geometric steps), a dense grid where the functions bend, the thresholds and the specials.
        static func inputs<T: BinaryFloatingPoint>(_: T.Type, denseLimit: T, denseStep: T, thresholds: [T]) -> [T] {
            var values: [T] = [0, -0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude]
            var magnitude = T.leastNonzeroMagnitude
            while magnitude < T.leastNormalMagnitude { values.append(magnitude); magnitude *= 2 }
            while magnitude.isFinite { values.append(magnitude); magnitude *= T(1.37) }
            var x = -denseLimit
            while x <= denseLimit { values.append(x); x += denseStep }
            for t in thresholds { values += [t, t.nextUp, t.nextDown] }
            return values + values.map { -$0 }
        }

        static let floatInputs = inputs(
            Float.self, denseLimit: 120, denseStep: 0.0371,
            thresholds: [20, 9, 17, 44, 87.3, 88.72, 103.9, 104, 1e-4, 1e-10])
        static let doubleInputs = inputs(
            Double.self, denseLimit: 760, denseStep: 0.2371,
            thresholds: [20, 19.1, 36.7, 354.9, 708.4, 709.78, 745.1, 1e-4, 1e-10])

        /// Worst error in ulps of `activation` over `xs` in float32, and where.
        static func floatError(_ c: Case, _ xs: [Float]) -> (ulps: Double, at: Float) {
            var y = xs
            y.withUnsafeMutableBufferPointer { _ = TranscendentalActivation.apply(c.activation, to: $0) }
            var worst: (ulps: Double, at: Float) = (0, 0)
            for (x, got) in zip(xs, y) {
                let reference = c.float(x)
                let ulps: Double
                if reference.isNaN {
                    ulps = got.isNaN ? 0 : .infinity
                } else if abs(reference) > Double(Float.greatestFiniteMagnitude) {
                    ulps = Double(got) == Double(Float(reference)) ? 0 : .infinity
                } else {
                    let magnitude = abs(reference)
                    let ulp = Double(sign: .plus, exponent: Swift.max(magnitude.exponent, -126) - 23, significand: 1)
                    let allowance = Double(abs(x)) * Double(Float.leastNonzeroMagnitude)
                    ulps = got.isNaN ? .infinity : Swift.max(0, abs(Double(got) - reference) - allowance) / ulp
                }
                if ulps > worst.ulps || ulps.isNaN { worst = (ulps, x) }
            }
            return worst
        }

        /// Worst error in ulps of `activation` over `xs` in float64, and where.
        static func doubleError(_ c: Case, _ xs: [Double]) -> (ulps: Double, at: Double) {
            var y = xs
            y.withUnsafeMutableBufferPointer { _ = TranscendentalActivation.apply(c.activation, to: $0) }
            var worst: (ulps: Double, at: Double) = (0, 0)
            for (x, got) in zip(xs, y) {
                let reference = c.double(x)
                let ulps: Double
                if reference.isNaN {
                    ulps = got.isNaN ? 0 : .infinity
                } else if abs(reference) > Float80(Double.greatestFiniteMagnitude) {
                    ulps = Float80(got) == Float80(Double(reference)) ? 0 : .infinity
                } else {
                    let magnitude = abs(reference)
                    let ulp = Float80(sign: .plus, exponent: Swift.max(magnitude.exponent, -1022) - 52, significand: 1)
                    let allowance = Float80(abs(x)) * Float80(Double.leastNonzeroMagnitude)
                    ulps = got.isNaN ? .infinity : Double(Swift.max(0, abs(Float80(got) - reference) - allowance) / ulp)
                }
                if ulps > worst.ulps || ulps.isNaN { worst = (ulps, x) }
            }
            return worst
        }

        func checkAllCases(path: String) {
            for c in Self.cases {
                let f = Self.floatError(c, Self.floatInputs)
                let d = Self.doubleError(c, Self.doubleInputs)
                print("ulps \(path) \(c.activation.name): float32 \(f.ulps) at \(f.at), float64 \(d.ulps) at \(d.at)")
                XCTAssertLessThanOrEqual(f.ulps, c.bound, "\(path) float32 \(c.activation.name) at \(f.at)")
                XCTAssertLessThanOrEqual(d.ulps, c.bound, "\(path) float64 \(c.activation.name) at \(d.at)")
            }
        }

        func testAVX2PathWithinStatedUlps() throws {
            VectorMath.forceFallback(false)
            try XCTSkipUnless(VectorMath.usesAVX2, "no SLEEF AVX2 path on this machine")
            checkAllCases(path: "avx2")
        }

        func testFallbackPathWithinStatedUlps() {
            VectorMath.forceFallback(true)
            defer { VectorMath.forceFallback(false) }
            XCTAssertFalse(VectorMath.usesAVX2)
            checkAllCases(path: "fallback")
        }

        /// Lengths that are not multiples of the vector width or of the block size take the same values.
        func testTailsAndBlocksMatchOneByOne() {
            let xs: [Float] = (0..<1037).map { Float($0) * 0.0731 - 37 }
            var whole = xs
            whole.withUnsafeMutableBufferPointer { _ = TranscendentalActivation.apply(.mish, to: $0) }
            for (i, x) in xs.enumerated() {
                var one = [x]
                one.withUnsafeMutableBufferPointer { _ = TranscendentalActivation.apply(.mish, to: $0) }
                XCTAssertEqual(one[0].bitPattern, whole[i].bitPattern, "mish at \(x)")
            }
        }

        /// Softmax through the vector exponential, against the definition in Float80.
        func testSoftmaxWithinUlps() throws {
            let shape = ActivationShape(channels: 7, height: 3, width: 5)
            let input: [Float] = (0..<shape.count).map { Float(sin(Double($0) * 12.9898) * 43758.5453).truncatingRemainder(dividingBy: 30) }
            for path in [false, true] {
                VectorMath.forceFallback(path)
                defer { VectorMath.forceFallback(false) }
                let network = try RuntimeTestSupport.single(.softmax(.perPixelChannels), input: shape)
                let out = try RuntimeTestSupport.runDouble(network, input: input)
                let plane = shape.planeSize
                for p in 0..<plane {
                    let column = (0..<shape.channels).map { Float80(input[$0 * plane + p]) }
                    let largest = column.max() ?? 0
                    let sum = column.reduce(Float80(0)) { $0 + exp($1 - largest) }
                    for c in 0..<shape.channels {
                        let reference = exp(column[c] - largest) / sum
                        let ulp = Float80(sign: .plus, exponent: reference.exponent - 52, significand: 1)
                        XCTAssertLessThanOrEqual(abs(Float80(out[c * plane + p]) - reference) / ulp, 8, "fallback \(path) pixel \(p) channel \(c)")
                    }
                }
            }
        }
    }
#endif
