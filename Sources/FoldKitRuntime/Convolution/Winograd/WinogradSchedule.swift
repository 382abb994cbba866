import Dispatch

/// How a Winograd convolution's T tiles are spread over the cores (shared by F(2x2, 3x3) and F(4x4, 3x3)).
///
/// Each pass transforms input tiles into V (points x C x n), multiplies M_k (O x n) = U_k (O x C) * V_k (C x n)
/// for every point k, and transforms M back into output tiles, for n tiles at a time:
/// - wide (one block of all T tiles): input transform split by channel, the products shared out by point
///   (`WinogradWeights.multiply`), output transform split by output channel. For few tiles (deep, small layers), where
///   V and M are small anyway.
/// - blocked: tiles in blocks of `blockTiles`, each core taking a contiguous run of blocks and doing all
///   three steps for one block at a time in its own part of the scratch buffer, with single-threaded
///   products. V and M of a block (about `defaultBlockBytes`) stay in the core's second-level cache instead of
///   making three passes over memory-sized V and M (yolov3's 104x104 layers: 11 MB and 22 MB in float32). Used
///   when every core gets at least `minimumBlockTiles` tiles (128 tiles on 2 cores), and only when FoldKit splits
///   products itself (`ProductThreading.splitAcrossCores`): otherwise the BLAS threads each product on its own.
struct WinogradSchedule {
    let tiles: Int
    let points: Int
    let inputChannels: Int
    let outputChannels: Int
    /// Tiles per block (T when wide).
    let blockTiles: Int
    let blockCount: Int
    /// Cores the blocks are spread over (1 when wide).
    let workers: Int
    /// Whether the products are computed transposed, M_k^T (T x O) = V_k^T U_k^T: float64 layers run wide
    /// with at most `maximumTransposedTiles` tiles, when FoldKit runs the products itself (OpenBLAS's
    /// dgemm is 5-18% quicker that way round for such narrow products: 1024 x 1024 by 1024 x 49, 8 points
    /// on one core, 24.0 -> 21.8 ms; 1024 x 512 by 512 x 25, 18 points, 19.1 -> 15.7 ms; no gain in float32
    /// or from 361 tiles; Docs/Performance.md). The output transform then reads M with a tile stride of O.
    let transposesProducts: Bool
    static let maximumTransposedTiles = 256

    /// Bytes of V and M per block (blocks come out between this and twice this, or at the minimum size): half
    /// of a 1 MiB second-level cache, leaving room for the products' packed U. The comparison with larger
    /// blocks and with the wide schedule is in Docs/Performance.md.
    static let defaultBlockBytes = 512 << 10
    /// Narrower blocks make the products' packing of U (once per block) dominate.
    static let minimumBlockTiles = 64

    init(
        tiles: Int, points: Int, inputChannels: Int, outputChannels: Int, scalarBytes: Int,
        blockBytes: Int = defaultBlockBytes, workers available: Int = Parallel.workerCount,
        blocksAllowed: Bool
    ) {
        self.tiles = tiles
        self.points = points
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        let perTile = points * (inputChannels + outputChannels) * scalarBytes
        let fit = max(Self.minimumBlockTiles, blockBytes / max(perTile, 1))
        if blocksAllowed && available > 1 && tiles >= available * Self.minimumBlockTiles {
            // The same number of blocks for every core, each as large as fits.
            blockCount = available * max(1, tiles / (available * fit))
            blockTiles = (tiles + blockCount - 1) / blockCount
            workers = available
        } else {
            blockTiles = tiles
            blockCount = 1
            workers = 1
        }
        transposesProducts =
            blockCount == 1 && blocksAllowed && scalarBytes == MemoryLayout<Double>.size
            && tiles <= Self.maximumTransposedTiles
    }

    var isBlocked: Bool { blockCount > 1 }

    /// The tiles of block b: tiles * b / blockCount ..< tiles * (b + 1) / blockCount (at most `blockTiles` of them).
    func blockRange(_ block: Int) -> Range<Int> { (tiles * block / blockCount)..<(tiles * (block + 1) / blockCount) }

    /// Scratch elements for V and M: one block per worker.
    var scratchCount: Int { workers * points * blockTiles * (inputChannels + outputChannels) }

    /// Runs the three steps over all tiles. With n the tiles of the current block and t0 its first tile:
    /// - `inputTransform(c, tiles, v, pointStride)` writes V of channel c for those tiles at v[k * pointStride + t - t0];
    /// - `multiply(v, m, n, splitAcrossCores, transposed)` computes M_k = U_k V_k, V_k at v + k * C * n, M_k at
    ///   m + k * O * n (O x n, or n x O when `transposed`: `transposesProducts`);
    /// - `outputTransform(o, tiles, m, pointStride, tileStride)` reads M of output channel o at
    ///   m[k * pointStride + (t - t0) * tileStride] and writes (and finishes) that channel's output pixels of those tiles.
    /// `inputWork` / `outputWork`: elementary operations per tile and channel (to decide splitting when wide).
    func run<Scalar>(
        scratch: UnsafeMutablePointer<Scalar>, inputWork: Int, outputWork: Int,
        inputTransform: (Int, Range<Int>, UnsafeMutablePointer<Scalar>, Int) -> Void,
        multiply: (UnsafePointer<Scalar>, UnsafeMutablePointer<Scalar>, Int, Bool, Bool) -> Void,
        outputTransform: (Int, Range<Int>, UnsafePointer<Scalar>, Int, Int) -> Void
    ) {
        let c = inputChannels, o = outputChannels
        if !isBlocked {
            let v = scratch, m = scratch + points * c * tiles
            Parallel.forEach(c, totalWork: c * tiles * inputWork) { channel in
                inputTransform(channel, 0..<tiles, v + channel * tiles, c * tiles)
            }
            let transposed = transposesProducts
            multiply(UnsafePointer(v), m, tiles, true, transposed)
            Parallel.forEach(o, totalWork: o * tiles * outputWork) { channel in
                if transposed {
                    outputTransform(channel, 0..<tiles, UnsafePointer(m + channel), o * tiles, o)
                } else {
                    outputTransform(channel, 0..<tiles, UnsafePointer(m + channel * tiles), o * tiles, 1)
                }
            }
            return
        }
        let perWorker = points * blockTiles * (c + o)
        Parallel.fork(workers) { worker in
            let v = scratch + worker * perWorker, m = v + points * c * blockTiles
            for block in (blockCount * worker / workers)..<(blockCount * (worker + 1) / workers) {
                let range = blockRange(block)
                let n = range.count
                for channel in 0..<c { inputTransform(channel, range, v + channel * n, c * n) }
                multiply(UnsafePointer(v), m, n, false, false)
                for channel in 0..<o { outputTransform(channel, range, UnsafePointer(m + channel * n), o * n, 1) }
            }
        }
    }

    /// The tile rows a run of tiles crosses: (ty, first tx, end tx) for each row, tiles numbered ty * across + tx.
    @inline(__always)
    static func rowSegments(_ range: Range<Int>, across: Int, _ body: (Int, Int, Int) -> Void) {
        guard !range.isEmpty else { return }
        let firstRow = range.lowerBound / across, lastRow = (range.upperBound - 1) / across
        for ty in firstRow...lastRow {
            let start = ty == firstRow ? range.lowerBound - ty * across : 0
            let end = ty == lastRow ? range.upperBound - ty * across : across
            body(ty, start, end)
        }
    }
}
