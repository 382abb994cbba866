import FoldKitCore

/// What a tensor holds, in the order Darknet stores it; decides the seeded-weights distribution too.
enum DarknetTensorRole: String, Sendable {
    case bias, gamma, mean, variance, weights
}
