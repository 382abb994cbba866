/// What Winograd F(2x2, 3x3) (`WinogradF2Convolution`) and F(4x4, 3x3) (`WinogradF4Convolution`) share: a
/// variant (a type without instances) gives its tile size, point count, weight transform and which C
/// transforms (`WinogradTransforms`) it uses; the input and output transforms over rows of tiles are
/// written once, in this protocol's extension, and a layer's state and the pass around the transforms - U
/// from `WinogradWeights`, the tiles spread over the cores by `WinogradSchedule`, the per-point products -
/// once, in `WinogradLayer`.
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

    /// Writes U = G g Gt for O x C x 3 x 3 weights w into u (`WinogradWeights`' layout).
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>)
    /// The C row transforms of this variant (`WinogradTransforms`).
    static var transforms: WinogradTransforms { get }
}

extension WinogradVariant {
    /// Tiles across one output row.
    static func tilesAcross(_ g: ConvolutionGeometry) -> Int { (g.output.width + outputTileSide - 1) / outputTileSide }

    /// T = ceil(OH / side) * ceil(OW / side).
    static func tileCount(_ g: ConvolutionGeometry) -> Int {
        ((g.output.height + outputTileSide - 1) / outputTileSide) * tilesAcross(g)
    }

    /// How the tiles are spread over the cores (wide or in blocks, `WinogradSchedule`).
    /// `splitsProducts`: FoldKit runs the products itself (`ProductThreading.splitAcrossCores`), which blocks need.
    static func schedule(for g: ConvolutionGeometry, splitsProducts: Bool) -> WinogradSchedule {
        WinogradSchedule(
            tiles: tileCount(g), points: points, inputChannels: g.input.channels, outputChannels: g.output.channels,
            scalarBytes: MemoryLayout<Scalar>.size, blocksAllowed: splitsProducts)
    }

    /// V and M (points x C x n and points x O x n per block, `WinogradSchedule.scratchCount`), then U
    /// (points x O x C) when it is computed in `forward`.
    static func scratchCount(geometry g: ConvolutionGeometry, transformsWeightsInForward: Bool, splitsProducts: Bool) -> Int {
        schedule(for: g, splitsProducts: splitsProducts).scratchCount
            + WinogradWeights<Scalar>.scratchCount(
                points: points, outputChannels: g.output.channels, inputChannels: g.input.channels,
                transformsInForward: transformsWeightsInForward)
    }

    /// V of input channel c for `tiles`: tile t at v[k * pointStride + t - tiles.lowerBound], one row of
    /// tiles at a time (`WinogradTransforms`).
    @inline(__always)
    static func transformInput(
        _ g: ConvolutionGeometry, channel c: Int, tiles: Range<Int>, input: UnsafePointer<Scalar>, into v: UnsafeMutablePointer<Scalar>,
        pointStride: Int
    ) {
        let across = tilesAcross(g)
        let plane = input + c * g.input.planeSize
        WinogradSchedule.rowSegments(tiles, across: across) { ty, start, end in
            transforms.input(
                plane: plane, geometry: g, tileRow: ty, firstTile: start, count: end - start,
                into: v + ty * across + start - tiles.lowerBound, pointStride: pointStride)
        }
    }

    /// Output channel o's pixels of `tiles` from M (tile t at m[k * pointStride + (t - tiles.lowerBound) * tileStride]),
    /// one row of tiles at a time (`WinogradTransforms`), then the epilogue on each finished row piece
    /// while it is in cache.
    @inline(__always)
    static func transformOutput(
        _ g: ConvolutionGeometry, channel o: Int, tiles: Range<Int>, from m: UnsafePointer<Scalar>, pointStride: Int, tileStride: Int = 1,
        into output: UnsafeMutablePointer<Scalar>, epilogue: ChannelEpilogue<Scalar>
    ) {
        let across = tilesAcross(g), side = outputTileSide
        let height = g.output.height, width = g.output.width
        let plane = output + o * g.output.planeSize
        WinogradSchedule.rowSegments(tiles, across: across) { ty, start, end in
            let y0 = ty * side
            let rowCount = Swift.min(side, height - y0)
            let first = start * side, columnCount = Swift.min(end * side, width) - first
            let rows = plane + y0 * width + first
            transforms.output(
                m: m + (ty * across + start - tiles.lowerBound) * tileStride, pointStride: pointStride, tileStride: tileStride,
                count: end - start, rows: rows,
                outputWidth: width, rowCount: rowCount, columnCount: columnCount)
            for r in 0..<rowCount {
                epilogue.apply(channel: o, to: UnsafeMutableBufferPointer(start: rows + r * width, count: columnCount))
            }
        }
    }
}
