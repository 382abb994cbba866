/// Parametric ReLU, x >= 0 ? x : alpha * x with alpha per channel ([C]) or per element ([C, H, W]): the
/// operation of `LayerKind.prelu`.
public struct ParametricReLU: Sendable {
    /// The slopes.
    public var alpha: WeightTensor

    /// PReLU with slopes `alpha`.
    public init(alpha: WeightTensor) { self.alpha = alpha }
}

extension ParametricReLU: LayerOperation {
    public var layerKind: LayerKind { .prelu(alpha: alpha) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "prelu" }

    /// The input's shape; alpha holds C or C x H x W values.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            alpha.count == first.channels || alpha.count == first.count, "prelu alpha count", expected: "\(first.channels) or \(first.count)",
            found: "\(alpha.count)")
        return first
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { [(.alpha, alpha)] }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        .prelu(alpha: try transform(.alpha, alpha))
    }

    /// `alpha`: a vector, or channel planes for per-element slopes.
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        [
            BlobTensorPlan(
                role: .alpha, suffix: "alpha", tensor: alpha, form: alpha.shape.count == 1 ? .vector(shape: alpha.shape) : .planes(shape: alpha.shape)
            )
        ]
    }

    public var blobPrefix: String { "prelu" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        .prelu(alpha: WeightTensor(shape: alpha.shape, values: try values(.alpha)))
    }

    public var vectorRule: VectorRule { .whenInputsAre }
}
