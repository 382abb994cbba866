import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// Models used as layers (a Functional and a Sequential inside a Functional, three levels deep) and
/// layers called twice (a Conv2D and a nested model, each over one set of weights) reproduce Keras in
/// every file kind (Fixtures/keras/generate_layers.py); the flattened layers keep their nested path.
final class KerasNestedModelPredictionTests: XCTestCase {
    private func files(_ model: String) -> [(saver: String, file: String)] {
        [("tfkeras", "\(model).tfkeras.h5"), ("keras3", "\(model).keras3.h5"), ("keras3", "\(model).keras")]
    }

    func testNestedAndSharedModelsReproduceKeras() throws {
        for model in ["nested_functional", "nested_sequential", "shared_conv"] {
            for (saver, file) in files(model) {
                try KerasFixturePrediction.check(model: model, saver: saver, paths: [file])
            }
        }
    }

    func testFlattenedNamesKeepThePathAndNumberTheCalls() throws {
        for (_, file) in files("nested_functional") {
            let net = try KerasReader.read(paths: [TestData.fixture("keras/\(file)").path])
            XCTAssertEqual(
                net.layers.map(\.name).filter { $0.hasPrefix("inner/") }, ["inner/inner_conv", "inner/inner_bn", "inner/inner_relu"], file)
        }
        for (_, file) in files("shared_conv") {
            let net = try KerasReader.read(paths: [TestData.fixture("keras/\(file)").path])
            let names = Set(net.layers.map(\.name))
            for name in ["shared", "shared@1", "block/block_bn", "block@1/block_bn"] { XCTAssertTrue(names.contains(name), "\(file): \(name)") }
            // Both calls of the shared convolution read the same weights.
            let convolutions = net.layers.filter { $0.name.hasPrefix("shared") }.compactMap { layer -> [Float]? in
                if case .convolution(let c) = layer.kind { return try? c.weights.floats() }
                return nil
            }
            XCTAssertEqual(convolutions.count, 2, file)
            XCTAssertEqual(convolutions.first, convolutions.last, file)
        }
    }
}
