import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// `foldkit fixtures --layers`: which layers' outputs a pack holds, what the manifest says about it, the
/// refusal of unknown layers, and `--check` on a partial pack.
final class FixturesLayersTests: XCTestCase {
    private var cfg: String { TestData.fixture("darknet/cfg/yolo-head.cfg").path }

    /// Seeded weights for yolo-head.cfg (7 sections: [yolo] heads at 2 and 6) in a fresh folder.
    private func seeded() throws -> (dir: URL, weights: String) {
        let dir = try TestData.temporaryDirectory("foldkit-fixtures-layers")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        return (dir, weights)
    }

    private func manifest(_ pack: URL) throws -> FixtureManifest {
        try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: pack.appendingPathComponent("manifest.json")))
    }

    private func npyFiles(_ pack: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: pack.path).filter { $0.hasSuffix(".npy") }.sorted()
    }

    func testOutputsWritesTheInputAndTheDetectionHeadsOnly() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("outputs")
        let run = try CommandRunner.run(["fixtures", cfg, weights, "--layers", "outputs", "--out", pack.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        // Each [yolo] head holds darknet's activated buffer and its raw input (Docs/Fixtures.md).
        XCTAssertEqual(try npyFiles(pack), ["input.npy", "layer_002.npy", "layer_002_raw.npy", "layer_006.npy", "layer_006_raw.npy"])
        let written = try manifest(pack)
        XCTAssertEqual(written.version, 2)
        XCTAssertEqual(written.layers, FixtureManifest.Layers(choice: "outputs", written: [.index(2), .index(6)]))
        XCTAssertEqual(written.tensors.map(\.file), try npyFiles(pack))
        XCTAssertNil(written.onnx)
        // The same arrays as in a pack of every layer: choosing layers changes which files, not their bytes.
        let all = dir.appendingPathComponent("all")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--out", all.path]).status, 0)
        for file in try npyFiles(pack) {
            XCTAssertEqual(try Data(contentsOf: pack.appendingPathComponent(file)), try Data(contentsOf: all.appendingPathComponent(file)), file)
        }
    }

    func testListWritesTheNamedLayersInNetworkOrder() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("list")
        let run = try CommandRunner.run(["fixtures", cfg, weights, "--layers", "4, 0,4", "--out", pack.path, "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try npyFiles(pack), ["input.npy", "layer_000.npy", "layer_004.npy"])
        XCTAssertEqual(try manifest(pack).layers, FixtureManifest.Layers(choice: "list", written: [.index(0), .index(4)]))
        let document = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(document?["layers"] as? String, "list", run.stdout)
    }

    func testAllIsTheDefaultAndIsRecorded() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("default")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--out", pack.path]).status, 0)
        let written = try manifest(pack)
        XCTAssertEqual(written.layers, FixtureManifest.Layers(choice: "all", written: (0..<7).map { .index($0) }))
        XCTAssertEqual(try npyFiles(pack).count, 1 + 7 + 2)
    }

    func testUnknownLayersAreRefusedNamingThemAndTheValidOnes() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("refused")
        let run = try CommandRunner.run(["fixtures", cfg, weights, "--layers", "1,7,conv", "--out", pack.path])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        for word in ["'7'", "'conv'", "0...6", "outputs"] { XCTAssertTrue(run.stderr.contains(word), run.stderr) }
        XCTAssertFalse(run.stderr.contains("'1'"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.path), "nothing is written for a refused choice")
        let empty = try CommandRunner.run(["fixtures", cfg, weights, "--layers", "1,,2", "--out", pack.path])
        XCTAssertEqual(empty.status, 1, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("empty entry"), empty.stderr)
    }

    func testKerasLayersByName() throws {
        let model = TestData.fixture("keras/dag.tfkeras.h5").path
        let input = TestData.fixture("keras/dag.input.npy").path
        let dir = try TestData.temporaryDirectory("foldkit-fixtures-layers")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let all = dir.appendingPathComponent("all")
        XCTAssertEqual(try CommandRunner.run(["fixtures", model, "--input", input, "--out", all.path]).status, 0)
        let names = try manifest(all).tensors.dropFirst().map(\.name)
        XCTAssertGreaterThan(names.count, 2)
        let picked = [names[names.count - 1], names[0]]
        let list = dir.appendingPathComponent("list")
        let run = try CommandRunner.run(["fixtures", model, "--input", input, "--layers", picked.joined(separator: ","), "--out", list.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try manifest(list).layers?.written, [.name(names[0]), .name(names[names.count - 1])])
        XCTAssertEqual(try manifest(list).tensors.map(\.name), ["input", names[0], names[names.count - 1]])
        // outputs: Keras' own output layers (dag has two).
        let outputs = dir.appendingPathComponent("outputs")
        XCTAssertEqual(try CommandRunner.run(["fixtures", model, "--input", input, "--layers", "outputs", "--out", outputs.path]).status, 0)
        XCTAssertEqual(try manifest(outputs).layers?.written.count, 2)
        let unknown = try CommandRunner.run(["fixtures", model, "--input", input, "--layers", "no_such_layer", "--out", outputs.path])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("'no_such_layer'") && unknown.stderr.contains(names[0]), unknown.stderr)
    }

    func testCheckWorksOnAPartialPackAndFindsDriftInIt() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("partial")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--layers", "0,2", "--onnx", "--out", pack.path]).status, 0)
        let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        // input, layer 0, the head at 2 and its raw input: 4 .npy and 4 .pb.
        XCTAssertTrue(check.stdout.contains("checked 8 tensors"), check.stdout)
        let file = pack.appendingPathComponent("layer_002_raw.npy")
        var stored = try NPYFile.read(path: file.path)
        stored.values[3] += 0.25
        try NPYFile.write(values: stored.values, shape: stored.shape, to: file)
        let drift = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(drift.status, 2, drift.stdout)
        XCTAssertTrue(drift.stdout.contains("layer_002_raw.npy"), drift.stdout)
        // --layers belongs to writing: the pack's manifest says which layers it holds.
        let mixed = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path, "--layers", "outputs"])
        XCTAssertEqual(mixed.status, 1, mixed.stderr)
    }
}
