import ArgumentParser
import FoldKit
import Foundation

/// `foldkit fixtures`: a seeded input and every layer's output as .npy, with checksums.
struct FixturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixtures",
        abstract: "Write the input and every layer's output as .npy files plus manifest.json, for other engines' tests.")

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments

    @Option(help: "Output folder.")
    var out: String

    @Option(help: "Tensor layout: nchw (default), nhwc, sliced (MPSImage 4-channel slices).")
    var layout: FixtureLayout = .nchw

    func run() throws {
        let network = try model.load()
        let manifest = try FixtureWriter.write(network: network, input: try input.make(for: network), layout: layout, to: URL(fileURLWithPath: out))
        print("wrote \(manifest.tensors.count) tensors (input + \(manifest.tensors.count - 1) layer outputs, \(layout.rawValue)) and manifest.json to \(out)")
        print("outputs: \(manifest.computedBy); batch norm epsilon \(manifest.bnEpsilon) \(manifest.bnEpsilonMode) sqrt")
    }
}
