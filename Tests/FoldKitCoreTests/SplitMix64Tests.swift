import XCTest

@testable import FoldKitCore

final class SplitMix64Tests: XCTestCase {
    /// The published test vector for SplitMix64 from seed 1234567 (Rosetta Code,
    /// "Pseudo-random numbers/Splitmix64"; same as Vigna's reference splitmix64.c).
    func testMatchesPublishedSequence() {
        var rng = SplitMix64(seed: 1_234_567)
        XCTAssertEqual(rng.next(), 6_457_827_717_110_365_317)
        XCTAssertEqual(rng.next(), 3_203_168_211_198_807_973)
        XCTAssertEqual(rng.next(), 9_817_491_932_198_370_423)
    }

    func testUnitIsInRange() {
        var rng = SplitMix64(seed: 0)
        for _ in 0..<1000 {
            let u = rng.nextUnit()
            XCTAssertTrue(u >= 0 && u < 1)
        }
    }
}
