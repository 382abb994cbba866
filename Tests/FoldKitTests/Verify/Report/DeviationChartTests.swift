import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitVerify

/// `XMLText` escapes what XML reserves, and `DeviationChart` places values on its log axis as documented.
final class DeviationChartTests: XCTestCase {
    func testEscapingAndNumbers() {
        XCTAssertEqual(XMLText.escape("a<b & \"c\" 'd'>\u{1}"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\u{FFFD}")
        XCTAssertEqual(XMLText.number(1.25e-5), "1.25e-05")
        XCTAssertEqual(Double(XMLText.number(0.1 + 0.2)), 0.1 + 0.2, "round trip")
        XCTAssertEqual(XMLText.number(.infinity), "inf")
        XCTAssertEqual(XMLText.short(0), "0")
    }

    /// Two layers at 1e-6 and 1e-4 (decades 1e-6 ... 1e-3 with the allowances): each dot's y follows
    /// y(v) = top + plotHeight x (log10(high) - log10(v)) / (log10(high) - log10(low)).
    func testDotsSitOnTheLogScale() throws {
        func layer(_ index: Int, deviation: Double, control: Double, allowed: Double) -> LayerVerdict {
            LayerVerdict(
                index: index, name: String(index), type: "conv", shape: [1, 1, 1],
                control: ControlDeviation(maxAbsDeviation: control, relativeDeviation: control),
                candidate: LayerDeviation(
                    maxAbsReference: 1, maxAbsDeviation: deviation, relativeDeviation: deviation, meanAbsDeviation: deviation,
                    medianAbsDeviation: deviation, p99AbsDeviation: deviation, at: .init(channel: 0, y: 0, x: 0)),
                floor: 0, fromControl: 8 * control, carried: nil, allowed: allowed, allowedBy: "control", pass: deviation <= allowed)
        }
        let verdict = PrecisionVerdict(
            precision: .float32,
            layers: [
                layer(0, deviation: 1e-6, control: 1e-6, allowed: 8e-6),
                layer(1, deviation: 1e-4, control: 2e-6, allowed: 1e-3),
            ])
        let svg = DeviationChart.svg(verdict)
        let cys = svg.components(separatedBy: "<circle ").dropFirst().compactMap { part -> Double? in
            guard let range = part.range(of: #"cy="[0-9.]+""#, options: .regularExpression) else { return nil }
            return Double(part[range].dropFirst(4).dropLast())
        }
        XCTAssertEqual(cys.count, 2)
        let plotHeight = DeviationChart.height - DeviationChart.top - DeviationChart.bottom
        // low = 1e-6, high = 1e-3: three decades.
        XCTAssertEqual(cys[0], DeviationChart.top + plotHeight * 3 / 3, accuracy: 0.06)
        XCTAssertEqual(cys[1], DeviationChart.top + plotHeight * 1 / 3, accuracy: 0.06)
        XCTAssertTrue(svg.contains("fill=\"#c62828\"") == false, "both layers pass: no red dot")
    }
}
