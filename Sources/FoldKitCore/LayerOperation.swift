/// One operation of a network, declared once: everything a stage after the readers needs to know about it
/// lives in the conformance beside the operation's parameters (`Convolution.swift`, `Pooling.swift`, ...),
/// so a new operation is a type and its conformance, and the shape inference, the blob writer and reader,
/// the fixture writer, inspect, the memory plan, the tolerance budget and the float16 scan iterate these
/// declarations instead of switching over the kinds (Docs/Architecture.md, "Operations").
///
/// `LayerKind.operation` gives a layer's declaration; the executor maps each kind to its kernel in one
/// table (`Executor.prepare`), and each writer of another engine's format lowers each kind in one place.
/// Members with a default below need a conformance only where the operation differs.
public protocol LayerOperation: Sendable {
    /// The layer kind holding this operation.
    var layerKind: LayerKind { get }

    /// Short type name for tables and reports (`conv`, `maxpool`, ...), given the input shapes.
    func typeName(inputShapes: [ActivationShape]) -> String

    /// The output shape for `inputs` (at least one), or a `FoldKitError` saying why they do not fit.
    func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape

    /// The parameter tensors with their roles, in a fixed order, leaving out absent ones.
    var parameters: [(role: TensorRole, tensor: WeightTensor)] { get }

    /// The layer kind with every parameter tensor replaced by `transform(role, tensor)`.
    func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind

    /// The name an error gives a parameter of `role` ("convolution weights").
    func parameterName(_ role: TensorRole) -> String

    /// The blobs of the folded operation (Docs/BlobFormat.md), given its input and output shapes (a batch
    /// norm left as a layer: the scale and shift the fold pass makes of it).
    func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan]

    /// Whether no batch norm is left in the operation (the blob writer takes the fold pass's result).
    var isFolded: Bool { get }

    /// The file-name prefix of the operation's blobs in a Darknet blob folder (`conv` -> `conv12_W.bin`).
    var blobPrefix: String { get }

    /// The folded layer kind rebuilt from blob values: `values(role)` gives each role's values (the weights
    /// already moved back to OIHW). A batch norm left unattached comes back as its scale and shift.
    func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind

    /// The parameters the blob manifest's `layers[]` describes (kernel, stride, padding, activation, ...).
    func describe(into description: inout LayerDescription)

    /// The activation applied last to the output, if any (verify inverts logistic and tanh through it).
    var finalActivation: Activation? { get }

    /// Whether the output is the single input unchanged (identities, detection heads, reshapes).
    var passesInputThrough: Bool { get }

    /// The number of products or terms summed into one output element (verify's rounding floor).
    func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int

    /// How far an error in the inputs can grow through the operation (verify's carried allowance), or nil
    /// when it is not bounded by 1.
    var deviationCarry: DeviationCarry? { get }

    /// The weights and biases whose values an engine stores per output channel (float16 range scan).
    var channelTensors: ChannelTensors? { get }

    /// When the output is a rank-2 (batch, features) tensor in a framework whose vectors are rank 2.
    var vectorRule: VectorRule { get }

    /// The epsilon the operation adds to a variance and where it goes: an attached or standalone batch
    /// norm's, or a layer or group normalization's (inside the square root); nil for the others.
    var epsilonConvention: EpsilonConvention? { get }
}

extension LayerOperation {
    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { [] }
    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind { layerKind }
    public func parameterName(_ role: TensorRole) -> String { role.readableName }
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] { [] }
    public var isFolded: Bool { true }
    public var blobPrefix: String { "layer" }
    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind { layerKind }
    public func describe(into description: inout LayerDescription) {}
    public var finalActivation: Activation? { nil }
    public var passesInputThrough: Bool { false }
    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { 1 }
    public var deviationCarry: DeviationCarry? { nil }
    public var channelTensors: ChannelTensors? { nil }
    public var vectorRule: VectorRule { .never }
    public var epsilonConvention: EpsilonConvention? { nil }

    /// A `FoldKitError` (bad input) with `message` unless `condition` holds: the shape checks' one form.
    func require(_ condition: Bool, _ message: String, expected: String? = nil, found: String? = nil) throws {
        if !condition { throw FoldKitError(.badInput, message, expected: expected, found: found) }
    }
}
