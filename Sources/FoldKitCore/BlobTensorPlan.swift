/// One blob an operation writes (Docs/BlobFormat.md, "What is written per layer"): its role, file-name suffix
/// (`conv12_W.bin` has `W`), the tensor (nil: `fill` repeated `count` times, as a missing bias is zeros)
/// and how it is stored.
public struct BlobTensorPlan: Sendable {
    /// How the values are laid out in the blob.
    public enum Form: Sendable, Equatable {
        /// Weights: OIHW `dims` [O, I, kh, kw], rearranged into the layout the writer is asked for, read a
        /// few rows at a time; `depthwise` picks the depthwise form of the sliced layout.
        case weights(oihw: [Int], depthwise: Bool)
        /// A vector (layout `vector`), its shape as the manifest gives it (`[count]` for a bias).
        case vector(shape: [Int])
        /// Channel-major planes of `shape` (layout `channel-planes`).
        case planes(shape: [Int])
    }

    /// What the tensor is to its layer.
    public var role: TensorRole
    /// The file-name suffix (`W`, `b`, `scale`, ...).
    public var suffix: String
    /// The values; nil writes `fill` in their place.
    public var tensor: WeightTensor?
    /// The value written for an absent tensor.
    public var fill: Float
    /// The blob's layout and dimensions.
    public var form: Form

    /// A blob of `role` named by `suffix` holding `tensor` (or `fill` everywhere) in `form`.
    public init(role: TensorRole, suffix: String, tensor: WeightTensor?, fill: Float = 0, form: Form) {
        self.role = role
        self.suffix = suffix
        self.tensor = tensor
        self.fill = fill
        self.form = form
    }

    /// The number of values the blob holds.
    public var count: Int {
        switch form {
        case .weights(let dims, _): return dims.reduce(1, *)
        case .vector(let shape): return shape.reduce(1, *)
        case .planes(let shape): return shape.reduce(1, *)
        }
    }
}
