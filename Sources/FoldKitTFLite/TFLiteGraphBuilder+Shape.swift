import FoldKitCore

/// Operators that move elements without arithmetic (RESHAPE, TRANSPOSE, SLICE, STRIDED_SLICE, PAD), the
/// element-wise steps, and the FoldKit operations made of them (reshape, zero padding, crop, channel
/// windows). FoldKit's C x H x W tensor is the NHWC [1, H, W, C] tensor here: where FoldKit's flat
/// (channel-major) order matters - darknet's flattening, [reorg]'s reinterpretation, softmax groups - the
/// tensor goes through TRANSPOSE to NCHW and back.
extension TFLiteGraphBuilder {
    /// [1, H, W, C] of a FoldKit shape.
    func nhwc(_ s: ActivationShape) -> [Int] { [1, s.height, s.width, s.channels] }

    /// RESHAPE to `shape` (the shape as an int32 tensor and in ReshapeOptions.new_shape).
    mutating func reshape(_ x: Int, to shape: [Int]) -> Int {
        op(.reshape, [x, integers(shape)], shape: shape, options: .reshape(shape))
    }

    /// TRANSPOSE by `permutation` (output axis i is input axis permutation[i]).
    mutating func transpose(_ x: Int, _ permutation: [Int]) -> Int {
        let input = shape(x)
        return op(.transpose, [x, integers(permutation)], shape: permutation.map { input[$0] }, options: .transpose)
    }

    /// FoldKit's channel-major reshape of `x` (NHWC of `from`) to `to`: NHWC to NCHW, RESHAPE, back.
    mutating func channelMajorReshape(_ x: Int, to target: ActivationShape) -> Int {
        let nchw = transpose(x, [0, 3, 1, 2])
        let reshaped = reshape(nchw, to: [1, target.channels, target.height, target.width])
        return transpose(reshaped, [0, 2, 3, 1])
    }

    /// SLICE from `begin` keeping `size`; `x` itself when that is all of it.
    mutating func slice(_ x: Int, begin: [Int], size: [Int]) -> Int {
        if begin.allSatisfy({ $0 == 0 }) && size == shape(x) { return x }
        return op(.slice, [x, integers(begin), integers(size)], shape: size, options: .slice)
    }

    /// STRIDED_SLICE from `begin` to `end` (exclusive) by `strides` (all masks 0).
    mutating func stridedSlice(_ x: Int, begin: [Int], end: [Int], strides: [Int]) -> Int {
        var size: [Int] = []
        for axis in 0..<begin.count {
            let span = end[axis] - begin[axis]
            size.append((span + strides[axis] - 1) / strides[axis])
        }
        return op(.stridedSlice, [x, integers(begin), integers(end), integers(strides)], shape: size, options: .stridedSlice)
    }

    /// PAD (zeros) or PADV2 (`value`) with `before` and `after` elements on each axis; `x` itself when none.
    mutating func pad(_ x: Int, _ before: [Int], _ after: [Int], value: Float = 0) -> Int {
        if (before + after).allSatisfy({ $0 == 0 }) { return x }
        let input = shape(x)
        let paddings = integers(zip(before, after).flatMap { [$0, $1] }, shape: [before.count, 2])
        let output = (0..<input.count).map { input[$0] + before[$0] + after[$0] }
        if value == 0 { return op(.pad, [x, paddings], shape: output, options: .pad) }
        return op(.padV2, [x, paddings, scalar(value)], shape: output, options: .padV2)
    }

    /// The element-wise binary operators, each with its builtin and options.
    enum Binary {
        case add, sub, mul, div, maximum, minimum

        var code: TFLiteOperator {
            switch self {
            case .add: return .add
            case .sub: return .sub
            case .mul: return .mul
            case .div: return .div
            case .maximum: return .maximum
            case .minimum: return .minimum
            }
        }

        func options(fused: TFLiteOptions.Fused) -> TFLiteOptions {
            switch self {
            case .add: return .add(fused: fused)
            case .sub: return .sub
            case .mul: return .mul
            case .div: return .div
            case .maximum, .minimum: return .maximumMinimum
            }
        }
    }

    /// The element-wise binary operator `code` (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM) of two tensors,
    /// broadcast as LiteRT broadcasts (a dimension of 1, or a missing leading one, takes the other's).
    /// `fused` applies to ADD only (the others' options carry none FoldKit uses).
    mutating func binary(_ code: Binary, _ a: Int, _ b: Int, fused: TFLiteOptions.Fused = .none) -> Int {
        let (sa, sb) = (shape(a), shape(b))
        let rank = max(sa.count, sb.count)
        let pa = [Int](repeating: 1, count: rank - sa.count) + sa, pb = [Int](repeating: 1, count: rank - sb.count) + sb
        let output = zip(pa, pb).map { $0 == 1 ? $1 : $0 }
        return op(code.code, [a, b], shape: output, options: code.options(fused: fused))
    }

    /// `code` of `x` and a float32 scalar.
    mutating func binary(_ code: Binary, _ x: Int, scalar value: Float) -> Int {
        binary(code, x, scalar(value))
    }

    /// x * scale + shift with scalars, each step left out when it changes nothing (scale 1, shift 0).
    mutating func affine(_ x: Int, scale: Float, shift: Float) -> Int {
        var y = x
        if scale != 1 { y = binary(.mul, y, scalar: scale) }
        if shift != 0 { y = binary(.add, y, scalar: shift) }
        return y
    }

    /// Flatten and Reshape (`Reshape`): channels-first reinterprets FoldKit's channel-major order
    /// (`channelMajorReshape`); channels-last (Keras Flatten and Reshape, which flatten NHWC) is one RESHAPE
    /// of the NHWC tensor, which is that order already.
    mutating func reshapeLayer(_ r: Reshape, input: Int, inputShape: ActivationShape) -> Int {
        switch r.order {
        case .channelsFirst: return channelMajorReshape(input, to: r.target)
        case .channelsLast: return reshape(input, to: nhwc(r.target))
        }
    }

    /// Keras Cropping2D and darknet [crop] at inference: SLICE of rows top ..< H - bottom and columns
    /// left ..< W - right, then x * scale + shift (MUL, ADD with scalars; darknet's default 2, -1).
    mutating func crop(_ p: Padding2D, scale: Float, shift: Float, input: Int, inputShape: ActivationShape) -> Int {
        let kept = [1, inputShape.height - p.top - p.bottom, inputShape.width - p.left - p.right, inputShape.channels]
        return affine(slice(input, begin: [0, p.top, p.left, 0], size: kept), scale: scale, shift: shift)
    }

    /// out[c] = in[c + offset] where 0 <= c + offset < C_in, zeros elsewhere (`ChannelRange.window`): SLICE of
    /// the channels the window covers, then PAD of zero channels before and after. A window over no input
    /// channel: one channel times 0, padded to the window's channels.
    mutating func channelRange(_ r: ChannelRange, input: Int, inputShape: ActivationShape) -> Int {
        let window = r.window(inputChannels: inputShape.channels)
        let (h, w) = (inputShape.height, inputShape.width)
        guard !window.taken.isEmpty else {
            let one = slice(input, begin: [0, 0, 0, 0], size: [1, h, w, 1])
            return pad(binary(.mul, one, scalar: 0), [0, 0, 0, 0], [0, 0, 0, r.channels - 1])
        }
        let taken = slice(input, begin: [0, 0, 0, window.taken.lowerBound], size: [1, h, w, window.taken.count])
        return pad(taken, [0, 0, 0, window.before], [0, 0, 0, window.after])
    }
}
