import ArgumentParser
import FoldKit
import Foundation

/// `foldkit verify`: run the original and the folded network side by side and report every layer.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Compare the folded network (float32 or float16) with the original (float64) layer by layer, against what the original itself deviates in that precision, and their boxes.",
        discussion: HelpExamples.verify)

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments
    @OptionGroup var image: ImageArguments

    @Option(help: "Run the folded network from this blob folder (written by convert): sizes and sha256 are checked first.")
    var blobs: String?

    @Option(
        name: .customLong("engine-outputs"),
        help: ArgumentHelp(
            "Judge outputs an engine computed from the input (the seeded input export writes, or --input) instead of the folded network: one <output name>.npy or .pb per output, named as the exported model names them (Docs/Verify.md).",
            valueName: "dir"))
    var engineOutputs: String?

    @Option(help: "Allowed absolute deviation per layer, in output units.")
    var atol: Double = 0

    @Option(
        help:
            "Allowed deviation as a fraction of each layer's largest |reference| value, replacing the default rule (K x the control run's deviation, an analytic floor, and what clamps carry over; see Docs/Verify.md)."
    )
    var rtol: Double?

    @Flag(
        help:
            "Also run the folded and the original network with float16 weights and float16 storage between layers (MPSImage half textures) and judge that precision too; the fold is still judged in float32."
    )
    var fp16 = false

    @Option(help: "Detection score threshold (objectness x class probability).")
    var threshold: Float = 0.3

    @Option(help: "IoU above which NMS drops the weaker box of the same class.")
    var nms: Float = 0.5

    @Option(name: .customLong("min-iou"), help: "Smallest IoU between an original box and its folded counterpart that passes.")
    var minIoU: Float = 0.99

    @Option(
        help:
            "Class names for the boxes, one a line (default: the .names file beside a Darknet cfg with the cfg's name, else the only .names file there)."
    )
    var names: String?

    @Option(help: "Also write the report as JSON to this file, or with - print it on stdout instead of the text report (schema in Docs/Verify.md).")
    var json: String?

    @Option(help: "Also write the report as one self-contained HTML page (charts, float16 hazards, boxes on the --image) to this file.")
    var report: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors (on stderr); the exit code tells the outcome.")
    var quiet = false

    @OptionGroup var memory: MemoryArguments

    func validate() throws {
        try OptionRange.check("--atol", atol, .nonNegative)
        try OptionRange.check("--rtol", rtol, .nonNegative)
        try OptionRange.check("--threshold", threshold, .unitInterval)
        try OptionRange.check("--nms", nms, .unitInterval)
        try OptionRange.check("--min-iou", minIoU, .unitInterval)
    }

    func run() throws {
        try checkPaths()
        if engineOutputs != nil && blobs != nil {
            throw FoldKitError(.usage, "--engine-outputs and --blobs each name what is judged: give one")
        }
        // Each layer's outputs reuse what earlier layers' judged outputs freed, without faulting in fresh
        // pages; OpenBLAS runs on one thread and FoldKit spreads products over the cores, so no BLAS worker
        // spins beside folding, the kernels and the layer comparisons.
        let tuning = ProcessTuning(keepsFreedMemory: true, singleThreadedBLAS: true).apply()
        let console = Console(quiet: quiet, json: json == "-")
        let (original, given) = try input.load(model) { network in
            let needed = MemoryPlan.verifyBytes(network, float16: fp16, productThreading: tuning.productThreading)
            try MemoryPlan.check(needed: needed, limit: memory.limit, command: "verify", network: network)
        }
        console.note(given)
        for line in WeightHealthArguments.report(try WeightHealthCheck.scan(original)) { console.say(line) }
        let blobCandidate = try blobs.map { try BlobCandidate.read(folder: $0, original: original, console: console) }
        let prepared = try image.prepare(for: original)
        let modelInput = prepared?.input ?? given
        let classNames = try ClassNames.loadFile(path: names, for: original)
        let frame = prepared.map {
            ImageFrame(
                imageWidth: $0.picture.width, imageHeight: $0.picture.height, preprocessing: $0.preprocessing,
                networkInput: original.inputShape)
        }
        let progress = PassProgress("verify", enabled: console.showsProgress)
        let options = Verifier.Options(
            absoluteTolerance: atol, relativeTolerance: rtol, float16: fp16, detectionThreshold: threshold, nmsIoU: nms, minimumBoxIoU: minIoU,
            imageFrame: frame, classNames: classNames?.names, productThreading: tuning.productThreading, blobFolder: blobs,
            engineOutputs: engineOutputs, knownDigests: blobCandidate?.sourceDigests ?? [:])
        var report: VerificationReport
        var engineFiles: [FileDigest] = []
        if let engineOutputs {
            let loaded = try EngineOutputs.read(folder: engineOutputs, network: original)
            engineFiles = loaded.files
            report = try Verifier.verifyEngineOutputs(
                original: original, engineOutputs: loaded.values, darknetBuffers: loaded.darknetBuffers, input: modelInput, options: options,
                progress: progress.update)
        } else {
            // Float16 blobs: the fold is judged in float32 (the model folded again) and the blobs run the
            // float16-storage pass.
            let blobsAreFloat16 = blobCandidate?.float16 ?? false
            report = try Verifier.verify(
                original: original,
                makeFolded: { try blobsAreFloat16 ? FoldBatchNorm.apply(to: original) : blobCandidate?.network ?? FoldBatchNorm.apply(to: original) },
                float16Candidate: blobsAreFloat16 ? blobCandidate?.network : nil, input: modelInput, options: options,
                blobProblems: blobCandidate?.problems ?? [], progress: progress.update)
        }
        progress.finish()
        // The model files and the --input array are named by the verifier; the other files read here.
        report.filesRead += [prepared?.digest, classNames?.digest, blobCandidate?.manifestDigest].compactMap { $0 } + engineFiles
        try present(report, prepared: prepared, console: console)
    }

    /// Every path first: a missing image or names file is reported before a large model is read.
    private func checkPaths() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        preflight.add("--input", input.input)
        preflight.add("--image", image.image)
        preflight.add("--names", names)
        preflight.add("--blobs", blobs, .folderWithManifest)
        preflight.add("--engine-outputs", engineOutputs, .folder)
        preflight.add("--draw", image.draw, .output)
        preflight.add("--report", report, .output)
        preflight.add("--json", json == "-" ? nil : json, .output)
        try preflight.check()
    }

    /// Prints the report (text, or JSON on stdout), writes the JSON file and the audit page when asked, and
    /// throws `CheckFailed` (exit 2) when the verdict is a failure.
    private func present(_ report: VerificationReport, prepared: ImageArguments.Prepared?, console: Console) throws {
        var text = report.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let verdictLine = text.popLast() ?? ""
        text.forEach(console.say)
        console.verdict(verdictLine, pass: report.passed)
        if let detections = report.detections, let prepared {
            try DetectionPicture.report(detections.referenceDetections, picture: prepared.picture, drawPath: prepared.drawPath, console: console)
        }
        if let json {
            if json == "-" { try console.document(report) } else { try JSONOutput.write(report, to: URL(fileURLWithPath: json)) }
        }
        if let path = self.report {
            let picture = try prepared.map { try AuditImage(path: image.image ?? "", width: $0.picture.width, height: $0.picture.height) }
            try AuditPage.write(report, image: picture, to: URL(fileURLWithPath: path))
            console.say("wrote the audit page to \(path)")
        }
        if !report.passed { throw CheckFailed() }
    }
}
