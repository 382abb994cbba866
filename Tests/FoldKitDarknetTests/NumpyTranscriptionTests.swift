import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Darknet layers OpenCV does not read ([crop], softmax with a temperature, the ramp activation)
/// against a numpy transcription of darknet's C code (Fixtures/darknet/numpy/generate.py, which also
/// writes the weights and the input): every layer of every network there, in float64 to 1e-7 of the
/// layer's largest value (the reference is read back as float32), and in float32 to 1e-5.
final class NumpyTranscriptionTests: XCTestCase {
    func testEveryNetworkMatchesTheTranscription() throws {
        let root = TestData.fixture("darknet/numpy")
        let names = try JSONDecoder().decode([String].self, from: Data(contentsOf: root.appendingPathComponent("networks.json")))
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let folder = root.appendingPathComponent(name)
            let network = try DarknetReader.read(
                cfgPath: folder.appendingPathComponent("model.cfg").path, weightsPath: folder.appendingPathComponent("model.weights").path)
            let input = try NPYFile.read(path: folder.appendingPathComponent("input.npy").path)
            let double = try Executor<Double>(network: network).run(input: input.values.map(Double.init))
            let float = try Executor<Float>(network: network).run(input: input.values)
            for index in network.layers.indices {
                let reference = try NPYFile.read(path: folder.appendingPathComponent("layer_\(index).npy").path)
                let label = "\(name) layer \(index) \(network.layers[index].kind.typeName)"
                XCTAssertEqual(reference.values.count, network.layers[index].outputShape.count, label)
                guard reference.values.count == double[index].count else { continue }
                let largest = reference.values.map { abs(Double($0)) }.max() ?? 0
                XCTAssertGreaterThan(largest, 0, label)
                let worst64 = zip(double[index], reference.values).map { abs($0 - Double($1)) }.max() ?? 0
                let worst32 = zip(float[index], reference.values).map { abs(Double($0) - Double($1)) }.max() ?? 0
                // The reference is stored as float64 and read back as float32 (one rounding, 6e-8 relative).
                XCTAssertLessThanOrEqual(worst64, 1e-7 * largest, label + " (float64)")
                XCTAssertLessThanOrEqual(worst32, 1e-5 * largest, label + " (float32)")
            }
        }
    }
}
