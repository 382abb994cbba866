import FoldKitRuntime

/// The precision a folded network is checked in, and its control run with it.
public enum VerificationPrecision: String, Codable, Sendable, CaseIterable {
    /// float32 weights, arithmetic and activations.
    case float32 = "float32"
    /// float16 weights and float16 storage of every layer's output, float32 arithmetic within a layer
    /// (MPSImage half textures; `ExecutorOptions.float16Storage`).
    case float16Storage = "float16 storage"

    /// The unit roundoff of the precision's storage: 2^-24 (float32), 2^-11 (float16).
    public var unitRoundoff: Double {
        switch self {
        case .float32: return 0x1.0p-24
        case .float16Storage: return 0x1.0p-11
        }
    }

    /// How the executor emulates it (parameters read layer by layer, as verify's passes do), its products
    /// threaded as `productThreading` says, its outputs perturbed by `perturbation` if given.
    public func executorOptions(productThreading: ProductThreading = .library, perturbation: RoundingPerturbation? = nil) -> ExecutorOptions {
        ExecutorOptions(
            float16Storage: self == .float16Storage, streamParameters: true, productThreading: productThreading, perturbation: perturbation)
    }
}
