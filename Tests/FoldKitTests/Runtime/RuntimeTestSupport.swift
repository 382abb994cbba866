import FoldKitTestSupport
import XCTest

@testable import FoldKit

/// Small helpers for the executor tests: building networks in code and seeded values.
enum RuntimeTestSupport {
    static let source = LayerSource(file: "test.cfg", section: "[test]")

    /// A network of the layers `build` appends (each reading the previous one unless it says otherwise).
    static func network(input: ActivationShape, outputs: [Int] = [], _ build: (inout NetworkBuilder) throws -> Void) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        try build(&builder)
        return Network(
            format: .darknet, sourceFiles: ["test.cfg"], inputShape: input, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: outputs, epsilonConvention: .darknet)
    }

    /// A one-layer network.
    static func single(_ kind: LayerKind, input: ActivationShape) throws -> Network {
        try network(input: input) { try $0.append(kind: kind, inputs: [Network.inputIndex], source: source) }
    }

    /// Deterministic values in [-1, 1) (a 64-bit LCG, so the tests do not depend on the platform's RNG).
    static func seeded(_ count: Int, seed: UInt64 = 1) -> [Float] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(state >> 40) - (1 << 23)) / Float(1 << 23)
        }
    }

    static func tensor(_ values: [Float]) -> WeightTensor { WeightTensor(shape: [values.count], values: values) }

    /// Runs a network in float64 and returns the last layer's output, computed with the products split across
    /// cores by FoldKit (`ProductThreading.splitAcrossCores`, what `foldkit` runs). It also runs with the
    /// products threaded by the BLAS (`.library`), which must agree: the BLAS's kernels treat the edges of a
    /// split product differently, so the two differ by rounding only (`bothThreadings` bounds it).
    static func runDouble(
        _ network: Network, input: [Float], options: ExecutorOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Double] {
        try bothThreadings(options, roundingBound: 1e-10, file: file, line: line) {
            try Executor<Double>(network: network, options: $0).run(input: input.map(Double.init)).last ?? []
        }
    }

    /// As `runDouble`, in float32.
    static func runFloat(
        _ network: Network, input: [Float], options: ExecutorOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Float] {
        try bothThreadings(options, roundingBound: 1e-4, file: file, line: line) {
            try Executor<Float>(network: network, options: $0).run(input: input).last ?? []
        }
    }

    /// `run` with `options` under `.splitAcrossCores`, whose output it returns, and under `.library`; fails
    /// unless the two have the same size and agree within `roundingBound` x max |output| (products of up to
    /// a few thousand terms, Winograd F(4x4)'s transforms included, round to well inside it).
    private static func bothThreadings<T: BinaryFloatingPoint>(
        _ options: ExecutorOptions, roundingBound: Double, file: StaticString, line: UInt, _ run: (ExecutorOptions) throws -> [T]
    ) throws -> [T] {
        var split = options, library = options
        split.productThreading = .splitAcrossCores
        library.productThreading = .library
        let reference = try run(split), other = try run(library)
        let largest = reference.lazy.filter(\.isFinite).reduce(0.0) { Swift.max($0, Swift.abs(Double($1))) }
        let tolerance = roundingBound * Swift.max(largest, 1)
        XCTAssertEqual(other.count, reference.count, "output sizes differ between product threadings", file: file, line: line)
        // Non-finite outputs (max pooling's -inf padding) must be the same value; finite ones within the bound.
        let mismatch = zip(reference, other).enumerated().first { _, pair in
            pair.0.isFinite ? !(Swift.abs(Double(pair.1) - Double(pair.0)) <= tolerance) : !(pair.0 == pair.1 || (pair.0.isNaN && pair.1.isNaN))
        }
        if let (i, pair) = mismatch {
            XCTFail("element \(i): \(pair.0) with split products, \(pair.1) with the BLAS's threading (allowed \(tolerance))", file: file, line: line)
        }
        return reference
    }

    /// `|actual - expected| <= tolerance` everywhere, through the shared comparison (NaN, infinity and
    /// count mismatches fail).
    static func assertClose<T: BinaryFloatingPoint>(
        _ actual: [T], _ expected: [Double], tolerance: Double,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        FoldKitTestSupport.assertClose(actual, expected, atol: tolerance, file: file, line: line)
    }
}
