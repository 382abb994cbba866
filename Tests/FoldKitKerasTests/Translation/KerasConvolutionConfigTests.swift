import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// The convolution config family decoded once for Conv2D, DepthwiseConv2D and SeparableConv2D,
/// with Keras 1 field names meaning the same as Keras 2 ones.
final class KerasConvolutionConfigTests: XCTestCase {
    private func values(_ className: String, _ json: String) throws -> KerasLayerConfig {
        let layer = KerasLayerDescription(
            name: "c1", className: className, module: nil, config: try KerasJSON.parse(json, file: "t.json"), inboundLayers: [])
        return KerasLayerConfig(layer: layer, descriptionFile: "t.json")
    }

    func testKeras1AndKeras2NamesDecodeAlike() throws {
        let keras2 = try KerasConvolutionConfig(
            values(
                "Conv2D",
                """
                {"filters": 8, "kernel_size": [3, 5], "strides": [2, 1], "dilation_rate": 2, "use_bias": false,
                 "padding": "same", "activation": "relu"}
                """), kerasMajor: 2)
        let keras1 = try KerasConvolutionConfig(
            values(
                "Convolution2D",
                """
                {"nb_filter": 8, "nb_row": 3, "nb_col": 5, "subsample": [2, 1], "atrous_rate": [2, 2], "bias": false,
                 "border_mode": "same", "activation": "relu", "dim_ordering": "tf"}
                """), kerasMajor: 1)
        for config in [keras2, keras1] {
            XCTAssertEqual(config.filters, 8)
            XCTAssertTrue(config.kernel == (3, 5))
            XCTAssertTrue(config.strides == (2, 1))
            XCTAssertTrue(config.dilation == (2, 2))
            XCTAssertFalse(config.useBias)
            XCTAssertEqual(config.values.paddingMode, "same")
            guard case .plain(.relu) = config.activation else { return XCTFail("\(config.activation)") }
            XCTAssertFalse(config.theanoKernelOrder)
        }
    }

    func testDepthwiseDefaults() throws {
        let config = try KerasConvolutionConfig(values("DepthwiseConv2D", #"{"kernel_size": 3, "depth_multiplier": 2}"#), kerasMajor: 2)
        XCTAssertNil(config.filters)
        XCTAssertTrue(config.kernel == (3, 3))
        XCTAssertTrue(config.strides == (1, 1))
        XCTAssertTrue(config.dilation == (1, 1))
        XCTAssertEqual(config.depthMultiplier, 2)
        XCTAssertTrue(config.useBias)
        guard case .plain(.linear) = config.activation else { return XCTFail("\(config.activation)") }
        // No padding field: 'valid', no padding.
        XCTAssertEqual(try config.padding(for: ActivationShape(channels: 1, height: 5, width: 7)), .zero)
    }

    func testSamePaddingFollowsTensorFlow() throws {
        let config = try KerasConvolutionConfig(
            values("Conv2D", #"{"filters": 1, "kernel_size": 3, "strides": 2, "padding": "same"}"#), kerasMajor: 2)
        // in 6, stride 2 -> out 3; total = max((3 - 1) * 2 + 3 - 6, 0) = 1: nothing before, 1 after.
        XCTAssertEqual(try config.padding(for: ActivationShape(channels: 1, height: 6, width: 6)), Padding2D(top: 0, left: 0, bottom: 1, right: 1))
    }

    func testBadPairNamesTheKeyAndLayer() throws {
        XCTAssertThrowsError(try KerasConvolutionConfig(values("Conv2D", #"{"filters": 1, "kernel_size": [1, 2, 3]}"#), kerasMajor: 2)) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.layer, "c1 (Conv2D)")
            XCTAssertEqual(e?.file, "t.json")
            XCTAssertTrue(e?.message.contains("'kernel_size' is not an integer or a pair") ?? false, "\(error)")
        }
    }

    func testUnknownPaddingModeIsRefused() throws {
        let config = try KerasConvolutionConfig(values("Conv2D", #"{"filters": 1, "kernel_size": 1, "padding": "causal"}"#), kerasMajor: 2)
        XCTAssertThrowsError(try config.padding(for: ActivationShape(channels: 1, height: 2, width: 2))) { error in
            XCTAssertEqual((error as? FoldKitError)?.found, "causal")
        }
    }
}
