import ArgumentParser
import FoldKit
import Foundation

/// `foldkit fixtures`: a seeded input and the chosen layers' outputs as .npy (and onnx TensorProto files),
/// with checksums; or `--check` a pack.
struct FixturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixtures",
        abstract: "Write the input and the layers' outputs as .npy files plus manifest.json, for other engines' tests.",
        discussion: HelpExamples.fixtures)

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments
    @OptionGroup var image: ImageArguments
    @OptionGroup var health: WeightHealthArguments

    @Option(help: "Output folder.")
    var out: String?

    @Option(help: "Tensor layout: nchw (default), nhwc, sliced (MPSImage 4-channel slices).")
    var layout: FixtureLayout = .nchw

    @Option(
        help: ArgumentHelp(
            "Layers whose outputs are written: all (default), outputs (the network's output layers: detection heads, the final layer), or a comma-separated list of Darknet section indices or Keras layer names. The input is always written.",
            valueName: "all|outputs|LIST"))
    var layers: String?

    @Flag(help: "Also pack every array into fixtures.npz (deflated; numpy.load reads it).")
    var npz = false

    @Flag(help: "Also write each array as an onnx TensorProto: test_data_set_0/input_0.pb, output_0.pb, ... (onnx_test_runner's layout).")
    var onnx = false

    @Option(help: "Recompute the pack in this folder and report any drift instead of writing.")
    var check: String?

    @Option(help: "With --check: largest deviation relative to a tensor's max |value| that is not drift.")
    var rtol: Double = 1e-6

    @OptionGroup var durability: DurabilityArguments
    @OptionGroup var memory: MemoryArguments
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionRange.check("--rtol", rtol, .nonNegative)
    }

    func run() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        preflight.add("--input", input.input)
        preflight.add("--image", image.image)
        preflight.add("--check", check, .folderWithManifest)
        preflight.add("--draw", image.draw, .output)
        try preflight.check()
        // One forward pass in float64: OpenBLAS on one thread, FoldKit spreading each product over the cores.
        let tuning = ProcessTuning(singleThreadedBLAS: true).apply()
        // Hashed beside the pass, for the document's filesRead.
        let digests = output.json ? ModelDigests(model.files) : nil
        if let check {
            if layers != nil || onnx {
                throw FoldKitError(.usage, "--layers and --onnx apply when writing a pack; --check takes both from the pack's manifest.json")
            }
            let network = try model.load()
            try MemoryPlan.check(
                needed: MemoryPlan.fixturesBytes(network, productThreading: tuning.productThreading), limit: memory.limit, command: "fixtures",
                network: network)
            try health.refuseUnhealthy(network)
            let report = try FixtureChecker.check(
                folder: URL(fileURLWithPath: check), network: network, relativeTolerance: rtol,
                productThreading: tuning.productThreading)
            let console = output.console
            var lines = report.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let verdictLine = lines.popLast() ?? ""
            lines.forEach(console.say)
            console.verdict(verdictLine, pass: report.pass)
            if output.json {
                // The pack's manifest.json holds every .npy's SHA-256, each compared by the check.
                let manifest = try FileDigest.of((check as NSString).appendingPathComponent("manifest.json"), role: .fixtureManifest)
                try console.document(
                    JSONDocument(
                        command: "fixtures", filesRead: try (digests?.result() ?? []) + [manifest], FixturesResult(check: report, pass: report.pass)))
            }
            if !report.pass { throw CheckFailed() }
            return
        }
        guard let out else { throw FoldKitError(.usage, "fixtures needs --out DIR (or --check DIR)") }
        let choice = try FixtureLayerChoice(argument: layers ?? "all")
        let (network, given) = try input.load(model) { network in
            // An unknown layer is refused before the input is read or anything is computed.
            _ = try choice.layerIndices(in: network)
            let needed = MemoryPlan.fixturesBytes(network, productThreading: tuning.productThreading)
            try MemoryPlan.check(needed: needed, limit: memory.limit, command: "fixtures", network: network)
        }
        try health.refuseUnhealthy(network)
        let console = output.console
        console.note(given)
        let prepared = try image.prepare(for: network)
        let modelInput = prepared?.input ?? given
        let progress = PassProgress("fixtures", enabled: console.showsProgress)
        let manifest = try FixtureWriter.write(
            network: network, input: modelInput, layout: layout, layers: choice, npz: npz, onnx: onnx, to: URL(fileURLWithPath: out),
            durable: durability.durable, productThreading: tuning.productThreading,
            progress: progress.update)
        progress.finish()
        let written = manifest.layers?.written.count ?? network.layers.count
        let extras = (npz ? ", fixtures.npz" : "") + (onnx ? ", \(manifest.onnx?.count ?? 0) onnx .pb files" : "")
        console.say(
            "wrote \(manifest.tensors.count) tensors (input + \(manifest.tensors.count - 1) outputs of \(written) of \(network.layers.count) layers, \(choice.name), \(layout.rawValue))\(extras) and manifest.json to \(out)"
        )
        console.say("outputs: \(manifest.computedBy); batch norm epsilon \(manifest.bnEpsilon) \(manifest.bnEpsilonMode)")
        let filesRead = output.json ? try (digests?.result() ?? []) + [given.file, prepared?.digest].compactMap { $0 } : []
        try console.document(
            JSONDocument(
                command: "fixtures", filesRead: filesRead,
                FixturesResult(
                    out: out, layout: layout.rawValue, npz: npz, layers: choice.name, onnx: onnx, manifest: manifest, pass: true)))
    }
}
