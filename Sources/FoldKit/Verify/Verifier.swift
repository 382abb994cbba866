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
        /// The image boxes are clipped to and reported in (nil: the network input).
        public var imageFrame: ImageFrame?
        /// Class names for the reported boxes (index = class).
        public var classNames: [String]?

        public init(absoluteTolerance: Double = 0, relativeTolerance: Double? = nil, float16: Bool = false,
                    detectionThreshold: Float = 0.3, nmsIoU: Float = 0.5, minimumBoxIoU: Float = 0.99,
                    imageFrame: ImageFrame? = nil, classNames: [String]? = nil) {
            self.absoluteTolerance = absoluteTolerance
            self.relativeTolerance = relativeTolerance
            self.float16 = float16
            self.detectionThreshold = detectionThreshold
            self.nmsIoU = nmsIoU
            self.minimumBoxIoU = minimumBoxIoU
            self.imageFrame = imageFrame
            self.classNames = classNames
        }
    }

    /// Called as each layer of a pass finishes: (pass, layers done, layer count). The passes, in order:
    /// "folded pass (float32)", "folded pass (float16 storage)" (with `Options.float16`), "reference pass
    /// (float64)" (which includes comparing each layer).
    public typealias Progress = LayerProgress

    /// `original` must be the unfolded network as read; `folded` its folded form (from `FoldBatchNorm`
    /// or re-read from blobs). `blobProblems` (from `BlobReader`) are carried into the verdict.
    public static func verify(
        original: Network, folded: Network, input: ModelInput, options: Options = .init(), blobProblems: [BlobReader.Problem] = [],
        progress: Progress? = nil
    ) throws -> VerificationReport {
        try verify(original: original, makeFolded: { folded }, input: input, options: options, blobProblems: blobProblems, progress: progress)
    }

    /// As `verify(original:folded:...)`, building the folded network with `makeFolded` (e.g. by folding
    /// `original`), so that its weights can be released before the reference pass.
    ///
    /// Order, chosen for memory: the folded network runs first and its float32 outputs are kept (4 bytes a
    /// value); then the float64 reference runs with its parameters read layer by layer
    /// (`ExecutorOptions.streamParameters`, no Double copy of the weights), and every layer is compared
    /// the moment it is computed, so a float64 output is held only while later layers read it, and each
    /// float32 output is dropped once compared. At most one copy of the weights is held at a time.
    public static func verify(
        original: Network, makeFolded: () throws -> Network, input: ModelInput, options: Options = .init(), blobProblems: [BlobReader.Problem] = [],
        progress: Progress? = nil
    ) throws -> VerificationReport {
        let layerCount = original.layers.count
        func passProgress(_ pass: String) -> ((Int, [Float]) -> Void)? {
            progress.map { report in { index, _ in report(pass, index + 1, layerCount) } }
        }
        var clock = PhaseClock()
        // Both passes read the weights lazily: they must read the same version of the files.
        let snapshot = SourceFileSnapshot(original.sourceFiles)
        let isDetector = original.layers.contains { if case .detection = $0.kind { return true } else { return false } }
        var float32: [[Float]]
        var float16: [[Float]]?
        var hazards: [Float16Hazard]?
        var candidateBoxes = DecodedBoxes(boxes: [])
        var boxSeconds = 0.0
        do {
            let folded = try makeFolded()
            clock.lap("fold")
            guard original.layers.count == folded.layers.count else {
                throw FoldKitError(.badInput, "folded network has a different number of layers", expected: "\(original.layers.count)", found: "\(folded.layers.count)")
            }
            // One pass each: parameters prepared layer by layer (no second copy of the weights, transformed or not).
            float32 = try Executor<Float>(network: folded, options: ExecutorOptions(streamParameters: true))
                .run(input: input.values, retention: .all, observe: passProgress("folded pass (float32)"))
            clock.lap("folded pass (float32)")
            float16 = options.float16
                ? try Executor<Float>(network: folded, options: ExecutorOptions(float16Storage: true, streamParameters: true))
                    .run(input: input.values, retention: .all, observe: passProgress("folded pass (float16 storage)"))
                : nil
            if options.float16 { clock.lap("folded pass (float16 storage)") }
            hazards = options.float16 ? try Float16Hazard.scan(folded: folded, outputs: float32) : nil
            if isDetector {
                let start = DispatchTime.now()
                candidateBoxes = DetectionDecoder.decodeHeads(network: folded, outputs: float16 ?? float32, threshold: options.detectionThreshold,
                                                              networkName: "candidate")
                boxSeconds += PhaseClock.seconds(since: start)
            }
            clock.lap("")
        }

        // The reference pass, each layer compared as soon as it is computed.
        let budgets = ToleranceBudget.relativeBudgets(for: original, float16: options.float16)
        var measured = [LayerDeviation?](repeating: nil, count: layerCount)
        var foldOnly = [DeviationSummary?](repeating: nil, count: layerCount)
        var storageOnly = [DeviationSummary?](repeating: nil, count: layerCount)
        var referenceHeads = [[Float]](repeating: [], count: layerCount)
        var comparisonSeconds = 0.0
        let referenceExecutor = try Executor<Double>(network: original, options: ExecutorOptions(streamParameters: true))
        _ = try referenceExecutor.run(input: input.values.map(Double.init), retention: .outputsOnly) { index, reference in
            let start = DispatchTime.now()
            let layer = original.layers[index]
            let candidate = float16?[index] ?? float32[index]
            measured[index] = LayerDeviation.measure(layer: layer, reference: reference, candidate: candidate,
                                                     atol: options.absoluteTolerance, rtol: options.relativeTolerance ?? budgets[index])
            if let float16 {
                foldOnly[index] = DeviationSummary(.measure(layer: layer, reference: reference, candidate: float32[index], atol: 0, rtol: 0))
                storageOnly[index] = DeviationSummary(.measure(layer: layer, reference: float32[index], candidate: float16[index], atol: 0, rtol: 0))
            }
            if case .detection = layer.kind { referenceHeads[index] = reference.map(Float.init) }
            // Compared: the folded outputs of this layer are no longer needed.
            float32[index] = []
            float16?[index] = []
            comparisonSeconds += PhaseClock.seconds(since: start)
            progress?("reference pass (float64)", index + 1, layerCount)
        }
        clock.lap("reference pass (float64)", excluding: comparisonSeconds)
        clock.record("layer comparison", seconds: comparisonSeconds)
        let layers = measured.compactMap { $0 }
        guard layers.count == layerCount else {
            throw FoldKitError(.badInput, "the reference pass did not produce every layer", expected: "\(layerCount)", found: "\(layers.count)")
        }

        var detections: DetectionComparison?
        if isDetector {
            let referenceBoxes = DetectionDecoder.decodeHeads(network: original, outputs: referenceHeads, threshold: options.detectionThreshold,
                                                              networkName: "reference")
            detections = BoxComparison.compare(
                reference: referenceBoxes, candidate: candidateBoxes,
                settings: .init(threshold: options.detectionThreshold, nmsIoU: options.nmsIoU, minimumIoU: options.minimumBoxIoU,
                                frame: options.imageFrame ?? ImageFrame(networkInput: original.inputShape), classNames: options.classNames))
            clock.lap("box decoding and comparison", adding: boxSeconds)
        }
        try snapshot.checkUnchanged()
        let first = layers.first { !$0.pass }
        let pass = first == nil && (detections?.acceptable ?? true) && blobProblems.isEmpty
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
            layers: layers, foldDeviation: options.float16 ? foldOnly.compactMap { $0 } : nil,
            float16StorageDeviation: options.float16 ? storageOnly.compactMap { $0 } : nil,
            firstLayerOverTolerance: first.map { .init(index: $0.index, name: $0.name, type: $0.type) },
            detections: detections, blobProblems: blobProblems.isEmpty ? nil : blobProblems, float16Hazards: hazards,
            timings: clock.laps, verdict: pass ? "pass" : "fail")
    }
}

/// Wall-clock seconds per phase, for the report.
struct PhaseClock {
    private var last = DispatchTime.now()
    private(set) var laps: [VerificationReport.Timing] = []

    /// Ends the current phase, named `phase`: the time since the previous lap, less `excluding` seconds
    /// (spent inside it on work reported as another phase), plus `adding` seconds (spent earlier on this
    /// phase's work). An empty name ends a stretch of time already reported piecewise.
    mutating func lap(_ phase: String, excluding: Double = 0, adding: Double = 0) {
        let now = DispatchTime.now()
        if !phase.isEmpty {
            laps.append(.init(phase: phase, seconds: Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1e9 - excluding + adding))
        }
        last = now
    }

    /// Adds a phase measured piecewise elsewhere.
    mutating func record(_ phase: String, seconds: Double) {
        laps.append(.init(phase: phase, seconds: seconds))
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
