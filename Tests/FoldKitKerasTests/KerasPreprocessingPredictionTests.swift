import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// Rescaling (a number; one value per channel with an offset), Normalization (statistics as weights,
/// including the integer sample count; given in the config) and the augmentation layers (identity at
/// inference) reproduce Keras in every file kind
/// Fixtures/keras/generate_layers.py saves them in; a Normalization over a spatial axis is refused, naming it.
final class KerasPreprocessingPredictionTests: XCTestCase {
    private let models = ["rescaling_scalar", "rescaling_channel", "normalization_weights", "normalization_config", "augmentation"]

    func testEveryFileKindReproducesKeras() throws {
        for model in models {
            try KerasFixturePrediction.check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras3.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras"])
        }
    }

    func testNormalizationOverARowIsRefusedNamingTheAxis() {
        for file in ["normalization_axis.tfkeras.h5", "normalization_axis.keras3.h5", "normalization_axis.keras"] {
            XCTAssertThrowsError(try KerasReader.read(paths: [TestData.fixture("keras/\(file)").path])) { error in
                let e = error as? FoldKitError
                XCTAssertEqual(e?.kind, .unsupported, file)
                XCTAssertEqual(e?.layer, "normalization (Normalization)", file)
                XCTAssertEqual(e?.found, "1", file)
            }
        }
    }
}
