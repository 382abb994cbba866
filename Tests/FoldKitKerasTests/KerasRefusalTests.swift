import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// Unsupported or inconsistent models are refused with the layer's name and class: edited copies of
/// the dense_head fixture's JSON description, read with its (legacy layout) weights file.
final class KerasRefusalTests: XCTestCase {
    /// Writes the dense_head JSON with `edit` applied to its layer list and reads it with the weights.
    private func readEdited(_ edit: (inout [[String: Any]]) -> Void) throws -> Network {
        let source = TestData.fixture("keras/dense_head.tfkeras.json")
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        var config = try XCTUnwrap(json["config"] as? [String: Any])
        var layers = try XCTUnwrap(config["layers"] as? [[String: Any]])
        edit(&layers)
        config["layers"] = layers
        json["config"] = config
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("edited.json")
        try JSONSerialization.data(withJSONObject: json).write(to: path)
        return try KerasReader.read(paths: [path.path, TestData.fixture("keras/dense_head.tfkeras_legacy_weights.h5").path])
    }

    private func layerIndex(_ layers: [[String: Any]], _ name: String) -> Int? {
        layers.firstIndex { ($0["config"] as? [String: Any])?["name"] as? String == name }
    }

    func testUneditedDescriptionReads() throws {
        let net = try readEdited { _ in }
        XCTAssertEqual(net.layers.last?.name, "fc2")
    }

    func testCustomClassIsRefusedWithNameAndClass() throws {
        XCTAssertThrowsError(
            try readEdited { layers in
                if let i = layerIndex(layers, "conv1") { layers[i]["class_name"] = "QConv2D" }
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .unsupported)
            XCTAssertEqual(e?.layer, "conv1 (QConv2D)")
        }
    }

    func testArbitraryLambdaIsRefused() throws {
        XCTAssertThrowsError(
            try readEdited { layers in
                if let i = layerIndex(layers, "drop") {
                    layers[i] = [
                        "class_name": "Lambda",
                        "config": ["name": "my_lambda", "function": ["ZGVmIGYoeCk6IHJldHVybiB4", NSNull(), NSNull()], "function_type": "lambda"],
                    ]
                    if let j = layerIndex(layers, "fc2") {
                        layers[j]["inbound_nodes"] = [[["my_lambda", 0, 0, [String: Any]()]]]
                    }
                    layers[i]["inbound_nodes"] = [[["hsig", 0, 0, [String: Any]()]]]
                }
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .unsupported)
            XCTAssertEqual(e?.layer, "my_lambda (Lambda)")
        }
    }

    func testWeightsNotUsedByTheDescriptionAreAnError() throws {
        // fc2 removed: its weights in the file are left over.
        XCTAssertThrowsError(
            try readEdited { layers in
                if let i = layerIndex(layers, "fc2") { layers.remove(at: i) }
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.found, "fc2", "\(error)")
        }
    }

    func testWrongKernelShapeNamesTheWeight() throws {
        XCTAssertThrowsError(
            try readEdited { layers in
                if let i = layerIndex(layers, "conv1"), var config = layers[i]["config"] as? [String: Any] {
                    config["kernel_size"] = [5, 5]
                    layers[i]["config"] = config
                }
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.expected, "[5, 5, 3, 6]", "\(error)")
            XCTAssertEqual(e?.found, "[3, 3, 3, 6]", "\(error)")
        }
    }

    func testBatchNormOverANonChannelAxisIsRefused() throws {
        XCTAssertThrowsError(
            try readEdited { layers in
                if let i = layerIndex(layers, "bn1"), var config = layers[i]["config"] as? [String: Any] {
                    config["axis"] = 1
                    layers[i]["config"] = config
                }
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .unsupported, "\(error)")
            XCTAssertEqual(e?.layer, "bn1 (BatchNormalization)")
        }
    }
}
