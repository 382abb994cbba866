import FoldKitBlobFormat
import FoldKitTestSupport
import XCTest

@testable import FoldKit

/// `WeightHealthCheck`: which values it reports under each epsilon convention, and where it says
/// they are (element index, coordinates, byte offset in a Darknet .weights file).
final class WeightHealthCheckTests: XCTestCase {
    private let inside = EpsilonConvention(epsilon: 1e-5, placement: .insideSqrt)
    private let outside = EpsilonConvention(epsilon: 1e-6, placement: .outsideSqrt)

    func testNonFiniteValuesAreReportedInEveryTensor() {
        for role in TensorRole.allCases {
            XCTAssertEqual(WeightHealthCheck.problem(of: .nan, role: role, convention: inside), .nan)
            XCTAssertEqual(WeightHealthCheck.problem(of: -.infinity, role: role, convention: nil), .infinity)
            XCTAssertNil(WeightHealthCheck.problem(of: -3.5, role: role == .variance ? .mean : role, convention: inside))
        }
    }

    func testVarianceIsJudgedByWhetherTheDenominatorIsPositive() {
        // Inside: sqrt(var + eps) needs var + eps > 0, so zero is rescued and -eps is not.
        XCTAssertNil(WeightHealthCheck.problem(of: 0, role: .variance, convention: inside))
        XCTAssertNil(WeightHealthCheck.problem(of: -5e-6, role: .variance, convention: inside))
        XCTAssertEqual(WeightHealthCheck.problem(of: -2e-5, role: .variance, convention: inside), .nonPositiveVariance)
        XCTAssertEqual(
            WeightHealthCheck.problem(of: 0, role: .variance, convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt)),
            .nonPositiveVariance)
        // Outside: sqrt(var) + eps needs var >= 0 (the epsilon cannot rescue a negative variance).
        XCTAssertNil(WeightHealthCheck.problem(of: 0, role: .variance, convention: outside))
        XCTAssertEqual(WeightHealthCheck.problem(of: -1e-30, role: .variance, convention: outside), .nonPositiveVariance)
        XCTAssertEqual(
            WeightHealthCheck.problem(of: 0, role: .variance, convention: EpsilonConvention(epsilon: 0, placement: .outsideSqrt)),
            .nonPositiveVariance)
    }

    /// A file-backed tensor longer than one scan chunk: the finding past the chunk boundary carries
    /// its own element index and byte offset (header + 4 x (floats before it)).
    func testFileBackedFindingsNameElementAndByteAcrossChunks() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = 400, outputs = 200  // 80,000 weights: more than one 65,536-value chunk
        let cfg = folder.appendingPathComponent("wide.cfg"), weights = folder.appendingPathComponent("wide.weights")
        try "[net]\ninputs=\(inputs)\n\n[connected]\noutput=\(outputs)\nactivation=linear\n".write(to: cfg, atomically: true, encoding: .utf8)
        var floats = [Float](repeating: 0.25, count: outputs + outputs * inputs)
        let late = outputs + 70_001  // weights element 70,001 = row 175, column 1
        floats[late] = .infinity
        floats[3] = .nan  // bias element 3
        var data = Data([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
        floats.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: weights)

        let network = try ModelLoader.load(paths: [cfg.path, weights.path])
        let findings = try WeightHealthCheck.scan(network)
        XCTAssertEqual(findings.count, 2)
        XCTAssertEqual(findings.map(\.role), [.weights, .bias], "the layer's parameter order")
        XCTAssertEqual(findings.last?.byteOffset, 20 + 3 * 4)
        let weight = try XCTUnwrap(findings.first)
        XCTAssertEqual(weight.problem, .infinity)
        XCTAssertEqual(weight.elementIndex, 70_001)
        XCTAssertEqual(weight.coordinates, [175, 1])
        XCTAssertEqual(weight.byteOffset, 20 + late * 4)
        XCTAssertEqual(weight.file, weights.path)
        XCTAssertEqual(try WeightHealthCheck.scan(network, limit: 1).count, 1)

        let refusal = WeightHealthCheck.refusal(findings[1], total: findings.count)
        XCTAssertEqual(refusal.byteOffset, 32)
        XCTAssertEqual(refusal.layer, "layer 0 [connected]")
        XCTAssertTrue(refusal.message.contains("and 1 more bad value"), refusal.message)
    }

    /// Layers are scanned in parallel: the findings still come in layer order, and `limit` keeps the
    /// first ones in that order (three bad values in each of six layers, limit 7: all of layers 0 and 1,
    /// the first of layer 2).
    func testFindingsKeepLayerOrderUnderALimit() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cfg = folder.appendingPathComponent("deep.cfg"), weights = folder.appendingPathComponent("deep.weights")
        try ("[net]\ninputs=64\n\n" + String(repeating: "[connected]\noutput=64\nactivation=linear\n\n", count: 6))
            .write(to: cfg, atomically: true, encoding: .utf8)
        var floats: [Float] = []
        for layer in 0..<6 {
            var values = [Float](repeating: 0.5, count: 64 + 64 * 64)  // bias, then weights
            for element in [5, 700, 4000] { values[64 + element] = layer % 2 == 0 ? .nan : -.infinity }
            floats += values
        }
        var data = Data([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
        floats.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: weights)

        let network = try ModelLoader.load(paths: [cfg.path, weights.path])
        let all = try WeightHealthCheck.scan(network)
        XCTAssertEqual(all.map(\.layer), (0..<6).flatMap { layer in Array(repeating: "layer \(layer) [connected]", count: 3) })
        XCTAssertEqual(all.map(\.elementIndex), Array(repeating: [5, 700, 4000], count: 6).flatMap { $0 })
        XCTAssertEqual(all.map(\.problem), (0..<6).flatMap { Array(repeating: $0 % 2 == 0 ? .nan : .infinity, count: 3) })
        XCTAssertEqual(try WeightHealthCheck.scan(network, limit: 7).map(\.text), all.prefix(7).map(\.text))  // NaN != NaN in ==
    }

    /// The vectorised test a chunk passes before it is read value by value: any NaN or infinity, in any
    /// position of chunks of any length, makes it false; the largest finite values and subnormals do not.
    func testAllFiniteFindsEveryNonFiniteValue() {
        for count in [1, 3, 8, 17, 64] {
            var values = [Float](repeating: .greatestFiniteMagnitude, count: count)
            values[count / 2] = -.leastNonzeroMagnitude
            XCTAssertTrue(values.withUnsafeBufferPointer(WeightHealthCheck.allFinite))
            for position in 0..<count {
                for bad in [Float.nan, .infinity, -.infinity, Float(bitPattern: 0xffc0_0001)] {
                    var spoiled = values
                    spoiled[position] = bad
                    XCTAssertFalse(spoiled.withUnsafeBufferPointer(WeightHealthCheck.allFinite), "\(bad) at \(position) of \(count)")
                }
            }
        }
        XCTAssertTrue([Float]().withUnsafeBufferPointer(WeightHealthCheck.allFinite))
    }
}
