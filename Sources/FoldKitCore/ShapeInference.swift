/// Output shapes of every layer kind, and the checks that the inputs fit.
extension LayerKind {
    /// The output shape for the given input shapes, or a `FoldKitError` saying why they do not fit.
    ///
    /// Spatial output sizes:
    /// - convolution: (in + padBefore + padAfter - ((k - 1) * dilation + 1)) / stride + 1
    /// - transposed convolution: its own outputHeight x outputWidth (the full output is (in - 1) * stride + k)
    /// - pooling:     (in + padBefore + padAfter - k) / stride + 1
    /// - locally connected: (in + 2 * padding - k) / stride + 1, which must equal its stored output size
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        guard let first = inputs.first else {
            throw FoldKitError(.badInput, "layer has no input")
        }
        func require(_ condition: Bool, _ message: String, expected: String? = nil, found: String? = nil) throws {
            if !condition { throw FoldKitError(.badInput, message, expected: expected, found: found) }
        }
        let result: ActivationShape
        switch self {
        case .convolution(let c):
            try require(first.channels == c.inputChannels, "convolution input channels", expected: "\(c.inputChannels)", found: "\(first.channels)")
            try require(
                c.groups >= 1 && c.inputChannels % c.groups == 0 && c.outputChannels % c.groups == 0,
                "groups must divide input and output channels", found: "groups=\(c.groups), in=\(c.inputChannels), out=\(c.outputChannels)")
            try require(c.strideX >= 1 && c.strideY >= 1 && c.dilationX >= 1 && c.dilationY >= 1, "stride and dilation must be at least 1")
            let expected = SizeLimits.elementCount([c.outputChannels, c.inputChannels / max(c.groups, 1), c.kernelHeight, c.kernelWidth])
            try require(
                expected == c.weights.count, "convolution weight count",
                expected: expected.map(String.init) ?? "more than Int holds", found: "\(c.weights.count)")
            let effH = (c.kernelHeight - 1) * c.dilationY + 1
            let effW = (c.kernelWidth - 1) * c.dilationX + 1
            result = ActivationShape(
                channels: c.outputChannels,
                height: (first.height + c.padding.top + c.padding.bottom - effH) / c.strideY + 1,
                width: (first.width + c.padding.left + c.padding.right - effW) / c.strideX + 1)
        case .transposedConvolution(let t):
            try require(
                first.channels == t.inputChannels, "transposed convolution input channels", expected: "\(t.inputChannels)",
                found: "\(first.channels)")
            try require(
                t.kernelHeight >= 1 && t.kernelWidth >= 1 && t.strideY >= 1 && t.strideX >= 1, "kernel size and stride must be at least 1",
                found: "kernel \(t.kernelHeight)x\(t.kernelWidth), stride \(t.strideY)x\(t.strideX)")
            try require(
                t.offsetY >= 0 && t.offsetX >= 0, "transposed convolution offsets must be at least 0", found: "\(t.offsetY), \(t.offsetX)")
            try require(
                t.outputHeight >= 1 && t.outputWidth >= 1, "transposed convolution output size must be at least 1x1",
                found: "\(t.outputHeight)x\(t.outputWidth)")
            let expected = SizeLimits.elementCount([t.outputChannels, t.inputChannels, t.kernelHeight, t.kernelWidth])
            try require(
                expected == t.weights.count, "transposed convolution weight count",
                expected: expected.map(String.init) ?? "more than Int holds", found: "\(t.weights.count)")
            if let bias = t.bias {
                try require(
                    bias.count == t.outputChannels, "transposed convolution bias count", expected: "\(t.outputChannels)", found: "\(bias.count)")
            }
            result = ActivationShape(channels: t.outputChannels, height: t.outputHeight, width: t.outputWidth)
        case .fullyConnected(let f):
            try require(first.count == f.inputCount, "connected layer input size", expected: "\(f.inputCount)", found: "\(first.count) (\(first))")
            result = .vector(f.outputCount)
        case .locallyConnected(let l):
            try require(
                first.channels == l.inputChannels, "locally connected input channels", expected: "\(l.inputChannels)", found: "\(first.channels)")
            try require(
                l.kernelSize >= 1 && l.stride >= 1 && l.padding >= 0 && l.outputChannels >= 1, "kernel size, stride and filters must be at least 1",
                found: "size=\(l.kernelSize) stride=\(l.stride) pad=\(l.padding) filters=\(l.outputChannels)")
            let size = "\(l.outputHeight)x\(l.outputWidth)"
            try require(
                l.outputExtent(input: first.height) == l.outputHeight && l.outputExtent(input: first.width) == l.outputWidth
                    && l.outputHeight >= 1 && l.outputWidth >= 1,
                "locally connected output size does not follow from the input",
                expected: "\(l.outputExtent(input: first.height))x\(l.outputExtent(input: first.width)), at least 1x1", found: size)
            let weights = SizeLimits.elementCount([l.locations, l.outputChannels, l.inputChannels, l.kernelSize, l.kernelSize])
            try require(
                weights == l.weights.count, "locally connected weight count",
                expected: weights.map(String.init) ?? "more than Int holds", found: "\(l.weights.count)")
            let biases = l.outputChannels * l.locations
            try require(
                biases == l.bias.count, "locally connected bias count (one per output element)", expected: "\(biases)", found: "\(l.bias.count)")
            result = ActivationShape(channels: l.outputChannels, height: l.outputHeight, width: l.outputWidth)
        case .pooling(let p):
            try require(p.strideX >= 1 && p.strideY >= 1 && p.kernelWidth >= 1 && p.kernelHeight >= 1, "pool size and stride must be at least 1")
            result = ActivationShape(
                channels: first.channels,
                height: (first.height + p.padding.top + p.padding.bottom - p.kernelHeight) / p.strideY + 1,
                width: (first.width + p.padding.left + p.padding.right - p.kernelWidth) / p.strideX + 1)
        case .globalAveragePool, .globalMaxPool:
            result = .vector(first.channels)
        case .activation, .softmax, .identity, .detection:
            result = first
        case .prelu(let alpha):
            try require(
                alpha.count == first.channels || alpha.count == first.count, "prelu alpha count", expected: "\(first.channels) or \(first.count)",
                found: "\(alpha.count)")
            result = first
        case .batchNorm(let bn):
            try require(bn.channels == first.channels, "batch norm channels", expected: "\(first.channels)", found: "\(bn.channels)")
            result = first
        case .channelAffine(let a):
            try require(
                a.scale.count == first.channels && a.shift.count == first.channels, "channel affine size", expected: "\(first.channels)",
                found: "\(a.scale.count)")
            result = first
        case .layerNormalization(let n):
            for case (let tensor?, let name) in [(n.gamma, "gamma"), (n.beta, "beta")] {
                try require(
                    tensor.count == first.channels, "layer normalization \(name) size", expected: "\(first.channels)", found: "\(tensor.count)")
            }
            try require(
                n.epsilon.isFinite && n.epsilon >= 0, "layer normalization epsilon must be finite and at least 0", found: "\(n.epsilon)")
            result = first
        case .concatenation(let r):
            try require(
                r.groups >= 1 && r.groupID >= 0 && r.groupID < r.groups, "route group_id must be in 0..<groups",
                found: "groups=\(r.groups) group_id=\(r.groupID)")
            var channels = 0
            for shape in inputs {
                try require(
                    shape.height == first.height && shape.width == first.width, "route inputs differ in size",
                    expected: "\(first.height)x\(first.width)", found: "\(shape.height)x\(shape.width)")
                try require(
                    shape.channels % r.groups == 0, "route groups must divide channels", found: "\(shape.channels) channels, groups=\(r.groups)")
                channels += shape.channels / r.groups
            }
            result = ActivationShape(channels: channels, height: first.height, width: first.width)
        case .sum:
            try require(inputs.count >= 2, "sum needs at least two inputs", found: "\(inputs.count)")
            result = first
        case .product:
            try require(inputs.count == 2, "product needs two inputs", found: "\(inputs.count)")
            let (a, b) = (inputs[0], inputs[1])
            if a == b {
                result = a
            } else if b.height == 1 && b.width == 1 && b.channels == a.channels {
                result = a
            } else if a.height == 1 && a.width == 1 && a.channels == b.channels {
                result = b
            } else {
                throw FoldKitError(.badInput, "product inputs cannot be broadcast", expected: "equal shapes or C x 1 x 1", found: "\(a) and \(b)")
            }
        case .merge(let m):
            result = try Self.mergedShape(m, inputs)
        case .upsample(let u):
            result = ActivationShape(channels: first.channels, height: first.height * u.strideY, width: first.width * u.strideX)
        case .reorg(let r):
            try require(
                r.stride >= 1 && first.height % r.stride == 0 && first.width % r.stride == 0, "reorg stride must divide height and width",
                found: "\(first), stride \(r.stride)")
            result = ActivationShape(channels: first.channels * r.stride * r.stride, height: first.height / r.stride, width: first.width / r.stride)
        case .reshape(let r):
            try require(
                r.target.count == first.count, "reshape must keep the element count", expected: "\(first.count)",
                found: "\(r.target.count) (\(r.target))")
            result = r.target
        case .zeroPad(let p):
            result = ActivationShape(channels: first.channels, height: first.height + p.top + p.bottom, width: first.width + p.left + p.right)
        case .crop(let p, _, _):
            result = ActivationShape(channels: first.channels, height: first.height - p.top - p.bottom, width: first.width - p.left - p.right)
        case .channelRange(let r):
            try require(r.channels >= 1, "a channel window needs at least one channel", expected: ">= 1", found: "\(r.channels)")
            result = ActivationShape(channels: r.channels, height: first.height, width: first.width)
        }
        try require(result.channels > 0 && result.height > 0 && result.width > 0, "output would be empty", found: "\(result) from input \(first)")
        return result
    }

    /// The output shape of an element-wise merge: the full shape of its inputs, each of which is that shape,
    /// C x 1 x 1 with the same C, or 1 x 1 x 1 (`ElementwiseMerge`); subtract and divide take exactly two.
    private static func mergedShape(_ merge: ElementwiseMerge, _ inputs: [ActivationShape]) throws -> ActivationShape {
        let operation = merge.operation
        switch operation {
        case .subtract, .divide:
            guard inputs.count == 2 else {
                throw FoldKitError(.badInput, "\(operation.rawValue) needs exactly two inputs", expected: "2", found: "\(inputs.count)")
            }
        case .add, .multiply, .average, .maximum, .minimum:
            guard inputs.count >= 2 else {
                throw FoldKitError(.badInput, "\(operation.rawValue) needs at least two inputs", expected: "2 or more", found: "\(inputs.count)")
            }
        }
        // The full shape is the largest input; every input must be it or broadcast onto it.
        let full = inputs.max { $0.count < $1.count } ?? inputs[0]
        for shape in inputs where shape != full {
            let perChannel = shape.height == 1 && shape.width == 1 && shape.channels == full.channels
            let single = shape.channels == 1 && shape.height == 1 && shape.width == 1
            guard perChannel || single else {
                throw FoldKitError(
                    .badInput, "\(operation.rawValue) inputs cannot be broadcast to one shape",
                    expected: "\(full), \(full.channels)x1x1 or 1x1x1 for every input",
                    found: inputs.map(\.description).joined(separator: ", "))
            }
        }
        return full
    }
}
