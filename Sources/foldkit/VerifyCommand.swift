import ArgumentParser
import FoldKit
import Foundation

/// `foldkit verify`: run the original and the folded network side by side and report every layer.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the original network (float64) with the folded one (float32 or float16), layer by layer.",
        discussion: "Exit codes: 0 every layer within tolerance, 1 error, 2 checked and over tolerance.")

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments

    @Option(help: "Allowed absolute deviation per layer, in output units.")
    var atol: Double = 1e-6

    @Option(help: "Allowed deviation as a fraction of the layer's largest |reference| value.")
    var rtol: Double = 1e-3

    @Flag(help: "Run the folded network with float16 weights and float16 storage between layers (MPSImage half textures).")
    var fp16 = false

    @Option(help: "Also write the report as JSON to this file (schema in Docs/Verify.md).")
    var json: String?

    func run() throws {
        let original = try model.load()
        let folded = try FoldBatchNorm.apply(to: original)
        let report = try Verifier.verify(original: original, folded: folded, input: try input.make(for: original),
                                         options: .init(absoluteTolerance: atol, relativeTolerance: rtol, float16: fp16))
        print(report.text())
        if let json { try JSONOutput.write(report, to: URL(fileURLWithPath: json)) }
        if !report.passed { throw CheckFailed() }
    }
}
