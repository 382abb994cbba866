import FoldKit
import XCTest

final class LayerDeviationTests: XCTestCase {
    private func layer(_ count: Int) throws -> Layer {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 1, height: 1, width: count))
        try builder.append(kind: .activation(.linear), inputs: [Network.inputIndex], source: LayerSource(file: "t", section: "[activation]"))
        return builder.layers[0]
    }

    func testStatisticsMatchSortedReference() throws {
        var rng = SplitMix64(seed: 9)
        let n = 1001
        let reference = (0..<n).map { _ in rng.nextUnit() * 4 - 2 }
        let candidate = reference.map { Float($0 + (rng.nextUnit() - 0.5) * 1e-3) }
        let d = LayerDeviation.measure(layer: try layer(n), reference: reference, candidate: candidate, atol: 0, rtol: 1e-3)
        let deviations = zip(reference, candidate).map { abs(Double($1) - $0) }.sorted()
        XCTAssertEqual(d.maxAbsDeviation, deviations.last)
        XCTAssertEqual(d.medianAbsDeviation, deviations[500])
        XCTAssertEqual(d.p99AbsDeviation, deviations[990])
        XCTAssertEqual(d.meanAbsDeviation, deviations.reduce(0, +) / Double(n), accuracy: 1e-12)
        XCTAssertEqual(d.maxAbsReference, reference.map(abs).max())
        XCTAssertEqual(d.pass, d.maxAbsDeviation <= 1e-3 * d.maxAbsReference)
    }

    func testNaNInCandidateFails() throws {
        let d = LayerDeviation.measure(layer: try layer(3), reference: [1.0, 2, 3], candidate: [Float(1), .nan, 3], atol: 1, rtol: 1)
        XCTAssertFalse(d.pass)
        XCTAssertEqual(d.at.x, 1)
    }
}
