import FoldKitCore

/// ncnn's BinaryOp `op_type` (src/layer/binaryop.h).
enum BinaryOperation {
    static let add = 0, subtract = 1, multiply = 2, divide = 3, maximum = 4, minimum = 5, reverseSubtract = 7
}

/// ncnn's UnaryOp `op_type` (src/layer/unaryop.h).
enum UnaryOperation {
    static let absolute = 0, negate = 1, ceil = 3, sqrt = 5, exp = 7, sign = 20, log1p = 27
}

/// Layers that move elements without arithmetic (Reshape, Permute, Crop, Padding), the element-wise
/// steps with a scalar, and the FoldKit operations made of them (reshape, zero padding, crop, channel
/// windows). ncnn's Mat is w x h x c; FoldKit's C x H x W tensor is the Mat (w = W, h = H, c = C) in the
/// same channel-major memory order, so a Reshape reinterprets FoldKit's flat order as it is.
extension NCNNGraphBuilder {
    /// `Reshape` to C x H x W (0=w 1=h 2=c).
    mutating func reshape(_ x: String, to shape: ActivationShape) -> String {
        op("Reshape", [x], [(0, .int(shape.width)), (1, .int(shape.height)), (2, .int(shape.channels))])
    }

    /// `Reshape` to a two-dimensional h x w Mat (rows of w values).
    mutating func reshape(_ x: String, rows: Int, columns: Int) -> String {
        op("Reshape", [x], [(0, .int(columns)), (1, .int(rows))])
    }

    /// `Permute` with ncnn's `order_type` for three-dimensional Mats: 3 takes c x h x w to h x w x c
    /// (channels innermost, NHWC's order), 4 takes it back.
    mutating func permute(_ x: String, order: Int) -> String {
        op("Permute", [x], [(0, .int(order))])
    }

    /// `Crop` of channels from `channel`, rows from `row`, columns from `column`, keeping `shape`
    /// (0=woffset 1=hoffset 2=coffset 3=outw 4=outh 5=outc); `x` itself when that is all of `input`.
    mutating func crop(_ x: String, input: ActivationShape, channel: Int = 0, row: Int = 0, column: Int = 0, keeping shape: ActivationShape)
        -> String
    {
        if shape == input && channel == 0 && row == 0 && column == 0 { return x }
        return op(
            "Crop", [x],
            [
                (0, .int(column)), (1, .int(row)), (2, .int(channel)), (3, .int(shape.width)), (4, .int(shape.height)),
                (5, .int(shape.channels)),
            ])
    }

    /// `Padding` with `value` (0=top 1=bottom 2=left 3=right 4=type constant 5=value 7=front 8=behind,
    /// front and behind along the channels); `x` itself when nothing is added.
    mutating func pad(
        _ x: String, top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0, front: Int = 0, behind: Int = 0, value: Float = 0
    ) -> String {
        if [top, bottom, left, right, front, behind].allSatisfy({ $0 == 0 }) { return x }
        var params: [(Int, NCNNParam)] = [(0, .int(top)), (1, .int(bottom)), (2, .int(left)), (3, .int(right)), (4, .int(0))]
        if value != 0 { params.append((5, .float(value))) }
        if front != 0 { params.append((7, .int(front))) }
        if behind != 0 { params.append((8, .int(behind))) }
        return op("Padding", [x], params)
    }

    /// `BinaryOp` of two blobs (ncnn broadcasts a dimension of size 1).
    mutating func binary(_ a: String, _ b: String, _ operation: Int) -> String {
        op("BinaryOp", [a, b], [(0, .int(operation))])
    }

    /// `BinaryOp` with a scalar on the right (1=with_scalar 2=b): x op value.
    mutating func binary(_ x: String, _ operation: Int, scalar value: Float) -> String {
        op("BinaryOp", [x], [(0, .int(operation)), (1, .int(1)), (2, .float(value))])
    }

    /// `UnaryOp` of `operation`.
    mutating func unary(_ x: String, _ operation: Int) -> String {
        op("UnaryOp", [x], [(0, .int(operation))])
    }

    /// x * scale + shift with scalars, each step left out when it changes nothing (scale 1, shift 0).
    mutating func affine(_ x: String, scale: Float, shift: Float) -> String {
        var y = x
        if scale != 1 { y = binary(y, BinaryOperation.multiply, scalar: scale) }
        if shift != 0 { y = binary(y, BinaryOperation.add, scalar: shift) }
        return y
    }

    /// `MemoryData`: a constant C x H x W blob from model.bin (21=load_type 0: a flagged buffer, float16 in a
    /// float16 model; `raw`: float32 as ncnn's load type 1 reads it).
    mutating func memoryData(_ weight: NCNNWeight, shape: ActivationShape) -> String {
        let loadType = weight.storage == .flagged ? 0 : 1
        return op(
            "MemoryData", [], [(0, .int(shape.width)), (1, .int(shape.height)), (2, .int(shape.channels)), (21, .int(loadType))],
            weights: [weight])
    }

    /// Flatten and Reshape (`Reshape`): channels-first reinterprets the flat order as it is; channels-last
    /// (Keras Flatten and Reshape, which flatten NHWC) goes through NHWC: `Permute` 3 to H x W x C,
    /// `Reshape` to H' x W' x C', `Permute` 4 back - so flat[(y*W + x)*C + c] = in[c, y, x] and
    /// out[c', y', x'] = flat[(y'*W' + x')*C' + c'], as `ReshapeKernel` reads and writes.
    mutating func reshapeLayer(_ r: Reshape, input: String) -> String {
        let target = r.target
        switch r.order {
        case .channelsFirst:
            return reshape(input, to: target)
        case .channelsLast:
            let nhwc = permute(input, order: 3)
            let reshaped = reshape(nhwc, to: ActivationShape(channels: target.height, height: target.width, width: target.channels))
            return permute(reshaped, order: 4)
        }
    }

    /// Keras ZeroPadding2D: `Padding` with zeros; the input itself when there is none.
    mutating func zeroPad(_ p: Padding2D, input: String) -> String {
        pad(input, top: p.top, bottom: p.bottom, left: p.left, right: p.right)
    }

    /// Keras Cropping2D and darknet [crop] at inference: `Crop` of rows top ..< H - bottom and columns
    /// left ..< W - right, then x * scale + shift (`BinaryOp` with a scalar; darknet's default 2, -1).
    mutating func crop(_ p: Padding2D, scale: Float, shift: Float, input: String, inputShape: ActivationShape) -> String {
        let kept = ActivationShape(
            channels: inputShape.channels, height: inputShape.height - p.top - p.bottom, width: inputShape.width - p.left - p.right)
        return affine(crop(input, input: inputShape, row: p.top, column: p.left, keeping: kept), scale: scale, shift: shift)
    }

    /// out[c] = in[c + offset] where 0 <= c + offset < C_in, zeros elsewhere (`ChannelRange.window`): a `Crop`
    /// of the channels the window covers, then `Padding` of zero channels before and after. A window over no
    /// input channel: one channel times 0, padded to the window's channels.
    mutating func channelRange(_ r: ChannelRange, input: String, inputShape: ActivationShape) -> String {
        let window = r.window(inputChannels: inputShape.channels)
        let plane = (inputShape.height, inputShape.width)
        guard !window.taken.isEmpty else {
            let one = crop(input, input: inputShape, keeping: ActivationShape(channels: 1, height: plane.0, width: plane.1))
            return pad(binary(one, BinaryOperation.multiply, scalar: 0), behind: r.channels - 1)
        }
        let taken = crop(
            input, input: inputShape, channel: window.taken.lowerBound,
            keeping: ActivationShape(channels: window.taken.count, height: plane.0, width: plane.1))
        return pad(taken, front: window.before, behind: window.after)
    }
}
