import Dispatch
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `Fixtures/engines/engine_check.py` on models `foldkit export --format onnx` writes: onnx's full check, ONNX
/// Runtime against FoldKit's float64 reference, OpenVINO against ONNX Runtime, and `foldkit verify
/// --engine-outputs` on each engine's outputs must all pass (exit 0), and the summary line must name every
/// output of the model (the names `foldkit fixtures --layers outputs` gives them). Likewise ncnn (`--engines
/// ncnn`) on models `foldkit export --format ncnn` writes: ncnn against the reference, and verify on its outputs;
/// and LiteRT (`--engines litert`) on models `foldkit export --format tflite` writes.
///
/// Needs python3 with onnx, onnxruntime, openvino, ncnn and ai-edge-litert (`.ci/install` pins them): without them the tests
/// skip saying so, and fail when `CI` is set, as a missing shared file does.
final class EngineCheckTests: XCTestCase {
    /// Fully convolutional detectors run at 128 x 128 to keep the debug build quick (2 to 4 s a model for the
    /// whole check, 3 to 7 s at their own sizes); the classifiers (connected layers) at their own.
    private let detectorSize = ["--height", "128", "--width", "128"]
    private let fixedSize = ["cifar_small.cfg", "mnist_lenet.cfg"]

    func testEveryRealDarknetModelPassesOnBothEngines() throws {
        try requireEngines()
        let models = try RealModels.darknet()
        XCTAssertGreaterThanOrEqual(models.count, 11, "\(models.map(\.name))")
        try checkEach(models.map { CheckCase(files: $0.files, size: fixedSize.contains($0.name) ? [] : detectorSize, label: $0.name) })
    }

    /// Every real Keras model of ../shared FoldKit reads (Keras 1, 2 and 3 files, `.h5`, `.hdf5`, `.keras`, a
    /// JSON config with its weights) on all four engines in one run each: ONNX Runtime, OpenVINO, ncnn and
    /// LiteRT, each within engine_check's bounds of FoldKit's reference and passing `verify --engine-outputs`.
    func testEveryRealKerasModelPassesOnEveryEngine() throws {
        try requireEngines("onnx, onnxruntime, openvino, ncnn, ai_edge_litert.interpreter")
        let models = try RealModels.keras()
        XCTAssertGreaterThanOrEqual(models.count, 12, "\(models.map(\.name))")
        try checkEach(
            models.map {
                CheckCase(
                    files: $0.files, size: RealModels.kerasSize($0), engines: "onnxruntime,openvino,ncnn,litert", label: "\($0.name) all engines")
            })
    }

    /// Project cfgs with seeded weights: yolo-head (two [yolo] heads, route, upsample), shortcut-upsample
    /// (shortcuts across channel counts, upsample by 3), maxpool-spp (darknet's pool padding, an SPP block),
    /// conv-basic (convolution options on odd sizes: groups, padding, strides, activations), and
    /// engines/engine-ops (lowerings easy to get wrong: [local], [crop], odd pools, [reorg], softmax temperature).
    func testFixtureNetworksWithSeededWeightsPassOnBothEngines() throws {
        try requireEngines()
        try checkEach(try seededFixtureNetworks().map { CheckCase(files: $0.files, label: $0.name) })
    }

    /// float16 (at 128 x 128 like the float32 run): judged by `foldkit verify --fp16` on each engine's outputs
    /// (the script prints the engines' figures without judging them).
    func testFloat16RealModelPassesOnBothEngines() throws {
        try requireEngines()
        let stem = "real-models/yolo-fastest-1.1/yolo-fastest-1.1"
        let files = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        try check(files, size: detectorSize, dtype: "float16", label: "yolo-fastest-1.1 float16")
    }

    /// `export --decode-heads`: every head kind decoded in the graph as darknet leaves its buffer
    /// (`Fixtures/engines/decoded-heads.cfg`: [yolo] with scale_x_y, [Gaussian_yolo], [yolo] new_coords=1,
    /// [region] with a class tree, [detection] softmax=1; seeded weights), and the real [yolo] and [region]
    /// detectors: both engines equal the decoded reference and verify judges the buffers (and the boxes
    /// decoded from them). A channel of a decoded output moved by 1% of its range, or one weight changed
    /// by 1%, fails.
    func testDecodedHeadsPassOnBothEnginesAndAMovedChannelFails() throws {
        try requireEngines()
        let dir = try temporaryDirectory()
        let cfg = TestData.fixture("engines/decoded-heads.cfg").path
        let weights = dir.appendingPathComponent("decoded-heads.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--seed", "2", "--out", weights]).status, 0)
        try check([cfg, weights], extra: ["--decode-heads"], label: "decoded-heads")
        for name in ["yolo-fastest-1.1", "DroNet_car"] {
            let stem = "real-models/\(name)/\(name)"
            let files = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
            try check(files, size: detectorSize, extra: ["--decode-heads"], label: name + " decoded")
        }
        let export = dir.appendingPathComponent("export")
        let exported = try CommandRunner.run(["export", cfg, weights, "--format", "onnx", "--decode-heads", "--out", export.path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        for mutation in ["unchanged", "channel", "weight"] {
            let outputs = dir.appendingPathComponent("engine-\(mutation)")
            let ran = try Self.python([TestData.fixture("engines/mutated_engine_outputs.py").path, export.path, mutation, outputs.path])
            XCTAssertEqual(ran.status, 0, "\(mutation): \(ran.output)")
            let verdict = try CommandRunner.run(["verify", cfg, weights, "--engine-outputs", outputs.path])
            XCTAssertEqual(verdict.status, mutation == "unchanged" ? 0 : 2, "\(mutation):\n\(verdict.stdout)\(verdict.stderr)")
        }
    }

    /// `verify --engine-outputs` fails (exit 2, naming the output) on what ONNX Runtime computes from a broken
    /// copy of the exported model (`Fixtures/engines/mutated_engine_outputs.py`): one weight changed by 1%,
    /// every Resize sampling with align_corners, a Transpose's last two axes swapped, and, with the model
    /// intact, one output channel moved by 1% of the output's range. The unchanged model passes.
    func testVerifyFailsAnEngineRunningABrokenModel() throws {
        try requireEngines()
        try checkMutations(format: "onnx", script: "mutated_engine_outputs.py", ["unchanged", "weight", "resize", "transpose", "channel"])
    }

    /// The real Darknet models of ../shared on ncnn (`foldkit export --format ncnn`), at the sizes the onnx
    /// test runs them.
    func testEveryRealDarknetModelPassesOnNCNN() throws {
        try requireEngines(ncnn)
        let models = try RealModels.darknet()
        XCTAssertGreaterThanOrEqual(models.count, 11, "\(models.map(\.name))")
        try checkEach(
            models.map {
                CheckCase(files: $0.files, size: fixedSize.contains($0.name) ? [] : detectorSize, engines: "ncnn", label: "\($0.name) ncnn")
            })
    }

    /// The project cfgs on ncnn: each operation ncnn has no one layer for (an upsample of stride 3 with a
    /// scale, [reorg], a route with groups, [shortcut]s across sizes and channel counts, [local], [crop],
    /// softmax groups with a temperature, darknet's pool padding) and engine-ops-2's stride-41 upsample (the
    /// depthwise deconvolution), pool padding of 40, [reorg3d] and shortcuts from more channels.
    func testFixtureNetworksWithSeededWeightsPassOnNCNN() throws {
        try requireEngines(ncnn)
        try checkEach(try seededFixtureNetworks().map { CheckCase(files: $0.files, engines: "ncnn", label: "\($0.name) ncnn") })
    }

    /// Every layer of engine-ops and engine-ops-2 on ncnn against FoldKit's own output of that layer
    /// (`Fixtures/engines/ncnn_layers.py` with a `fixtures --layers all` pack): among them the upsample by 3 with a
    /// scale (engine-ops 7) and by 41 (engine-ops-2 1), [reorg] (engine-ops 8), [reorg3d] (engine-ops-2 3), route
    /// groups (engine-ops 6, engine-ops-2 4), shortcuts across sizes and channel counts (engine-ops 5 and 12,
    /// engine-ops-2 5 and 7) and [local] (engine-ops 2), each within 1e-4 of its layer's largest value.
    func testEachLayerOfTheFixtureNetworksMatchesFoldKitOnNCNN() throws {
        try requireEngines(ncnn)
        let wanted = ["engine-ops": [2, 5, 6, 7, 8, 12], "engine-ops-2": [1, 3, 4, 5, 7]]
        try checkEachLayer(format: "ncnn", script: "ncnn_layers.py", wanted: wanted)
    }

    /// The Keras fixtures (`Fixtures/keras/*.keras`) on ncnn, but normalization_axis, which FoldKit refuses on
    /// reading (a Normalization over another axis than the channels).
    func testKerasFixturesPassOnNCNN() throws {
        try requireEngines(ncnn)
        let folder = TestData.fixture("keras")
        let models = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".keras") }.sorted()
        XCTAssertGreaterThanOrEqual(models.count, 30)
        try checkEach(
            models.filter { $0 != "normalization_axis.keras" }.map {
                CheckCase(files: [folder.appendingPathComponent($0).path], engines: "ncnn", label: "\($0) ncnn")
            })
    }

    /// float16 on ncnn: weights with ncnn's half tag, at most 55% of the float32 model's bytes, and ncnn's
    /// outputs (computed in float32 from the widened weights) pass `verify --fp16`.
    func testFloat16RealModelPassesOnNCNNAtMostFiftyFivePercentOfTheBytes() throws {
        try requireEngines(ncnn)
        let stem = "real-models/yolo-fastest-1.1/yolo-fastest-1.1"
        let files = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        try check(files, size: detectorSize, dtype: "float16", engines: "ncnn", label: "yolo-fastest-1.1 float16 ncnn")
        let dir = try temporaryDirectory()
        var bytes: [String: Int] = [:]
        for dtype in ["float32", "float16"] {
            let out = dir.appendingPathComponent(dtype)
            let run = try CommandRunner.run(["export"] + files + ["--format", "ncnn", "--dtype", dtype, "--out", out.path])
            XCTAssertEqual(run.status, 0, run.stderr)
            bytes[dtype] = try ["model.param", "model.bin"].reduce(0) { sum, file in
                let size = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(file).path)[.size] as? Int ?? 0
                return sum + size
            }
            let bin = try Data(contentsOf: out.appendingPathComponent("model.bin"))
            let flag = bin.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            XCTAssertEqual(flag, dtype == "float16" ? 0x0130_6B47 : 0, "\(dtype): the first convolution's storage flag")
        }
        let ratio = Double(bytes["float16"] ?? 0) / Double(bytes["float32"] ?? 1)
        XCTAssertLessThanOrEqual(ratio, 0.55, "\(bytes)")
    }

    /// `verify --engine-outputs` fails (exit 2, naming the output) on what ncnn computes from a broken copy of
    /// the exported model (`Fixtures/engines/mutated_ncnn_outputs.py`): one weight in model.bin changed by 1%,
    /// nearest Interp made bilinear, Reorg's space-to-depth order made ncnn's default order, and, with the model
    /// intact, one output channel moved by 1% of the output's range. The unchanged model passes.
    func testVerifyFailsNCNNRunningABrokenModel() throws {
        try requireEngines(ncnn)
        try checkMutations(format: "ncnn", script: "mutated_ncnn_outputs.py", ["unchanged", "weight", "upsample", "reorg", "channel"])
    }

    /// The project cfgs on LiteRT (each operation with no one builtin: an upsample of stride 3 with a scale,
    /// [reorg], a route with groups, [shortcut]s across sizes and channel counts, [local], [crop], softmax
    /// groups with a temperature, darknet's pool padding; engine-ops-2's stride-41 upsample, which LiteRT's
    /// nearest resize would index wrongly in float32, written as a broadcast), with LiteRT's default kernels
    /// and its builtin kernels alone.
    func testFixtureNetworksWithSeededWeightsPassOnLiteRT() throws {
        try requireEngines(litert)
        try checkEach(try seededFixtureNetworks().map { CheckCase(files: $0.files, engines: "litert", label: "\($0.name) litert") })
    }

    /// Every layer of engine-ops and engine-ops-2 on LiteRT against FoldKit's own output of that layer
    /// (`Fixtures/engines/litert_layers.py` with a `fixtures --layers all` pack, LiteRT's builtin kernels keeping
    /// every tensor): among them the upsample by 3 with a scale (engine-ops 7) and by 41 (engine-ops-2 1), [reorg]
    /// (engine-ops 8), [reorg3d] (engine-ops-2 3), route groups (engine-ops 6, engine-ops-2 4), shortcuts across
    /// sizes and channel counts (engine-ops 5 and 12, engine-ops-2 5 and 7), [local] (engine-ops 2) and softmax
    /// groups (engine-ops 14), each within 1e-4 of its layer's largest value.
    func testEachLayerOfTheFixtureNetworksMatchesFoldKitOnLiteRT() throws {
        try requireEngines(litert)
        let wanted = ["engine-ops": [2, 5, 6, 7, 8, 12, 14], "engine-ops-2": [1, 3, 4, 5, 7]]
        try checkEachLayer(format: "tflite", script: "litert_layers.py", wanted: wanted)
    }

    /// Real models on LiteRT, float32 and float16: yolo-fastest-1.1 (at 128 x 128) and a Keras .h5
    /// (fer2013_mini_XCEPTION: separable convolutions, residual adds, global pooling, softmax); the float16
    /// models (weights behind DEQUANTIZE) pass `verify --fp16` and are at most 55% of the float32 bytes.
    func testRealModelsPassOnLiteRTInFloat32AndFloat16() throws {
        try requireEngines(litert)
        let stem = "real-models/yolo-fastest-1.1/yolo-fastest-1.1"
        let darknet = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        let keras = [try TestData.sharedFile("real-models/keras_fer2013_mini_XCEPTION/fer2013_mini_XCEPTION.102-0.66.hdf5").path]
        for (label, files, size) in [("yolo-fastest-1.1", darknet, detectorSize), ("fer2013_mini_XCEPTION", keras, [])] {
            var bytes: [String: Int] = [:]
            for dtype in ["float32", "float16"] {
                try check(files, size: size, dtype: dtype, engines: "litert", label: "\(label) \(dtype) litert")
                let out = try temporaryDirectory().appendingPathComponent(dtype)
                let run = try CommandRunner.run(["export"] + files + size + ["--format", "tflite", "--dtype", dtype, "--out", out.path])
                XCTAssertEqual(run.status, 0, run.stderr)
                bytes[dtype] = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("model.tflite").path)[.size] as? Int
            }
            let ratio = Double(bytes["float16"] ?? 0) / Double(bytes["float32"] ?? 1)
            XCTAssertLessThanOrEqual(ratio, 0.55, "\(label): \(bytes)")
        }
    }

    /// Keras fixtures (`Fixtures/keras/*.keras`) on LiteRT, those whose layers take lowerings of their own (all
    /// 35 the reader takes pass; these keep the test short): transposed convolutions 'same' and 'valid'
    /// (TRANSPOSE_CONV, SLICE, PAD), ReLU with a threshold (SELECT_V2), bilinear upsampling, layer and group
    /// normalization, merges, Keras 3's composed activations.
    func testKerasFixturesPassOnLiteRT() throws {
        try requireEngines(litert)
        let folder = TestData.fixture("keras")
        let models = [
            "conv_transpose_same", "conv_transpose_valid", "dag", "upsampling_bilinear", "layer_normalization", "group_normalization",
            "merges", "act_keras3",
        ]
        try checkEach(models.map { CheckCase(files: [folder.appendingPathComponent($0 + ".keras").path], engines: "litert", label: "\($0) litert") })
    }

    /// The Keras normalization fixtures on ONNX Runtime and OpenVINO: LayerNormalization and GroupNormalization,
    /// each written out from Reshape, ReduceMean, Sub, Mul, Sqrt and Div rather than as onnx's own operators.
    func testKerasNormalizationFixturesPassOnBothEngines() throws {
        try requireEngines()
        let folder = TestData.fixture("keras")
        try checkEach(
            ["layer_normalization", "group_normalization"].map { CheckCase(files: [folder.appendingPathComponent($0 + ".keras").path], label: $0) })
    }

    /// `verify --engine-outputs` fails (exit 2, naming the output) on what LiteRT computes from a broken copy of
    /// the exported model (`Fixtures/engines/mutated_litert_outputs.py`): one weight changed by 1%, nearest
    /// resize made bilinear, the NHWC-to-NCHW permutation with rows and columns swapped, and, with the model
    /// intact, one output channel moved by 1% of the output's range. The unchanged model passes.
    func testVerifyFailsLiteRTRunningABrokenModel() throws {
        try requireEngines(litert)
        try checkMutations(format: "tflite", script: "mutated_litert_outputs.py", ["unchanged", "weight", "upsample", "transpose", "channel"])
    }

    // MARK: - Helpers

    /// The project cfgs with seeded weights (seed 1), by name: yolo-head (two [yolo] heads, route, upsample),
    /// shortcut-upsample (shortcuts across channel counts, upsample by 3), maxpool-spp (darknet's pool padding,
    /// an SPP block), conv-basic (convolution options on odd sizes: groups, padding, strides, activations), and
    /// engines/engine-ops and engine-ops-2 (lowerings easy to get wrong: [local], [crop], odd pools, [reorg],
    /// [reorg3d], softmax temperature, upsampling by 3 and 41, shortcuts across sizes and channel counts).
    private func seededFixtureNetworks() throws -> [(name: String, files: [String])] {
        let cfgs =
            ["yolo-head", "shortcut-upsample", "maxpool-spp", "conv-basic"].map { "darknet/cfg/" + $0 } + [
                "engines/engine-ops", "engines/engine-ops-2",
            ]
        return try cfgs.map { path in
            let name = (path as NSString).lastPathComponent
            let dir = try temporaryDirectory()
            let cfg = TestData.fixture("\(path).cfg").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            let seeded = try CommandRunner.run(["seed-weights", cfg, "--seed", "1", "--out", weights])
            XCTAssertEqual(seeded.status, 0, "\(name): " + seeded.stderr)
            return (name, [cfg, weights])
        }
    }

    /// Exports engine-ops (seeded weights) as `format`, runs `Fixtures/engines/<script>` with each of
    /// `mutations` and verifies the outputs: "unchanged" must pass (exit 0), every other must fail (exit 2)
    /// naming the output layer (14).
    private func checkMutations(format: String, script: String, _ mutations: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try temporaryDirectory()
        let cfg = TestData.fixture("engines/engine-ops.cfg").path
        let weights = dir.appendingPathComponent("engine-ops.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--seed", "1", "--out", weights]).status, 0, file: file, line: line)
        let export = dir.appendingPathComponent("export")
        let exported = try CommandRunner.run(["export", cfg, weights, "--format", format, "--out", export.path])
        XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
        for mutation in mutations {
            let outputs = dir.appendingPathComponent("engine-\(mutation)")
            let ran = try Self.python([TestData.fixture("engines/\(script)").path, export.path, mutation, outputs.path])
            XCTAssertEqual(ran.status, 0, "\(mutation): \(ran.output)", file: file, line: line)
            let verdict = try CommandRunner.run(["verify", cfg, weights, "--engine-outputs", outputs.path])
            if mutation == "unchanged" {
                XCTAssertEqual(verdict.status, 0, "the unchanged model passes:\n\(verdict.stdout)\(verdict.stderr)", file: file, line: line)
            } else {
                XCTAssertEqual(verdict.status, 2, "\(mutation) must fail:\n\(verdict.stdout)\(verdict.stderr)", file: file, line: line)
                XCTAssertTrue(
                    verdict.stdout.contains("first: layer 14"), "\(mutation): the report names the output layer:\n\(verdict.stdout)", file: file,
                    line: line)
            }
        }
    }

    /// Exports each seeded fixture network named in `wanted` to `format`, writes its `fixtures --layers all`
    /// pack, runs `Fixtures/engines/<script>` (the engine layer by layer against the pack) and asserts that each
    /// wanted layer's line ends "ok".
    private func checkEachLayer(format: String, script: String, wanted: [String: [Int]]) throws {
        for (name, files) in try seededFixtureNetworks() where wanted[name] != nil {
            let dir = try temporaryDirectory()
            let export = dir.appendingPathComponent("export"), pack = dir.appendingPathComponent("pack")
            let exported = try CommandRunner.run(["export"] + files + ["--format", format, "--out", export.path])
            XCTAssertEqual(exported.status, 0, "\(name): \(exported.stderr)")
            let packed = try CommandRunner.run(["fixtures"] + files + ["--layers", "all", "--out", pack.path])
            XCTAssertEqual(packed.status, 0, "\(name): \(packed.stderr)")
            let run = try Self.python([TestData.fixture("engines/\(script)").path, export.path, pack.path])
            XCTAssertEqual(run.status, 0, "\(name):\n\(run.output)")
            for layer in wanted[name] ?? [] {
                let line = run.output.split(separator: "\n").first { $0.hasPrefix(String(format: "layer_%03d ", layer)) }
                XCTAssertTrue(line?.hasSuffix("ok") == true, "\(name) layer \(layer): \(line.map(String.init) ?? "no line")\n\(run.output)")
            }
        }
    }

    /// The python modules the ncnn tests need.
    private let ncnn = "onnx, ncnn"
    /// The python modules the LiteRT tests need.
    private let litert = "onnx, ai_edge_litert.interpreter"

    /// One run of the script: a model (its files), its size arguments, the engines and export options.
    private struct CheckCase {
        var files: [String]
        var size: [String] = []
        var dtype = "float32"
        var engines = "onnxruntime,openvino"
        var extra: [String] = []
        var label: String
    }

    /// Runs the script on one model with `engines` (default both onnx engines); asserts exit 0 and a PASS summary
    /// naming every output.
    private func check(
        _ files: [String], size: [String] = [], dtype: String = "float32", engines: String = "onnxruntime,openvino", extra: [String] = [],
        label: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try checkEach([CheckCase(files: files, size: size, dtype: dtype, engines: engines, extra: extra, label: label)], file: file, line: line)
    }

    /// Runs the script on every case, as many at a time as the machine has cores (each run is mostly a
    /// one-threaded Python process and a debug-build foldkit), then asserts each as `check` does, in order.
    private func checkEach(_ cases: [CheckCase], file: StaticString = #filePath, line: UInt = #line) throws {
        let dirs = try cases.map { _ in try temporaryDirectory() }
        let runs = CheckRuns(count: cases.count)
        DispatchQueue.concurrentPerform(iterations: cases.count) { i in
            let c = cases[i]
            let started = Date()
            let arguments =
                [
                    TestData.fixture("engines/engine_check.py").path, "--foldkit", CommandRunner.executable.path, "--out",
                    dirs[i].appendingPathComponent("work").path, "--engines", c.engines, "--dtype", c.dtype,
                ] + c.extra + c.size + ["--"] + c.files
            let run: (status: Int32, output: String)
            do { run = try Self.python(arguments) } catch { run = (1, "python3 did not start: \(error)") }
            runs.set(i, (run.status, run.output, Date().timeIntervalSince(started)))
        }
        for (i, c) in cases.enumerated() {
            let run = runs.get(i)
            XCTAssertEqual(run.status, 0, "\(c.label):\n\(run.output)", file: file, line: line)
            let summary = run.output.split(separator: "\n").last.map(String.init) ?? ""
            XCTAssertTrue(summary.hasPrefix("engine_check PASS: "), "\(c.label): \(summary)", file: file, line: line)
            for output in try expectedOutputs(c.files, size: c.size, decoded: c.extra.contains("--decode-heads"), in: dirs[i]) {
                XCTAssertTrue(summary.contains(output), "\(c.label): the summary does not name \(output): \(summary)", file: file, line: line)
            }
            print("engine_check \(c.label): \(String(format: "%.1f", run.seconds)) s")
        }
    }

    /// The model's outputs as the fixture pack names them (`--layers outputs`): a detection head's raw input
    /// (`layer_NNN_raw`, what the graph computes; the head's decoding is the app's) in place of the head, or
    /// with `decoded` the head's own file (darknet's buffer, `layer_NNN`).
    private func expectedOutputs(_ files: [String], size: [String], decoded: Bool = false, in dir: URL) throws -> [String] {
        let pack = dir.appendingPathComponent("outputs")
        let run = try CommandRunner.run(["fixtures"] + files + size + ["--layers", "outputs", "--out", pack.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let manifest = try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: pack.appendingPathComponent("manifest.json")))
        let names = manifest.tensors.map { String($0.file.dropLast(".npy".count)) }.filter { $0 != "input" }
        XCTAssertFalse(names.isEmpty, "\(files): no outputs in the fixture pack")
        return decoded ? names.filter { !$0.hasSuffix("_raw") } : names.filter { !names.contains($0 + "_raw") }
    }

    /// python3 can import `modules` (default the onnx engines), or the test skips (fails under CI) saying what
    /// is missing.
    private func requireEngines(_ modules: String = "onnx, onnxruntime, openvino", file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try Self.python(["-c", "import \(modules)"])
        guard probe.status != 0 else { return }
        let message = "needs python3 with \(modules) (bash .ci/install): \(probe.output)"
        guard !TestData.isContinuousIntegration else {
            XCTFail(message + "; CI is set, so this fails instead of skipping", file: file, line: line)
            throw EnginesMissing(message: message)
        }
        throw XCTSkip(message)
    }

    private struct EnginesMissing: Error { var message: String }

    /// The results of runs made on several threads at once (`checkEach`), behind a lock.
    private final class CheckRuns: @unchecked Sendable {
        typealias Run = (status: Int32, output: String, seconds: Double)
        private var runs: [Run]
        private let lock = NSLock()

        init(count: Int) { runs = [Run](repeating: (1, "not run", 0), count: count) }

        func set(_ index: Int, _ run: Run) {
            lock.lock()
            defer { lock.unlock() }
            runs[index] = run
        }

        func get(_ index: Int) -> Run {
            lock.lock()
            defer { lock.unlock() }
            return runs[index]
        }
    }

    private func temporaryDirectory() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-engine-check")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// Runs python3 (from PATH) with stdout and stderr in one stream, in the order written.
    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
