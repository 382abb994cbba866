import Foundation
import XCTest

@testable import FoldKit

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
        let d = LayerDeviation.measure(layer: try layer(n), reference: reference, candidate: candidate)
        let deviations = zip(reference, candidate).map { abs(Double($1) - $0) }.sorted()
        XCTAssertEqual(d.maxAbsDeviation, deviations.last)
        XCTAssertEqual(d.medianAbsDeviation, deviations[500])
        XCTAssertEqual(d.p99AbsDeviation, deviations[990])
        XCTAssertEqual(d.meanAbsDeviation, deviations.reduce(0, +) / Double(n), accuracy: 1e-12)
        XCTAssertEqual(d.maxAbsReference, reference.map(abs).max())
    }

    func testNaNInCandidateIsAnInfiniteDeviation() throws {
        let d = LayerDeviation.measure(layer: try layer(3), reference: [1.0, 2, 3], candidate: [Float(1), .nan, 3])
        XCTAssertEqual(d.maxAbsDeviation, .infinity)
        XCTAssertEqual(d.at.x, 1)
    }

    /// Median and p99 against a full sort on data that stresses the bucketed selection: most deviations
    /// exactly 0 (relu zeros in both), ties, values spread over many binades, infinities, one element.
    func testQuantilesMatchSortOnSkewedData() throws {
        var rng = SplitMix64(seed: 12)
        let n = 20_000
        let cases: [(String, [Double], [Float])] = [
            ("mostly equal", (0..<n).map { $0 % 10 == 0 ? rng.nextUnit() : 0 }, []),
            ("spread", (0..<n).map { _ in Foundation.pow(10, rng.nextUnit() * 30 - 15) }, []),
            ("ties", (0..<n).map { Double($0 % 7) }, []),
            ("single", [2.5], []),
        ]
        for (name, reference, _) in cases {
            var candidate = reference.enumerated().map { i, r in
                i % 3 == 0 ? Float(r) : Float(r + Double(i % 5) * 0.25 * Foundation.pow(2, Double(i % 40) - 30))
            }
            if name == "spread" { candidate[7] = .infinity; candidate[8] = .infinity }
            let d = LayerDeviation.measure(layer: try layer(reference.count), reference: reference, candidate: candidate)
            let sorted = zip(reference, candidate).map { r, c -> Double in
                c.isFinite ? abs(Double(c) - r) : .infinity
            }.sorted()
            let count = sorted.count
            XCTAssertEqual(d.medianAbsDeviation, sorted[Int((0.5 * Double(count - 1)).rounded())], name)
            XCTAssertEqual(d.p99AbsDeviation, sorted[Int((0.99 * Double(count - 1)).rounded())], name)
            XCTAssertEqual(d.maxAbsDeviation, sorted[count - 1], name)
        }
    }

    /// A layer big enough to be split across cores: every statistic as one serial pass computes it; the
    /// largest deviation occurs twice (in different chunks) and the first index is reported; the mean is
    /// the block-wise sum (fixed 2^14-element blocks in index order, each the sum of four lane sums) divided by n.
    func testLargeLayerSplitAcrossCoresMatchesSerialStatistics() throws {
        var rng = SplitMix64(seed: 21)
        let n = 300_001
        var reference = (0..<n).map { _ in rng.nextUnit() * 8 - 4 }
        var candidate = reference.map { Float($0 + (rng.nextUnit() - 0.5) * 1e-4) }
        for i in [1234, 290_000] {  // the same largest deviation, exactly, in the first and the last chunk
            reference[i] = 1
            candidate[i] = 1.5
        }
        let deviations = zip(reference, candidate).map { abs(Double($1) - $0) }
        let d = LayerDeviation.measure(layer: try layer(n), reference: reference, candidate: candidate)
        let sorted = deviations.sorted()
        XCTAssertEqual(d.maxAbsDeviation, 0.5)
        XCTAssertEqual(d.at.x, 1234)
        XCTAssertEqual(d.medianAbsDeviation, sorted[150_000])
        XCTAssertEqual(d.p99AbsDeviation, sorted[297_000])
        XCTAssertEqual(d.maxAbsReference, reference.map(abs).max())
        var blockwise = 0.0
        for start in stride(from: 0, to: n, by: 1 << 14) {
            var lanes = [0.0, 0, 0, 0]
            for i in start..<min(n, start + (1 << 14)) { lanes[(i - start) % 4] += deviations[i] }
            blockwise += ((lanes[0] + lanes[1]) + lanes[2]) + lanes[3]
        }
        XCTAssertEqual(d.meanAbsDeviation, blockwise / Double(n))
    }

    /// The fused measurement (candidate and control in one pass) gives what the two separate ones give: a large
    /// layer split across the cores with the control's largest deviation in the last chunk, and a small one
    /// with NaN and infinity in the control.
    func testControlMeasuredInTheSamePassMatchesSeparateMeasurement() throws {
        var rng = SplitMix64(seed: 33)
        let n = 300_001
        let reference = (0..<n).map { _ in rng.nextUnit() * 8 - 4 }
        let candidate = reference.map { Float($0 + (rng.nextUnit() - 0.5) * 1e-4) }
        var control = reference.map { Float($0 + (rng.nextUnit() - 0.5) * 1e-5) }
        control[299_999] = Float(reference[299_999] + 0.25)
        for (ref, cand, ctl) in [
            (reference, candidate, control), ([1.0, -2, 3], [Float(1), -2, 3], [Float(1), .nan, 3]),
            ([1.0, -2, 3], [Float(1.5), -2, 3], [Float(1), -2, .infinity]),
        ] {
            let fused = LayerDeviation.measure(layer: try layer(ref.count), reference: ref, candidate: cand, control: ctl)
            let alone = LayerDeviation.measure(layer: try layer(ref.count), reference: ref, candidate: cand)
            XCTAssertEqual(fused.deviation, alone)
            XCTAssertEqual(fused.control, ControlDeviation.measure(reference: ref, control: ctl, maxAbsReference: alone.maxAbsReference))
        }
        let big = LayerDeviation.measure(layer: try layer(n), reference: reference, candidate: candidate, control: control)
        XCTAssertEqual(big.control.maxAbsDeviation, Double(control[299_999]) - reference[299_999])
    }
}
