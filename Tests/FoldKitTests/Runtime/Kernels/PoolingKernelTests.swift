import XCTest

@testable import FoldKit

/// Max and average pooling, global pooling, on small inputs computed by hand.
final class PoolingKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport
    /// 1 x 3 x 3:
    ///   1 2 3
    ///   4 5 6
    ///   7 8 9
    let grid: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    let shape = ActivationShape(channels: 1, height: 3, width: 3)

    /// The window maximum of every output, taking a value only when it is greater (as the kernel does: NaN
    /// never, an empty window stays -infinity); windows start at (oy * stride - padTop, ox * stride - padLeft).
    func naiveMaxPool(
        _ input: [Float], _ shape: ActivationShape, kh: Int, kw: Int, stride: Int, padTop: Int, padLeft: Int,
        outH: Int, outW: Int
    ) -> [Double] {
        var expected: [Double] = []
        for c in 0..<shape.channels {
            for y in 0..<outH {
                for x in 0..<outW {
                    var best = -Double.infinity
                    for yy in (y * stride - padTop)..<(y * stride - padTop + kh) where yy >= 0 && yy < shape.height {
                        for xx in (x * stride - padLeft)..<(x * stride - padLeft + kw) where xx >= 0 && xx < shape.width {
                            let v = Double(input[(c * shape.height + yy) * shape.width + xx])
                            if v > best { best = v }
                        }
                    }
                    expected.append(best)
                }
            }
        }
        return expected
    }

    func testDarknetStyleMaxPoolSize2Stride1PaddingCountsAsMinusInfinity() throws {
        // Darknet size=2 stride=1: padding = 1 in total, window starts at -padding/2 = 0: bottom/right padded.
        let pool = Pooling(
            kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1,
            padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1))
        let out = try S.runDouble(try S.single(.pooling(pool), input: shape), input: grid.map { -$0 })
        // with negative values a zero padding would win; -infinity padding never does
        XCTAssertEqual(out, [-1, -2, -3, -4, -5, -6, -7, -8, -9])
    }

    /// A cfg may declare any 32-bit size: size=2147483647 with darknet's default padding (size - 1, half
    /// before) is a valid max pool whose every window covers the whole 3 x 3 input, for max, average and
    /// stride 1 alike; the window's area would overflow `Int` as work for the thread split.
    func testWindowOfTwoToTheThirtyOneCoversTheWholeInput() throws {
        let size = Int(Int32.max), before = (size - 1) / 2
        let padding = Padding2D(top: before, left: before, bottom: size - 1 - before, right: size - 1 - before)
        for (kind, stride) in [(Pooling.Kind.max, 2), (.max, 1), (.average, 2)] {
            let pool = Pooling(kind: kind, kernelHeight: size, kernelWidth: size, strideY: stride, strideX: stride, padding: padding)
            let layer = try S.single(.pooling(pool), input: shape)
            let out = try S.runDouble(layer, input: grid)
            let side = (3 - 1) / stride + 1
            XCTAssertEqual(out.count, side * side, "\(kind) stride \(stride)")
            XCTAssertEqual(out, [Double](repeating: kind == .max ? 9 : 5, count: side * side), "\(kind) stride \(stride)")
            XCTAssertEqual(try S.runFloat(layer, input: grid).map(Double.init), out, "\(kind) stride \(stride), float32")
        }
    }

    func testMaxPoolStride2OddSize() throws {
        let pool = Pooling(
            kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
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
            let pool = Pooling(
                kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1))
            let network = try S.single(.pooling(pool), input: shape)
            XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: 3, height: outH, width: outW))
            let expected = naiveMaxPool(input, shape, kh: 2, kw: 2, stride: 2, padTop: 0, padLeft: 0, outH: outH, outW: outW)
            let double = try S.runDouble(network, input: input)
            let float = try S.runFloat(network, input: input)
            XCTAssertEqual(double.map { $0.bitPattern }, expected.map { $0.bitPattern }, "\(height)x\(width)")
            XCTAssertEqual(float.map { Double($0).bitPattern }, expected.map { $0.bitPattern }, "\(height)x\(width)")
        }
    }

    func testAveragePoolExcludingAndIncludingPadding() throws {
        func run(_ includes: Bool) throws -> [Double] {
            let pool = Pooling(
                kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
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

    // Stride-1 max pools run separably (rows, then columns): Darknet's size=2 stride=1, SPP-style 5x5 / 9x9 /
    // 13x13 with centred padding, a non-square window with asymmetric padding, and a window wider than the
    // input; against the window maximum computed here, to the bit (NaN, infinities and signed zeros in the input).
    func testStride1MaxPoolsMatchNaive() throws {
        let cases: [(kh: Int, kw: Int, padding: Padding2D, height: Int, width: Int)] = [
            (2, 2, Padding2D(top: 0, left: 0, bottom: 1, right: 1), 13, 13),
            (5, 5, .uniform(2), 6, 7), (9, 9, .uniform(4), 19, 19), (13, 13, .uniform(6), 19, 17),
            (3, 2, Padding2D(top: 2, left: 0, bottom: 0, right: 1), 5, 8), (7, 7, .uniform(3), 2, 3),
        ]
        for (kh, kw, padding, height, width) in cases {
            let shape = ActivationShape(channels: 2, height: height, width: width)
            var input = S.seeded(shape.count, seed: UInt64(kh * 31 + width))
            input[3] = .nan
            input[shape.count - 2] = .infinity
            input[width + 1] = -.infinity
            input[2 * width] = -0.0
            input[2 * width + 1] = 0.0
            let pool = Pooling(kind: .max, kernelHeight: kh, kernelWidth: kw, strideY: 1, strideX: 1, padding: padding)
            let network = try S.single(.pooling(pool), input: shape)
            let outH = height + padding.top + padding.bottom - kh + 1, outW = width + padding.left + padding.right - kw + 1
            XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: 2, height: outH, width: outW))
            let expected = naiveMaxPool(input, shape, kh: kh, kw: kw, stride: 1, padTop: padding.top, padLeft: padding.left, outH: outH, outW: outW)
            let what = "\(kh)x\(kw) over \(height)x\(width)"
            XCTAssertEqual(try S.runDouble(network, input: input).map { $0.bitPattern }, expected.map { $0.bitPattern }, what)
            XCTAssertEqual(try S.runFloat(network, input: input).map { Double($0).bitPattern }, expected.map { $0.bitPattern }, what)
        }
    }

    func testGlobalPooling() throws {
        let input: [Float] = [1, 2, 3, 6, -1, -2, -3, -10]
        let shape = ActivationShape(channels: 2, height: 2, width: 2)
        XCTAssertEqual(try S.runDouble(try S.single(.globalAveragePool, input: shape), input: input), [3, -4])
        XCTAssertEqual(try S.runDouble(try S.single(.globalMaxPool, input: shape), input: input), [6, -1])
    }
}
