@testable import FoldKit
import XCTest

/// Max and average pooling, global pooling, on small inputs computed by hand.
final class PoolingKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport
    /// 1 x 3 x 3:
    ///   1 2 3
    ///   4 5 6
    ///   7 8 9
    let grid: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    let shape = ActivationShape(channels: 1, height: 3, width: 3)

    func testDarknetStyleMaxPoolSize2Stride1PaddingCountsAsMinusInfinity() throws {
        // Darknet size=2 stride=1: padding = 1 in total, window starts at -padding/2 = 0: bottom/right padded.
        let pool = Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1,
                           padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1))
        let out = try S.runDouble(try S.single(.pooling(pool), input: shape), input: grid.map { -$0 })
        // with negative values a zero padding would win; -infinity padding never does
        XCTAssertEqual(out, [-1, -2, -3, -4, -5, -6, -7, -8, -9])
    }

    func testMaxPoolStride2OddSize() throws {
        let pool = Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                           padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1))
        XCTAssertEqual(try S.runDouble(try S.single(.pooling(pool), input: shape), input: grid), [5, 6, 8, 9])
    }

    // The 2x2 stride-2 fast path inside the input and the general loop on a padded last row and column,
    // against the window maximum computed here (odd and even sizes, NaN and infinities in the input).
    func testMaxPool2x2Stride2MatchesNaiveOnEverySize() throws {
        for (height, width) in [(4, 6), (5, 7), (7, 4), (1, 3), (9, 40)] {
            let shape = ActivationShape(channels: 3, height: height, width: width)
            var input = S.seeded(shape.count, seed: UInt64(height * 100 + width))
            input[1] = .nan
            input[shape.count - 1] = .infinity
            input[width] = -.infinity
            let outH = (height + 1 - 2) / 2 + 1, outW = (width + 1 - 2) / 2 + 1
            let pool = Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                               padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1))
            let network = try S.single(.pooling(pool), input: shape)
            XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: 3, height: outH, width: outW))
            var expected: [Double] = []
            for c in 0..<3 {
                for y in 0..<outH {
                    for x in 0..<outW {
                        var best = -Double.infinity
                        for yy in (2 * y)..<min(2 * y + 2, height) {
                            for xx in (2 * x)..<min(2 * x + 2, width) {
                                let v = Double(input[(c * height + yy) * width + xx])
                                if v > best { best = v }
                            }
                        }
                        expected.append(best)
                    }
                }
            }
            let double = try S.runDouble(network, input: input)
            let float = try S.runFloat(network, input: input)
            XCTAssertEqual(double.map { $0.bitPattern }, expected.map { $0.bitPattern }, "\(height)x\(width)")
            XCTAssertEqual(float.map { Double($0).bitPattern }, expected.map { $0.bitPattern }, "\(height)x\(width)")
        }
    }

    func testAveragePoolExcludingAndIncludingPadding() throws {
        func run(_ includes: Bool) throws -> [Double] {
            let pool = Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                               padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1), countIncludesPadding: includes)
            return try S.runDouble(try S.single(.pooling(pool), input: shape), input: grid)
        }
        XCTAssertEqual(try run(false), [3, 4.5, 7.5, 9])
        XCTAssertEqual(try run(true), [3, 9.0 / 4, 15.0 / 4, 9.0 / 4])
    }

    func testAveragePoolCenteredPadding() throws {
        let pool = Pooling(kind: .average, kernelHeight: 3, kernelWidth: 3, strideY: 1, strideX: 1, padding: .uniform(1))
        let out = try S.runDouble(try S.single(.pooling(pool), input: shape), input: grid)
        XCTAssertEqual(out[0], (1 + 2 + 4 + 5) / 4.0)
        XCTAssertEqual(out[4], 5)
        XCTAssertEqual(out[5], (2 + 3 + 5 + 6 + 8 + 9) / 6.0)
    }

    func testLargeStride1MaxPoolMatchesNaive() throws {
        // SPP-style 5x5 stride 1, padding 2 on each side, over 2 x 6 x 7
        let input = S.seeded(2 * 6 * 7, seed: 5)
        let pool = Pooling(kind: .max, kernelHeight: 5, kernelWidth: 5, strideY: 1, strideX: 1, padding: .uniform(2))
        let out = try S.runDouble(try S.single(.pooling(pool), input: ActivationShape(channels: 2, height: 6, width: 7)), input: input)
        var expected: [Double] = []
        for c in 0..<2 {
            for y in 0..<6 {
                for x in 0..<7 {
                    var best = -Double.infinity
                    for yy in (y - 2)...(y + 2) where yy >= 0 && yy < 6 {
                        for xx in (x - 2)...(x + 2) where xx >= 0 && xx < 7 { best = max(best, Double(input[(c * 6 + yy) * 7 + xx])) }
                    }
                    expected.append(best)
                }
            }
        }
        XCTAssertEqual(out, expected)
    }

    func testGlobalPooling() throws {
        let input: [Float] = [1, 2, 3, 6, -1, -2, -3, -10]
        let shape = ActivationShape(channels: 2, height: 2, width: 2)
        XCTAssertEqual(try S.runDouble(try S.single(.globalAveragePool, input: shape), input: input), [3, -4])
        XCTAssertEqual(try S.runDouble(try S.single(.globalMaxPool, input: shape), input: input), [6, -1])
    }
}
