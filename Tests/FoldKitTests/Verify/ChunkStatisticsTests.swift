import XCTest

@testable import FoldKit
@testable import FoldKitVerify

/// The vectorised passes (CDeviationScan) against a scalar Swift evaluation of the same definitions
/// (`elementDeviation` per element, four lane sums per block, first index of the largest deviation), on
/// both builds (AVX2 where the CPU has it, and the baseline), Float and Double candidates, ranges that
/// start on later blocks and end inside a four-element vector, and every special value: NaN, both
/// infinities, -0.0, subnormals, values whose difference overflows.
final class ChunkStatisticsTests: XCTestCase {
    private static let block = LayerDeviation.sumBlock

    private struct Expected {
        var maxRef = 0.0, maxDev = 0.0, worst: Int, maxControlDev = 0.0
        var counts: [Int: UInt32] = [:]
        var blockSums: [Int: Double] = [:]
    }

    /// The scalar evaluation of pass 1.
    private func expected<C: BinaryFloatingPoint>(_ ref: [Double], _ cand: [C], _ control: [C]?, _ range: Range<Int>) -> Expected {
        var e = Expected(worst: range.lowerBound)
        for b in stride(from: range.lowerBound, to: range.upperBound, by: Self.block) {
            var lanes = [0.0, 0, 0, 0]
            for i in b..<min(b + Self.block, range.upperBound) {
                let d = elementDeviation(ref[i], Double(cand[i]))
                if ref[i].isFinite { e.maxRef = max(e.maxRef, abs(ref[i])) }
                if d > e.maxDev { e.maxDev = d; e.worst = i }
                lanes[(i - b) % 4] += d
                e.counts[RadixHistogram.bucket(d), default: 0] += 1
                if let control { e.maxControlDev = max(e.maxControlDev, elementDeviation(ref[i], Double(control[i]))) }
            }
            e.blockSums[b / Self.block] = ((lanes[0] + lanes[1]) + lanes[2]) + lanes[3]
        }
        return e
    }

    private func check<C: BinaryFloatingPoint>(_ ref: [Double], _ cand: [C], _ control: [C]?, _ range: Range<Int>, _ name: String) {
        let e = expected(ref, cand, control, range)
        var blockSums = [Double](repeating: -1, count: (ref.count + Self.block - 1) / Self.block + 1)
        let s = ref.withUnsafeBufferPointer { r in
            cand.withUnsafeBufferPointer { c in
                (control ?? []).withUnsafeBufferPointer { k in
                    blockSums.withUnsafeMutableBufferPointer { sums in
                        ChunkStatistics.scan(r, c, control: control == nil ? nil : k, elements: range, blockSums: sums)
                    }
                }
            }
        }
        XCTAssertEqual(s.maxRef.bitPattern, e.maxRef.bitPattern, "\(name): max |reference|")
        XCTAssertEqual(s.maxDev.bitPattern, e.maxDev.bitPattern, "\(name): largest deviation")
        XCTAssertEqual(s.worst, e.worst, "\(name): first index of the largest deviation")
        XCTAssertEqual(s.maxControlDev.bitPattern, e.maxControlDev.bitPattern, "\(name): control")
        for (index, sum) in e.blockSums { XCTAssertEqual(blockSums[index].bitPattern, sum.bitPattern, "\(name): block \(index) sum") }
        let counted = s.histogram.counts.enumerated().filter { $0.element > 0 }
        XCTAssertEqual(counted.count, e.counts.count, "\(name): buckets used")
        for (bucket, count) in counted { XCTAssertEqual(count, e.counts[bucket], "\(name): bucket \(bucket)") }
        // Pass 2 for the two most used buckets (and a bucket with one value, if any).
        let byCount = e.counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
        guard let first = byCount.first else { return }
        let second = byCount.count > 1 ? byCount.last! : first
        let (firstValues, secondValues) = ref.withUnsafeBufferPointer { r in
            cand.withUnsafeBufferPointer { c in
                ChunkStatistics.gather(
                    r, c, elements: range, buckets: (first, second),
                    counts: (Int(e.counts[first]!), Int(e.counts[second]!)))
            }
        }
        let deviations = range.map { elementDeviation(ref[$0], Double(cand[$0])) }
        XCTAssertEqual(firstValues.map(\.bitPattern), deviations.filter { RadixHistogram.bucket($0) == first }.map(\.bitPattern), "\(name): gather")
        XCTAssertEqual(
            secondValues.map(\.bitPattern),
            second == first ? [] : deviations.filter { RadixHistogram.bucket($0) == second }.map(\.bitPattern), "\(name): gather second")
    }

    // 0x1p-1030 is a subnormal.
    private let specials: [Double] = [
        .nan, .infinity, -.infinity, -0.0, 0, .leastNonzeroMagnitude, 0x1p-1030, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, 3.4e38, -3.4e38, 1, -1,
    ]

    /// Reference, candidate and control: ordinary values, and with `specials` also a fifth of the elements
    /// replaced by pairings of special values.
    private func arrays(count: Int, seed: UInt64, specials withSpecials: Bool) -> ([Double], [Float], [Double]) {
        var rng = SplitMix64(seed: seed)
        var ref = (0..<count).map { _ in rng.nextUnit() * 20 - 10 }
        var cand = ref.map { Float($0 * (1 + (rng.nextUnit() - 0.5) * 1e-5)) }
        var wide = ref.map { $0 + (rng.nextUnit() - 0.5) * 1e-9 }
        for i in 0..<count where withSpecials && rng.nextUnit() < 0.2 {
            let a = specials[Int(rng.nextUnit() * Double(specials.count))], b = specials[Int(rng.nextUnit() * Double(specials.count))]
            switch i % 3 {
            case 0: ref[i] = a
            case 1: cand[i] = Float(b); wide[i] = b
            default: ref[i] = a; cand[i] = Float(b); wide[i] = b
            }
        }
        return (ref, cand, wide)
    }

    private func runFamily(_ build: String) {
        for withSpecials in [false, true] {
            for count in [0, 1, 3, 4, 5, 7, 8, 37, 1000] {
                let (ref, cand, wide) = arrays(count: count, seed: UInt64(count) + 1, specials: withSpecials)
                let name = "\(build) specials \(withSpecials) n=\(count)"
                check(ref, cand, nil, 0..<count, "\(name) Float")
                check(ref, cand, cand.reversed(), 0..<count, "\(name) Float with control")
                check(ref, wide, wide.map { $0 * 1.5 }, 0..<count, "\(name) Double")
            }
            // Several blocks; ranges starting on the second and third block and ending mid-vector.
            let n = 3 * Self.block + 13
            let (ref, cand, wide) = arrays(count: n, seed: 99, specials: withSpecials)
            // Deviations with full 53-bit significands over several binades: sums in another order round differently.
            var rng = SplitMix64(seed: 7)
            let unrelated = ref.map { $0 + rng.nextUnit() * 3 }
            for range in [0..<n, Self.block..<n, (2 * Self.block)..<(n - 2), Self.block..<(2 * Self.block)] {
                check(ref, cand, cand.map { $0 * 0.5 }, range, "\(build) specials \(withSpecials) Float \(range)")
                check(ref, wide, nil, range, "\(build) specials \(withSpecials) Double \(range)")
                check(ref, unrelated, nil, range, "\(build) specials \(withSpecials) unrelated Double \(range)")
            }
        }
    }

    func testPassesMatchScalarDefinitionsOnEveryBuild() {
        runFamily(ChunkStatistics.usesAVX2 ? "AVX2" : "baseline")
        ChunkStatistics.withBaselineBuild { runFamily("baseline") }
    }

    /// The largest deviation repeated: the first index is reported, within a vector and across blocks.
    func testFirstIndexOfTheLargestDeviationOnTies() {
        let n = 2 * Self.block + 9
        var ref = [Double](repeating: 1, count: n), cand = [Float](repeating: 1, count: n)
        for i in [Self.block + 6, Self.block + 7, 2 * Self.block + 8] { cand[i] = 3 }
        check(ref, cand, nil, 0..<n, "ties")
        ref[5] = .infinity
        check(ref, cand, nil, 0..<n, "infinite deviation first")
    }
}
