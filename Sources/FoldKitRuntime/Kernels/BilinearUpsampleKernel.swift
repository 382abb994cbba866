import FoldKitCore

/// Bilinear upsampling with half-pixel centres (`Upsample` with `.bilinear`: Keras
/// UpSampling2D(interpolation="bilinear"), TensorFlow's `tf.image.resize(method="bilinear")`), times `scale`.
///
/// The taps of each output row y (and alike of each output column x) are computed once, in float64:
///
///     src = (y + 0.5) * (H / Hout) - 0.5,  y0 = max(floor(src), 0),  y1 = min(ceil(src), H - 1),  fy = src - floor(src)
///
/// then, in `Scalar`, top = in[y0, x0] + (in[y0, x1] - in[y0, x0]) * fx, bottom likewise on row y1, and
/// out[c, y, x] = scale * (top + (bottom - top) * fy). Output rows are shared between the cores.
struct BilinearUpsampleKernel<Scalar: ExecutorScalar>: LayerKernel {
    /// The two input indices an output row or column reads and the weight of the second.
    struct Tap {
        let low: Int
        let high: Int
        let fraction: Scalar
    }

    let input: ActivationShape
    let output: ActivationShape
    let scale: Scalar
    /// One tap per output row.
    let rows: [Tap]
    /// One tap per output column.
    let columns: [Tap]

    init(upsample: Upsample, input: ActivationShape, output: ActivationShape) {
        self.input = input
        self.output = output
        scale = Scalar(upsample.scale)
        rows = Self.taps(outputs: output.height, inputs: input.height)
        columns = Self.taps(outputs: output.width, inputs: input.width)
    }

    /// The taps of `outputs` positions over `inputs` (half-pixel centres, as the type documents).
    static func taps(outputs: Int, inputs: Int) -> [Tap] {
        let ratio = Double(inputs) / Double(outputs)
        return (0..<outputs).map { o in
            let source = (Double(o) + 0.5) * ratio - 0.5
            let below = source.rounded(.down)
            return Tap(
                low: max(Int(below), 0), high: min(Int(source.rounded(.up)), inputs - 1), fraction: Scalar(source - below))
        }
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let inH = input.height, inW = input.width, outH = output.height, outW = output.width
        let outputRows = output.channels * outH
        guard let out = result.baseAddress, result.count >= outputRows * outW else { return }
        inputs[0].withUnsafeBufferPointer { source in
            guard let base = source.baseAddress, source.count >= input.count else { return }
            rows.withUnsafeBufferPointer { rowTaps in
                columns.withUnsafeBufferPointer { columnTaps in
                    Parallel.forRanges(outputRows, totalWork: outputRows * outW * 8) { range in
                        for r in range {
                            let c = r / outH, row = rowTaps[r % outH]
                            let top = base + (c * inH + row.low) * inW, bottom = base + (c * inH + row.high) * inW
                            let destination = out + r * outW
                            for x in 0..<outW {
                                let column = columnTaps[x]
                                let upper = top[column.low] + (top[column.high] - top[column.low]) * column.fraction
                                let lower = bottom[column.low] + (bottom[column.high] - bottom[column.low]) * column.fraction
                                destination[x] = scale * (upper + (lower - upper) * row.fraction)
                            }
                        }
                    }
                }
            }
        }
    }
}
