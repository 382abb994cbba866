import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// LayerNormalization, GroupNormalization, the applications' own layers (ConvNeXt's LayerScale and StochasticDepth,
/// InceptionResNetV2's CustomScaleLayer), Conv2DTranspose ('same' and 'valid'), bilinear UpSampling2D,
/// Subtract / Average / Maximum / Minimum, Concatenate on the outermost axis (after a Reshape to (a, b),
/// and on H) and a three-level nested model reproduce Keras in every file kind (Fixtures/keras/generate_layers.py).
final class KerasLayerPredictionTests: XCTestCase {
    private let models = [
        "layer_normalization", "convnext_block", "inception_scale", "upsampling_bilinear", "merges", "nested_depth2", "concat_outer",
        "conv_transpose_same",
        "conv_transpose_valid", "group_normalization",
    ]

    func testEveryLayerReproducesKeras() throws {
        for model in models {
            try KerasFixturePrediction.check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras3.h5"])
            try KerasFixturePrediction.check(model: model, saver: "keras3", paths: ["\(model).keras"])
        }
    }

    func testApplicationLayersBecomeAffinesAndIdentities() throws {
        let net = try KerasReader.read(paths: [TestData.fixture("keras/convnext_block.keras").path])
        let kinds = Dictionary(uniqueKeysWithValues: net.layers.map { ($0.name, $0.kind.typeName) })
        XCTAssertEqual(kinds["layer_scale"], "channel_affine")
        XCTAssertEqual(kinds["stochastic_depth"], "stochastic_depth")
    }
}
