import FoldKitCore

/// One tensor of the weights file as the cfg implies it: who owns it, where it starts, how many floats.
struct PlannedTensor: Sendable {
    var layerLabel: String
    var role: TensorRole
    /// Absolute byte offset in the weights file (header included).
    var byteOffset: Int
    var count: Int
    /// Inputs per output value, for weight tensors (seeded initialisation); 0 otherwise.
    var fanIn: Int
    var byteCount: Int { count * 4 }
}
