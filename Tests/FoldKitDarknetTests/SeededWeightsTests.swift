import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

final class SeededWeightsTests: XCTestCase {
    /// Floats Fixtures/darknet/cfg/conv-basic.cfg needs, counted by hand per layer
    /// (biases [+ 3 BN vectors] + filters * in/groups * size * size):
    /// 248 + 438 + 78 + 112 + 520 + 36 + 112 + 111 + 28.
    static let convBasicFloats = 1683

    func testDeterministicRightSizeAndReadable() throws {
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("a.weights").path
        let second = directory.appendingPathComponent("b.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 42, to: first)
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 42, to: second)
        let a = try Data(contentsOf: URL(fileURLWithPath: first))
        let b = try Data(contentsOf: URL(fileURLWithPath: second))
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.count, 20 + 4 * Self.convBasicFloats)
        // header: major 0, minor 2, revision 5, seen 0 (uint64)
        XCTAssertEqual([UInt8](a.prefix(20)), [0, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0] + [UInt8](repeating: 0, count: 8))

        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: first)
        XCTAssertEqual(network.parameterCount, Self.convBasicFloats)
        XCTAssertEqual(network.metadata.weightsVersion, "0.2.5")
        XCTAssertEqual(network.metadata.seen, 0)

        let other = directory.appendingPathComponent("c.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 43, to: other)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: other)), a)
    }

    /// The first values for seed 42, computed by an independent Python splitmix64
    /// (u = (next >> 11) * 2^-53, value = float32(lo + (hi - lo) * u)): layer 0's biases are draws 0...7,
    /// its gammas draws 8...15, its first weight draw 32 with a = sqrt(3/27).
    func testValuesMatchAnIndependentSplitMix64() throws {
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 42, to: path)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: path)
        guard case .convolution(let conv) = network.layers[0].kind, let bn = conv.batchNorm else { return XCTFail("layer 0") }
        let beta = try XCTUnwrap(bn.beta).floats()
        XCTAssertEqual(beta[0..<3].map(\.bitPattern), [0x3D45_E3D4, 0xBD8B_4CFB, 0xBD35_5EB5])
        XCTAssertEqual(try XCTUnwrap(bn.gamma).floats()[0..<2].map(\.bitPattern), [0x3F57_05B8, 0x3F8F_2A6C])
        XCTAssertEqual(try conv.weights.floats()[0].bitPattern, 0x3DC8_D54C)
        // Ranges: variance in [0.5, 1.5), weights within sqrt(3/27).
        XCTAssertTrue(try bn.variance.floats().allSatisfy { $0 >= 0.5 && $0 < 1.5 })
        XCTAssertTrue(try conv.weights.floats().allSatisfy { abs($0) <= (3.0 / 27.0).squareRoot() })
    }

    func testEveryFixtureCfgGetsAWeightsFileTheReaderAccepts() throws {
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        for name in FixtureCfgTests.expectedShapes.keys.sorted() {
            let cfg = TestData.fixture("darknet/cfg/\(name)").path
            let path = directory.appendingPathComponent(name + ".weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 7, to: path)
            let network = try DarknetReader.read(cfgPath: cfg, weightsPath: path)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
            XCTAssertEqual(size, 20 + 4 * network.parameterCount, name)
        }
    }
}
