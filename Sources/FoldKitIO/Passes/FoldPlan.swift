import FoldKitCore

/// What folding batch norm does to one convolution or fully connected layer, worked out once from its
/// bias and batch norm and checked once against the layer's O outputs.
///
/// With (s, shift) = `BatchNorm.affine()` in float64, s[o] = gamma[o] / sqrt(var[o] + eps) (or
/// gamma[o] / (sqrt(var[o]) + eps), per the convention) and shift[o] = beta[o] - mean[o] * s[o]:
///
///     W'[o, ...] = Float(Double(W[o, ...]) * s[o])              (`folded(_:)`, `RowScale`)
///     b'[o]      = Float(shift[o] + Double(b[o]) * s[o])         (`bias`; b = 0 when the layer has none)
///
/// Without batch norm `scale` is nil, the weights stay as they are and `bias` is the layer's own.
/// Every value is rounded once to float32, element by element, so whole tensors and any split into runs
/// of whole output rows give the same bytes.
struct FoldPlan {
    /// O, the number of output rows of the weights ([O, I, kh, kw] or [O, inputs], row-major).
    let outputs: Int
    /// s[o] in float64; nil when the layer has no batch norm.
    let scale: [Double]?
    /// b'[o]; nil when the layer has neither batch norm nor a bias.
    let bias: [Float]?

    /// Reads the layer's bias, then gamma, beta, mean and variance (file order) through `reader`, and
    /// checks every one of them has `outputs` values.
    init(outputs: Int, bias: WeightTensor?, batchNorm: BatchNorm?, reader: FloatSpanReader) throws {
        self.outputs = outputs
        let layerBias = try bias.map(reader.floats)
        if let layerBias, layerBias.count != outputs {
            throw FoldKitError(.badInput, "bias does not match the layer's outputs", expected: "\(outputs)", found: "\(layerBias.count)")
        }
        guard let batchNorm else {
            self.scale = nil
            self.bias = layerBias
            return
        }
        let (scale, shift) = try Self.affine(of: batchNorm, channels: outputs, reader: reader)
        self.scale = scale
        self.bias = (0..<outputs).map { o in Float(shift[o] + Double(layerBias?[o] ?? 0) * scale[o]) }
    }

    /// The batch norm's per-channel (scale, shift) in float64, its four tensors read through `reader` after
    /// each was checked to hold `channels` values (a shorter one would be read past its end); the values
    /// read are checked again by `BatchNorm.affine`.
    static func affine(of batchNorm: BatchNorm, channels: Int, reader: FloatSpanReader) throws -> (scale: [Double], shift: [Double]) {
        let tensors = [(batchNorm.gamma, "gamma"), (batchNorm.beta, "beta"), (batchNorm.mean, "mean"), (batchNorm.variance, "variance")]
        for case (let tensor?, let name) in tensors where tensor.count != channels {
            throw FoldKitError(
                .badInput, "batch norm size does not match the layer's outputs", expected: "\(channels)",
                found: "\(tensor.count) (\(name))")
        }
        let loaded = BatchNorm(
            gamma: try batchNorm.gamma.map(reader.materialized), beta: try batchNorm.beta.map(reader.materialized),
            mean: try reader.materialized(batchNorm.mean), variance: try reader.materialized(batchNorm.variance),
            convention: batchNorm.convention)
        return try loaded.affine()
    }

    /// The weight tensor folded: rows of weights.count / O values, row o scaled by s[o] (`RowScale`). Values
    /// in memory are folded now; file-backed ones become a folded tensor read on demand (`Storage.scaledFile`),
    /// so nothing large is read here. Unchanged without batch norm.
    func folded(_ weights: WeightTensor) throws -> WeightTensor {
        guard let scale else { return weights }
        guard outputs > 0, weights.count % outputs == 0 else {
            throw FoldKitError(
                .badInput, "weights do not match their shape",
                expected: "a multiple of \(outputs) values (one row per output)", found: "\(weights.count)")
        }
        switch weights.storage {
        case .values(var values):
            guard values.count == weights.count else {
                throw FoldKitError(
                    .badInput, "weights do not match their shape", expected: "\(weights.shape) = \(weights.count) values", found: "\(values.count)")
            }
            let rowLength = values.count / outputs
            try values.withUnsafeMutableBufferPointer { try RowScale.apply(scale, to: $0, firstRow: 0, rowLength: rowLength) }
            return WeightTensor(shape: weights.shape, values: values)
        case .file(let span):
            guard span.count == weights.count else {
                throw FoldKitError(
                    .badInput, "weights do not match their shape", file: span.path, byteOffset: span.byteOffset,
                    expected: "\(weights.shape) = \(weights.count) values", found: "\(span.count)")
            }
            return WeightTensor(shape: weights.shape, span: span, rowScale: scale)
        case .scaledFile:
            throw FoldKitError(.usage, "weights are folded already: the layer cannot have a batch norm left")
        }
    }
}
