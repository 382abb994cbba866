import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// GEMM, pointwise and depthwise convolution paths against a direct 7-loop convolution written here in Double.
final class ConvolutionKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    struct Case {
        var input: ActivationShape
        var out: Int
        var kh: Int, kw: Int
        var sy = 1, sx = 1, dy = 1, dx = 1
        var padding = Padding2D.zero
        var groups = 1
    }

    /// z[o,y,x] = sum_{i<I/g, ky, kx} W[o,i,ky,kx] * in[(o/(O/g))*(I/g) + i, y*sy - pt + ky*dy, x*sx - pl + kx*dx], zero outside.
    static func direct(_ c: Case, input: [Double], weights: [Double], bias: [Double]?) -> (shape: ActivationShape, values: [Double]) {
        let ig = c.input.channels / c.groups, og = c.out / c.groups
        let oh = (c.input.height + c.padding.top + c.padding.bottom - ((c.kh - 1) * c.dy + 1)) / c.sy + 1
        let ow = (c.input.width + c.padding.left + c.padding.right - ((c.kw - 1) * c.dx + 1)) / c.sx + 1
        var out = [Double](repeating: 0, count: c.out * oh * ow)
        for o in 0..<c.out {
            let g = o / og
            for y in 0..<oh {
                for x in 0..<ow {
                    var sum = bias?[o] ?? 0
                    for i in 0..<ig {
                        for ky in 0..<c.kh {
                            for kx in 0..<c.kw {
                                let iy = y * c.sy - c.padding.top + ky * c.dy
                                let ix = x * c.sx - c.padding.left + kx * c.dx
                                guard iy >= 0, iy < c.input.height, ix >= 0, ix < c.input.width else { continue }
                                sum +=
                                    weights[((o * ig + i) * c.kh + ky) * c.kw + kx]
                                    * input[((g * ig + i) * c.input.height + iy) * c.input.width + ix]
                            }
                        }
                    }
                    out[(o * oh + y) * ow + x] = sum
                }
            }
        }
        return (ActivationShape(channels: c.out, height: oh, width: ow), out)
    }

    func check(_ c: Case, withBias: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        let weightCount = c.out * (c.input.channels / c.groups) * c.kh * c.kw
        let weights = S.seeded(weightCount, seed: 7)
        let bias = withBias ? S.seeded(c.out, seed: 11) : nil
        let input = S.seeded(c.input.count, seed: 3)
        let conv = Convolution(
            inputChannels: c.input.channels, outputChannels: c.out, kernelHeight: c.kh, kernelWidth: c.kw,
            strideY: c.sy, strideX: c.sx, dilationY: c.dy, dilationX: c.dx, padding: c.padding, groups: c.groups,
            weights: WeightTensor(shape: [c.out, c.input.channels / c.groups, c.kh, c.kw], values: weights),
            bias: bias.map(S.tensor))
        let network = try S.single(.convolution(conv), input: c.input)
        let expected = Self.direct(c, input: input.map(Double.init), weights: weights.map(Double.init), bias: bias?.map(Double.init))
        XCTAssertEqual(network.layers[0].outputShape, expected.shape, file: file, line: line)
        let double = try S.runDouble(network, input: input)
        S.assertClose(double, expected.values, tolerance: 1e-12, file: file, line: line)
        let geometry = ConvolutionGeometry(conv, input: c.input, output: expected.shape)
        let tolerance = Self.float32Tolerance(
            path: ConvolutionKernel<Float>.path(for: conv, geometry: geometry),
            accumulationLength: conv.accumulationLength, expected: expected.values)
        let float = try S.runFloat(network, input: input)
        S.assertClose(float, expected.values, tolerance: tolerance, file: file, line: line)
        // Parameters read when the layer runs (Winograd transforms its weights into scratch then).
        let streamed = ExecutorOptions(streamParameters: true)
        S.assertClose(try S.runDouble(network, input: input, options: streamed), expected.values, tolerance: 1e-12, file: file, line: line)
        S.assertClose(try S.runFloat(network, input: input, options: streamed), expected.values, tolerance: tolerance, file: file, line: line)
    }

    /// The float32 tolerance of a layer's outputs: 2e-5 absolute (values of a few units, sums of products of
    /// values in [-1, 1]) on every path but F(4x4, 3x3), whose transforms magnify rounding (At's last row is
    /// 1, -1, 8, -8, 1); there the rounding budget verify grants a layer, 16 u sqrt(K) max|expected|
    /// (`ToleranceBudget.floorCoefficient`, u = 2^-24, K the accumulation length).
    static func float32Tolerance(path: ConvolutionKernel<Float>.Path, accumulationLength k: Int, expected: [Double]) -> Double {
        guard path == .winogradF4 else { return 2e-5 }
        let largest = expected.map { abs($0) }.max() ?? 0
        return ToleranceBudget.safety * VerificationPrecision.float32.unitRoundoff * Double(k).squareRoot() * largest
    }

    func testPlain3x3SamePadding() throws {
        try check(Case(input: ActivationShape(channels: 3, height: 7, width: 6), out: 4, kh: 3, kw: 3, padding: .uniform(1)))
    }

    // 3x3 stride 1 with at least 16 input channels and outputs under 17x17 takes the Winograd F(2x2, 3x3) path: odd and even
    // output sizes (partial 2x2 tiles), asymmetric padding, no padding, and a 2x2 output.
    func testWinograd3x3SamePaddingOddHeight() throws {
        try check(Case(input: ActivationShape(channels: 64, height: 7, width: 6), out: 5, kh: 3, kw: 3, padding: .uniform(1)))
    }

    func testWinograd3x3AsymmetricPadding() throws {
        try check(
            Case(
                input: ActivationShape(channels: 65, height: 9, width: 7), out: 4, kh: 3, kw: 3,
                padding: Padding2D(top: 0, left: 2, bottom: 2, right: 1)))
    }

    func testWinograd3x3NoPaddingWithoutBias() throws {
        try check(Case(input: ActivationShape(channels: 64, height: 6, width: 5), out: 3, kh: 3, kw: 3), withBias: false)
        try check(Case(input: ActivationShape(channels: 64, height: 4, width: 4), out: 2, kh: 3, kw: 3))
    }

    // Outputs of 17x17 and more take F(4x4, 3x3): partial 4x4 tiles on both sides, asymmetric padding, and the
    // smallest channel count Winograd takes.
    func testWinogradF4SamePaddingPartialTiles() throws {
        try check(Case(input: ActivationShape(channels: 64, height: 41, width: 42), out: 3, kh: 3, kw: 3, padding: .uniform(1)))
    }

    func testWinogradF4AsymmetricPaddingWithoutBias() throws {
        try check(
            Case(
                input: ActivationShape(channels: 66, height: 43, width: 45), out: 2, kh: 3, kw: 3,
                padding: Padding2D(top: 2, left: 0, bottom: 1, right: 2)), withBias: false)
    }

    func testWinogradF4SixteenInputChannelsSmallestSide() throws {
        try check(Case(input: ActivationShape(channels: 16, height: 17, width: 19), out: 5, kh: 3, kw: 3, padding: .uniform(1)))
    }

    // Enough tiles to run in blocks, as many per core (`WinogradSchedule`): F(2x2) in float32 (2205 tiles, 18 blocks
    // of 122-123, the first boundary inside tile row 2) and F(4x4) in float64 (575 tiles, 8 blocks of 71-72, the
    // first boundary inside row 3),
    // with partial tiles on the bottom and right edges; with bias, and with an unfolded batch norm (epilogue
    // applied row piece by row piece).
    func testWinogradInBlocksAcrossCores() throws {
        let geometry = ConvolutionGeometry(
            Convolution(
                inputChannels: 64, outputChannels: 3, kernelHeight: 3, kernelWidth: 3, strideY: 1, strideX: 1,
                dilationY: 1, dilationX: 1, padding: Padding2D(top: 1, left: 1, bottom: 1, right: 1), groups: 1,
                weights: WeightTensor(shape: [3, 64, 3, 3], values: []), bias: nil),
            input: ActivationShape(channels: 64, height: 97, width: 89), output: ActivationShape(channels: 3, height: 97, width: 89))
        if Parallel.workerCount > 1 {
            let f2 = WinogradF2Convolution<Float>.schedule(for: geometry, splitsProducts: true)
            let f4 = WinogradF4Convolution<Double>.schedule(for: geometry, splitsProducts: true)
            XCTAssertTrue(f2.isBlocked && f4.isBlocked)
            if Parallel.workerCount == 2 {
                XCTAssertEqual(f2.blockCount, 18)
                XCTAssertEqual(f4.blockCount, 8)
            }
        }
        try check(
            Case(
                input: ActivationShape(channels: 64, height: 97, width: 89), out: 3, kh: 3, kw: 3,
                padding: Padding2D(top: 1, left: 1, bottom: 1, right: 1)))
    }

    // The epilogue (bias, unfolded batch norm, leaky) on Winograd layers, wide (13x13; in float64 with
    // transposed products when FoldKit splits them) and in blocks (97x89):
    // each output element gets leaky(gamma * (z + b - mean) / sqrt(var + eps) + beta).
    func testWinogradEpilogueWithBatchNormAndLeaky() throws {
        for (height, width) in [(13, 13), (97, 89)] {
            let c = Case(
                input: ActivationShape(channels: 64, height: height, width: width), out: 3, kh: 3, kw: 3,
                padding: Padding2D(top: 1, left: 1, bottom: 1, right: 1))
            let weights = S.seeded(3 * 64 * 9, seed: 7), bias = S.seeded(3, seed: 11), input = S.seeded(c.input.count, seed: 3)
            let gamma: [Float] = [1.5, -0.5, 2], beta: [Float] = [0.25, -0.125, 0], mean: [Float] = [0.5, -1, 0.125],
                variance: [Float] = [0.5, 2, 0.0625]
            let conv = Convolution(
                inputChannels: 64, outputChannels: 3, kernelHeight: 3, kernelWidth: 3, padding: c.padding,
                weights: WeightTensor(shape: [3, 64, 3, 3], values: weights), bias: S.tensor(bias),
                batchNorm: BatchNorm(
                    gamma: S.tensor(gamma), beta: S.tensor(beta), mean: S.tensor(mean), variance: S.tensor(variance),
                    convention: .darknet),
                activation: .leaky(slope: 0.1))
            let network = try S.single(.convolution(conv), input: c.input)
            let z = Self.direct(c, input: input.map(Double.init), weights: weights.map(Double.init), bias: bias.map(Double.init))
            let shapes = ConvolutionGeometry(conv, input: c.input, output: z.shape)
            XCTAssertEqual(WinogradF2Convolution<Double>.schedule(for: shapes, splitsProducts: true).transposesProducts, height == 13)
            XCTAssertFalse(WinogradF2Convolution<Double>.schedule(for: shapes, splitsProducts: false).transposesProducts)
            let plane = height * width
            let expected = z.values.indices.map { i -> Double in
                let o = i / plane
                let v = Double(gamma[o]) * (z.values[i] - Double(mean[o])) / (Double(variance[o]) + 1e-5).squareRoot() + Double(beta[o])
                return v > 0 ? v : Double(Float(0.1)) * v
            }
            S.assertClose(try S.runDouble(network, input: input), expected, tolerance: 1e-11)
            // Wide 13x13 by F(2x2, 3x3); 97x89 by F(4x4, 3x3), within the rounding budget (`float32Tolerance`).
            let geometry = ConvolutionGeometry(conv, input: c.input, output: z.shape)
            let path = ConvolutionKernel<Float>.path(for: conv, geometry: geometry)
            XCTAssertEqual(path, height == 13 ? .winograd : .winogradF4)
            let tolerance = path == .winogradF4 ? Self.float32Tolerance(path: path, accumulationLength: 64 * 9, expected: expected) : 2e-4
            S.assertClose(try S.runFloat(network, input: input), expected, tolerance: tolerance)
            S.assertClose(try S.runFloat(network, input: input, options: ExecutorOptions(streamParameters: true)), expected, tolerance: tolerance)
        }
    }

    func testWinogradVariantFollowsOutputSize() throws {
        func path<S: ExecutorScalar>(_: S.Type, side: Int) -> ConvolutionKernel<S>.Path {
            let conv = Convolution(
                inputChannels: 64, outputChannels: 8, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                weights: WeightTensor(shape: [8, 64, 3, 3], values: []), bias: nil)
            let geometry = ConvolutionGeometry(
                conv, input: ActivationShape(channels: 64, height: side, width: side),
                output: ActivationShape(channels: 8, height: side, width: side))
            return ConvolutionKernel<S>.path(for: conv, geometry: geometry)
        }
        for side in [17, 19, 26, 40] {
            XCTAssertEqual(path(Double.self, side: side), .winogradF4, "\(side)x\(side)")
            XCTAssertEqual(path(Float.self, side: side), .winogradF4, "\(side)x\(side)")
        }
        for side in [13, 14, 16] {
            XCTAssertEqual(path(Double.self, side: side), .winograd, "\(side)x\(side)")
            XCTAssertEqual(path(Float.self, side: side), .winograd, "\(side)x\(side)")
        }
    }

    func testWinogradPathIsTakenOnlyFrom16InputChannels() throws {
        func geometry(channels: Int) -> ConvolutionGeometry {
            let conv = Convolution(
                inputChannels: channels, outputChannels: 8, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                weights: WeightTensor(shape: [8, channels, 3, 3], values: []), bias: nil)
            let shape = ActivationShape(channels: channels, height: 8, width: 8)
            return ConvolutionGeometry(conv, input: shape, output: ActivationShape(channels: 8, height: 8, width: 8))
        }
        XCTAssertTrue(WinogradF2Convolution<Float>.applies(to: geometry(channels: 16)))
        XCTAssertFalse(WinogradF2Convolution<Float>.applies(to: geometry(channels: 15)))
    }

    func testStride2AsymmetricPaddingAndOddSize() throws {
        try check(
            Case(
                input: ActivationShape(channels: 2, height: 9, width: 8), out: 3, kh: 3, kw: 3, sy: 2, sx: 2,
                padding: Padding2D(top: 0, left: 1, bottom: 2, right: 0)))
    }

    // Rows wider than 16 outputs take the vector stride-2 gather (with a scalar tail), and a column matrix
    // of >= 2^16 elements is written by both cores.
    func testStride2WideRowsSplitAcrossCores() throws {
        try check(
            Case(
                input: ActivationShape(channels: 8, height: 40, width: 131), out: 4, kh: 3, kw: 3, sy: 2, sx: 2,
                padding: Padding2D(top: 1, left: 1, bottom: 1, right: 1)))
        try check(
            Case(
                input: ActivationShape(channels: 8, height: 41, width: 130), out: 3, kh: 3, kw: 3, sy: 2, sx: 2,
                padding: Padding2D(top: 0, left: 1, bottom: 1, right: 0)), withBias: false)
    }

    /// The geometry of a `Case` (output size as in `direct`).
    func geometry(_ c: Case) -> ConvolutionGeometry {
        let conv = Convolution(
            inputChannels: c.input.channels, outputChannels: c.out, kernelHeight: c.kh, kernelWidth: c.kw,
            strideY: c.sy, strideX: c.sx, dilationY: c.dy, dilationX: c.dx, padding: c.padding, groups: c.groups,
            weights: WeightTensor(shape: [c.out, c.input.channels / c.groups, c.kh, c.kw], values: []), bias: nil)
        let oh = (c.input.height + c.padding.top + c.padding.bottom - ((c.kh - 1) * c.dy + 1)) / c.sy + 1
        let ow = (c.input.width + c.padding.left + c.padding.right - ((c.kw - 1) * c.dx + 1)) / c.sx + 1
        return ConvolutionGeometry(conv, input: c.input, output: ActivationShape(channels: c.out, height: oh, width: ow))
    }

    // Column matrices larger than one block go in blocks of output rows (one product each, on both
    // cores): 15 channels (one short of Winograd) x 3x3 at width 200 is 108 KB of float32 columns per output
    // row, so blocks of 2 rows (5 blocks of 9 rows, the last one shorter); with groups, and stride 2 with
    // asymmetric padding.
    func testIm2colInBlocksOfOutputRows() throws {
        let plain = Case(input: ActivationShape(channels: 15, height: 9, width: 200), out: 4, kh: 3, kw: 3, padding: .uniform(1))
        let schedule = Im2ColSchedule(geometry: geometry(plain), scalarBytes: 4)
        XCTAssertEqual(schedule.rowsPerBlock, 2)
        XCTAssertEqual(schedule.blockCount, 5)
        XCTAssertEqual(schedule.blockElements, 135 * 2 * 200)
        XCTAssertEqual(schedule.outputRows(ofBlock: 4, height: 9), 8..<9)
        XCTAssertEqual(
            ConvolutionKernel<Float>.path(
                for: Convolution(
                    inputChannels: 15, outputChannels: 4, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                    weights: WeightTensor(shape: [4, 15, 3, 3], values: []), bias: nil), geometry: geometry(plain)), .im2col)
        try check(plain)
        let grouped = Case(
            input: ActivationShape(channels: 32, height: 7, width: 180), out: 6, kh: 3, kw: 3,
            padding: Padding2D(top: 1, left: 0, bottom: 2, right: 1), groups: 2)
        XCTAssertGreaterThan(Im2ColSchedule(geometry: geometry(grouped), scalarBytes: 4).blockCount, 1)
        try check(grouped, withBias: false)
        let strided = Case(
            input: ActivationShape(channels: 12, height: 15, width: 390), out: 5, kh: 3, kw: 3, sy: 2, sx: 2,
            padding: Padding2D(top: 0, left: 1, bottom: 1, right: 0))
        XCTAssertGreaterThan(Im2ColSchedule(geometry: geometry(strided), scalarBytes: 4).blockCount, 1)
        try check(strided)
    }

    // Weights above the limit, or a column matrix within one block, keep the whole column matrix.
    func testIm2colBlocksOnlyWithSmallWeightsAndLargeColumns() {
        let small = Case(input: ActivationShape(channels: 3, height: 7, width: 6), out: 4, kh: 3, kw: 3, padding: .uniform(1))
        XCTAssertEqual(Im2ColSchedule(geometry: geometry(small), scalarBytes: 4).blockCount, 1)
        XCTAssertEqual(Im2ColSchedule(geometry: geometry(small), scalarBytes: 4).rowsPerBlock, 7)
        // 512 x (16*9) float64 weights = 576 KB.
        let heavy = Case(input: ActivationShape(channels: 16, height: 40, width: 200), out: 512, kh: 3, kw: 3, padding: .uniform(1))
        XCTAssertEqual(Im2ColSchedule(geometry: geometry(heavy), scalarBytes: 8).blockCount, 1)
        XCTAssertGreaterThan(Im2ColSchedule(geometry: geometry(heavy), scalarBytes: 4).blockCount, 1)
    }

    func testGatherEvenMatchesScalarLoopForEveryCount() {
        for count in 0...70 {
            // Exactly the elements read: s[0 ... 2(count - 1)].
            let source = (0..<max(0, 2 * count - 1)).map { Float($0) * 0.5 - 3 }
            var gathered = [Float](repeating: .nan, count: count + 1)
            source.withUnsafeBufferPointer { s in
                gathered.withUnsafeMutableBufferPointer { d in
                    if let sBase = s.baseAddress, let dBase = d.baseAddress {
                        ConvolutionGeometry.gatherEven(from: sBase, into: dBase, count: count)
                    }
                }
            }
            XCTAssertEqual(Array(gathered[0..<count]), (0..<count).map { source[2 * $0] }, "count \(count)")
            XCTAssertTrue(gathered[count].isNaN, "count \(count): wrote past the end")
        }
    }

    func testGroupsWithDilation() throws {
        try check(
            Case(
                input: ActivationShape(channels: 4, height: 8, width: 9), out: 6, kh: 3, kw: 2, dy: 2, dx: 3,
                padding: Padding2D(top: 2, left: 1, bottom: 1, right: 3), groups: 2))
    }

    func testNonSquareKernelAndStrides() throws {
        try check(
            Case(
                input: ActivationShape(channels: 3, height: 6, width: 11), out: 2, kh: 1, kw: 5, sy: 3, sx: 2,
                padding: Padding2D(top: 1, left: 2, bottom: 0, right: 2)), withBias: false)
    }

    func testPointwise() throws {
        try check(Case(input: ActivationShape(channels: 5, height: 4, width: 3), out: 7, kh: 1, kw: 1))
    }

    // Products of >= 2^18 multiply-adds are split across cores (GEMMPartition), and each part gets its
    // bias and activation as soon as it is computed: split by columns (n >= m), by rows (m > n), and per group.
    func testPointwiseSplitProductsGetTheEpilogueOnEveryPart() throws {
        try check(Case(input: ActivationShape(channels: 64, height: 32, width: 33), out: 16, kh: 1, kw: 1))
        try check(Case(input: ActivationShape(channels: 64, height: 4, width: 5), out: 300, kh: 1, kw: 1))
        try check(Case(input: ActivationShape(channels: 128, height: 32, width: 33), out: 32, kh: 1, kw: 1, groups: 2))
    }

    // Leaky after the bias on a product split by columns, by rows, and through im2col.
    func testLeakyEpilogueOnSplitProducts() throws {
        for (input, out, kernel) in [
            (ActivationShape(channels: 64, height: 32, width: 33), 16, 1),
            (ActivationShape(channels: 64, height: 4, width: 5), 300, 1),
            (ActivationShape(channels: 8, height: 40, width: 41), 8, 3),
        ] {
            let c = Case(
                input: input, out: out, kh: kernel, kw: kernel, padding: kernel == 3 ? Padding2D(top: 1, left: 1, bottom: 1, right: 1) : .zero)
            let weights = S.seeded(out * input.channels * kernel * kernel, seed: 5)
            let bias = S.seeded(out, seed: 9)
            let values = S.seeded(input.count, seed: 2)
            let conv = Convolution(
                inputChannels: input.channels, outputChannels: out, kernelHeight: kernel, kernelWidth: kernel, padding: c.padding,
                weights: WeightTensor(shape: [out, input.channels, kernel, kernel], values: weights), bias: S.tensor(bias),
                activation: .leaky(slope: 0.1))
            let network = try S.single(.convolution(conv), input: input)
            let slope = Double(Float(0.1))
            let expected = Self.direct(c, input: values.map(Double.init), weights: weights.map(Double.init), bias: bias.map(Double.init))
                .values.map { $0 > 0 ? $0 : slope * $0 }
            XCTAssertTrue(expected.contains { $0 < 0 } && expected.contains { $0 > 0 })
            S.assertClose(try S.runDouble(network, input: values), expected, tolerance: 1e-12)
            S.assertClose(try S.runFloat(network, input: values), expected, tolerance: 5e-5)
        }
    }

    func testPointwiseGrouped() throws {
        try check(Case(input: ActivationShape(channels: 6, height: 3, width: 5), out: 9, kh: 1, kw: 1, groups: 3))
    }

    func testOneByOneWithStrideGoesThroughIm2col() throws {
        try check(Case(input: ActivationShape(channels: 3, height: 5, width: 5), out: 2, kh: 1, kw: 1, sy: 2, sx: 2))
    }

    func testDepthwise() throws {
        try check(Case(input: ActivationShape(channels: 4, height: 7, width: 6), out: 4, kh: 3, kw: 3, padding: .uniform(1), groups: 4))
    }

    func testDepthwiseStride2DilatedAsymmetric() throws {
        try check(
            Case(
                input: ActivationShape(channels: 3, height: 9, width: 10), out: 3, kh: 3, kw: 3, sy: 2, sx: 2, dy: 2, dx: 1,
                padding: Padding2D(top: 1, left: 0, bottom: 2, right: 1), groups: 3))
    }

    func testDepthwiseWithChannelMultiplierUsesGroupedPath() throws {
        try check(Case(input: ActivationShape(channels: 2, height: 5, width: 5), out: 4, kh: 3, kw: 3, padding: .uniform(1), groups: 2))
    }

    func testKernelLargerThanInputWithPadding() throws {
        try check(Case(input: ActivationShape(channels: 1, height: 2, width: 2), out: 2, kh: 5, kw: 5, padding: .uniform(2)))
    }

    /// Unfolded batch norm: after the bias, before the activation, with the layer's epsilon convention.
    func testBatchNormInsideAndOutsideSqrtThenActivation() throws {
        // 1x1 input, 1x1 kernel: z = w * x + b = 2 * 3 + 1 = 7.
        func output(_ placement: EpsilonPlacement, activation: Activation) throws -> Double {
            let bn = BatchNorm(
                gamma: S.tensor([1.5]), beta: S.tensor([-0.25]), mean: S.tensor([5]), variance: S.tensor([1e-6]),
                convention: EpsilonConvention(epsilon: 1e-5, placement: placement))
            let conv = Convolution(
                inputChannels: 1, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
                weights: WeightTensor(shape: [1, 1, 1, 1], values: [2]), bias: S.tensor([1]), batchNorm: bn,
                activation: activation)
            return try S.runDouble(try S.single(.convolution(conv), input: .vector(1)), input: [3])[0]
        }
        let variance = Double(Float(1e-6))
        let inside = 1.5 * (7 - 5) / (variance + 1e-5).squareRoot() - 0.25
        let outside = 1.5 * (7 - 5) / (variance.squareRoot() + 1e-5) - 0.25
        XCTAssertEqual(try output(.insideSqrt, activation: .linear), inside, accuracy: 1e-9 * inside)
        XCTAssertEqual(try output(.outsideSqrt, activation: .linear), outside, accuracy: 1e-9 * outside)
        // about 904 against 2970: the convention matters for tiny variances
        XCTAssertGreaterThan(abs(inside - outside), 1000)
        // the activation comes after the batch norm: leaky of a positive value keeps it
        XCTAssertEqual(try output(.insideSqrt, activation: .leaky(slope: 0.1)), inside, accuracy: 1e-9 * inside)
        // mean 5 above z: negative before the beta, then leaky scales it
        let negative = try { () -> Double in
            let bn = BatchNorm(gamma: nil, beta: nil, mean: S.tensor([9]), variance: S.tensor([3]), convention: .darknet)
            let conv = Convolution(
                inputChannels: 1, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
                weights: WeightTensor(shape: [1, 1, 1, 1], values: [2]), bias: S.tensor([1]), batchNorm: bn,
                activation: .leaky(slope: 0.1))
            return try S.runDouble(try S.single(.convolution(conv), input: .vector(1)), input: [3])[0]
        }()
        XCTAssertEqual(negative, Double(Float(0.1)) * (7 - 9) / (3 + 1e-5).squareRoot(), accuracy: 1e-12)
    }

    func testWrongWeightCountNamesTheLayer() throws {
        let conv = Convolution(
            inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [2, 1, 1, 1], values: [1, 2]), bias: S.tensor([1, 2, 3]))
        let network = try S.single(.convolution(conv), input: .vector(1))
        XCTAssertThrowsError(try Executor<Float>(network: network)) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.layer, "layer 0 [test]")
            XCTAssertEqual(e?.expected, "2")
            XCTAssertEqual(e?.found, "3")
        }
    }
}
