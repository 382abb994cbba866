import Dispatch
import FoldKitCore
import FoldKitDetection
import FoldKitIO
import FoldKitRuntime

/// The passes of one verification, advancing in lockstep: the float64 reference (the original network), and
/// per precision the control (the original network in that precision) and the candidate (the folded network
/// in that precision, or the outputs an engine computed). Each layer is judged (`PrecisionJudge`) the moment
/// every pass has computed it, so each pass keeps only the outputs later layers still read.
///
/// What the box comparison needs after the passes (the heads' outputs of each pass), the float16 hazards met
/// on the way and the seconds spent in each pass are kept here.
struct LockstepPasses {
    /// Seconds spent in each part of the passes.
    struct Seconds {
        var reference = 0.0, control = 0.0, candidate = 0.0, comparison = 0.0
    }

    /// The precisions judged, in order (the boxes compared are the last one's).
    let precisions: [VerificationPrecision]
    /// One judge per precision.
    private(set) var judges: [PrecisionJudge]
    /// The float16 hazards found (with `Options.float16`), weights' first, then activations' as met.
    private(set) var hazards: [Float16Hazard]?
    /// Each detection head's output (by layer index, empty elsewhere) in the reference, the candidate (the
    /// raw equivalent of an engine's darknet buffer) and the control.
    private(set) var referenceHeads: [[Float]], candidateHeads: [[Float]], controlHeads: [[Float]]
    private(set) var seconds = Seconds()

    private let original: Network
    private let engineOutputs: [Int: [Float]]?
    private let darknetBuffers: Set<Int>
    private let float16: Bool
    private let reference: ExecutorPass<Double>
    private let controls: [ExecutorPass<Float>]
    private let candidates: [ExecutorPass<Float>]

    /// Starts every pass on `input`. Engine outputs (`engineOutputs`, by layer index) stand in for the
    /// candidate passes, which are then not run.
    init(
        original: Network, folded: Network, float16Candidate: Network?, engineOutputs: [Int: [Float]]?, darknetBuffers: Set<Int>,
        input: ModelInput, options: Verifier.Options
    ) throws {
        if engineOutputs != nil {
            precisions = options.float16 ? [.float16Storage] : [.float32]
        } else {
            precisions = options.float16 || float16Candidate != nil ? [.float32, .float16Storage] : [.float32]
        }
        self.original = original
        self.engineOutputs = engineOutputs
        self.darknetBuffers = darknetBuffers
        float16 = options.float16
        hazards = options.float16 ? try Float16Hazard.scan(folded: folded) : nil
        let threading = options.productThreading
        reference = try Executor<Double>(network: original, options: ExecutorOptions(streamParameters: true, productThreading: threading))
            .start(input: input.values.map(Double.init), retention: .outputsOnly)
        var controls: [ExecutorPass<Float>] = [], candidates: [ExecutorPass<Float>] = []
        for precision in precisions {
            controls.append(
                try Executor<Float>(network: original, options: precision.executorOptions(productThreading: threading)).start(
                    input: input.values, retention: .outputsOnly))
            if engineOutputs != nil { continue }
            let candidate = precision == .float16Storage ? (float16Candidate ?? folded) : folded
            candidates.append(
                try Executor<Float>(network: candidate, options: precision.executorOptions(productThreading: threading)).start(
                    input: input.values, retention: .outputsOnly))
        }
        (self.controls, self.candidates) = (controls, candidates)
        judges = precisions.map {
            PrecisionJudge(
                precision: $0, network: original, input: input.values, absoluteTolerance: options.absoluteTolerance,
                relativeTolerance: options.relativeTolerance)
        }
        let layerCount = original.layers.count
        referenceHeads = [[Float]](repeating: [], count: layerCount)
        candidateHeads = referenceHeads
        controlHeads = referenceHeads
    }

    /// The phase name progress reports: "passes (reference float64, control and folded float32 ...)".
    var phase: String { "passes (reference float64, control and folded \(precisions.map(\.rawValue).joined(separator: " and ")))" }

    /// Runs every pass to the end (or until one stops early), judging each layer.
    mutating func run(progress: Verifier.Progress?) throws {
        let layerCount = original.layers.count
        for index in 0..<layerCount {
            var start = DispatchTime.now()
            guard let (_, referenceOutput) = try reference.next() else { break }
            seconds.reference += PhaseClock.seconds(since: start)
            for p in precisions.indices {
                start = DispatchTime.now()
                guard let (_, control) = try controls[p].next() else { break }
                seconds.control += PhaseClock.seconds(since: start)
                guard try judge(index: index, precision: p, referenceOutput: referenceOutput, control: control) else { break }
            }
            if case .detection = original.layers[index].kind { referenceHeads[index] = referenceOutput.map(Float.init) }
            progress?(phase, index + 1, layerCount)
        }
    }

    /// Judges layer `index` in precision `p` once its candidate is known; false when the candidate pass
    /// stopped early.
    private mutating func judge(index: Int, precision p: Int, referenceOutput: [Double], control: [Float]) throws -> Bool {
        var start = DispatchTime.now()
        let layer = original.layers[index]
        let candidate: [Float]
        var (judgedReference, judgedControl) = (referenceOutput, control)
        if let engineOutputs {
            candidate = engineOutputs[index] ?? control
            if darknetBuffers.contains(index) {
                judgedReference = Self.darknetBuffer(layer, referenceOutput.map(Float.init)).map(Double.init)
                judgedControl = Self.darknetBuffer(layer, control)
            }
        } else {
            guard let (_, computed) = try candidates[p].next() else { return false }
            candidate = computed
        }
        seconds.candidate += PhaseClock.seconds(since: start)
        start = DispatchTime.now()
        _ = judges[p].judge(index: index, reference: judgedReference, control: judgedControl, candidate: candidate)
        if precisions[p] == .float32, float16, let hazard = Float16Hazard.activationHazard(layer: layer, output: candidate) {
            hazards?.append(hazard)
        }
        // Engine outputs with --fp16 run no float32 candidate: the activations' range is the reference's (the
        // network's own values on this input), so a float16 failure names values past 65504 as its cause, as
        // `verify --fp16` does, rather than the first weight hazard.
        if engineOutputs != nil, float16, let hazard = Float16Hazard.activationHazard(layer: layer, output: referenceOutput.map(Float.init)) {
            hazards?.append(hazard)
        }
        if case .detection = layer.kind {
            // The boxes compared are the last precision's: float16 storage with --fp16.
            candidateHeads[index] = darknetBuffers.contains(index) ? DarknetLayerOutput.rawEquivalent(layer, buffer: candidate) : candidate
            controlHeads[index] = control
        }
        seconds.comparison += PhaseClock.seconds(since: start)
        return true
    }

    /// Checks, for each precision with failing layers, whether the elements over the allowance are ones the
    /// precision itself cannot resolve (`ConditioningCheck`); returns the seconds spent.
    mutating func checkConditioning(input: [Float], productThreading: ProductThreading) throws -> Double {
        var spent = 0.0
        for p in judges.indices where judges[p].hasConditioningWork {
            let start = DispatchTime.now()
            try judges[p].checkConditioning(input: input, productThreading: productThreading)
            spent += PhaseClock.seconds(since: start)
        }
        return spent
    }

    /// darknet's buffer for `layer` from FoldKit's channel-major output `values`, channel-major.
    private static func darknetBuffer(_ layer: Layer, _ values: [Float]) -> [Float] {
        guard let buffer = DarknetLayerOutput.transform(layer, values: values) else { return values }
        return DarknetLayerOutput.channelMajor(buffer.values, order: buffer.order, shape: layer.outputShape)
    }
}
