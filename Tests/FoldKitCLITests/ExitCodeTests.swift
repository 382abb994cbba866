import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// Exit codes (Docs/CLI.md "Exit codes") and error messages of the command line on real files.
final class ExitCodeTests: XCTestCase {
    private func realModel(_ folder: String, _ stem: String) throws -> (cfg: String, weights: String) {
        (try TestData.sharedFile("real-models/\(folder)/\(stem).cfg").path, try TestData.sharedFile("real-models/\(folder)/\(stem).weights").path)
    }

    func testVerifyPassesAndStrictToleranceFailsNamingTheFirstLayer() throws {
        for (folder, stem) in [("cifar_small", "cifar_small"), ("mnist_lenet", "mnist_lenet")] {
            let model = try realModel(folder, stem)
            let pass = try CommandRunner.run(["verify", model.cfg, model.weights])
            XCTAssertEqual(pass.status, 0, pass.stdout + pass.stderr)
            XCTAssertTrue(pass.stdout.contains("PASS"), pass.stdout)
            XCTAssertTrue(pass.stdout.contains("max dev"), "prints every layer's deviation")
            let strict = try CommandRunner.run(["verify", model.cfg, model.weights, "--atol", "0", "--rtol", "0"])
            XCTAssertEqual(strict.status, 2, strict.stdout + strict.stderr)
            XCTAssertTrue(strict.stdout.contains("first: layer 0"), strict.stdout)
        }
    }

    func testTruncatedAndPaddedWeightsExitOneNamingFileLayerAndOffset() throws {
        let model = try realModel("cifar_small", "cifar_small")
        let dir = try TestData.temporaryDirectory()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model.weights))
        let short = dir.appendingPathComponent("short.weights"), long = dir.appendingPathComponent("long.weights")
        try bytes.dropLast(4).write(to: short)
        try (bytes + Data([0, 0, 0, 0])).write(to: long)

        let truncated = try CommandRunner.run(["convert", model.cfg, short.path, "--out", dir.appendingPathComponent("a").path])
        XCTAssertEqual(truncated.status, 1)
        XCTAssertTrue(truncated.stderr.contains("short.weights"), truncated.stderr)
        XCTAssertTrue(truncated.stderr.contains("layer 8"), truncated.stderr)
        XCTAssertTrue(truncated.stderr.contains("byte"), truncated.stderr)

        let padded = try CommandRunner.run(["verify", model.cfg, long.path])
        XCTAssertEqual(padded.status, 1)
        XCTAssertTrue(padded.stderr.contains("long.weights"), padded.stderr)
        XCTAssertTrue(padded.stderr.contains("at byte \(bytes.count)"), padded.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a").path), "nothing written on error")
    }

    func testUnknownSectionExitsOneNamingLine() throws {
        let dir = try TestData.temporaryDirectory()
        let cfg = dir.appendingPathComponent("bad.cfg")
        try Data("[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n[frobnicate]\nsize=2\n".utf8)
            .write(to: cfg)
        let result = try CommandRunner.run(["inspect", cfg.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("bad.cfg:11"), result.stderr)
        XCTAssertTrue(result.stderr.contains("frobnicate"), result.stderr)
    }

    func testUsageErrorsExitOne() throws {
        XCTAssertEqual(try CommandRunner.run(["convert", "--layout", "nope", "x.cfg", "--out", "o"]).status, 1)
        XCTAssertEqual(try CommandRunner.run(["frobnicate"]).status, 1)
        XCTAssertEqual(try CommandRunner.run(["--help"]).status, 0)
    }
}

/// Darknet networks FoldKit refuses or reads, checked from the command line.
final class DarknetNetworksCommandTests: XCTestCase {
    func testBinaryConvolutionIsRefusedNamingTheLayer() throws {
        let cfg = try TestData.sharedFile("darknet-cfg/yolov3-tiny_xnor.cfg").path
        let result = try CommandRunner.run(["inspect", cfg])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("layer 2 [convolutional]"), result.stderr)
        XCTAssertTrue(result.stderr.contains("binary"), result.stderr)
    }

    /// Every convolution and connected layer gets a weights and a bias blob, and verify passes.
    func testConvertWritesABlobPairPerLayerAndVerifyPasses() throws {
        for name in ["tiny", "yolov3-tiny", "yolov4-tiny", "efficientnet-lite3", "yolov7-tiny"] {
            let cfg = try TestData.sharedFile("darknet-cfg/\(name).cfg").path
            let dir = try TestData.temporaryDirectory()
            let weights = dir.appendingPathComponent("w.weights").path
            XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
            let out = dir.appendingPathComponent("blobs")
            let convert = try CommandRunner.run(["convert", cfg, weights, "--out", out.path])
            XCTAssertEqual(convert.status, 0, convert.stderr)
            let network = try ModelLoader.load(paths: [cfg, weights])
            let parameterLayers = network.layers.filter {
                switch $0.kind {
                case .convolution, .fullyConnected: return true;
                default: return false
                }
            }.map(\.index)
            let manifest = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
            XCTAssertEqual(manifest.tensors.filter { $0.role == .weights }.map(\.layer), parameterLayers, name)
            XCTAssertEqual(manifest.tensors.filter { $0.role == .bias }.map(\.layer), parameterLayers, name)
            let verify = try CommandRunner.run(["verify", cfg, weights, "--blobs", out.path, "--height", "64", "--width", "64"])
            XCTAssertEqual(verify.status, 0, "\(name): " + verify.stdout.suffix(600))
        }
    }
}

/// Inputs given by the user, and quiet output when not on a terminal.
final class InputAndOutputTests: XCTestCase {
    func testWrongInputShapeOrDtypeExitsOne() throws {
        let cfg = try TestData.sharedFile("real-models/cifar_small/cifar_small.cfg").path
        let weights = try TestData.sharedFile("real-models/cifar_small/cifar_small.weights").path
        let dir = try TestData.temporaryDirectory()
        let wrong = dir.appendingPathComponent("wrong.npy")
        try NPYFile.write(values: [Float](repeating: 0, count: 3 * 28 * 27), shape: [1, 3, 28, 27], to: wrong)
        let shape = try CommandRunner.run(["verify", cfg, weights, "--input", wrong.path])
        XCTAssertEqual(shape.status, 1)
        XCTAssertTrue(shape.stderr.contains("(1, 3, 28, 28)") && shape.stderr.contains("(1, 3, 28, 27)"), shape.stderr)
        let ints = try CommandRunner.run(["verify", cfg, weights, "--input", TestData.fixture("npy/int32.npy").path])
        XCTAssertEqual(ints.status, 1)
        XCTAssertTrue(ints.stderr.contains("<i4"), ints.stderr)
        let right = dir.appendingPathComponent("right.npy")
        try NPYFile.write(values: [Float](repeating: 0.5, count: 3 * 28 * 28), shape: [3, 28, 28], to: right)
        XCTAssertEqual(try CommandRunner.run(["verify", cfg, weights, "--input", right.path]).status, 0)
    }

    func testConvertIsQuietOnStandardErrorInPipes() throws {
        let cfg = try TestData.sharedFile("real-models/yoloface-50k/yoloface-50k.cfg").path
        let weights = try TestData.sharedFile("real-models/yoloface-50k/yoloface-50k.weights").path
        let out = try TestData.temporaryDirectory().appendingPathComponent("blobs")
        let result = try CommandRunner.run(["convert", cfg, weights, "--out", out.path])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "", "no progress line when standard error is not a terminal")
        XCTAssertTrue(result.stdout.contains("wrote"), result.stdout)
    }
}
