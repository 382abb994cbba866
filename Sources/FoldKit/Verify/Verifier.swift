import FoldKitCore

/// Runs the original network (batch norm unfolded, float64) and the folded network (float32, or
/// float16 storage) on the same input and compares every layer's output.
public enum Verifier {
    public struct Options: Sendable {
        /// Allowed absolute deviation, output units.
        public var absoluteTolerance: Double
        /// Allowed deviation as a fraction of the layer's max |reference|.
        public var relativeTolerance: Double
        /// Run the folded network with float16 storage between layers and float16 weights.
        public var float16: Bool

        public init(absoluteTolerance: Double = 1e-6, relativeTolerance: Double = 1e-3, float16: Bool = false) {
            self.absoluteTolerance = absoluteTolerance
            self.relativeTolerance = relativeTolerance
            self.float16 = float16
        }
    }

    /// `original` must be the unfolded network as read; `folded` its folded form (from `FoldBatchNorm`
    /// or re-read from blobs). Both must have the same layers.
    public static func verify(original: Network, folded: Network, input: ModelInput, options: Options = .init()) throws -> VerificationReport {
        guard original.layers.count == folded.layers.count else {
            throw FoldKitError(.badInput, "folded network has a different number of layers", expected: "\(original.layers.count)", found: "\(folded.layers.count)")
        }
        let reference = try Executor<Double>(network: original).run(input: input.values.map(Double.init), retention: .all)
        let candidate = try Executor<Float>(network: folded, options: ExecutorOptions(float16Storage: options.float16)).run(input: input.values, retention: .all)
        var layers: [LayerDeviation] = []
        for layer in original.layers {
            layers.append(LayerDeviation.measure(
                layer: layer, reference: reference[layer.index], candidate: candidate[layer.index],
                atol: options.absoluteTolerance, rtol: options.relativeTolerance))
        }
        let first = layers.first { !$0.pass }
        return VerificationReport(
            tool: "foldkit verify", version: 1, format: original.format.rawValue, files: original.sourceFiles,
            bnEpsilon: original.epsilonConvention.epsilon, bnEpsilonMode: original.epsilonConvention.placement.rawValue,
            input: input.origin, reference: "original network (batch norm unfolded), float64 arithmetic",
            candidate: options.float16 ? "folded network, float32 arithmetic with float16 weights and float16 storage between layers" : "folded network, float32",
            tolerance: .init(absolute: options.absoluteTolerance, relative: options.relativeTolerance,
                             rule: "max|candidate - reference| <= absolute + relative * max|reference|, per layer"),
            layers: layers, firstLayerOverTolerance: first.map { .init(index: $0.index, name: $0.name, type: $0.type) },
            verdict: first == nil ? "pass" : "fail")
    }
}
