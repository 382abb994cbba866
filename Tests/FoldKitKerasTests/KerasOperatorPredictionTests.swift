import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// Arithmetic written with operators and `tf.*` / `keras.ops` calls - tf.keras TFOpLambda and
/// SlicingOpLambda layers, Keras 3 operation layers - reproduces Keras in every file kind
/// (Fixtures/keras/generate_layers.py); operations FoldKit does not run are refused by name.
final class KerasOperatorPredictionTests: XCTestCase {
    private let models = [
        "op_arith_const", "op_add_tensors", "op_hard_swish", "op_relu6", "op_sigmoid", "op_pad_channels", "op_concat", "op_reshape",
        "op_mean_hw", "op_slice_channels", "op_gelu_tanh",
    ]

    func testEveryOperatorReproducesKeras() throws {
        for model in models {
            try KerasFixturePrediction.check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras3.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras"])
        }
    }

    /// `1 - x` (constant first), `x / 6` and `x + 3` become per-channel affines with those numbers.
    func testConstantOperandsBecomeAffines() throws {
        for file in ["op_arith_const.tfkeras.h5", "op_arith_const.keras3.h5", "op_arith_const.keras"] {
            let net = try KerasReader.read(paths: [TestData.fixture("keras/\(file)").path])
            let affines = try net.layers.compactMap { layer -> (Float, Float)? in
                guard case .channelAffine(let a) = layer.kind else { return nil }
                return (try a.scale.floats()[0], try a.shift.floats()[0])
            }
            XCTAssertEqual(affines.count, 4, file)
            let expected: [(scale: Float, shift: Float)] = [(1, 3), (1.0 / 6, 0), (1.0 / 6, 0), (-1, 1)]
            for (found, expected) in zip(affines, expected) {
                XCTAssertEqual(found.0, expected.0, accuracy: 1e-7, file)
                XCTAssertEqual(found.1, expected.1, accuracy: 1e-7, file)
            }
        }
    }

    /// op_arith_const's description with `edit` applied to its TFOpLambda entries, read with its weights.
    private func readEdited(_ edit: (inout [String: Any]) -> Void) throws -> Network {
        let model = TestData.fixture("keras/op_arith_const.tfkeras.h5").path
        let text = try HDF5File(path: model).stringAttribute("model_config")
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var config = try XCTUnwrap(json["config"] as? [String: Any])
        var layers = try XCTUnwrap(config["layers"] as? [[String: Any]])
        for index in layers.indices where layers[index]["class_name"] as? String == "TFOpLambda" { edit(&layers[index]) }
        config["layers"] = layers
        json["config"] = config
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("edited.json")
        try JSONSerialization.data(withJSONObject: json).write(to: path)
        return try KerasReader.read(paths: [path.path, model])
    }

    func testUnknownFunctionsAreRefusedByName() throws {
        XCTAssertThrowsError(
            try readEdited { layer in
                var config = layer["config"] as? [String: Any] ?? [:]
                config["function"] = "math.exp"
                layer["config"] = config
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .unsupported, "\(error)")
            XCTAssertTrue(e?.found?.contains("TFOpLambda math.exp: 4") == true, "\(error)")
        }
    }

    func testAReciprocalOfATensorIsRefused() throws {
        // `c / x`: the division with the constant first.
        XCTAssertThrowsError(
            try readEdited { layer in
                guard (layer["config"] as? [String: Any])?["function"] as? String == "math.subtract" else { return }
                var config = layer["config"] as? [String: Any] ?? [:]
                config["function"] = "math.truediv"
                layer["config"] = config
            }
        ) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .unsupported, "\(error)")
            XCTAssertTrue("\(error)".contains("constant operand is not supported"), "\(error)")
        }
    }
}
