import FoldKit
import FoldKitTestSupport
import Foundation
import XCTest

/// Issue 2, checks 4 and 5: exit codes and error messages of the command line on real files.
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
        try Data("[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=2\nsize=1\nactivation=linear\n\n[frobnicate]\nsize=2\n".utf8).write(to: cfg)
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
