import FoldKitCore

/// Convolution, transposed convolution, fully connected and locally connected layers. Batch norm has been
/// folded into the weights and bias before (FoldKit's fold pass, as `foldkit convert` folds), so a layer
/// that still carries one is refused rather than written with an assumed epsilon. Weights are flagged
/// buffers (float16 in a float16 model), biases float32 as ncnn reads them.
extension NCNNGraphBuilder {
    /// `Convolution` (groups 1) or `ConvolutionDepthWise` (7=group, any group count): weights OIHW
    /// [O, C/groups, kh, kw] as FoldKit holds them, 0=num_output 1/11=kernel 2/12=dilation 3/13=stride
    /// 4/15/14/16=pads left, right, top, bottom, 5=bias_term 6=weight_data_size; relu, leaky and relu6 fused
    /// (9, 10), any other activation a layer after.
    mutating func convolution(_ c: Convolution, input: String) throws -> String {
        if c.batchNorm != nil { throw refuse("the batch norm was not folded into the convolution") }
        let count = c.outputChannels * (c.inputChannels / c.groups) * c.kernelHeight * c.kernelWidth
        var weights = [try self.weights(c.weights, count: count, hint: "W", storage: .flagged)]
        if let bias = c.bias { weights.append(try self.weights(bias, count: c.outputChannels, hint: "B", storage: .raw)) }
        var params: [(Int, NCNNParam)] = [(0, .int(c.outputChannels))]
        params += NCNNGraphBuilder.window(
            kernel: (c.kernelWidth, c.kernelHeight), dilation: (c.dilationX, c.dilationY), stride: (c.strideX, c.strideY), padding: c.padding)
        params += [(5, .int(c.bias == nil ? 0 : 1)), (6, .int(count))]
        if c.groups > 1 { params.append((7, .int(c.groups))) }
        let fusedActivation = fused(c.activation)
        params += fusedActivation ?? []
        let y = op(c.groups > 1 ? "ConvolutionDepthWise" : "Convolution", [input], params, weights: weights)
        return fusedActivation == nil ? try activate(y, c.activation) : y
    }

    /// `Deconvolution`: ncnn's weights are [O, C, kh, kw] (FoldKit's OIHW as it is; Deconvolution::forward
    /// reads kernel p * C * k²); the full output of an H x W input is ((H-1)*stride + k) rows filled with the
    /// bias and the products, then 14/16 (top, bottom) and 4/15 (left, right) rows and columns cut
    /// (`TransposedConvolution.edges`), and 19/18 output_pad_bottom/right rows past the full output that hold
    /// the bias alone.
    mutating func transposedConvolution(_ t: TransposedConvolution, input: String, inputShape: ActivationShape) throws -> String {
        let count = t.outputChannels * t.inputChannels * t.kernelHeight * t.kernelWidth
        var weights = [try self.weights(t.weights, count: count, hint: "W", storage: .flagged)]
        if let bias = t.bias { weights.append(try self.weights(bias, count: t.outputChannels, hint: "B", storage: .raw)) }
        let (rows, columns) = t.edges(input: inputShape)
        var params: [(Int, NCNNParam)] = [(0, .int(t.outputChannels))]
        params += NCNNGraphBuilder.window(
            kernel: (t.kernelWidth, t.kernelHeight), dilation: (1, 1), stride: (t.strideX, t.strideY),
            padding: Padding2D(top: rows.begin, left: columns.begin, bottom: rows.end, right: columns.end))
        params += [(18, .int(columns.extra)), (19, .int(rows.extra)), (5, .int(t.bias == nil ? 0 : 1)), (6, .int(count))]
        let fusedActivation = fused(t.activation)
        params += fusedActivation ?? []
        let y = op("Deconvolution", [input], params, weights: weights)
        return fusedActivation == nil ? try activate(y, t.activation) : y
    }

    /// `InnerProduct` (0=num_output 1=bias_term 2=weight_data_size; weights [O, N]) over the channel-major
    /// input as ncnn flattens it, then `Reshape` back to O x 1 x 1 (InnerProduct outputs a vector).
    mutating func fullyConnected(_ f: FullyConnected, input: String) throws -> String {
        if f.batchNorm != nil { throw refuse("the batch norm was not folded into the connected layer") }
        var weights = [try self.weights(f.weights, count: f.outputCount * f.inputCount, hint: "W", storage: .flagged)]
        if let bias = f.bias { weights.append(try self.weights(bias, count: f.outputCount, hint: "B", storage: .raw)) }
        var params: [(Int, NCNNParam)] = [(0, .int(f.outputCount)), (1, .int(f.bias == nil ? 0 : 1)), (2, .int(f.outputCount * f.inputCount))]
        let fusedActivation = fused(f.activation)
        params += fusedActivation ?? []
        let y = reshape(op("InnerProduct", [input], params, weights: weights), to: ActivationShape(channels: f.outputCount, height: 1, width: 1))
        return fusedActivation == nil ? try activate(y, f.activation) : y
    }

    /// darknet's [local] (src/local_layer.c): for each output location l, its own O x (C*k*k) filter matrix
    /// times the im2col column of that location, plus a bias per output element. ncnn has no such layer;
    /// composed as: zero `Padding`; one `Crop` per kernel tap (with a 1 x 1 max `Pooling` of stride s picking
    /// every s-th row and column when s > 1, an exact copy), `Concat`enated into R = k*k*C rows of the
    /// columns (tap-major: row (ky*k + kx)*C + c) and reshaped to 1 x R x L; a `MemoryData` of the filters
    /// rearranged to O x R x L times it (`BinaryOp`, broadcast over O), summed over R (`Reduction` sum,
    /// axis h, kept), reshaped to O x OH x OW; the bias (`MemoryData` O x OH x OW) added, then the activation.
    mutating func locallyConnected(_ l: LocallyConnected, input: String, inputShape: ActivationShape) throws -> String {
        let (c, k, s, p) = (l.inputChannels, l.kernelSize, l.stride, l.padding)
        let (oh, ow, o, locations) = (l.outputHeight, l.outputWidth, l.outputChannels, l.locations)
        let padded = pad(input, top: p, bottom: p, left: p, right: p)
        let paddedShape = ActivationShape(channels: c, height: inputShape.height + 2 * p, width: inputShape.width + 2 * p)
        var taps: [String] = []
        for ky in 0..<k {
            for kx in 0..<k {
                let spanned = ActivationShape(channels: c, height: (oh - 1) * s + 1, width: (ow - 1) * s + 1)
                var tap = crop(padded, input: paddedShape, row: ky, column: kx, keeping: spanned)
                if s > 1 { tap = every(s, tap) }
                taps.append(tap)
            }
        }
        let rows = k * k * c
        let stacked = taps.count == 1 ? taps[0] : op("Concat", taps, [(0, .int(0))])
        let columns = reshape(stacked, to: ActivationShape(channels: 1, height: rows, width: locations))
        let w = try weights(l.weights, count: locations * o * rows, hint: "W", storage: .flagged) { lork in
            // FoldKit [L][O][C][k][k] to [O][(ky*k + kx)*C + c][L].
            var orl = [Float](repeating: 0, count: lork.count)
            for location in 0..<locations {
                for oc in 0..<o {
                    for ic in 0..<c {
                        for tap in 0..<(k * k) {
                            orl[(oc * rows + tap * c + ic) * locations + location] = lork[((location * o + oc) * c + ic) * k * k + tap]
                        }
                    }
                }
            }
            return orl
        }
        let filters = memoryData(w, shape: ActivationShape(channels: o, height: rows, width: locations))
        let products = binary(filters, columns, BinaryOperation.multiply)
        let sums = op("Reduction", [products], [(0, .int(0)), (1, .int(0)), (3, .ints([1])), (4, .int(1)), (5, .int(1))])
        let y = reshape(sums, to: ActivationShape(channels: o, height: oh, width: ow))
        let bias = memoryData(
            try weights(l.bias, count: o * oh * ow, hint: "B", storage: .raw), shape: ActivationShape(channels: o, height: oh, width: ow))
        return try activate(binary(y, bias, BinaryOperation.add), l.activation)
    }

    /// The window params of Convolution, ConvolutionDepthWise and Deconvolution, each left out where ncnn's
    /// default gives it (load_param: 11=kernel_h defaults to 1=kernel_w, 12 to 2=dilation_w (1), 13 to
    /// 3=stride_w (1), 15=pad_right and 14=pad_top to 4=pad_left (0), 16=pad_bottom to pad_top).
    static func window(kernel: (Int, Int), dilation: (Int, Int), stride: (Int, Int), padding: Padding2D) -> [(Int, NCNNParam)] {
        var params: [(Int, NCNNParam)] = [(1, .int(kernel.0))]
        if kernel.1 != kernel.0 { params.append((11, .int(kernel.1))) }
        if dilation.0 != 1 { params.append((2, .int(dilation.0))) }
        if dilation.1 != dilation.0 { params.append((12, .int(dilation.1))) }
        if stride.0 != 1 { params.append((3, .int(stride.0))) }
        if stride.1 != stride.0 { params.append((13, .int(stride.1))) }
        if padding.left != 0 { params.append((4, .int(padding.left))) }
        if padding.right != padding.left { params.append((15, .int(padding.right))) }
        if padding.top != padding.left { params.append((14, .int(padding.top))) }
        if padding.bottom != padding.top { params.append((16, .int(padding.bottom))) }
        return params
    }

    /// Every `stride`-th row and column from the first: a max `Pooling` of a 1 x 1 window with that stride
    /// (0=max 1=kernel 1 2=stride 5=pad_mode valid), which copies each value it reads.
    mutating func every(_ stride: Int, _ x: String) -> String {
        op("Pooling", [x], [(0, .int(0)), (1, .int(1)), (2, .int(stride)), (5, .int(1))])
    }
}
