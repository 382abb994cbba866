import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `Fixtures/engines/engine_check.py` on models `foldkit export --format onnx` writes: onnx's full check, ONNX
/// Runtime against FoldKit's float64 reference, OpenVINO against ONNX Runtime, and `foldkit verify
/// --engine-outputs` on each engine's outputs must all pass (exit 0), and the summary line must name every
/// output of the model (the names `foldkit fixtures --layers outputs` gives them).
///
/// Needs python3 with onnx, onnxruntime and openvino (`.ci/install` pins them): without them the tests skip
/// saying so, and fail when `CI` is set, as a missing shared file does.
final class EngineCheckTests: XCTestCase {
    /// Fully convolutional detectors run at 128 x 128 to keep the debug build quick (2 to 4 s a model for the
    /// whole check, 3 to 7 s at their own sizes); the classifiers (connected layers) at their own.
    private let detectorSize = ["--height", "128", "--width", "128"]
    private let fixedSize = ["cifar_small.cfg", "mnist_lenet.cfg"]

    func testEveryRealDarknetModelPassesOnBothEngines() throws {
        try requireEngines()
        let models = try realDarknetModels()
        XCTAssertGreaterThanOrEqual(models.count, 11, "\(models.map(\.name))")
        for model in models {
            try check(model.files, size: fixedSize.contains(model.name) ? [] : detectorSize, label: model.name)
        }
    }

    /// Project cfgs with seeded weights: yolo-head (two [yolo] heads, route, upsample), shortcut-upsample
    /// (shortcuts across channel counts, upsample by 3), maxpool-spp (darknet's pool padding, an SPP block),
    /// conv-basic (convolution options on odd sizes: groups, padding, strides, activations), and
    /// engines/engine-ops (lowerings easy to get wrong: [local], [crop], odd pools, [reorg], softmax temperature).
    func testFixtureNetworksWithSeededWeightsPassOnBothEngines() throws {
        try requireEngines()
        let cfgs = ["yolo-head", "shortcut-upsample", "maxpool-spp", "conv-basic"].map { "darknet/cfg/" + $0 } + ["engines/engine-ops"]
        for path in cfgs {
            let name = (path as NSString).lastPathComponent
            let dir = try temporaryDirectory()
            let cfg = TestData.fixture("\(path).cfg").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            let seeded = try CommandRunner.run(["seed-weights", cfg, "--seed", "1", "--out", weights])
            XCTAssertEqual(seeded.status, 0, "\(name): " + seeded.stderr)
            try check([cfg, weights], label: name)
        }
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
        let dir = try temporaryDirectory()
        let cfg = TestData.fixture("engines/engine-ops.cfg").path
        let weights = dir.appendingPathComponent("engine-ops.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--seed", "1", "--out", weights]).status, 0)
        let export = dir.appendingPathComponent("export")
        let exported = try CommandRunner.run(["export", cfg, weights, "--format", "onnx", "--out", export.path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        for mutation in ["none", "weight", "resize", "transpose", "channel"] {
            let outputs = dir.appendingPathComponent("engine-\(mutation)")
            let script = TestData.fixture("engines/mutated_engine_outputs.py").path
            let ran = try Self.python([script, export.path, mutation == "none" ? "unchanged" : mutation, outputs.path])
            XCTAssertEqual(ran.status, 0, "\(mutation): \(ran.output)")
            let verdict = try CommandRunner.run(["verify", cfg, weights, "--engine-outputs", outputs.path])
            if mutation == "none" {
                XCTAssertEqual(verdict.status, 0, "the unchanged model passes:\n\(verdict.stdout)\(verdict.stderr)")
            } else {
                XCTAssertEqual(verdict.status, 2, "\(mutation) must fail:\n\(verdict.stdout)\(verdict.stderr)")
                XCTAssertTrue(verdict.stdout.contains("first: layer 14"), "\(mutation): the report names the output layer:\n\(verdict.stdout)")
            }
        }
    }

    // MARK: - Helpers

    /// Runs the script on one model with both engines; asserts exit 0 and a PASS summary naming every output.
    private func check(
        _ files: [String], size: [String] = [], dtype: String = "float32", extra: [String] = [], label: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let dir = try temporaryDirectory()
        let started = Date()
        let run = try Self.python(
            [
                TestData.fixture("engines/engine_check.py").path, "--foldkit", CommandRunner.executable.path, "--out",
                dir.appendingPathComponent("work").path, "--engines", "onnxruntime,openvino", "--dtype", dtype,
            ] + extra + size + ["--"] + files)
        XCTAssertEqual(run.status, 0, "\(label):\n\(run.output)", file: file, line: line)
        let summary = run.output.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(summary.hasPrefix("engine_check PASS: "), "\(label): \(summary)", file: file, line: line)
        for output in try expectedOutputs(files, size: size, decoded: extra.contains("--decode-heads"), in: dir) {
            XCTAssertTrue(summary.contains(output), "\(label): the summary does not name \(output): \(summary)", file: file, line: line)
        }
        print("engine_check \(label): \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
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

    /// Every cfg in ../shared/real-models with a .weights file of the same stem beside it.
    private func realDarknetModels() throws -> [(name: String, files: [String])] {
        let root = try TestData.sharedFile("real-models")
        var models: [(String, [String])] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let dir = root.appendingPathComponent(folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() else { continue }
            for file in files where file.hasSuffix(".cfg") {
                let weights = (file as NSString).deletingPathExtension + ".weights"
                if files.contains(weights) {
                    models.append((file, [dir.appendingPathComponent(file).path, dir.appendingPathComponent(weights).path]))
                }
            }
        }
        return models
    }

    /// python3 can import the three packages, or the test skips (fails under CI) saying what is missing.
    private func requireEngines(file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try Self.python(["-c", "import onnx, onnxruntime, openvino"])
        guard probe.status != 0 else { return }
        let message = "needs python3 with onnx, onnxruntime and openvino (bash .ci/install): \(probe.output)"
        guard !TestData.isContinuousIntegration else {
            XCTFail(message + "; CI is set, so this fails instead of skipping", file: file, line: line)
            throw EnginesMissing(message: message)
        }
        throw XCTSkip(message)
    }

    private struct EnginesMissing: Error { var message: String }

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
