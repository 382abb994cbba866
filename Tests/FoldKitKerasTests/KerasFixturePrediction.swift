import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitIO
@testable import FoldKitKeras

/// Keras' own predictions for the fixtures of Fixtures/keras (generate.py, generate_layers.py), reproduced
/// by running the network KerasReader reads through the float64 executor, within 1e-4 x max|reference|.
enum KerasFixturePrediction {
    /// (1, H, W, C) or (H, W, C) -> C x H x W in float64; vectors unchanged.
    static func toCHW(_ values: [Float], shape: ActivationShape) -> [Double] {
        TensorLayout.hwcToCHW(values, shape: shape).map(Double.init)
    }

    /// C x H x W -> H x W x C (Keras' order for comparisons).
    static func toHWC(_ values: [Double], shape: ActivationShape) -> [Double] {
        TensorLayout.chwToHWC(values, shape: shape)
    }

    static func assertClose(_ found: [Double], _ reference: [Float], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(reference.isEmpty, "\(what): empty reference", file: file, line: line)
        FoldKitTestSupport.assertClose(found, reference, scaledTolerance: 1e-4, "\(what) vs Keras", file: file, line: line)
    }

    /// Runs `paths` on `<model>.input.npy` and compares every output with `<model>.<saver>.out<k>.npy`.
    static func check(model: String, saver: String, paths: [String]) throws {
        let net = try KerasReader.read(paths: paths.map { TestData.fixture("keras/\($0)").path })
        let input = try NPYFile.read(path: TestData.fixture("keras/\(model).input.npy").path)
        XCTAssertEqual(input.values.count, net.inputShape.count, "\(model) input size")
        let results = try Executor<Double>(network: net).run(input: toCHW(input.values, shape: net.inputShape), retention: .all)
        guard results.count == net.layers.count else {
            return XCTFail("executor returned \(results.count) layer outputs for \(net.layers.count) layers")
        }
        for (k, index) in net.outputIndices.enumerated() {
            let reference = try NPYFile.read(path: TestData.fixture("keras/\(model).\(saver).out\(k).npy").path)
            let shape = net.layers[index].outputShape
            XCTAssertEqual(reference.values.count, shape.count, "\(model) output \(k) size (\(shape) vs \(reference.shape))")
            assertClose(toHWC(results[index], shape: shape), reference.values, "\(paths[0]) output \(k) '\(net.layers[index].name)'")
        }
    }

}
