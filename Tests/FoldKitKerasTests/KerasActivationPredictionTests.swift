import FoldKitTestSupport
import XCTest

/// Keras's gelu (the erf form) in every file kind, and Keras 3's hard_silu, hard_swish and hard_sigmoid
/// (relu6(x + 3) / 6) in Keras 3's two, reproduce Keras's predictions (Fixtures/keras/generate_layers.py).
final class KerasActivationPredictionTests: XCTestCase {
    func testGeluIsTheErfForm() throws {
        try KerasFixturePrediction.check(model: "act_gelu", saver: "tfkeras", paths: ["act_gelu.tfkeras.h5"])
        try KerasFixturePrediction.check(model: "act_gelu", saver: "keras3", paths: ["act_gelu.keras3.h5"])
        try KerasFixturePrediction.check(model: "act_gelu", saver: "keras3", paths: ["act_gelu.keras"])
    }

    func testKeras3HardActivations() throws {
        try KerasFixturePrediction.check(model: "act_keras3", saver: "keras3", paths: ["act_keras3.keras3.h5"])
        try KerasFixturePrediction.check(model: "act_keras3", saver: "keras3", paths: ["act_keras3.keras"])
    }
}
