import ArgumentParser
import FoldKit
import FoldKitBlobFormat
import Foundation

/// `foldkit convert`: fold batch norm and write float32 blobs plus manifest.json.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Fold batch norm and write one little-endian float32 blob per tensor plus manifest.json.",
        discussion: HelpExamples.convert)

    @OptionGroup var model: ModelArguments
    @OptionGroup var health: WeightHealthArguments

    @Option(help: "Output folder (written to a temporary sibling, renamed into place when complete).")
    var out: String

    @Option(
        help:
            "Convolution weight layout: ohwi (Metal, default), oihw (Darknet/PyTorch/ONNX), hwio (Keras/TensorFlow), sliced (4-channel texel slices)."
    )
    var layout: WeightLayout = .ohwi

    @Option(
        help:
            "Element type of the blobs: float32 (default) or float16 (IEEE half, rounded to nearest even; a value past 65504 is an error naming the layer)."
    )
    var dtype: BlobDType = .float32

    @Option(
        help:
            "Class names for the manifest, one a line (default: the .names file beside a Darknet cfg with the cfg's name, else the only .names file there)."
    )
    var names: String?

    @OptionGroup var durability: DurabilityArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        try preflight.check()
        let start = Date()
        // Convert makes no BLAS call: OpenBLAS's workers, spinning after load, would cost a core.
        ProcessTuning(singleThreadedBLAS: true).apply()
        let network = try model.load()
        let classNames = try ClassNames.load(path: names, for: network)
        // Batch-norm statistics, biases and the other small tensors are scanned first. Convolution and
        // connected weights are not read twice: a NaN or infinity in them makes the folded blob non-finite,
        // which the writer finds while hashing; only then is the source scanned to name the element.
        // With --allow-nonfinite every finding is listed first and the blobs written as they are.
        try health.refuseUnhealthy(network, skipping: health.allowNonfinite ? [] : [.weights])
        let refuse: ([BlobEntry]) throws -> Void = { tensors in
            try health.refuseUnhealthy(network)
            let names = tensors.map { "\($0.file) (layer \($0.layer))" }.joined(separator: ", ")
            throw FoldKitError(
                .badInput, "folded weights or biases are not finite: the fold overflowed float32",
                file: network.sourceFiles.last, layer: tensors.first.map { "\($0.layer)" },
                expected: "finite folded values", found: "NaN or infinity in \(names)")
        }
        let manifest = try BlobWriter.write(
            network: network, to: URL(fileURLWithPath: out),
            options: .init(
                layout: layout, durable: durability.durable, onNonFiniteBlobs: health.allowNonfinite ? nil : refuse, dtype: dtype,
                classNames: classNames),
            progress: output.console.progressLine("converting"))
        let bytes = manifest.tensors.reduce(0) { $0 + $1.byteCount }
        let folded = manifest.layers.filter { $0.foldedBatchNorm == true }.count
        let console = output.console
        console.say(
            "wrote \(manifest.tensors.count) blobs (\(String(format: "%.2f", Double(bytes) / 1_000_000)) MB, \(layout.rawValue), \(dtype.rawValue)) and manifest.json to \(out)"
        )
        let kept = manifest.tensors.filter { $0.role == .scale }.map { "\($0.layer)" }
        if !kept.isEmpty {
            console.say("batch norm kept as per-channel scale and shift (nothing to fold it into) at layers \(kept.joined(separator: ", "))")
        }
        console.say(
            "batch norm folded into \(folded) layers with epsilon \(network.epsilonConvention.epsilon) \(network.epsilonConvention.placement == .insideSqrt ? "inside sqrt(var + eps)" : "outside (sqrt(var) + eps)")"
        )
        let heads = manifest.heads ?? []
        if !heads.isEmpty {
            let named = classNames.map { "\($0.count) class names" } ?? "no class names (give --names)"
            console.say("manifest describes the input (\(manifest.input?.resize ?? "no resize rule")) and \(heads.count) detection heads, \(named)")
        }
        let seconds = Date().timeIntervalSince(start)
        console.say(String(format: "took %.2f s", seconds))
        // The model files' digests are the ones the manifest records, computed while converting.
        let filesRead = output.json ? try ModelDigests(network.sourceFiles, known: manifest.source.sha256).result() : []
        try console.document(
            JSONDocument(
                command: "convert", filesRead: filesRead,
                ConvertResult(
                    out: out, blobs: manifest.tensors.count, bytes: bytes, layout: layout.rawValue.lowercased(),
                    foldedBatchNormLayers: manifest.layers.filter { $0.foldedBatchNorm == true }.map(\.index),
                    scaleShiftLayers: manifest.tensors.filter { $0.role == .scale }.map(\.layer),
                    bnEpsilon: network.epsilonConvention.epsilon, bnEpsilonMode: network.epsilonConvention.placement.rawValue,
                    seconds: seconds, manifest: manifest)))
    }
}
