import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Darknet layers OpenCV does not read ([crop], softmax with a temperature, the ramp activation) and the
/// buffers darknet's detection heads hold (what fixture packs store for them, `DarknetLayerOutput`)
/// against a numpy transcription of darknet's C code (Fixtures/darknet/numpy/generate.py, which also
/// writes the weights and the input): every layer of every network there, in float64 to 1e-7 of the
/// layer's largest value (the reference is read back as float32), and in float32 to 1e-5. A head's
/// reference is darknet's buffer: it is compared with the pack's tensor for it (`FixtureWriter.stored`).
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
                // What a fixture pack stores for the layer (darknet's buffer for heads), from each pass.
                func stored(_ values: [Float]) -> [Float] {
                    FixtureWriter.stored(network: network, position: index + 1, values: values, layout: .nchw, vectors: []).first?.values ?? []
                }
                let ours64 =
                    DarknetLayerOutput.differs(network.layers[index]) ? stored(double[index].map { Float($0) }).map(Double.init) : double[index]
                let ours32 = stored(float[index])
                if DarknetLayerOutput.differs(network.layers[index]) {
                    XCTAssertNotEqual(ours32, float[index], label + ": darknet's buffer differs from the raw input")
                }
                let largest = reference.values.map { abs(Double($0)) }.max() ?? 0
                XCTAssertGreaterThan(largest, 0, label)
                let worst64 = zip(ours64, reference.values).map { abs($0 - Double($1)) }.max() ?? 0
                let worst32 = zip(ours32, reference.values).map { abs(Double($0) - Double($1)) }.max() ?? 0
                // The reference is stored as float64 and read back as float32 (one rounding, 6e-8 relative).
                // Heads are transformed from float32-rounded values (as packs are): 1e-7 still holds.
                XCTAssertLessThanOrEqual(worst64, 1e-7 * largest, label + " (float64)")
                XCTAssertLessThanOrEqual(worst32, 1e-5 * largest, label + " (float32)")
            }
        }
    }

    /// The heads of real cfgs - yolov3-tiny and yolov4-tiny ([yolo], scale_x_y 1.05), yolov7-tiny
    /// (new_coords=1, scale_x_y 2), yolov2-voc ([region] with softmax) - against darknet's head code applied
    /// in numpy to OpenCV's output of the layer before (Fixtures/darknet/numpy/heads.py): FoldKit's pack
    /// tensor for each head, from the head's input as OpenCV computed it, to 1e-6 of its largest value.
    func testRealHeadsMatchDarknetOnOpenCVInputs() throws {
        for model in ["yolov3-tiny", "yolov4-tiny", "yolov7-tiny", "yolov2-voc"] {
            let cfg = try TestData.sharedFile("darknet-cfg/\(model).cfg")
            let network = try DarknetReader.read(
                cfgPath: cfg.path, weightsPath: nil, options: DarknetReadOptions(inputHeight: 32, inputWidth: 32))
            let folder = TestData.fixture("darknet/numpy/opencv-heads/\(model)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".npy") }.sorted()
            XCTAssertFalse(files.isEmpty, model)
            for file in files {
                let index = try XCTUnwrap(Int(file.dropFirst("layer_".count).dropLast(".npy".count)), file)
                let layer = network.layers[index]
                XCTAssertTrue(DarknetLayerOutput.differs(layer), "\(model) layer \(index) is a head")
                let input = try NPYFile.read(path: TestData.fixture("opencv/\(model)/layer_\(index - 1).npy").path)
                let reference = try NPYFile.read(path: folder.appendingPathComponent(file).path)
                let ours = try XCTUnwrap(
                    FixtureWriter.stored(network: network, position: index + 1, values: input.values, layout: .nchw, vectors: []).first)
                XCTAssertEqual(ours.shape, reference.shape, "\(model) layer \(index)")
                let largest = reference.values.map { abs(Double($0)) }.max() ?? 0
                let worst = zip(ours.values, reference.values).map { abs(Double($0) - Double($1)) }.max() ?? .infinity
                XCTAssertLessThanOrEqual(worst, 1e-6 * largest, "\(model) layer \(index)")
            }
        }
    }
}
