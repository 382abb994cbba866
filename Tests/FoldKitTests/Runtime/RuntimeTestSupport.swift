@testable import FoldKit
import FoldKitTestSupport
import XCTest

/// Small helpers for the executor tests: building networks in code and seeded values.
enum RuntimeTestSupport {
    static let source = LayerSource(file: "test.cfg", section: "[test]")

    /// A network of the layers `build` appends (each reading the previous one unless it says otherwise).
    static func network(input: ActivationShape, outputs: [Int] = [], _ build: (inout NetworkBuilder) throws -> Void) throws -> Network {
        var builder = NetworkBuilder(inputShape: input)
        try build(&builder)
        return Network(format: .darknet, sourceFiles: ["test.cfg"], inputShape: input, inputOrder: .channelsFirst,
                       layers: builder.layers, outputs: outputs, epsilonConvention: .darknet)
    }

    /// A one-layer network.
    static func single(_ kind: LayerKind, input: ActivationShape) throws -> Network {
        try network(input: input) { try $0.append(kind: kind, inputs: [Network.inputIndex], source: source) }
    }

    /// Deterministic values in [-1, 1) (a 64-bit LCG, so the tests do not depend on the platform's RNG).
    static func seeded(_ count: Int, seed: UInt64 = 1) -> [Float] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(state >> 40) - (1 << 23)) / Float(1 << 23)
        }
    }

    static func tensor(_ values: [Float]) -> WeightTensor { WeightTensor(shape: [values.count], values: values) }

    /// Runs a network in float64 and returns the last layer's output.
    static func runDouble(_ network: Network, input: [Float], options: ExecutorOptions = .init()) throws -> [Double] {
        try Executor<Double>(network: network, options: options).run(input: input.map(Double.init)).last ?? []
    }

    static func runFloat(_ network: Network, input: [Float], options: ExecutorOptions = .init()) throws -> [Float] {
        try Executor<Float>(network: network, options: options).run(input: input).last ?? []
    }

    /// `|actual - expected| <= tolerance` everywhere, through the shared comparison (NaN, infinity and
    /// count mismatches fail).
    static func assertClose<T: BinaryFloatingPoint>(_ actual: [T], _ expected: [Double], tolerance: Double,
                                                    file: StaticString = #filePath, line: UInt = #line) {
        FoldKitTestSupport.assertClose(actual, expected, atol: tolerance, file: file, line: line)
    }
}
