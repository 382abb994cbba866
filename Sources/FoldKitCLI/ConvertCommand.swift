import ArgumentParser
import FoldKit
import Foundation

/// `foldkit convert`: fold batch norm and write float32 blobs plus manifest.json.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Fold batch norm and write one little-endian float32 blob per tensor plus manifest.json.")

    @OptionGroup var model: ModelArguments
    @OptionGroup var health: WeightHealthArguments

    @Option(help: "Output folder (written to a temporary sibling, renamed into place when complete).")
    var out: String

    @Option(help: "Convolution weight layout: ohwi (Metal, default), oihw (Darknet/PyTorch/ONNX), hwio (Keras/TensorFlow).")
    var layout: WeightLayout = .ohwi

    func run() throws {
        let start = Date()
        // Convert makes no BLAS call: OpenBLAS's workers, spinning after load, would cost a core.
        ProcessTuning(stopsIdleBLASWorkers: true).apply()
        let network = try model.load()
        try health.refuseUnhealthy(network)
        let manifest = try BlobWriter.write(network: network, to: URL(fileURLWithPath: out),
                                            options: .init(layout: layout), progress: ProgressLine("converting"))
        let bytes = manifest.tensors.reduce(0) { $0 + $1.byteCount }
        let folded = manifest.layers.filter { $0.foldedBatchNorm == true }.count
        print("wrote \(manifest.tensors.count) blobs (\(String(format: "%.2f", Double(bytes) / 1_000_000)) MB, \(layout.rawValue)) and manifest.json to \(out)")
        let kept = manifest.tensors.filter { $0.role == .scale }.map { "\($0.layer)" }
        if !kept.isEmpty {
            print("batch norm kept as per-channel scale and shift (nothing to fold it into) at layers \(kept.joined(separator: ", "))")
        }
        print("batch norm folded into \(folded) layers with epsilon \(network.epsilonConvention.epsilon) \(network.epsilonConvention.placement == .insideSqrt ? "inside sqrt(var + eps)" : "outside (sqrt(var) + eps)")")
        print(String(format: "took %.2f s", Date().timeIntervalSince(start)))
    }
}
