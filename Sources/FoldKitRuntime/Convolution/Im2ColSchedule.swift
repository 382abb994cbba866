/// How `ConvolutionKernel`'s im2col path splits one group's product into blocks of output rows.
///
/// The whole column matrix is (I/g)*kh*kw x OH*OW elements (53 MB in float32 for a 16 -> 32 3x3 layer at
/// 304x304): written once and read back by the product, it goes through memory twice. In blocks, a block
/// of `rowsPerBlock` output rows (block columns = rowsPerBlock * OW) is gathered into a core's own scratch
/// slice of about `targetBlockBytes`, multiplied (W_g * block, one single-threaded product) and finished
/// (epilogue) while it is still in that core's L2 cache; blocks are shared between the cores.
/// Every block multiplies the whole weight matrix again, so blocks are used only when that matrix is
/// small (at most `maximumWeightBytes`) and the column matrix holds more than one block.
struct Im2ColSchedule: Equatable {
    /// Output rows per block (the last block may have fewer).
    let rowsPerBlock: Int
    /// Blocks per group: ceil(OH / rowsPerBlock); 1 means the whole column matrix at once.
    let blockCount: Int
    /// Elements of one block's column matrix: (I/g)*kh*kw * rowsPerBlock * OW.
    let blockElements: Int

    /// Column-matrix bytes per block: a few hundred KB, so that the block, the weights and the block of
    /// output fit in a core's L2 cache together.
    static let targetBlockBytes = 256 << 10
    /// Above this many bytes of weights per group the product runs on the whole column matrix at once.
    static let maximumWeightBytes = 512 << 10
    /// Fewest columns per block: narrower products run below the BLAS kernels' speed.
    static let minimumBlockColumns = 256

    init(geometry g: ConvolutionGeometry, scalarBytes: Int) {
        let rowBytes = max(1, g.columnRows * g.output.width * scalarBytes)
        let weightBytes = g.outputChannelsPerGroup * g.columnRows * scalarBytes
        let height = max(1, g.output.height)
        var rows = max(1, Self.targetBlockBytes / rowBytes)
        rows = max(rows, (Self.minimumBlockColumns + g.output.width - 1) / max(1, g.output.width))
        if weightBytes > Self.maximumWeightBytes || rows >= height {
            rows = height
        } else {
            // Balanced blocks: the same number of rows in each (up to one).
            let blocks = (height + rows - 1) / rows
            rows = (height + blocks - 1) / blocks
        }
        rowsPerBlock = rows
        blockCount = (height + rows - 1) / rows
        blockElements = g.columnRows * rows * g.output.width
    }

    /// Output rows of block b.
    func outputRows(ofBlock b: Int, height: Int) -> Range<Int> {
        (b * rowsPerBlock)..<min(height, (b + 1) * rowsPerBlock)
    }
}
