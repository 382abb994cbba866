/// What Winograd F(2x2, 3x3) (`WinogradConvolution`) and F(4x4, 3x3) (`WinogradF4Convolution`) share: a
/// variant gives its tile size, point count and its two tile transforms; the pass around them - U from
/// `WinogradWeights`, the tiles spread over the cores by `WinogradSchedule`, the per-point products - is
/// written once here.
///
/// Tiles are `outputTileSide` x `outputTileSide` output pixels, T = ceil(OH / side) * ceil(OW / side), tile
/// t = ty * across + tx; V, M and U hold `points` planes (see `WinogradWeights`).
protocol WinogradVariant {
    associatedtype Scalar: ExecutorScalar
    /// Output pixels per tile side: 2 for F(2x2, 3x3), 4 for F(4x4, 3x3).
    static var outputTileSide: Int { get }
    /// Elements of the transformed tile: 16 or 36.
    static var points: Int { get }
    /// Elementary operations per tile and channel of the input and output transforms (for `Parallel`).
    static var inputWork: Int { get }
    static var outputWork: Int { get }

    var geometry: ConvolutionGeometry { get }
    var parameters: WinogradWeights<Scalar> { get }
    var schedule: WinogradSchedule { get }

    /// The memberwise initialiser (the variant's stored properties).
    init(geometry: ConvolutionGeometry, parameters: WinogradWeights<Scalar>, schedule: WinogradSchedule)
    /// Writes U = G g Gt for O x C x 3 x 3 weights w into u (`WinogradWeights`' layout).
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>)

    /// V of input channel c for `tiles`: tile t at v[k * pointStride + t - tiles.lowerBound].
    func transformInput(channel c: Int, tiles: Range<Int>, input: UnsafePointer<Scalar>, into v: UnsafeMutablePointer<Scalar>, pointStride: Int)
    /// Output channel o's pixels of `tiles` from M (tile t at m[k * pointStride + t - tiles.lowerBound]),
    /// then the epilogue on each finished row piece.
    func transformOutput(
        channel o: Int, tiles: Range<Int>, from m: UnsafePointer<Scalar>, pointStride: Int,
        into output: UnsafeMutablePointer<Scalar>, epilogue: ChannelEpilogue<Scalar>)
}

extension WinogradVariant {
    /// weights: O x C x 3 x 3 (OIHW), as the executor uses them (already rounded to binary16 when it emulates
    /// float16 storage: such values are exact in Float); U is computed in Double and rounded once to Scalar,
    /// at init with `precompute`, else on every pass.
    init(geometry: ConvolutionGeometry, weights: [Float], precompute: Bool) {
        self.init(
            geometry: geometry,
            parameters: WinogradWeights(
                weights: weights, points: Self.points, outputChannels: geometry.output.channels, inputChannels: geometry.input.channels,
                precompute: precompute, transform: { Self.transform($0, outputChannels: $1, inputChannels: $2, into: $3) }),
            schedule: Self.schedule(for: geometry))
    }

    /// Tiles across one output row.
    static func tilesAcross(_ g: ConvolutionGeometry) -> Int { (g.output.width + outputTileSide - 1) / outputTileSide }

    /// T = ceil(OH / side) * ceil(OW / side).
    static func tileCount(_ g: ConvolutionGeometry) -> Int {
        ((g.output.height + outputTileSide - 1) / outputTileSide) * tilesAcross(g)
    }

    /// How the tiles are spread over the cores (wide or in blocks, `WinogradSchedule`).
    static func schedule(for g: ConvolutionGeometry) -> WinogradSchedule {
        WinogradSchedule(tiles: tileCount(g), points: points, inputChannels: g.input.channels, outputChannels: g.output.channels,
                         scalarBytes: MemoryLayout<Scalar>.size)
    }

    /// V and M (points x C x n and points x O x n per block, `WinogradSchedule.scratchCount`), then U
    /// (points x O x C) when it is computed in `forward`.
    static func scratchCount(geometry g: ConvolutionGeometry, transformsWeightsInForward: Bool) -> Int {
        schedule(for: g).scratchCount
            + WinogradWeights<Scalar>.scratchCount(points: points, outputChannels: g.output.channels, inputChannels: g.input.channels,
                                                   transformsInForward: transformsWeightsInForward)
    }

    /// out = epilogue(conv(input)); `scratch` holds `scratchCount` elements (this instance's schedule).
    @inline(__always)
    func forward(input: UnsafePointer<Scalar>, output: UnsafeMutablePointer<Scalar>, scratch: UnsafeMutablePointer<Scalar>,
                 epilogue: ChannelEpilogue<Scalar>) {
        let schedule = self.schedule
        parameters.withTransformed(scratch: scratch + schedule.scratchCount) { u in
            schedule.run(
                scratch: scratch, inputWork: Self.inputWork, outputWork: Self.outputWork,
                inputTransform: { c, tiles, v, stride in transformInput(channel: c, tiles: tiles, input: input, into: v, pointStride: stride) },
                multiply: { v, m, n, split in parameters.multiply(u: u, v: v, into: m, tiles: n, splitAcrossCores: split) },
                outputTransform: { o, tiles, m, stride in
                    transformOutput(channel: o, tiles: tiles, from: m, pointStride: stride, into: output, epilogue: epilogue)
                })
        }
    }
}
