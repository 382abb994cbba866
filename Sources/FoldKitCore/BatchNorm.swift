/// Inference-time batch normalisation over channels:
/// y[c] = gamma[c] * (x[c] - mean[c]) / denominator(variance[c]) + beta[c], with the denominator
/// given by `convention`. Missing gamma means 1 (Keras `scale=False`); missing beta means 0 (`center=False`).
public struct BatchNorm: Sendable, Codable {
    /// gamma[c]; nil means 1.
    public var gamma: WeightTensor?
    /// beta[c]; nil means 0.
    public var beta: WeightTensor?
    /// The running mean[c].
    public var mean: WeightTensor
    /// The running variance[c].
    public var variance: WeightTensor
    /// The epsilon and where it goes.
    public var convention: EpsilonConvention

    /// A batch norm of the given statistics.
    public init(gamma: WeightTensor?, beta: WeightTensor?, mean: WeightTensor, variance: WeightTensor, convention: EpsilonConvention) {
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.convention = convention
    }

    /// C, the length of `mean`.
    public var channels: Int { mean.count }

    /// The folded per-channel affine map y = scale * x + shift, computed in float64; throws when gamma, beta,
    /// mean and variance do not all hold `channels` values.
    package func affine() throws -> (scale: [Double], shift: [Double]) {
        let n = channels
        let g = try gamma?.floats() ?? [Float](repeating: 1, count: n)
        let b = try beta?.floats() ?? [Float](repeating: 0, count: n)
        let m = try mean.floats()
        let v = try variance.floats()
        for (values, name) in [(g, "gamma"), (b, "beta"), (m, "mean"), (v, "variance")] where values.count != n {
            throw FoldKitError(.badInput, "batch norm size does not match the layer's outputs", expected: "\(n)", found: "\(values.count) (\(name))")
        }
        var scale = [Double](repeating: 0, count: n)
        var shift = [Double](repeating: 0, count: n)
        for c in 0..<n {
            scale[c] = convention.scale(gamma: Double(g[c]), variance: Double(v[c]))
            shift[c] = Double(b[c]) - Double(m[c]) * scale[c]
        }
        return (scale, shift)
    }

    /// The same batch norm with every tensor read into memory (file spans read now).
    public func materialized() throws -> BatchNorm {
        BatchNorm(
            gamma: try gamma?.materialized(), beta: try beta?.materialized(), mean: try mean.materialized(),
            variance: try variance.materialized(), convention: convention)
    }
}

extension BatchNorm: LayerOperation {
    /// Its own epsilon convention.
    public var epsilonConvention: EpsilonConvention? { convention }

    public var layerKind: LayerKind { .batchNorm(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "batchnorm" }

    /// The input's shape; the statistics must have one value per channel.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(channels == first.channels, "batch norm channels", expected: "\(first.channels)", found: "\(channels)")
        return first
    }

    /// gamma, beta, mean, variance as (role, tensor) pairs, leaving out absent ones.
    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        var list: [(TensorRole, WeightTensor)] = []
        if let gamma { list.append((.gamma, gamma)) }
        if let beta { list.append((.beta, beta)) }
        list.append((.mean, mean))
        list.append((.variance, variance))
        return list
    }

    /// The same batch norm with each statistic replaced by `transform(role, tensor)`.
    public func mappingBatchNorm(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> BatchNorm {
        BatchNorm(
            gamma: try gamma.map { try transform(.gamma, $0) }, beta: try beta.map { try transform(.beta, $0) }, mean: try transform(.mean, mean),
            variance: try transform(.variance, variance), convention: convention)
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        .batchNorm(try mappingBatchNorm(transform))
    }

    /// Not folded: the fold pass turns a batch norm left as a layer into a `ChannelAffine` first.
    public var isFolded: Bool { false }

    /// What the fold pass makes of it: `scale` and `shift` vectors of the channel count.
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        [
            BlobTensorPlan(role: .scale, suffix: "scale", tensor: nil, form: .vector(shape: [channels])),
            BlobTensorPlan(role: .shift, suffix: "shift", tensor: nil, form: .vector(shape: [channels])),
        ]
    }

    public var blobPrefix: String { "affine" }

    /// Written as a per-channel scale and shift (the fold pass's `ChannelAffine`), read back as one.
    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        .channelAffine(
            ChannelAffine(
                scale: WeightTensor(shape: [channels], values: try values(.scale)), shift: WeightTensor(shape: [channels], values: try values(.shift))
            ))
    }

    public var vectorRule: VectorRule { .whenInputsAre }
}
