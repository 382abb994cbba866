import FoldKitTestSupport
import XCTest

@testable import FoldKit

/// `RoundingPerturbation`: bounded by its relative size, seeded, and applied by an `ExecutorPass` to every
/// computed output and every parameter tensor.
final class RoundingPerturbationTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testOutputsMoveWithinTheBoundAndDependOnlyOnTheSeed() {
        let values = S.seeded(50_000, seed: 3).map { 1 + $0 }
        let perturbation = RoundingPerturbation(seed: 7, relative: 0x1.0p-23)
        var first = values, again = values, other = values
        perturbation.apply(to: &first, layer: 4)
        perturbation.apply(to: &again, layer: 4)
        RoundingPerturbation(seed: 8, relative: 0x1.0p-23).apply(to: &other, layer: 4)
        XCTAssertEqual(first, again, "same seed and layer, same values")
        XCTAssertNotEqual(first, other, "another seed, other values")
        var moved = 0
        for (x, y) in zip(values, first) {
            // 2^-23 |x| is one to two units in the last place of x (by where x lies in its binade).
            XCTAssertLessThanOrEqual(abs(Double(y) - Double(x)), 2 * Double(x.ulp))
            if x != y { moved += 1 }
        }
        XCTAssertGreaterThan(moved, values.count / 4, "a good share of the values move to a neighbour")
        var layerFive = values
        perturbation.apply(to: &layerFive, layer: 5)
        XCTAssertNotEqual(first, layerFive, "each layer has its own stream")
    }

    func testParametersAreSeededByLayerAndRole() {
        let values: [Float] = S.seeded(1000, seed: 1).map { 1 + $0 }
        let perturbation = RoundingPerturbation(seed: 2, relative: 0x1.0p-23)
        var weights = values, again = values, bias = values
        perturbation.applyToParameters(&weights, layer: "layer 3", role: "weights")
        perturbation.applyToParameters(&again, layer: "layer 3", role: "weights")
        perturbation.applyToParameters(&bias, layer: "layer 3", role: "bias")
        XCTAssertEqual(weights, again)
        XCTAssertNotEqual(weights, bias)
        XCTAssertNotEqual(weights, values)
    }

    /// A perturbed pass differs from the plain one by about the precision's rounding, not more.
    func testPerturbedPassStaysWithinRounding() throws {
        let shape = ActivationShape(channels: 3, height: 8, width: 8)
        let network = try S.network(input: shape, outputs: [1]) { b in
            let conv = try b.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 3, outputChannels: 4, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                        weights: WeightTensor(shape: [4, 3, 3, 3], values: S.seeded(108, seed: 5)), bias: S.tensor([0.1, 0.2, 0.3, 0.4]))),
                inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .activation(.logistic), inputs: [conv], source: S.source)
        }
        let input = S.seeded(shape.count, seed: 6)
        let plain = try Executor<Float>(network: network).run(input: input)
        let perturbed = try Executor<Float>(
            network: network, options: ExecutorOptions(perturbation: RoundingPerturbation(seed: 1, relative: 0x1.0p-23))
        ).run(input: input)
        for layer in 0..<2 {
            XCTAssertNotEqual(plain[layer], perturbed[layer], "layer \(layer) is perturbed")
            let largest = plain[layer].map { abs($0) }.max() ?? 0
            for (a, b) in zip(plain[layer], perturbed[layer]) {
                XCTAssertLessThanOrEqual(abs(a - b), 1e-5 * max(largest, 1), "layer \(layer)")
            }
        }
    }
}
