import FoldKitCore

/// Convolution, fully connected and locally connected layers. Batch norm has been folded into the weights
/// and bias before (FoldKit's fold pass, as `foldkit convert` folds), so a layer that still carries one is
/// refused rather than written with an assumed epsilon. Weights and biases are constants in LiteRT's layouts
/// (float16 behind a DEQUANTIZE in a float16 model, as LiteRT's converter stores float constants in its
/// float16 mode; `TFLiteGraphBuilder.weights`); a layer without a bias gets float32 zeros.
extension TFLiteGraphBuilder {
    /// CONV_2D (groups 1; weights OHWI [O, kh, kw, C] from FoldKit's OIHW: w[o][y][x][i] = W[o][i][y][x]) or
    /// DEPTHWISE_CONV_2D (groups = C, O = C * M: weights [1, kh, kw, O], w[0][y][x][o] = W[o][0][y][x],
    /// output channel o reading input channel o / M as a grouped convolution's does); other group counts: one
    /// CONV_2D per group on a SLICE of its channels, then CONCATENATION. Explicit padding (darknet's, Keras'
    /// "same" as FoldKit resolved it) is the convolution's SAME padding where that is exactly it (`isSame`),
    /// else a PAD with zeros before a VALID convolution, so every row and column is FoldKit's; relu and relu6
    /// are fused (fused_activation_function), any other activation follows.
    mutating func convolution(_ c: Convolution, input: Int, inputShape: ActivationShape, outputShape: ActivationShape) throws -> Int {
        if c.batchNorm != nil { throw refuse("the batch norm was not folded into the convolution") }
        let (o, kh, kw, g) = (c.outputChannels, c.kernelHeight, c.kernelWidth, c.groups)
        let perGroup = c.inputChannels / g
        let same =
            c.padding != .zero
            && Self.isSame(
                extent: inputShape.height, kernel: (kh - 1) * c.dilationY + 1, stride: c.strideY, before: c.padding.top,
                output: outputShape.height)
            && Self.isSame(
                extent: inputShape.width, kernel: (kw - 1) * c.dilationX + 1, stride: c.strideX, before: c.padding.left,
                output: outputShape.width)
        let padded = same ? input : pad(input, [0, c.padding.top, c.padding.left, 0], [0, c.padding.bottom, c.padding.right, 0])
        let fusion = fused(c.activation)
        let fusedHere = fusion ?? TFLiteOptions.Fused.none
        let bias = try biasTensor(c.bias, count: o)
        let y: Int
        if g == 1 {
            let w = try weights(c.weights, shape: [o, kh, kw, perGroup], hint: "W") { oihw in
                Self.permuted(oihw, from: [o, perGroup, kh, kw], order: [0, 2, 3, 1])
            }
            y = op(
                .conv2D, [padded, w, bias], shape: nhwc(outputShape),
                options: .conv2D(
                    strideX: c.strideX, strideY: c.strideY, dilationX: c.dilationX, dilationY: c.dilationY, fused: fusedHere, same: same))
        } else if g == c.inputChannels && perGroup == 1 {
            let w = try weights(c.weights, shape: [1, kh, kw, o], hint: "W") { oihw in
                Self.permuted(oihw, from: [o, 1, kh, kw], order: [1, 2, 3, 0])
            }
            y = op(
                .depthwiseConv2D, [padded, w, bias], shape: nhwc(outputShape),
                options: .depthwiseConv2D(
                    strideX: c.strideX, strideY: c.strideY, multiplier: o / g, dilationX: c.dilationX, dilationY: c.dilationY, fused: fusedHere,
                    same: same))
        } else {
            let og = o / g
            let paddedShape = shape(padded)
            let all = try c.weights.floats()
            let biasValues = try c.bias?.floats() ?? [Float](repeating: 0, count: o)
            var parts: [Int] = []
            for group in 0..<g {
                let part = slice(padded, begin: [0, 0, 0, group * perGroup], size: [1, paddedShape[1], paddedShape[2], perGroup])
                let slab = Array(all[(group * og * perGroup * kh * kw)..<((group + 1) * og * perGroup * kh * kw)])
                let w = try weights(WeightTensor(shape: [og, perGroup, kh, kw], values: slab), shape: [og, kh, kw, perGroup], hint: "W") { oihw in
                    Self.permuted(oihw, from: [og, perGroup, kh, kw], order: [0, 2, 3, 1])
                }
                let b = constant(Array(biasValues[(group * og)..<((group + 1) * og)]), shape: [og], hint: "B")
                parts.append(
                    op(
                        .conv2D, [part, w, b], shape: [1, outputShape.height, outputShape.width, og],
                        options: .conv2D(
                            strideX: c.strideX, strideY: c.strideY, dilationX: c.dilationX, dilationY: c.dilationY, fused: fusedHere, same: same)
                    ))
            }
            y = op(.concatenation, parts, shape: nhwc(outputShape), options: .concatenation(axis: 3))
        }
        return fusion == nil ? try activate(y, c.activation) : y
    }

    /// TRANSPOSE_CONV (weights [O, kh, kw, C] from FoldKit's OIHW; padding VALID, so output row
    /// iy * stride + ky holds in[iy] * W[ky], tflite/kernels/internal/reference/transpose_conv.h) with
    /// output_shape the full output, (H - 1) * stride + kh rows and likewise columns (LiteRT's kernel checks
    /// that the shape gives back the input's size); then the rows and columns kept
    /// (`TransposedConvolution.edges`, shared with the other engine writers): a SLICE from `begin`, and PAD
    /// with zero rows past the full output; ADD of the bias (so those rows hold the bias alone, as FoldKit's),
    /// and the activation.
    mutating func transposedConvolution(_ t: TransposedConvolution, input: Int, inputShape: ActivationShape) throws -> Int {
        let (o, i, kh, kw) = (t.outputChannels, t.inputChannels, t.kernelHeight, t.kernelWidth)
        let w = try weights(t.weights, shape: [o, kh, kw, i], hint: "W") { oihw in Self.permuted(oihw, from: [o, i, kh, kw], order: [0, 2, 3, 1]) }
        let (rows, columns) = t.edges(input: inputShape)
        let full = [1, (inputShape.height - 1) * t.strideY + kh, (inputShape.width - 1) * t.strideX + kw, o]
        let z = op(.transposeConv, [integers(full), w, input], shape: full, options: .transposeConv(strideX: t.strideX, strideY: t.strideY))
        let kept = slice(
            z, begin: [0, rows.begin, columns.begin, 0], size: [1, t.outputHeight - rows.extra, t.outputWidth - columns.extra, o])
        var y = pad(kept, [0, 0, 0, 0], [0, rows.extra, columns.extra, 0])
        if let bias = t.bias { y = binary(.add, y, try weights(bias, shape: [o], hint: "B")) }
        return try activate(y, t.activation)
    }

    /// FULLY_CONNECTED (weights [O, N] as FoldKit holds them) over the input flattened in FoldKit's
    /// channel-major order, as darknet and FoldKit flatten it: TRANSPOSE to NCHW when the input has more than
    /// one position, RESHAPE to [1, N]; the [1, O] result RESHAPEd back to [1, 1, 1, O]. relu and relu6 fused.
    mutating func fullyConnected(_ f: FullyConnected, input: Int, inputShape: ActivationShape) throws -> Int {
        if f.batchNorm != nil { throw refuse("the batch norm was not folded into the connected layer") }
        var x = input
        if inputShape.height * inputShape.width > 1 { x = transpose(x, [0, 3, 1, 2]) }
        x = reshape(x, to: [1, f.inputCount])
        let w = try weights(f.weights, shape: [f.outputCount, f.inputCount], hint: "W")
        let fusion = fused(f.activation)
        let y = op(
            .fullyConnected, [x, w, try biasTensor(f.bias, count: f.outputCount)], shape: [1, f.outputCount],
            options: .fullyConnected(fused: fusion ?? .none))
        let out = reshape(y, to: [1, 1, 1, f.outputCount])
        return fusion == nil ? try activate(out, f.activation) : out
    }

    /// darknet's [local] (src/local_layer.c): for each output location l = y * OW + x, its own O x (C*k*k)
    /// filter matrix times the im2col column of that location, plus a bias per output element. LiteRT has no
    /// such operator; composed as: PAD with zeros; one STRIDED_SLICE per kernel tap (ky, kx) (rows ky, ky + s,
    /// ...; likewise columns), CONCATENATION on the channels into R = k*k*C values per location (tap-major:
    /// (ky*k + kx)*C + c), RESHAPE to [L, 1, R]; BATCH_MATMUL with the filters as [L, R, O]
    /// (w[l][(ky*k + kx)*C + c][o] = W[l][o][c][ky][kx]), RESHAPE to [1, OH, OW, O], ADD of the bias
    /// ([1, OH, OW, O] from FoldKit's [O][OH][OW]), then the activation.
    mutating func locallyConnected(_ l: LocallyConnected, input: Int, inputShape: ActivationShape) throws -> Int {
        let (c, k, s, p) = (l.inputChannels, l.kernelSize, l.stride, l.padding)
        let (oh, ow, o, locations) = (l.outputHeight, l.outputWidth, l.outputChannels, l.locations)
        let padded = pad(input, [0, p, p, 0], [0, p, p, 0])
        var taps: [Int] = []
        for ky in 0..<k {
            for kx in 0..<k {
                taps.append(
                    stridedSlice(
                        padded, begin: [0, ky, kx, 0], end: [1, ky + (oh - 1) * s + 1, kx + (ow - 1) * s + 1, c], strides: [1, s, s, 1]))
            }
        }
        let rows = k * k * c
        let stacked = taps.count == 1 ? taps[0] : op(.concatenation, taps, shape: [1, oh, ow, rows], options: .concatenation(axis: 3))
        let columns = reshape(stacked, to: [locations, 1, rows])
        let w = try weights(l.weights, shape: [locations, rows, o], hint: "W") { lock in
            var lro = [Float](repeating: 0, count: lock.count)
            for location in 0..<locations {
                for oc in 0..<o {
                    for ic in 0..<c {
                        for tap in 0..<(k * k) {
                            lro[(location * rows + tap * c + ic) * o + oc] = lock[((location * o + oc) * c + ic) * k * k + tap]
                        }
                    }
                }
            }
            return lro
        }
        let products = op(.batchMatMul, [columns, w], shape: [locations, 1, o], options: .batchMatMul)
        let y = reshape(products, to: [1, oh, ow, o])
        let bias = try weights(l.bias, shape: [1, oh, ow, o], hint: "B") { chw in
            Self.permuted(chw, from: [o, oh, ow], order: [1, 2, 0])
        }
        return try activate(binary(.add, y, bias), l.activation)
    }

    /// Whether LiteRT's SAME padding is `before` rows (or columns) then zeros, with `output` rows, for an
    /// extent, effective kernel ((k - 1) * dilation + 1) and stride: SAME's output is ceil(extent / stride) and
    /// its padding max((output - 1) * stride + kernel - extent, 0), the smaller half before
    /// (tflite/kernels/padding.h). The rows padded after are zeros either way, read only by windows that
    /// exist in both.
    static func isSame(extent: Int, kernel: Int, stride: Int, before: Int, output: Int) -> Bool {
        let sameOutput = (extent + stride - 1) / stride
        let total = max((sameOutput - 1) * stride + kernel - extent, 0)
        return output == sameOutput && before == total / 2
    }

    /// The bias as a float32 constant, zeros when the layer has none (the kernels take one).
    mutating func biasTensor(_ bias: WeightTensor?, count: Int) throws -> Int {
        guard let bias else { return constant([Float](repeating: 0, count: count), shape: [count], hint: "B") }
        return try weights(bias, shape: [count], hint: "B")
    }

    /// `values` of row-major `shape` with its axes permuted: output axis i is input axis order[i]. One pass over
    /// the output, the source index stepped by the input's strides (no division per element).
    static func permuted(_ values: [Float], from shape: [Int], order: [Int]) -> [Float] {
        let rank = shape.count
        var strides = [Int](repeating: 1, count: rank)
        for axis in stride(from: rank - 2, through: 0, by: -1) { strides[axis] = strides[axis + 1] * shape[axis + 1] }
        let outShape = order.map { shape[$0] }
        let outStrides = order.map { strides[$0] }
        var result = [Float](repeating: 0, count: values.count)
        guard !values.isEmpty else { return result }
        let inner = outShape[rank - 1], innerStride = outStrides[rank - 1]
        var index = [Int](repeating: 0, count: rank)
        var source = 0
        values.withUnsafeBufferPointer { input in
            result.withUnsafeMutableBufferPointer { output in
                var i = 0
                while i < output.count {
                    var s = source
                    for k in 0..<inner {
                        output[i + k] = input[s]
                        s += innerStride
                    }
                    i += inner
                    // The next row: step the outer axes like an odometer.
                    var axis = rank - 2
                    while axis >= 0 {
                        index[axis] += 1
                        source += outStrides[axis]
                        if index[axis] < outShape[axis] { break }
                        source -= outStrides[axis] * outShape[axis]
                        index[axis] = 0
                        axis -= 1
                    }
                }
            }
        }
        return result
    }
}
