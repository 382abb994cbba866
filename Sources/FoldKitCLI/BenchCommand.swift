import ArgumentParser
import FoldKit
import Foundation

/// `foldkit bench`: in-process timings of the work the issue's performance targets name. Whole-process
/// comparisons against cp, numpy, OpenCV and h5py are made by Docs/bench/run.sh, which calls this too.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time detection decoding, SHA-256, and (given a model) convert, forward passes and reading, in this process.",
        discussion: HelpExamples.bench)

    @Option(help: "Darknet .cfg to time convert and forward passes on (with --weights).")
    var cfg: String?

    @Option(help: "Darknet .weights for --cfg.")
    var weights: String?

    @Option(
        help: "Keras .h5 / .keras file to time reading on (as the commands read it: in the HDF5 helper process unless FOLDKIT_HDF5_IN_PROCESS=1).")
    var keras: String?

    @Option(help: "Network input size for the forward passes (square).")
    var inputSize: Int = 416

    @Option(help: "Timed runs per figure.")
    var runs: Int = 5

    @Option(help: "Classes of the synthetic YOLO heads for the decode timing.")
    var classes: Int = 417

    @Option(help: "Input sizes of the synthetic YOLO heads (heads at /32, /16, /8), comma-separated.")
    var decodeInputSizes: String = "288,320"

    @Flag(help: "Skip the forward passes (they take a few seconds each on big models).")
    var noForward = false

    @Flag(help: "Time only the forward passes (no decode, SHA-256, convert or Keras read).")
    var forwardOnly = false

    @Flag(help: "Also print each layer's minimum time in both forward passes (the counterpart of OpenCV's getPerfProfile).")
    var profile = false

    @Option(help: "Also write the figures as JSON to this file.")
    var json: String?

    func validate() throws {
        try OptionRange.check("--input-size", inputSize, atLeast: 1)
        try OptionRange.check("--runs", runs, atLeast: 1)
        try OptionRange.check("--classes", classes, atLeast: 1)
        for size in decodeInputSizes.split(separator: ",", omittingEmptySubsequences: false) {
            let text = size.trimmingCharacters(in: .whitespaces)
            guard let value = Int(text) else {
                throw ValidationError("--decode-input-sizes '\(text)' is not an integer: expected comma-separated multiples of 32")
            }
            try OptionRange.check("--decode-input-sizes", value, atLeast: 32, multipleOf: 32)
        }
    }

    func run() throws {
        // Repeated passes, as in an application that runs the network frame after frame: keep freed layer
        // outputs' pages instead of faulting fresh ones in on every pass, and run OpenBLAS on one thread with
        // FoldKit spreading products over the cores (as verify does; Docs/Library.md shows a library user the
        // same call).
        let tuning = ProcessTuning(keepsFreedMemory: true, singleThreadedBLAS: true).apply()
        let executorOptions = ExecutorOptions(productThreading: tuning.productThreading)
        var results: [String: Timing] = [:]
        func report(_ name: String, _ timing: Timing, _ note: String = "") {
            results[name] = timing
            print(
                String(
                    format: "%-28@ min %9.3f ms   median %9.3f ms   (%d runs)%@", name as NSString,
                    timing.minimum * 1000, timing.median * 1000, timing.runs, note.isEmpty ? "" : "   \(note)" as NSString))
        }

        for size in forwardOnly ? [] : decodeInputSizes.split(separator: ",").compactMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            let heads = SyntheticDetectionHeads.yoloV3(classes: classes, inputSize: size)
            var found: [Detection] = []
            let decode = Timing.measure(runs: max(runs, 50), warmup: 3) { found = heads.detect(threshold: 0.25, iouThreshold: 0.45) }
            report(
                "decode+nms \(size)x\(size)", decode,
                "\(heads.boxCount) boxes x \(5 + classes) values, \(heads.objects.count) objects planted, \(found.count) found")
        }

        if !forwardOnly {
            let sha = ShaThroughput.measure()
            print(String(format: "%-28@ %.2f GB/s on one core", "sha256" as NSString, sha / 1e9))
        }

        if let cfg, let weights {
            let network = try ModelLoader.load(paths: [cfg, weights], options: ModelOptions(inputHeight: inputSize, inputWidth: inputSize))
            if !forwardOnly {
                let out = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-bench-\(ProcessInfo.processInfo.processIdentifier)")
                defer { try? FileManager.default.removeItem(at: out) }
                let convert = try Timing.measure(runs: runs) { _ = try BlobWriter.write(network: network, to: out) }
                report("convert (in process)", convert)
                // The runs above leave over a GB of dirty pages; flush them now, or the kernel's writeback
                // competes with the forward passes timed next.
                sync()
            }
            if !noForward {
                let input = ModelInput.seeded(1, shape: network.inputShape).values
                let folded = try FoldBatchNorm.apply(to: network)
                let float32 = try Executor<Float>(network: folded, options: executorOptions)
                report(
                    "forward float32 (folded)", try Timing.measure(runs: runs) { _ = try float32.run(input: input, retention: .outputsOnly) },
                    "\(inputSize)x\(inputSize)")
                let double = input.map(Double.init)
                let float64 = try Executor<Double>(network: network, options: executorOptions)
                report(
                    "forward float64 (original)", try Timing.measure(runs: runs) { _ = try float64.run(input: double, retention: .outputsOnly) },
                    "\(inputSize)x\(inputSize)")
                if profile {
                    let single = try LayerProfile.measure(float32, input: input, runs: runs)
                    let reference = try LayerProfile.measure(float64, input: double, runs: runs)
                    printProfile(network: network, float32: single, float64: reference)
                }
            }
        }
        if let keras, !forwardOnly {
            // As the commands read it: in the helper process, or in process with FOLDKIT_HDF5_IN_PROCESS=1.
            let helper = IsolatedModelRead.helper
            report("keras read", try Timing.measure(runs: runs) { _ = try ModelLoader.load(paths: [keras], hdf5Helper: helper) })
        }
        if let json {
            let files = try [cfg, weights, keras].compactMap { $0 }.map { try FileDigest.of($0, role: .model) }
            try JSONOutput.write(BenchDocument(figures: results, filesRead: files), to: URL(fileURLWithPath: json))
        }
    }

    /// One line per layer: `profile <index> <section> <CxHxW> <float32 ms> <float64 ms> cpu <float32 ms> <float64 ms>`
    /// (wall-time minima, then CPU-time minima of all threads), then the totals.
    private func printProfile(network: Network, float32: LayerProfile, float64: LayerProfile) {
        for layer in network.layers {
            let shape = layer.outputShape, i = layer.index
            print(
                String(
                    format: "profile %4d %-16@ %dx%dx%d %9.3f %9.3f cpu %9.3f %9.3f", i, layer.source.section as NSString,
                    shape.channels, shape.height, shape.width, float32.seconds[i] * 1000, float64.seconds[i] * 1000,
                    float32.cpuSeconds[i] * 1000, float64.cpuSeconds[i] * 1000))
        }
        print(
            String(
                format: "profile sum of layer minima %9.3f %9.3f ms (cpu %9.3f %9.3f ms); whole pass minimum %9.3f %9.3f ms",
                float32.seconds.reduce(0, +) * 1000, float64.seconds.reduce(0, +) * 1000,
                float32.cpuSeconds.reduce(0, +) * 1000, float64.cpuSeconds.reduce(0, +) * 1000,
                float32.passSeconds * 1000, float64.passSeconds * 1000))
    }
}
