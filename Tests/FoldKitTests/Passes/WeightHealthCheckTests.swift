@testable import FoldKit
import FoldKitTestSupport
import XCTest

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
        XCTAssertEqual(WeightHealthCheck.problem(of: 0, role: .variance, convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt)),
                       .nonPositiveVariance)
        // Outside: sqrt(var) + eps needs var >= 0 (the epsilon cannot rescue a negative variance).
        XCTAssertNil(WeightHealthCheck.problem(of: 0, role: .variance, convention: outside))
        XCTAssertEqual(WeightHealthCheck.problem(of: -1e-30, role: .variance, convention: outside), .nonPositiveVariance)
        XCTAssertEqual(WeightHealthCheck.problem(of: 0, role: .variance, convention: EpsilonConvention(epsilon: 0, placement: .outsideSqrt)),
                       .nonPositiveVariance)
    }

    /// A file-backed tensor longer than one scan chunk: the finding past the chunk boundary carries
    /// its own element index and byte offset (header + 4 x (floats before it)).
    func testFileBackedFindingsNameElementAndByteAcrossChunks() throws {
        let folder = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = 400, outputs = 200                       // 80,000 weights: more than one 65,536-value chunk
        let cfg = folder.appendingPathComponent("wide.cfg"), weights = folder.appendingPathComponent("wide.weights")
        try "[net]\ninputs=\(inputs)\n\n[connected]\noutput=\(outputs)\nactivation=linear\n".write(to: cfg, atomically: true, encoding: .utf8)
        var floats = [Float](repeating: 0.25, count: outputs + outputs * inputs)
        let late = outputs + 70_001                           // weights element 70,001 = row 175, column 1
        floats[late] = .infinity
        floats[3] = .nan                                      // bias element 3
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
}
