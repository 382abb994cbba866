/// When a layer's output is a rank-2 (batch, features) tensor in a framework whose vectors are rank 2
/// (Keras: Dense, Flatten, global pooling, and element-wise layers on those), so that fixtures and exported
/// models give it the shape (1, N) as Keras does.
public enum VectorRule: Sendable, Equatable {
    /// Always a vector (Dense, global pooling).
    case always
    /// A vector when every input is (activations, merges, routes, normalizations).
    case whenInputsAre
    /// Never (convolutions, pooling, ...).
    case never
}
