import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// On yolo-fastest-1.1 with dog.jpg, the original and folded networks find the same
/// boxes, and they agree with OpenCV DNN's detections for the same input (Fixtures/detections/generate.py).
final class DetectionsAgainstOpenCVTests: XCTestCase {
    private struct Reference: Decodable {
        struct Box: Decodable { var classIndex: Int; var score: Float; var x: Float; var y: Float; var width: Float; var height: Float }
        var threshold: Float
        var nms: Float
        var detections: [Box]
    }

    func testBoxesMatchOpenCV() throws {
        let folder = "real-models/yolo-fastest-1.1/"
        let cfg = try TestData.sharedFile(folder + "yolo-fastest-1.1.cfg").path
        let weights = try TestData.sharedFile(folder + "yolo-fastest-1.1.weights").path
        let image = try TestData.sharedFile(folder + "dog.jpg").path
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: TestData.fixture("detections/yolo-fastest-1.1-dog.json")))

        let original = try ModelLoader.load(paths: [cfg, weights])
        var preprocessing = ImagePreprocessing(mode: .stretch, channelOrder: .rgb)
        let input = ModelInput(values: try preprocessing.tensor(from: ImageFile.read(path: image), shape: original.inputShape), origin: "dog.jpg")
        let report = try Verifier.verify(
            original: original, folded: FoldBatchNorm.apply(to: original), input: input,
            options: .init(detectionThreshold: reference.threshold, nmsIoU: reference.nms))
        guard let detections = report.detections else { return XCTFail("no detection heads found") }
        XCTAssertTrue(detections.pass, "original and folded boxes differ")
        let ours = detections.pairs.map(\.reference)
        XCTAssertEqual(
            ours.count, reference.detections.count, "box count: ours \(ours.map(\.classIndex)), OpenCV \(reference.detections.map(\.classIndex))")
        var unmatched = ours
        for box in reference.detections {
            let expected = Detection(
                classIndex: box.classIndex, score: box.score, objectness: 1, x: box.x, y: box.y, width: box.width, height: box.height)
            guard
                let best = unmatched.indices.filter({ unmatched[$0].classIndex == box.classIndex }).max(by: {
                    unmatched[$0].iou(expected) < unmatched[$1].iou(expected)
                })
            else {
                XCTFail("OpenCV box of class \(box.classIndex) has no counterpart"); continue
            }
            XCTAssertGreaterThanOrEqual(unmatched[best].iou(expected), 0.95, "class \(box.classIndex)")
            XCTAssertEqual(unmatched[best].score, box.score, accuracy: 1e-3, "class \(box.classIndex) score")
            unmatched.remove(at: best)
        }
    }
}
