import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

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

    /// Runs the check and asserts it fails (exit 2) with output naming `file` and containing every one of `words`.
    private func assertCheckFails(
        _ pack: URL, _ weights: String, naming file: String, saying words: [String] = [],
        line: UInt = #line
    ) throws {
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr, line: line)
        for word in [file] + words { XCTAssertTrue(result.stdout.contains(word), result.stdout, line: line) }
    }

    /// Replaces the stored array of `name` in the pack.
    private func rewrite(_ pack: URL, _ name: String, _ change: (inout [Float], inout [Int]) -> Void) throws {
        let file = pack.appendingPathComponent(name)
        let stored = try NPYFile.read(path: file.path)
        var values = stored.values, shape = stored.shape
        change(&values, &shape)
        try NPYFile.write(values: values, shape: shape, to: file)
    }

    func testMatchingPackPasses() throws {
        let (pack, weights) = try makePack()
        let result = try check(pack, weights)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("PASS"), result.stdout)
    }

    func testChangedValuesFailNamingTheFile() throws {
        let (pack, weights) = try makePack()
        try rewrite(pack, "layer_001.npy") { values, _ in values[values.count - 1] *= 1.01 }
        try assertCheckFails(pack, weights, naming: "layer_001.npy", saying: ["FAIL"])
    }

    func testNaNInAStoredFileFails() throws {
        let (pack, weights) = try makePack()
        try rewrite(pack, "layer_002.npy") { values, _ in values[0] = .nan }
        try assertCheckFails(pack, weights, naming: "layer_002.npy")
    }

    func testMissingFileFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        try FileManager.default.removeItem(at: pack.appendingPathComponent("layer_003.npy"))
        try assertCheckFails(pack, weights, naming: "layer_003.npy", saying: ["missing"])
    }

    func testExtraFileFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        try FileManager.default.copyItem(at: pack.appendingPathComponent("layer_000.npy"), to: pack.appendingPathComponent("layer_099.npy"))
        try assertCheckFails(pack, weights, naming: "layer_099.npy")
    }

    func testChangedShapeFailsNamingIt() throws {
        let (pack, weights) = try makePack()
        // Same values, flattened: the shape no longer matches the layer's.
        try rewrite(pack, "layer_000.npy") { values, shape in shape = [values.count] }
        try assertCheckFails(pack, weights, naming: "layer_000.npy", saying: ["shape"])
    }
}
