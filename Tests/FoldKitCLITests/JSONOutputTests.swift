import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `--json` on convert, fixtures and inspect prints exactly one JSON document on stdout (Docs/CLI.md
/// "JSON documents"), whose numbers agree with what the command wrote and with the model read
/// independently; `verify --json -` prints the same report `--json FILE` writes.
final class JSONOutputTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-json")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    private func document(_ run: CommandRunner.Result, _ command: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any]
    {
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        let json = try XCTUnwrap(object as? [String: Any], "stdout is not one JSON object: \(run.stdout.prefix(200))", file: file, line: line)
        XCTAssertEqual(json["tool"] as? String, "foldkit \(command)", file: file, line: line)
        XCTAssertEqual(json["toolVersion"] as? String, FoldKitVersion.string, file: file, line: line)
        XCTAssertEqual(json["schemaVersion"] as? Int, 1, file: file, line: line)
        return json
    }

    func testConvertFixturesInspectPrintOneDocument() throws {
        let dir = try temporaryFolder()
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)

        let inspect = try document(try CommandRunner.run(["inspect", cfg, weights, "--json"]), "inspect")
        let rows = try XCTUnwrap(inspect["layers"] as? [[String: Any]])
        XCTAssertEqual(rows.count, network.layers.count)
        XCTAssertEqual(inspect["parameterCount"] as? Int, network.parameterCount)
        for (row, layer) in zip(rows, network.layers) {
            XCTAssertEqual(row["type"] as? String, layer.kind.typeName)
            XCTAssertEqual(row["outputShape"] as? [Int], [layer.outputShape.channels, layer.outputShape.height, layer.outputShape.width])
        }
        XCTAssertNotNil(inspect["float16Hazards"] as? [Any], "weights given: hazards scanned")
        let cfgOnly = try document(try CommandRunner.run(["inspect", cfg, "--json"]), "inspect")
        XCTAssertTrue(cfgOnly["float16Hazards"] is NSNull, "no weights: no hazard scan (the key is there, null)")

        let out = dir.appendingPathComponent("blobs")
        let convert = try document(try CommandRunner.run(["convert", cfg, weights, "--out", out.path, "--json", "--layout", "oihw"]), "convert")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".bin") }
        XCTAssertEqual(convert["blobs"] as? Int, written.count)
        let sizes = try written.map { try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent($0).path)[.size] as? Int ?? -1 }
        XCTAssertEqual(convert["bytes"] as? Int, sizes.reduce(0, +))
        XCTAssertEqual(convert["layout"] as? String, "oihw")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? NSDictionary
        XCTAssertEqual(convert["manifest"] as? NSDictionary, manifest, "the document holds manifest.json as written")

        let fixtures = dir.appendingPathComponent("fx")
        let written2 = try document(try CommandRunner.run(["fixtures", cfg, weights, "--out", fixtures.path, "--json"]), "fixtures")
        let fixtureManifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent("manifest.json"))) as? NSDictionary
        XCTAssertEqual(written2["manifest"] as? NSDictionary, fixtureManifest)
        let check = try document(try CommandRunner.run(["fixtures", cfg, weights, "--check", fixtures.path, "--json"]), "fixtures")
        XCTAssertEqual(check["pass"] as? Bool, true)
        let tensors = try XCTUnwrap((check["check"] as? [String: Any])?["tensors"] as? [[String: Any]])
        let heads = network.layers.filter(DarknetLayerOutput.differs).count
        XCTAssertEqual(tensors.count, network.layers.count + 1 + heads, "the input, every layer output and each head's raw input checked")
    }

    func testVerifyJSONOnStdoutIsTheReport() throws {
        let dir = try temporaryFolder()
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let file = dir.appendingPathComponent("r.json")
        let toFile = try CommandRunner.run(["verify", cfg, weights, "--json", file.path])
        let toStdout = try CommandRunner.run(["verify", cfg, weights, "--json", "-"])
        XCTAssertEqual(toFile.status, 0, toFile.stderr)
        XCTAssertEqual(toStdout.status, 0, toStdout.stderr)
        XCTAssertTrue(toFile.stdout.contains("PASS: "), "--json FILE keeps the text report")
        var a = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var b = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(toStdout.stdout.utf8)) as? [String: Any], toStdout.stdout)
        a["timings"] = nil
        b["timings"] = nil
        XCTAssertEqual(a as NSDictionary, b as NSDictionary)
    }
}
