import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// Darknet layers OpenCV does not read ([crop], softmax with a temperature, the ramp activation, [local],
/// [region] with a class tree) and the
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

    /// Boxes of the heads the transcription decodes itself, FoldKit's decoder on the head's float32 output
    /// against detections_<i>.json (cell, box, class, x, y, w, h, probability above the threshold): the same
    /// boxes in the same order, to 1e-5. `local-detection`: YOLOv1's [detection] (darknet's
    /// `get_detection_detections`); `region-tree`: YOLO9000's [region] with a class tree (darknet's
    /// `get_region_boxes` with `softmax_tree`: one class a box, its hierarchical probability).
    func testDecodedBoxesMatchTheTranscription() throws {
        for (name, kind) in [("local-detection", DetectionHead.Kind.detection), ("region-tree", .region)] {
            let folder = TestData.fixture("darknet/numpy/\(name)")
            let network = try DarknetReader.read(
                cfgPath: folder.appendingPathComponent("model.cfg").path, weightsPath: folder.appendingPathComponent("model.weights").path)
            let input = try NPYFile.read(path: folder.appendingPathComponent("input.npy").path)
            let outputs = try Executor<Float>(network: network).run(input: input.values)
            struct Reference: Decodable {
                var threshold: Float
                var boxes: [[Double]]
            }
            let index = try XCTUnwrap(network.outputIndices.first)
            guard case .detection(let head) = network.layers[index].kind else { return XCTFail("\(name): layer \(index) is not a head") }
            XCTAssertEqual(head.kind, kind, name)
            XCTAssertEqual(head.tree != nil, kind == .region, name)
            let reference = try JSONDecoder().decode(
                Reference.self, from: Data(contentsOf: folder.appendingPathComponent("detections_\(index).json")))
            XCTAssertFalse(reference.boxes.isEmpty, name)
            let boxes = outputs[index].withUnsafeBufferPointer { buffer in
                DetectionDecoder.decode(
                    head: head, output: buffer, shape: network.layers[index].outputShape, networkInput: network.inputShape,
                    threshold: reference.threshold)
            }
            XCTAssertEqual(boxes.count, reference.boxes.count, name)
            // darknet lists a region's boxes cell by cell, anchor by anchor; FoldKit anchor by anchor.
            let ordered = boxes.sorted { ($0.cell, $0.anchor, $0.classIndex) < ($1.cell, $1.anchor, $1.classIndex) }
            for (ours, theirs) in zip(ordered, reference.boxes) {
                XCTAssertEqual([ours.cell, ours.anchor, ours.classIndex], theirs.prefix(3).map { Int($0) }, name)
                let values = [ours.x, ours.y, ours.width, ours.height, ours.score].map(Double.init)
                for (a, b) in zip(values, theirs.suffix(5)) { XCTAssertEqual(a, b, accuracy: 1e-5, "\(name) \(theirs)") }
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

    /// A box of the transcription's `layer_<i>_boxes.json` (darknet's get_gaussian_yolo_detections).
    private struct TranscribedBox: Decodable {
        var `class`: Int
        var score: Double, x: Double, y: Double, w: Double, h: Double
        var cell: Int, anchor: Int
    }

    /// [Gaussian_yolo] boxes decoded by FoldKit from the head's input against the transcription of
    /// darknet's decoding (threshold 0.2, the generator's BOX_THRESHOLD): the same boxes (cell, anchor,
    /// class), each score and side to 1e-5.
    func testGaussianYoloBoxesMatchTheTranscription() throws {
        let folder = TestData.fixture("darknet/numpy/heads")
        let network = try DarknetReader.read(
            cfgPath: folder.appendingPathComponent("model.cfg").path, weightsPath: folder.appendingPathComponent("model.weights").path)
        let input = try NPYFile.read(path: folder.appendingPathComponent("input.npy").path)
        let outputs = try Executor<Double>(network: network).run(input: input.values.map(Double.init), retention: .all)
        var checked = 0
        for layer in network.layers {
            guard case .detection(let head) = layer.kind, head.kind == .gaussianYolo else { continue }
            let url = folder.appendingPathComponent("layer_\(layer.index)_boxes.json")
            let expected = try JSONDecoder().decode([TranscribedBox].self, from: Data(contentsOf: url))
            XCTAssertFalse(expected.isEmpty, url.path)
            let raw = outputs[layer.index].map { Float($0) }
            let boxes = raw.withUnsafeBufferPointer {
                DetectionDecoder.decode(head: head, output: $0, shape: layer.outputShape, networkInput: network.inputShape, threshold: 0.2)
            }
            XCTAssertEqual(boxes.count, expected.count, "layer \(layer.index)")
            for box in expected {
                guard let ours = boxes.first(where: { $0.cell == box.cell && $0.anchor == box.anchor && $0.classIndex == box.class }) else {
                    XCTFail("layer \(layer.index): no box for cell \(box.cell) anchor \(box.anchor) class \(box.class)")
                    continue
                }
                for (a, b) in [(ours.score, box.score), (ours.x, box.x), (ours.y, box.y), (ours.width, box.w), (ours.height, box.h)] {
                    XCTAssertEqual(Double(a), b, accuracy: 1e-5 * max(1, abs(b)), "layer \(layer.index) cell \(box.cell)")
                }
            }
            checked += 1
        }
        XCTAssertEqual(checked, 1, "the heads network has one [Gaussian_yolo]")
    }
}
