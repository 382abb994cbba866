/// The im2col rearrangement of a convolution's input (`ConvolutionKernel`'s general path).
extension ConvolutionGeometry {
    /// Writes the column matrix of input channels firstChannel..<firstChannel + I/g:
    /// columns[(i*kh + ky)*kw + kx][oy*OW + ox] = in[firstChannel + i, oy*sy - pt + ky*dy, ox*sx - pl + kx*dx] (0 outside).
    /// Rows are split across cores; stride-2 rows are gathered a vector at a time.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func im2col<Scalar: ExecutorScalar>(source: UnsafePointer<Scalar>, firstChannel: Int, into columns: UnsafeMutablePointer<Scalar>) {
        let rows = columnRows
        let planeOut = output.planeSize
        Parallel.forRanges(rows, totalWork: rows * planeOut) { range in
            for r in range { columnRow(r, source: source, firstChannel: firstChannel, into: columns + r * planeOut) }
        }
    }

    /// The columns of output rows `outputRows` only, on the calling thread (one block of `Im2ColSchedule`):
    /// block[r][(oy - oy0)*OW + ox] = columns[r][oy*OW + ox] for oy in outputRows = oy0..<oy1, each row
    /// (oy1 - oy0)*OW elements long.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func im2col<Scalar: ExecutorScalar>(
        source: UnsafePointer<Scalar>, firstChannel: Int, outputRows: Range<Int>, into block: UnsafeMutablePointer<Scalar>
    ) {
        let blockColumns = outputRows.count * output.width
        for r in 0..<columnRows {
            columnRow(r, source: source, firstChannel: firstChannel, outputRows: outputRows, into: block + r * blockColumns)
        }
    }

    /// Row r = (i*kh + ky)*kw + kx of the column matrix (see `im2col`), for output rows `outputRows`
    /// (all of them when nil) written from dst on.
    @inline(__always)
    private func columnRow<Scalar: ExecutorScalar>(
        _ r: Int, source: UnsafePointer<Scalar>, firstChannel: Int, outputRows: Range<Int>? = nil, into dst: UnsafeMutablePointer<Scalar>
    ) {
        let taps = kernelHeight * kernelWidth
        let c = r / taps, ky = (r / kernelWidth) % kernelHeight, kx = r % kernelWidth
        let src = source + (firstChannel + c) * input.planeSize
        let outW = output.width
        let span = validColumns(kx: kx)
        let offX = kx * dilationX - padLeft
        let rows = outputRows ?? 0..<output.height
        for oy in rows {
            let iy = oy * strideY - padTop + ky * dilationY
            let row = dst + (oy - rows.lowerBound) * outW
            if iy < 0 || iy >= input.height || span.start >= span.end {
                row.update(repeating: 0, count: outW)
                continue
            }
            if span.start > 0 { row.update(repeating: 0, count: span.start) }
            if span.end < outW { (row + span.end).update(repeating: 0, count: outW - span.end) }
            let s = src + iy * input.width + offX
            switch strideX {
            case 1: (row + span.start).update(from: s + span.start, count: span.end - span.start)
            case 2: Self.gatherEven(from: s + 2 * span.start, into: row + span.start, count: span.end - span.start)
            default:
                let sx = strideX
                for ox in span.start..<span.end { row[ox] = s[ox * sx] }
            }
        }
    }

    /// dst[j] = s[2j] for j in 0..<count, 16 at a time from 32-element loads that end at or before s[2(count - 1)]
    /// (never past the last element read).
    @inline(__always)
    static func gatherEven<Scalar: ExecutorScalar>(from s: UnsafePointer<Scalar>, into dst: UnsafeMutablePointer<Scalar>, count: Int) {
        var j = 0
        while j + 16 < count {
            let pair = UnsafeRawPointer(s + 2 * j).loadUnaligned(as: SIMD32<Scalar>.self)
            UnsafeMutableRawPointer(dst + j).storeBytes(of: pair.evenHalf, as: SIMD16<Scalar>.self)
            j += 16
        }
        while j < count {
            dst[j] = s[2 * j]
            j += 1
        }
    }
}
