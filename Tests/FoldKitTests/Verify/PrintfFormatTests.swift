import FoldKit
import Foundation
import XCTest

/// PrintfFormat's own digit arithmetic against Foundation's String(format:) (an independent printf).
final class PrintfFormatTests: XCTestCase {
    private func values() -> [Double] {
        var rng = SplitMix64(seed: 41)
        var floats: [Float] = [0, -0, 1, -1, 0.5, 1.5, 2.5, 0.03125, 0.96875, 0.99999, 9.9995, 999.5, 0.0000999, 1e-7, 3.4e38, -2.75e-9,
                               .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        for _ in 0..<20000 {
            let u = Float(rng.nextUnit())
            floats.append(u)                                            // [0, 1): boxes, scores, IoU
            floats.append((u - 0.5) * 1e-6)                             // score differences
            floats.append(Float(Foundation.pow(10.0, rng.nextUnit() * 40 - 20)) * (u < 0.5 ? -1 : 1))
            floats.append(Float((rng.nextUnit() * 20000).rounded()) / 32768)  // exact binary ties at 4 and 5 digits
        }
        return floats.map(Double.init) + (0..<5000).map { _ in rng.nextUnit() * 1e6 - 5e5 }
    }

    func testFixedMatchesPrintf() {
        for v in values() {
            for digits in [0, 2, 4, 5] {
                XCTAssertEqual(PrintfFormat.fixed(v, digits: digits), String(format: "%.\(digits)f", v), "\(v) digits \(digits)")
            }
        }
    }

    func testScientificMatchesPrintf() {
        for v in values() {
            for digits in [0, 2, 3] {
                XCTAssertEqual(PrintfFormat.scientific(v, digits: digits), String(format: "%.\(digits)e", v), "\(v) digits \(digits)")
            }
        }
    }

    func testFormatStringMatchesFoundation() {
        XCTAssertEqual(PrintfFormat.string("class %ld score %.4f diff %.2e", 17, Float(0.123456), 1.5e-7),
                       String(format: "class %ld score %.4f diff %.2e", 17, Float(0.123456), 1.5e-7))
    }
}
