@testable import FoldKitCore
import XCTest

final class SplitMix64Tests: XCTestCase {
    /// The published test vector for SplitMix64 from seed 1234567 (Rosetta Code,
    /// "Pseudo-random numbers/Splitmix64"; same as Vigna's reference splitmix64.c).
    func testMatchesPublishedSequence() {
        var rng = SplitMix64(seed: 1234567)
        XCTAssertEqual(rng.next(), 6457827717110365317)
        XCTAssertEqual(rng.next(), 3203168211198807973)
        XCTAssertEqual(rng.next(), 9817491932198370423)
    }

    func testUnitIsInRange() {
        var rng = SplitMix64(seed: 0)
        for _ in 0..<1000 {
            let u = rng.nextUnit()
            XCTAssertTrue(u >= 0 && u < 1)
        }
    }
}
