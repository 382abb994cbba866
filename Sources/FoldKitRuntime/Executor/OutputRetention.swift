/// Which layer outputs `Executor.run` keeps.
public enum OutputRetention: Sendable {
    /// Every layer's output (for per-layer comparison and fixtures).
    case all
    /// Only the outputs listed in `Network.outputIndices`; other arrays are returned empty and
    /// freed as soon as their last reader has run.
    case outputsOnly
}
