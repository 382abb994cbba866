import FoldKitCore

/// Convolution, transposed convolution, fully connected and locally connected layers. Batch norm has been
/// folded into the weights and bias before (FoldKit's fold pass, as `foldkit convert` folds), so a layer
/// that still carries one is refused rather than written with an assumed epsilon.
extension ONNXGraphBuilder {
    /// `Conv` (weights OIHW [O, C/groups, kh, kw], bias [O], pads top, left, bottom, right, strides,
    /// dilations, group), then the activation.
    mutating func convolution(_ c: Convolution, input: String) throws -> String {
        if c.batchNorm != nil { throw refuse("the batch norm was not folded into the convolution") }
        let w = try weights(c.weights, dims: [c.outputChannels, c.inputChannels / c.groups, c.kernelHeight, c.kernelWidth], hint: "W")
        var inputs = [input, w]
        if let bias = c.bias { inputs.append(try weights(bias, dims: [c.outputChannels], hint: "B")) }
        let y = node(
            "Conv", inputs,
            [
                ONNXAttribute.ints("kernel_shape", [c.kernelHeight, c.kernelWidth]),
                ONNXAttribute.ints("strides", [c.strideY, c.strideX]),
                ONNXAttribute.ints("dilations", [c.dilationY, c.dilationX]),
                ONNXAttribute.ints("pads", [c.padding.top, c.padding.left, c.padding.bottom, c.padding.right]),
                ONNXAttribute.int("group", c.groups),
            ])
        return activate(y, c.activation)
    }

    /// `ConvTranspose`: the full output of an H x W input is ((H-1)*stride + k) rows; the layer keeps rows
    /// offset ..< offset + outputHeight of it (`TransposedConvolution.edges`, shared with the other engine
    /// writers), so pads begin = offset, and pads end = full - offset - outputHeight when that is not
    /// negative, else 0 with output_padding = the rows past the full output (which hold the bias alone, as
    /// onnx's output_padding rows do). Weights go from
    /// FoldKit's OIHW to onnx's [C_in, O, kh, kw].
    mutating func transposedConvolution(_ t: TransposedConvolution, input: String, inputShape: ActivationShape) throws -> String {
        let (o, i, kh, kw) = (t.outputChannels, t.inputChannels, t.kernelHeight, t.kernelWidth)
        let w = try weights(t.weights, dims: [i, o, kh, kw], hint: "W") { oihw in
            var iohw = [Float](repeating: 0, count: oihw.count)
            let plane = kh * kw
            for oc in 0..<o {
                for ic in 0..<i {
                    let from = (oc * i + ic) * plane, to = (ic * o + oc) * plane
                    for k in 0..<plane { iohw[to + k] = oihw[from + k] }
                }
            }
            return iohw
        }
        var inputs = [input, w]
        if let bias = t.bias { inputs.append(try weights(bias, dims: [o], hint: "B")) }
        let (rows, columns) = t.edges(input: inputShape)
        var attributes = [
            ONNXAttribute.ints("kernel_shape", [kh, kw]),
            ONNXAttribute.ints("strides", [t.strideY, t.strideX]),
            ONNXAttribute.ints("pads", [rows.begin, columns.begin, rows.end, columns.end]),
        ]
        if rows.extra != 0 || columns.extra != 0 { attributes.append(ONNXAttribute.ints("output_padding", [rows.extra, columns.extra])) }
        return activate(node("ConvTranspose", inputs, attributes), t.activation)
    }

    /// Flatten the channel-major input to [1, N], `Gemm` with the weights [O, N] (transB = 1) and bias [O],
    /// back to [1, O, 1, 1], then the activation.
    mutating func fullyConnected(_ f: FullyConnected, input: String) throws -> String {
        if f.batchNorm != nil { throw refuse("the batch norm was not folded into the connected layer") }
        let flat = reshape(input, to: [1, f.inputCount])
        var inputs = [flat, try weights(f.weights, dims: [f.outputCount, f.inputCount], hint: "W")]
        if let bias = f.bias { inputs.append(try weights(bias, dims: [f.outputCount], hint: "B")) }
        let y = node("Gemm", inputs, [ONNXAttribute.int("transB", 1)])
        return activate(reshape(y, to: [1, f.outputCount, 1, 1]), f.activation)
    }

    /// darknet's [local] (src/local_layer.c): for each output location l, its own O x (C*k*k) filter matrix
    /// times the im2col column of that location, plus a bias per output element. Lowered as:
    /// zero Pad, k*k strided Slices (one per kernel tap, each [1, C, OH, OW]) stacked into
    /// [1, C, k*k, OH, OW] - im2col's row order c*k*k + ky*k + kx - reshaped to [C*k*k, L], transposed and
    /// unsqueezed to [L, C*k*k, 1]; one batched MatMul with the weights [L, O, C*k*k] gives [L, O, 1],
    /// transposed to [O, L], reshaped to [1, O, OH, OW]; then the bias [1, O, OH, OW] and the activation.
    mutating func locallyConnected(_ l: LocallyConnected, input: String) throws -> String {
        let (c, k, s, p) = (l.inputChannels, l.kernelSize, l.stride, l.padding)
        let (oh, ow, o, locations) = (l.outputHeight, l.outputWidth, l.outputChannels, l.locations)
        let padded = pad(input, pads: [0, 0, p, p, 0, 0, p, p])
        var taps: [String] = []
        for ky in 0..<k {
            for kx in 0..<k {
                let tap = slice(
                    padded, axes: [2, 3], starts: [ky, kx], ends: [ky + (oh - 1) * s + 1, kx + (ow - 1) * s + 1], steps: [s, s])
                taps.append(reshape(tap, to: [1, c, 1, oh, ow]))
            }
        }
        let stacked = taps.count == 1 ? taps[0] : node("Concat", taps, [ONNXAttribute.int("axis", 2)])
        let columns = reshape(stacked, to: [c * k * k, locations])
        let perLocation = reshape(transpose(columns, perm: [1, 0]), to: [locations, c * k * k, 1])
        let w = try weights(l.weights, dims: [locations, o, c * k * k], hint: "W")
        let product = reshape(node("MatMul", [w, perLocation]), to: [locations, o])
        let y = reshape(transpose(product, perm: [1, 0]), to: [1, o, oh, ow])
        let biased = node("Add", [y, try weights(l.bias, dims: [1, o, oh, ow], hint: "B")])
        return activate(biased, l.activation)
    }
}
