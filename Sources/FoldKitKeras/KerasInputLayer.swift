import FoldKitCore

/// A model input as its InputLayer declares it.
struct KerasInputLayer {
    var name: String
    /// The declared shape without the batch axis (nil sizes are undefined); nil when not declared at all.
    var shape: [Int?]?
    /// False for a Sequential's implicit input.
    var isDeclared: Bool
}
