import FoldKitCore

/// Layers that move elements without arithmetic (reshape, padding, cropping, channel windows) and pooling
/// over the whole plane.
extension ONNXGraphBuilder {
    /// `Reshape` to the target [1, C', H', W']. Channels-first keeps the channel-major order as it is;
    /// channels-last (Keras Flatten and Reshape, which flatten NHWC) goes through NHWC: Transpose to
    /// [1, H, W, C], Reshape to [1, H', W', C'], Transpose back - so flat[(y*W + x)*C + c] = in[c, y, x] and
    /// out[c', y', x'] = flat[(y'*W' + x')*C' + c'], as `ReshapeKernel` reads and writes.
    mutating func reshapeLayer(_ r: Reshape, input: String) -> String {
        let target = r.target
        switch r.order {
        case .channelsFirst:
            return reshape(input, to: ONNXGraphBuilder.dims(target))
        case .channelsLast:
            let nhwc = transpose(input, perm: [0, 2, 3, 1])
            let reshaped = reshape(nhwc, to: [1, target.height, target.width, target.channels])
            return transpose(reshaped, perm: [0, 3, 1, 2])
        }
    }

    /// Keras ZeroPadding2D: `Pad` with zeros, rows top and bottom, columns left and right.
    mutating func zeroPad(_ p: Padding2D, input: String) -> String {
        let padded = pad(input, pads: [0, 0, p.top, p.left, 0, 0, p.bottom, p.right])
        return padded == input ? node("Identity", [input]) : padded
    }

    /// Keras Cropping2D and darknet [crop] at inference: `Slice` of rows top ..< H - bottom and columns
    /// left ..< W - right, then x * scale + shift (darknet's default scale 2, shift -1).
    mutating func crop(_ p: Padding2D, scale: Float, shift: Float, input: String, inputShape: ActivationShape) -> String {
        let cut = slice(
            input, axes: [2, 3], starts: [p.top, p.left], ends: [inputShape.height - p.bottom, inputShape.width - p.right])
        return affine(cut, scale: scale, shift: shift)
    }

    /// out[c] = in[c + offset] where 0 <= c + offset < C_in, zeros elsewhere (`ChannelRange`): a Slice of the
    /// channels the window covers, then zero Pad before and after.
    mutating func channelRange(_ r: ChannelRange, input: String, inputShape: ActivationShape) -> String {
        let window = r.window(inputChannels: inputShape.channels)
        guard !window.taken.isEmpty else {
            // No input channel in the window: all zeros, of the input's plane size.
            let zeros = floats([0], dims: [1, 1, 1, 1], hint: "zero")
            let shaped = node("Mul", [slice(input, axes: [1], starts: [0], ends: [1]), zeros])
            return node("Expand", [shaped, int64s([1, r.channels, inputShape.height, inputShape.width], hint: "shape")])
        }
        let taken = channels(input, window.taken, of: inputShape.channels)
        let padded = pad(taken, pads: [0, window.before, 0, 0, 0, window.after, 0, 0])
        return padded == input ? node("Identity", [input]) : padded
    }

    /// Keras GlobalAveragePooling2D / darknet [avgpool]: `GlobalAveragePool`; GlobalMaxPooling2D: `GlobalMaxPool`.
    mutating func globalPool(max: Bool, input: String) -> String {
        node(max ? "GlobalMaxPool" : "GlobalAveragePool", [input])
    }
}
