import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// The `he` and `wide` generators of `DarknetSeededWeights`: first values against an independent Python
/// splitmix64 + Box-Muller, and the ranges and couplings their doc comments promise.
final class WeightGeneratorTests: XCTestCase {
    private func seeded(_ generator: DarknetWeightGenerator, seed: UInt64 = 42) throws -> Network {
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("\(generator.rawValue).weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: seed, generator: generator, to: path)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: path)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        XCTAssertEqual(size, 20 + 4 * network.parameterCount)
        return network
    }

    private func convolution(_ network: Network, _ index: Int) throws -> Convolution {
        guard case .convolution(let c) = network.layers[index].kind else {
            throw FixtureProblem("Fixtures/darknet/cfg/conv-basic.cfg", "layer \(index) is \(network.layers[index].kind.typeName), not a convolution")
        }
        return c
    }

    /// Python: beta_i = 0.1 * sqrt(-2 ln(1 - u1)) cos(2 pi u2) for draws 0..15, gamma draws 16..23, mean 24..39,
    /// variance 40..47, first weight from draws 48, 49 with sigma sqrt(2/27).
    func testHeFirstValuesMatchAnIndependentBoxMuller() throws {
        let network = try seeded(.he)
        let conv = try convolution(network, 0)
        let bn = try XCTUnwrap(conv.batchNorm)
        XCTAssertEqual(try XCTUnwrap(bn.beta).floats()[0..<2].map(\.bitPattern), [0x3DB4_AF40, 0xBD38_AB09])
        XCTAssertEqual(try bn.mean.floats()[0].bitPattern, 0xBD0A_9009)
        XCTAssertEqual(try bn.variance.floats()[0].bitPattern, 0x3F93_C543)
        XCTAssertEqual(try conv.weights.floats()[0].bitPattern, 0x3EA2_2CD1)
    }

    func testHeRangesAndZeroBiasWithoutBatchNorm() throws {
        let network = try seeded(.he, seed: 3)
        for layer in network.layers {
            guard case .convolution(let c) = layer.kind else { continue }
            if let bn = c.batchNorm {
                XCTAssertTrue(try XCTUnwrap(bn.gamma).floats().allSatisfy { $0 >= 0.5 && $0 < 1.5 }, layer.label)
                XCTAssertTrue(try bn.variance.floats().allSatisfy { $0 >= 0.2 && $0 < 2 }, layer.label)
            } else if let bias = c.bias {
                XCTAssertTrue(try bias.floats().allSatisfy { $0 == 0 }, "\(layer.label): biases of layers without batch norm are 0")
            }
        }
        // He-normal: the sample standard deviation of layer 0's 216 weights near sqrt(2/27) = 0.272.
        let w = try convolution(network, 0).weights.floats().map(Double.init)
        let sd = (w.map { $0 * $0 }.reduce(0, +) / Double(w.count)).squareRoot()
        XCTAssertEqual(sd, (2.0 / 27).squareRoot(), accuracy: 0.05)
    }

    /// Python: beta draw 0 in U(-0.5, 0.5); gamma = float32(g) * sqrt(float32(10^(-8 + 9u)) + 1e-5); weight U(-a, a), a = sqrt(6/27).
    func testWideFirstValuesMatchPython() throws {
        let conv = try convolution(try seeded(.wide), 0)
        let bn = try XCTUnwrap(conv.batchNorm)
        XCTAssertEqual(try XCTUnwrap(bn.beta).floats()[0].bitPattern, 0x3E77_5CC9)
        XCTAssertEqual(try XCTUnwrap(bn.gamma).floats()[0].bitPattern, 0x3B2E_795E)
        XCTAssertEqual(try bn.variance.floats()[0].bitPattern, 0x3347_B6A0)
        XCTAssertEqual(try conv.weights.floats()[0].bitPattern, 0x3E0E_02B1)
    }

    /// Every channel's multiplier gamma / sqrt(var + 1e-5) is in [0.5, 1.5); variances span near zero to 10.
    func testWideKeepsEachChannelsMultiplierWhileVariancesSpanDecades() throws {
        var variances: [Float] = []
        for seed: UInt64 in [1, 2] {
            for layer in try seeded(.wide, seed: seed).layers {
                guard case .convolution(let c) = layer.kind, let bn = c.batchNorm else { continue }
                let gamma = try XCTUnwrap(bn.gamma).floats(), variance = try bn.variance.floats()
                XCTAssertEqual(gamma.count, variance.count, "layer \(layer.index): one variance per gamma")
                for (g, v) in zip(gamma, variance) {
                    let multiplier = Double(g) / (Double(v) + 1e-5).squareRoot()
                    XCTAssertTrue(multiplier >= 0.5 * (1 - 1e-6) && multiplier < 1.5 * (1 + 1e-6), "\(layer.label): \(multiplier)")
                }
                variances += variance
            }
        }
        XCTAssertTrue(variances.allSatisfy { $0 >= 1e-8 * (1 - 1e-6) && $0 < 10 })
        XCTAssertTrue(variances.contains { $0 < 1e-5 }, "some channels have variances below the epsilon")
        XCTAssertTrue(variances.contains { $0 > 1e-1 })
    }
}
