@testable import FoldKit
import FoldKitTestSupport
import Foundation
import XCTest

/// Every branch of `foldkit fixtures --check DIR`: a pack that matches passes (exit 0); changed values,
/// a missing file, an extra file and a changed shape each fail (exit 2) naming the file.
final class FixturesCheckTests: XCTestCase {
    private var cfg: String { TestData.fixture("darknet/cfg/yolo-head.cfg").path }

    /// A fresh seeded pack (nchw) and its weights.
    private func makePack(file: StaticString = #filePath, line: UInt = #line) throws -> (pack: URL, weights: String) {
        let dir = try TestData.temporaryDirectory("foldkit-fixtures-check")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0, file: file, line: line)
        let pack = dir.appendingPathComponent("pack")
        let made = try CommandRunner.run(["fixtures", cfg, weights, "--layout", "nchw", "--out", pack.path])
        XCTAssertEqual(made.status, 0, made.stderr, file: file, line: line)
        return (pack, weights)
    }

    private func check(_ pack: URL, _ weights: String) throws -> CommandRunner.Result {
        try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
    }

    func testMatchingPackPasses() throws {
        let (pack, weights) = try makePack()
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("PASS"), result.stdout)
    }

    func testChangedValuesFailNamingTheFile() throws {
        let (pack, weights) = try makePack()
        let file = pack.appendingPathComponent("layer_001.npy")
        var stored = try NPYFile.read(path: file.path)
        stored.values[stored.values.count - 1] *= 1.01
        try NPYFile.write(values: stored.values, shape: stored.shape, to: file)
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("layer_001.npy"), result.stdout)
        XCTAssertTrue(result.stdout.contains("FAIL"), result.stdout)
    }

    func testNaNInAStoredFileFails() throws {
        let (pack, weights) = try makePack()
        let file = pack.appendingPathComponent("layer_002.npy")
        var stored = try NPYFile.read(path: file.path)
        stored.values[0] = .nan
        try NPYFile.write(values: stored.values, shape: stored.shape, to: file)
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("layer_002.npy"), result.stdout)
    }

    func testMissingFileFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        try FileManager.default.removeItem(at: pack.appendingPathComponent("layer_003.npy"))
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("layer_003.npy"), result.stdout)
        XCTAssertTrue(result.stdout.contains("missing"), result.stdout)
    }

    func testExtraFileFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        try FileManager.default.copyItem(at: pack.appendingPathComponent("layer_000.npy"), to: pack.appendingPathComponent("layer_099.npy"))
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("layer_099.npy"), result.stdout)
    }

    func testChangedShapeFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        let file = pack.appendingPathComponent("layer_000.npy")
        let stored = try NPYFile.read(path: file.path)
        // Same values, flattened: the shape no longer matches the layer's.
        try NPYFile.write(values: stored.values, shape: [stored.values.count], to: file)
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("layer_000.npy"), result.stdout)
        XCTAssertTrue(result.stdout.contains("shape"), result.stdout)
    }
}
