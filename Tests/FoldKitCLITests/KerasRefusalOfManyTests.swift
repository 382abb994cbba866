import FoldKitTestSupport
import Foundation
import XCTest
import ZIPFoundation

/// A Keras model holding several unsupported layers is refused with exit code 1 by one message naming
/// them all, from its description alone: a 100 MB `.keras` archive is refused within a second and its
/// weights are never extracted.
final class KerasRefusalOfManyTests: XCTestCase {
    /// dense_head.keras with conv1 and fc1 made custom classes, hsig a tf.keras operator layer, and a
    /// 100 MB weights entry (never extracted, so its bytes do not matter).
    private func editedArchive(in folder: URL) throws -> URL {
        let source = try Archive(url: TestData.fixture("keras/dense_head.keras"), accessMode: .read)
        var configData = Data()
        guard let configEntry = source["config.json"], let metadataEntry = source["metadata.json"] else {
            throw FixtureProblem("Fixtures/keras/dense_head.keras", "no config.json or metadata.json entry")
        }
        _ = try source.extract(configEntry) { configData.append($0) }
        var metadata = Data()
        _ = try source.extract(metadataEntry) { metadata.append($0) }
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: configData) as? [String: Any])
        var config = try XCTUnwrap(json["config"] as? [String: Any])
        var layers = try XCTUnwrap(config["layers"] as? [[String: Any]])
        for index in layers.indices {
            let name = (layers[index]["config"] as? [String: Any])?["name"] as? String
            switch name {
            case "conv1": layers[index]["class_name"] = "QConv2D"; layers[index]["module"] = "qkeras.qlayers"
            case "fc1": layers[index]["class_name"] = "QDense"; layers[index]["module"] = "qkeras.qlayers"
            case "fc2": layers[index]["class_name"] = "QDense"; layers[index]["module"] = "qkeras.qlayers"
            case "hsig":
                layers[index]["class_name"] = "TFOpLambda"
                var layerConfig = layers[index]["config"] as? [String: Any] ?? [:]
                layerConfig["function"] = "math.erf"
                layers[index]["config"] = layerConfig
            default: break
            }
        }
        config["layers"] = layers
        json["config"] = config
        let edited = try JSONSerialization.data(withJSONObject: json)
        let url = folder.appendingPathComponent("many-unsupported.keras")
        let archive = try Archive(url: url, accessMode: .create)
        for (name, data) in [("metadata.json", metadata), ("config.json", edited)] {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count)) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        let weightsSize = 100 << 20
        let zeros = Data(count: 1 << 20)
        try archive.addEntry(with: "model.weights.h5", type: .file, uncompressedSize: Int64(weightsSize), compressionMethod: .none) { _, size in
            zeros.prefix(size)
        }
        return url
    }

    func testEveryUnsupportedLayerIsNamedWithinASecondWithoutExtractingWeights() throws {
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let model = try editedArchive(in: folder)
        XCTAssertGreaterThan(try FileManager.default.attributesOfItem(atPath: model.path)[.size] as? Int ?? 0, 100 << 20)
        // The command's own temporary folder (TMPDIR), empty, so that what other tests running at the same
        // time extract cannot be taken for this command's extraction.
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let start = Date()
        let result = try CommandRunner.run(
            ["convert", model.path, "--out", folder.appendingPathComponent("blobs").path], environment: ["TMPDIR": temporary.path])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(result.status, 1, result.stderr)
        for expected in [
            "4 layers of 3 unsupported kinds", "QConv2D from module 'qkeras.qlayers': 1 (conv1)",
            "QDense from module 'qkeras.qlayers': 2 (fc1, fc2)", "TFOpLambda math.erf: 1 (hsig)",
        ] {
            XCTAssertTrue(result.stderr.contains(expected), "missing \"\(expected)\" in: \(result.stderr)")
        }
        XCTAssertLessThan(seconds, 1, "refusing a 100 MB .keras took \(seconds) s")
        let extracted = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("foldkit-keras-") }
        XCTAssertEqual(extracted, [], "the weights were extracted before the refusal")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("blobs").path))
    }
}
