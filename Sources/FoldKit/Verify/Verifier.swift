import Dispatch
import FoldKitCore

/// Runs the original network (batch norm unfolded, float64) and the folded network (float32, or
/// float16 storage) on the same input, compares every layer's output, and, for detectors, the boxes.
public enum Verifier {
    public struct Options: Sendable {
        /// Allowed absolute deviation, output units.
        public var absoluteTolerance: Double
        /// Allowed deviation as a fraction of the layer's max |reference|; nil = the derived `ToleranceBudget`.
        public var relativeTolerance: Double?
        /// Run the folded network with float16 weights and float16 storage between layers.
        public var float16: Bool
        /// Detection score threshold (objectness x class probability).
        public var detectionThreshold: Float
        /// Per-class NMS IoU threshold.
        public var nmsIoU: Float
        /// Smallest IoU between paired original and folded boxes that passes.
        public var minimumBoxIoU: Float

        public init(absoluteTolerance: Double = 0, relativeTolerance: Double? = nil, float16: Bool = false,
                    detectionThreshold: Float = 0.3, nmsIoU: Float = 0.5, minimumBoxIoU: Float = 0.99) {
            self.absoluteTolerance = absoluteTolerance
            self.relativeTolerance = relativeTolerance
            self.float16 = float16
            self.detectionThreshold = detectionThreshold
            self.nmsIoU = nmsIoU
            self.minimumBoxIoU = minimumBoxIoU
        }
    }

    /// `original` must be the unfolded network as read; `folded` its folded form (from `FoldBatchNorm`
    /// or re-read from blobs). `blobProblems` (from `BlobReader`) are carried into the verdict.
    public static func verify(
        original: Network, folded: Network, input: ModelInput, options: Options = .init(), blobProblems: [BlobReader.Problem] = []
    ) throws -> VerificationReport {
        try verify(original: original, makeFolded: { folded }, input: input, options: options, blobProblems: blobProblems)
    }

    /// As `verify(original:folded:...)`, building the folded network only after the reference pass has
    /// finished and released its float64 parameters, so one copy of the weights is held at a time.
    public static func verify(
        original: Network, makeFolded: () throws -> Network, input: ModelInput, options: Options = .init(), blobProblems: [BlobReader.Problem] = []
    ) throws -> VerificationReport {
        var clock = PhaseClock()
        let reference = try Executor<Double>(network: original).run(input: input.values.map(Double.init), retention: .all)
        clock.lap("reference pass (float64)")
        let folded = try makeFolded()
        clock.lap("fold")
        guard original.layers.count == folded.layers.count else {
            throw FoldKitError(.badInput, "folded network has a different number of layers", expected: "\(original.layers.count)", found: "\(folded.layers.count)")
        }
        let float32 = try Executor<Float>(network: folded).run(input: input.values, retention: .all)
        clock.lap("folded pass (float32)")
        let float16 = options.float16
            ? try Executor<Float>(network: folded, options: ExecutorOptions(float16Storage: true)).run(input: input.values, retention: .all)
            : nil
        if options.float16 { clock.lap("folded pass (float16 storage)") }
        let candidate = float16 ?? float32
        let budgets = ToleranceBudget.relativeBudgets(for: original, float16: options.float16)
        // Layers are measured independently: spread them over the cores (each measure is a streaming pass).
        let layers: [LayerDeviation] = Verifier.concurrentMap(original.layers) { layer in
            LayerDeviation.measure(layer: layer, reference: reference[layer.index], candidate: candidate[layer.index],
                                   atol: options.absoluteTolerance, rtol: options.relativeTolerance ?? budgets[layer.index])
        }
        var foldOnly: [DeviationSummary] = []
        var storageOnly: [DeviationSummary] = []
        if let float16 {
            foldOnly = Verifier.concurrentMap(original.layers) { layer in
                DeviationSummary(.measure(layer: layer, reference: reference[layer.index], candidate: float32[layer.index], atol: 0, rtol: 0))
            }
            storageOnly = Verifier.concurrentMap(original.layers) { layer in
                DeviationSummary(.measure(layer: layer, reference: float32[layer.index], candidate: float16[layer.index], atol: 0, rtol: 0))
            }
        }
        clock.lap("layer comparison")
        var detections: DetectionComparison?
        if original.layers.contains(where: { if case .detection = $0.kind { return true } else { return false } }) {
            let headOutputs = original.layers.map { layer -> [Float] in
                if case .detection = layer.kind { return reference[layer.index].map(Float.init) }
                return []
            }
            let referenceBoxes = DetectionDecoder.candidates(network: original, outputs: headOutputs, threshold: options.detectionThreshold)
            let candidateBoxes = DetectionDecoder.candidates(network: folded, outputs: candidate, threshold: options.detectionThreshold)
            detections = DetectionComparison(referenceCandidates: referenceBoxes, candidateCandidates: candidateBoxes, threshold: options.detectionThreshold,
                                             nmsIoU: options.nmsIoU, minimumIoU: options.minimumBoxIoU)
        }
        if detections != nil { clock.lap("box decoding and comparison") }
        let hazards = options.float16 ? try Float16Hazard.scan(folded: folded, outputs: float32) : nil
        let first = layers.first { !$0.pass }
        let pass = first == nil && (detections?.pass ?? true) && blobProblems.isEmpty
        return VerificationReport(
            tool: "foldkit verify", version: 1, format: original.format.rawValue, files: original.sourceFiles,
            bnEpsilon: original.epsilonConvention.epsilon, bnEpsilonMode: original.epsilonConvention.placement.rawValue,
            input: input.origin, reference: "original network (batch norm unfolded), float64 arithmetic",
            candidate: options.float16 ? "folded network, float32 arithmetic with float16 weights and float16 storage between layers" : "folded network, float32",
            tolerance: .init(
                absolute: options.absoluteTolerance, relative: options.relativeTolerance,
                rule: options.relativeTolerance == nil
                    ? "max|candidate - reference| <= absolute + budget * max|reference| per layer; budget = carried input budget + \(ToleranceBudget.safety) x unit roundoff x sqrt(accumulation length)"
                    : "max|candidate - reference| <= absolute + relative * max|reference|, per layer"),
            layers: layers, foldDeviation: options.float16 ? foldOnly : nil, float16StorageDeviation: options.float16 ? storageOnly : nil,
            firstLayerOverTolerance: first.map { .init(index: $0.index, name: $0.name, type: $0.type) },
            detections: detections, blobProblems: blobProblems.isEmpty ? nil : blobProblems, float16Hazards: hazards,
            timings: clock.laps, verdict: pass ? "pass" : "fail")
    }
}

extension Verifier {
    /// `items.map(transform)`, the items spread over the machine's cores (results in input order).
    static func concurrentMap<T, U>(_ items: [T], _ transform: (T) -> U) -> [U] {
        var results = [U?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { slots in
            DispatchQueue.concurrentPerform(iterations: items.count) { i in
                slots[i] = transform(items[i])
            }
        }
        return results.compactMap { $0 }
    }
}

/// Wall-clock seconds per phase, for the report.
struct PhaseClock {
    private var last = DispatchTime.now()
    private(set) var laps: [VerificationReport.Timing] = []

    mutating func lap(_ phase: String) {
        let now = DispatchTime.now()
        laps.append(.init(phase: phase, seconds: Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1e9))
        last = now
    }
}
