import FoldKitCore

/// What folding batch norm does to one convolution or fully connected layer, worked out once from its
/// bias and batch norm and checked once against the layer's O outputs.
///
/// With (s, shift) = `BatchNorm.affine()` in float64, s[o] = gamma[o] / sqrt(var[o] + eps) (or
/// gamma[o] / (sqrt(var[o]) + eps), per the convention) and shift[o] = beta[o] - mean[o] * s[o]:
///
///     W'[o, ...] = Float(Double(W[o, ...]) * s[o])              (`foldRows`)
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
        guard let batchNorm else {
            if let layerBias, layerBias.count != outputs {
                throw FoldKitError(.badInput, "bias does not match the layer's outputs", expected: "\(outputs)", found: "\(layerBias.count)")
            }
            self.scale = nil
            self.bias = layerBias
            return
        }
        let sizes = [batchNorm.mean, batchNorm.variance] + [batchNorm.gamma, batchNorm.beta].compactMap { $0 }
        if let wrong = sizes.first(where: { $0.count != outputs }) {
            throw FoldKitError(.badInput, "batch norm size does not match the layer's outputs", expected: "\(outputs)", found: "\(wrong.count)")
        }
        let loaded = BatchNorm(
            gamma: try batchNorm.gamma.map(reader.materialized), beta: try batchNorm.beta.map(reader.materialized),
            mean: try reader.materialized(batchNorm.mean), variance: try reader.materialized(batchNorm.variance),
            convention: batchNorm.convention)
        let (scale, shift) = try loaded.affine()
        if let layerBias, layerBias.count != outputs {
            throw FoldKitError(.badInput, "bias does not match the layer's outputs", expected: "\(outputs)", found: "\(layerBias.count)")
        }
        self.scale = scale
        self.bias = (0..<outputs).map { o in Float(shift[o] + Double(layerBias?[o] ?? 0) * scale[o]) }
    }

    /// Folds output rows `firstRow ..< firstRow + values.count / rowLength` in place: each value w of
    /// row o becomes Float(Double(w) * s[o]). `values` holds whole rows of `rowLength` values each.
    func foldRows(_ values: UnsafeMutableBufferPointer<Float>, firstRow: Int, rowLength: Int) throws {
        guard let scale, rowLength > 0, let base = values.baseAddress else { return }
        let rows = values.count / rowLength
        guard values.count % rowLength == 0, firstRow >= 0, firstRow + rows <= outputs else {
            throw FoldKitError(.badInput, "weights do not match their shape",
                               expected: "rows \(firstRow)..<\(firstRow + rows) of \(outputs), \(rowLength) values each", found: "\(values.count) values")
        }
        for r in 0..<rows {
            let s = scale[firstRow + r]
            let row = base + r * rowLength
            for k in 0..<rowLength { row[k] = Float(Double(row[k]) * s) }
        }
    }

    /// The whole weight tensor folded (rows of weights.count / O values); unchanged without batch norm.
    func folded(_ weights: WeightTensor) throws -> WeightTensor {
        guard scale != nil else { return weights }
        var values = try weights.floats()
        if values.isEmpty { return weights }
        guard outputs > 0, values.count % outputs == 0 else {
            throw FoldKitError(.badInput, "weights do not match their shape",
                               expected: "a multiple of \(outputs) values (one row per output)", found: "\(values.count)")
        }
        let rowLength = values.count / outputs
        try values.withUnsafeMutableBufferPointer { try foldRows($0, firstRow: 0, rowLength: rowLength) }
        return WeightTensor(shape: weights.shape, values: values)
    }
}
