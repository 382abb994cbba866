/// A per-channel affine map y[c] = scale[c] * x[c] + shift[c]: an unfoldable batch norm after folding.
public struct ChannelAffine: Sendable, Codable {
    /// scale[c] (or per element), multiplying the input.
    public var scale: WeightTensor
    /// shift[c] (or per element), added after.
    public var shift: WeightTensor
    /// y = scale * x + shift.
    public init(scale: WeightTensor, shift: WeightTensor) {
        self.scale = scale
        self.shift = shift
    }
}

extension ChannelAffine: LayerOperation {
    public var layerKind: LayerKind { .channelAffine(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "channel_affine" }

    /// The input's shape; scale and shift must have one value per channel.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            scale.count == first.channels && shift.count == first.channels, "channel affine size", expected: "\(first.channels)",
            found: "\(scale.count)")
        return first
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { [(.scale, scale), (.shift, shift)] }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        .channelAffine(ChannelAffine(scale: try transform(.scale, scale), shift: try transform(.shift, shift)))
    }

    /// `scale` and `shift`, vectors.
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        [
            BlobTensorPlan(role: .scale, suffix: "scale", tensor: scale, form: .vector(shape: scale.shape)),
            BlobTensorPlan(role: .shift, suffix: "shift", tensor: shift, form: .vector(shape: shift.shape)),
        ]
    }

    public var blobPrefix: String { "affine" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        .channelAffine(
            ChannelAffine(
                scale: WeightTensor(shape: scale.shape, values: try values(.scale)),
                shift: WeightTensor(shape: shift.shape, values: try values(.shift))))
    }

    /// Per-channel scales count as weights and shifts as biases: an engine stores them in float16 too.
    public var channelTensors: ChannelTensors? { ChannelTensors(weights: scale, bias: shift, rows: scale.count) }

    public var vectorRule: VectorRule { .whenInputsAre }
}
