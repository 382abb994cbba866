import Dispatch
import FoldKitCore
import FoldKitDetection
import FoldKitIO
import FoldKitRuntime
import Foundation

/// Runs the original network (batch norm unfolded, float64), the control (the original network in the
/// candidate's precision) and the folded network (float32, and with float16 storage) on the same input,
/// judges every layer's output (`ToleranceBudget`), and, for detectors, compares the boxes.
public enum Verifier {
    /// Tolerances, precisions and detection settings of a verification.
    public struct Options: Sendable {
        /// Allowed absolute deviation, output units.
        public var absoluteTolerance: Double
        /// Allowed deviation as a fraction of the layer's max |reference|, replacing the control-based rule
        /// of `ToleranceBudget`; nil = that rule.
        public var relativeTolerance: Double?
        /// Also judge float16 weights and float16 storage between layers (folded against the original in
        /// that precision); the fold is judged in float32 either way.
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
        /// How the passes thread their matrix products (`ExecutorOptions.productThreading`); the report is
        /// the same either way.
        public var productThreading: ProductThreading
        /// The blob folder the folded network was read from (`BlobReader`), named in the report's
        /// `candidate` and `blobFolder`; nil when the folded network is the fold pass's result.
        public var blobFolder: String?
        /// The folder of engine outputs judged (`verifyEngineOutputs`), named in the report's `candidate`.
        public var engineOutputs: String?
        /// SHA-256 of model files already computed (by path, e.g. `BlobReader.Result.sourceDigests`); the
        /// other model files are hashed while the passes run, for the report's `filesRead`.
        public var knownDigests: [String: String]

        /// The defaults of `foldkit verify`: the control-based tolerance, float32 only, score 0.3, NMS IoU 0.5, box IoU 0.99.
        public init(
            absoluteTolerance: Double = 0, relativeTolerance: Double? = nil, float16: Bool = false,
            detectionThreshold: Float = 0.3, nmsIoU: Float = 0.5, minimumBoxIoU: Float = 0.99,
            imageFrame: ImageFrame? = nil, classNames: [String]? = nil, productThreading: ProductThreading = .library,
            blobFolder: String? = nil, engineOutputs: String? = nil, knownDigests: [String: String] = [:]
        ) {
            self.engineOutputs = engineOutputs
            self.absoluteTolerance = absoluteTolerance
            self.relativeTolerance = relativeTolerance
            self.float16 = float16
            self.detectionThreshold = detectionThreshold
            self.nmsIoU = nmsIoU
            self.minimumBoxIoU = minimumBoxIoU
            self.imageFrame = imageFrame
            self.classNames = classNames
            self.productThreading = productThreading
            self.blobFolder = blobFolder
            self.knownDigests = knownDigests
        }
    }

    /// Called as each layer finishes in every pass: (phase, layers done, layer count). The passes advance
    /// in lockstep, so there is one phase: "passes (reference float64, control and folded float32)" (with
    /// `Options.float16` also "and float16 storage").
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
    /// `original`).
    ///
    /// Passes: the float64 reference (original network), and per precision checked (float32; with
    /// `Options.float16` also float16 storage) the control (original network in that precision) and the
    /// candidate (folded network in that precision). They advance in lockstep, one layer of each at a time,
    /// and each layer is judged (`PrecisionJudge`) the moment every pass has computed it, so each pass holds
    /// only the outputs later layers still read: memory is bounded by the live activations, not by every
    /// layer's output. Parameters are read layer by layer (`ExecutorOptions.streamParameters`): no Double
    /// or transformed copy of the weights is held beside the networks themselves.
    ///
    /// `float16Candidate` (float16 blobs read back): the network the float16-storage pass runs instead of
    /// the folded one, which is then still judged in float32; that pass runs even without `Options.float16`.
    public static func verify(
        original: Network, makeFolded: () throws -> Network, float16Candidate: Network? = nil, input: ModelInput, options: Options = .init(),
        blobProblems: [BlobReader.Problem] = [], progress: Progress? = nil
    ) throws -> VerificationReport {
        try run(
            original: original, makeFolded: makeFolded, float16Candidate: float16Candidate, engineOutputs: nil, input: input, options: options,
            blobProblems: blobProblems, progress: progress)
    }

    /// Judges outputs an engine computed from `input` (`EngineOutputs`: channel-major values by layer index)
    /// as `verify` judges the folded network's: the float64 reference and the control (the original network
    /// in float32, or with `Options.float16` in float16 storage: an engine computing in half) run every layer,
    /// each layer's allowance is built as verify builds it, and the engine's value of each output layer is
    /// the candidate there (the control stands in at the layers the engine did not output, so the
    /// allowances carried into the outputs are verify's). The report lists the engine's layers only; heads
    /// are decoded and the boxes compared as verify does.
    ///
    /// `darknetBuffers` (`EngineOutputs.Loaded.darknetBuffers`) are the layers whose engine values are
    /// darknet's own buffer (heads decoded in the graph: `export --decode-heads`), channel-major: the
    /// reference and the control are decoded the same way (`DarknetLayerOutput`) and the layer is judged on
    /// the buffer; its boxes are decoded from the buffer's raw equivalent.
    public static func verifyEngineOutputs(
        original: Network, engineOutputs: [Int: [Float]], darknetBuffers: Set<Int> = [], input: ModelInput, options: Options = .init(),
        progress: Progress? = nil
    ) throws -> VerificationReport {
        try run(
            original: original, makeFolded: { try FoldBatchNorm.apply(to: original) }, float16Candidate: nil, engineOutputs: engineOutputs,
            darknetBuffers: darknetBuffers, input: input, options: options, blobProblems: [], progress: progress)
    }

    /// darknet's buffer for `layer` from FoldKit's channel-major output `values`, channel-major.
    private static func darknetBuffer(_ layer: Layer, _ values: [Float]) -> [Float] {
        guard let buffer = DarknetLayerOutput.transform(layer, values: values) else { return values }
        return DarknetLayerOutput.channelMajor(buffer.values, order: buffer.order, shape: layer.outputShape)
    }

    private static func run(
        original: Network, makeFolded: () throws -> Network, float16Candidate: Network?, engineOutputs: [Int: [Float]]?,
        darknetBuffers: Set<Int> = [], input: ModelInput, options: Options, blobProblems: [BlobReader.Problem], progress: Progress?
    ) throws -> VerificationReport {
        let layerCount = original.layers.count
        var clock = PhaseClock()
        // Every pass reads the weights lazily: they must all read the same version of the files.
        let snapshot = SourceFileSnapshot(original.sourceFiles)
        let digests = modelDigests(of: original, known: options.knownDigests)
        let folded = try makeFolded()
        clock.lap("fold")
        guard original.layers.count == folded.layers.count else {
            throw FoldKitError(
                .badInput, "folded network has a different number of layers", expected: "\(original.layers.count)", found: "\(folded.layers.count)")
        }
        var passes = try LockstepPasses(
            original: original, folded: folded, float16Candidate: float16Candidate, engineOutputs: engineOutputs,
            darknetBuffers: darknetBuffers, input: input, options: options)
        try passes.run(progress: progress)
        let conditioningSeconds = try passes.checkConditioning(input: input.values, productThreading: options.productThreading)
        var verdicts = passes.judges.map(\.result)
        guard verdicts.allSatisfy({ $0.layers.count == layerCount }) else {
            throw FoldKitError(
                .badInput, "a pass did not produce every layer", expected: "\(layerCount)",
                found: "\(verdicts.map(\.layers.count).min() ?? 0)")
        }
        if let engineOutputs, let folder = options.engineOutputs {
            verdicts = verdicts.map { verdict in
                var judged = PrecisionVerdict(precision: verdict.precision, layers: verdict.layers.filter { engineOutputs[$0.index] != nil })
                judged.candidate = "outputs an engine computed, read from \(folder)"
                return judged
            }
        }
        let hazards = passes.hazards?.sorted { ($0.layer, $0.kind.rawValue) < ($1.layer, $1.kind.rawValue) }
        let isDetector = original.layers.contains { if case .detection = $0.kind { return true } else { return false } }
        var candidateBoxes = DecodedBoxes(boxes: [])
        var boxSeconds = 0.0
        if isDetector {
            let start = DispatchTime.now()
            candidateBoxes = DetectionDecoder.decodeHeads(
                network: folded, outputs: passes.candidateHeads, threshold: options.detectionThreshold, networkName: "candidate")
            boxSeconds += PhaseClock.seconds(since: start)
        }
        clock.lap("")
        clock.record("reference pass (float64)", seconds: passes.seconds.reference)
        clock.record("control passes (original network)", seconds: passes.seconds.control)
        clock.record("folded passes", seconds: passes.seconds.candidate)
        clock.record("layer comparison", seconds: passes.seconds.comparison)
        if conditioningSeconds > 0 {
            clock.record("conditioning check (\(ConditioningCheck.perturbedRuns) perturbed passes)", seconds: conditioningSeconds)
        }
        var detections: DetectionComparison?
        if isDetector {
            detections = compareBoxes(
                original: original, passes: passes, candidateBoxes: candidateBoxes, verdicts: verdicts, darknetBuffers: darknetBuffers,
                options: options)
            clock.lap("box decoding and comparison", adding: boxSeconds)
        }
        let filesRead = try digests.result()
        try snapshot.checkUnchanged()
        return VerificationReport(
            original: original, input: input, options: options, verdicts: verdicts, detections: detections,
            blobProblems: blobProblems, float16Hazards: hazards, timings: clock.laps, filesRead: filesRead + (input.file.map { [$0] } ?? []))
    }

    /// The SHA-256 of every model file, computed on a thread of its own while the passes run (between the
    /// snapshot and its check, so the digests are of the version the passes read); a digest the caller
    /// already has (`known`, by path) is not computed again.
    private static func modelDigests(of original: Network, known: [String: String]) -> BackgroundWork<[FileDigest]> {
        let modelFiles = original.sourceFiles.filter { FileManager.default.fileExists(atPath: $0) }
        return BackgroundWork { () throws -> [FileDigest] in
            try modelFiles.map { path in
                guard let sha256 = known[path] else { return try FileDigest.of(path, role: .model) }
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
                return FileDigest(role: .model, path: path, bytes: size ?? 0, sha256: sha256)
            }
        }
    }

    /// The reference's boxes against the candidate's, with the minimum IoU grounded in the control's.
    ///
    /// A box found by one network only is judged against what the verdict allows the head's input in the
    /// precision the candidate's boxes come from (the last one run). The boxes move by what the precision
    /// alone costs: the control's boxes (the original network in the same precision) measure it, and the
    /// folded boxes may lose at most `ToleranceBudget.boxFactor` times the control's IoU shortfall (never
    /// demanding more than `minimumBoxIoU`). In float32 the control's boxes usually agree to ~1e-5 and the
    /// fixed minimum stands; heads whose exp(tw) meets large logits move them further.
    private static func compareBoxes(
        original: Network, passes: LockstepPasses, candidateBoxes: DecodedBoxes, verdicts: [PrecisionVerdict], darknetBuffers: Set<Int>,
        options: Options
    ) -> DetectionComparison {
        let referenceBoxes = DetectionDecoder.decodeHeads(
            network: original, outputs: passes.referenceHeads, threshold: options.detectionThreshold, networkName: "reference")
        var settings = BoxComparison.Settings(
            threshold: options.detectionThreshold, nmsIoU: options.nmsIoU, minimumIoU: options.minimumBoxIoU,
            frame: options.imageFrame ?? ImageFrame(networkInput: original.inputShape), classNames: options.classNames)
        settings.classDecisionHeads = DetectionDecoder.classDecisionHeads(of: original)
        let allowances = Dictionary((verdicts.last?.layers ?? []).map { ($0.index, $0.allowed) }, uniquingKeysWith: { a, _ in a })
        settings.reach = BoxDecisionReach.perHead(of: original, allowances: allowances, darknetBuffers: darknetBuffers)
        let controlBoxes = DetectionDecoder.decodeHeads(
            network: original, outputs: passes.controlHeads, threshold: options.detectionThreshold, networkName: "control")
        let control = BoxComparison.compare(reference: referenceBoxes, candidate: controlBoxes, settings: settings)
        // No pair in the control: nothing measured what the precision moves, the fixed minimum stands.
        settings.minimumIoU = ToleranceBudget.minimumBoxIoU(
            fixed: options.minimumBoxIoU, controlSmallestIoU: control.smallestIoU ?? 1, precision: passes.precisions.last ?? .float32)
        var detections = BoxComparison.compare(reference: referenceBoxes, candidate: candidateBoxes, settings: settings)
        detections.controlSmallestIoU = control.smallestIoU
        return detections
    }
}
