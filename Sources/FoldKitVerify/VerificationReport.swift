import FoldKitCore
import FoldKitDetection
import FoldKitIO
import Foundation

/// The result of `foldkit verify`, printed as text and written as JSON with `--json` (schema: Docs/Verify.md).
public struct VerificationReport: Codable, Equatable, Sendable {
    /// The tolerance applied.
    public struct Tolerance: Codable, Equatable, Sendable {
        /// atol, in output units.
        public var absolute: Double
        /// rtol as a fraction of each layer's max |reference|; null when the control-based rule applies.
        public var relative: Double?
        /// The rule in words.
        public var rule: String
    }

    /// A layer named in the report.
    public struct LayerRef: Codable, Equatable, Sendable {
        /// The layer's index.
        public var index: Int
        /// The layer's name.
        public var name: String
        /// The layer's type name.
        public var type: String
        /// The precision the layer failed in (top-level `firstLayerOverTolerance` only).
        public var precision: VerificationPrecision?
    }

    /// The report schema's version (`schemaVersion` in JSON): raised when a field changes meaning or
    /// disappears. 3: `smallestIoU` null without a compared pair, every top-level key always present.
    public static let currentSchemaVersion = 3

    /// "foldkit verify".
    public var tool: String
    /// The report schema's version (`currentSchemaVersion`).
    public var schemaVersion: Int
    /// The FoldKit version that wrote the report (`foldkit --version`).
    public var toolVersion: String
    /// The schema version under its version-2 name, kept for readers of version 2 (equal to `schemaVersion`).
    public var version: Int
    /// "darknet" or "keras".
    public var format: String
    /// The model files.
    public var files: [String]
    /// Every file the run read, with its size and SHA-256: the model files, then the --input array (with
    /// its conversion to float32, if any), the --image, the class names, the blob folder's manifest.json.
    public var filesRead: [FileDigest]
    /// With --blobs: the folder whose blob files the folded network (the candidate) was read from.
    public var blobFolder: String?
    /// The batch-norm epsilon.
    public var bnEpsilon: Double
    /// "inside" or "outside".
    public var bnEpsilonMode: String
    /// How the input was made ("seed 0", a .npy or image path).
    public var input: String
    /// What the reference is: "original network (batch norm unfolded), float64 arithmetic".
    public var reference: String
    /// What is checked: "folded network, float32" or with float16 storage.
    public var candidate: String
    /// The tolerance applied.
    public var tolerance: Tolerance
    /// The per-layer verdict in each precision checked: float32, and with --fp16 float16 storage after it
    /// (the fold is judged in float32 in both modes).
    public var precisions: [PrecisionVerdict]
    /// The first layer over tolerance: in float32 if any fails there, else in float16 storage.
    public var firstLayerOverTolerance: LayerRef?
    /// With --fp16, when float16 storage fails: the float16 range hazards at or before its first failing
    /// layer, named as the cause, values past 65504 before subnormal weights (empty when there is none:
    /// the deviation is not a range problem).
    public var float16FailureCause: [Float16Hazard]?
    /// Boxes of the original and folded networks, for detectors.
    public var detections: DetectionComparison?
    /// Detection heads whose mask selects anchors the head does not have (a [yolo] mask value at or past
    /// num): one sentence each; no boxes are decoded for those anchors. nil when there is none.
    public var undecodedAnchors: [String]?
    /// Blob files that are missing, truncated or changed (verify --blobs).
    public var blobProblems: [BlobReader.Problem]?
    /// Float16 range problems (with --fp16).
    public var float16Hazards: [Float16Hazard]?
    /// Wall-clock seconds of each phase of the check.
    public var timings: [Timing]
    /// The conclusion: pass or fail.
    public var verdict: Verdict

    /// The report of one run of `Verifier.verify`.
    public init(
        original: Network, input: ModelInput, options: Verifier.Options, verdicts: [PrecisionVerdict], detections: DetectionComparison?,
        blobProblems: [BlobReader.Problem], float16Hazards: [Float16Hazard]?, timings: [Timing], filesRead: [FileDigest] = []
    ) {
        tool = "foldkit verify"
        schemaVersion = Self.currentSchemaVersion
        toolVersion = FoldKitVersion.string
        version = schemaVersion
        format = original.format.rawValue
        files = original.sourceFiles
        self.filesRead = filesRead
        blobFolder = options.blobFolder
        bnEpsilon = original.epsilonConvention.epsilon
        bnEpsilonMode = original.epsilonConvention.placement.rawValue
        self.input = input.origin
        reference = "original network (batch norm unfolded), float64 arithmetic"
        let folded = options.blobFolder.map { "folded network read from the blob files in \($0)" } ?? "folded network"
        if let engine = options.engineOutputs {
            candidate =
                "outputs an engine computed from the input, read from \(engine), judged against the original network in "
                + (options.float16 ? "float16 storage (an engine computing in half)" : "float32")
        } else {
            candidate =
                options.float16
                ? "\(folded), float32 arithmetic with float16 weights and float16 storage between layers" : "\(folded), float32"
        }
        let safety = ToleranceBudget.safety
        tolerance = Tolerance(
            absolute: options.absoluteTolerance, relative: options.relativeTolerance,
            rule: options.relativeTolerance == nil
                ? "max|candidate - reference| <= atol + max(floor, K x max|control - reference|, carried), per layer and precision, "
                    + "K = \(ToleranceBudget.controlFactor(.float32)) in float32, \(ToleranceBudget.controlFactor(.float16Storage)) with float16 storage; "
                    + "control = the original network in the candidate's precision; floor = \(safety) x u x sqrt(accumulation length) x max|reference| "
                    + "(float16 storage: \(safety) x 2^-11 x max|reference|); carried = the inputs' allowances, through layers with |f'| <= 1"
                : "max|candidate - reference| <= atol + rtol * max|reference|, per layer and precision")
        precisions = verdicts
        let failing = verdicts.first { !$0.pass }
        firstLayerOverTolerance = failing.flatMap { verdict in
            verdict.firstLayerOverTolerance.map { LayerRef(index: $0.index, name: $0.name, type: $0.type, precision: verdict.precision) }
        }
        if let half = verdicts.first(where: { $0.precision == .float16Storage }), let first = half.firstLayerOverTolerance {
            // Values past 65504 first (they turn into infinities), then subnormal weights (precision lost).
            let upstream = (float16Hazards ?? []).filter { $0.layer <= first.index }
            float16FailureCause = upstream.filter { $0.kind != .weightSubnormal } + upstream.filter { $0.kind == .weightSubnormal }
        }
        self.detections = detections
        let undecoded = original.layers.enumerated().compactMap { index, layer -> String? in
            guard case .detection(let head) = layer.kind, !head.undecodedMask.isEmpty else { return nil }
            return
                "layer \(index) '\(layer.name)' (\(head.kind.rawValue)): mask values \(head.undecodedMask.map(String.init).joined(separator: ", ")) "
                + "are past num=\(head.anchors.count / 2) anchors (darknet loads this and reads past its anchor array: undefined); "
                + "no boxes are decoded for them, the layer's values are still compared"
        }
        undecodedAnchors = undecoded.isEmpty ? nil : undecoded
        self.blobProblems = blobProblems.isEmpty ? nil : blobProblems
        self.float16Hazards = float16Hazards
        self.timings = timings
        verdict = failing == nil && (detections?.acceptable ?? true) && blobProblems.isEmpty ? .pass : .fail
    }

    private enum CodingKeys: String, CodingKey {
        case tool, schemaVersion, toolVersion, version, format, files, filesRead, blobFolder, bnEpsilon, bnEpsilonMode, input, reference, candidate,
            tolerance, precisions, firstLayerOverTolerance, float16FailureCause, detections, undecodedAnchors, blobProblems, float16Hazards, timings,
            verdict
    }

    /// Writes every field; a field that does not apply to the run (no detections, no --blobs, no --fp16,
    /// nothing over tolerance) is written as null rather than left out, so every report has the same
    /// top-level keys (Docs/Verify.md "JSON").
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tool, forKey: .tool)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(toolVersion, forKey: .toolVersion)
        try container.encode(version, forKey: .version)
        try container.encode(format, forKey: .format)
        try container.encode(files, forKey: .files)
        try container.encode(filesRead, forKey: .filesRead)
        try container.encode(blobFolder, forKey: .blobFolder)
        try container.encode(bnEpsilon, forKey: .bnEpsilon)
        try container.encode(bnEpsilonMode, forKey: .bnEpsilonMode)
        try container.encode(input, forKey: .input)
        try container.encode(reference, forKey: .reference)
        try container.encode(candidate, forKey: .candidate)
        try container.encode(tolerance, forKey: .tolerance)
        try container.encode(precisions, forKey: .precisions)
        try container.encode(firstLayerOverTolerance, forKey: .firstLayerOverTolerance)
        try container.encode(float16FailureCause, forKey: .float16FailureCause)
        try container.encode(detections, forKey: .detections)
        try container.encode(undecodedAnchors, forKey: .undecodedAnchors)
        try container.encode(blobProblems, forKey: .blobProblems)
        try container.encode(float16Hazards, forKey: .float16Hazards)
        try container.encode(timings, forKey: .timings)
        try container.encode(verdict, forKey: .verdict)
    }

    /// One phase's wall-clock time.
    public struct Timing: Codable, Equatable, Sendable {
        /// The phase ("fold", "reference pass (float64)", ...).
        public var phase: String
        /// Its wall-clock seconds.
        public var seconds: Double
    }

    /// `verdict` is `.pass`.
    public var passed: Bool { verdict == .pass }

    /// How many boxes the text report lists (strongest first).
    public static let printedBoxes = 30

}
