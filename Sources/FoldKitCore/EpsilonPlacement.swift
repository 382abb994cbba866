/// Where the batch-norm epsilon is added.
///
/// - `insideSqrt`:  y = gamma * (x - mean) / sqrt(variance + epsilon) + beta
///   (AlexeyAB Darknet, pjreddie Darknet on GPU, OpenCV uses it with 1e-6, Keras)
/// - `outsideSqrt`: y = gamma * (x - mean) / (sqrt(variance) + epsilon) + beta  (pjreddie Darknet on CPU)
public enum EpsilonPlacement: String, CaseIterable, Sendable, Codable {
    case insideSqrt = "inside"
    case outsideSqrt = "outside"
}
