import FoldKitDarknet
import FoldKitLoader
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// A blob folder is all an app needs: its manifest names the input, the heads and the class names, and
/// the boxes an app decodes from the folder alone (network rebuilt from the folder, image prepared as the
/// manifest says, heads decoded by FoldKitLoader) are the boxes `foldkit verify --image` reports for the
/// folded network.
final class SelfDescribingBlobsTests: XCTestCase {
    private let stem = "real-models/yolo-fastest-1.1/yolo-fastest-1.1"
    private var dog: URL { TestData.repositoryRoot.appendingPathComponent("Docs/Examples/YoloFastest/Sources/YoloFastestExample/Model/dog.jpg") }

    private func convert(_ model: [String], extra: [String] = []) throws -> URL {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let blobs = dir.appendingPathComponent("blobs")
        let result = try CommandRunner.run(["convert"] + model + ["--out", blobs.path] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return blobs
    }

    func testManifestDescribesInputHeadsAndClassNames() throws {
        let model = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        let folder = try BlobFolder(url: try convert(model))
        XCTAssertEqual(folder.manifest.version, 2)
        XCTAssertEqual(folder.toolVersion, FoldKitVersion.string)
        let input = try XCTUnwrap(folder.input)
        XCTAssertEqual(input.shape, [3, 320, 320])
        XCTAssertEqual(input.channelOrder, "rgb")
        XCTAssertEqual(input.resize, "stretch")
        XCTAssertEqual(try XCTUnwrap(input.pixelScale), 1.0 / 255, accuracy: 1e-15)
        let network = try ModelLoader.load(paths: model)
        let heads = network.layers.compactMap { layer -> (Int, DetectionHead)? in
            if case .detection(let head) = layer.kind { return (layer.index, head) } else { return nil }
        }
        XCTAssertEqual(folder.heads.map(\.layer), heads.map(\.0))
        XCTAssertEqual(folder.heads.map(\.decoding), heads.map(\.1))
        let names = try String(contentsOf: try TestData.sharedFile("real-models/yolo-fastest-1.1/coco.names"), encoding: .utf8)
        XCTAssertEqual(folder.classNames, names.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })

        // [net] letter_box=1 makes the resize rule letterbox; a Keras file states no image convention.
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = try String(contentsOfFile: model[0], encoding: .utf8).replacingOccurrences(of: "[net]", with: "[net]\nletter_box=1")
        let boxed = dir.appendingPathComponent("boxed.cfg")
        try cfg.write(to: boxed, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try BlobFolder(
                url: try convert(
                    [boxed.path, model[1]], extra: ["--names", try TestData.sharedFile("real-models/yolo-fastest-1.1/coco.names").path])
            ).input?.resize, "letterbox")
        let keras = try BlobFolder(url: try convert([TestData.fixture("keras/dag.tfkeras.h5").path]))
        XCTAssertEqual(keras.input?.modelLayout, "NHWC")
        XCTAssertNil(keras.input?.resize)
        XCTAssertNil(keras.input?.pixelScale)
        XCTAssertEqual(keras.heads.count, 0)
    }

    /// The example app's path, for float32 and float16 blobs: dog.jpg through the rebuilt network, decoded by
    /// FoldKitLoader, equals verify's folded boxes (same classes and scores, IoU over 0.9999).
    func testBoxesFromTheFolderAloneAreVerifysBoxes() throws {
        let model = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        for dtype in ["float32", "float16"] {
            let blobs = try convert(model, extra: ["--dtype", dtype])
            let folder = try BlobFolder(url: blobs)
            let network = try BlobNetwork.read(folder: blobs)
            let input = try XCTUnwrap(folder.input)
            var preprocessing = ImagePreprocessing(
                mode: try XCTUnwrap(ResizeMode(rawValue: input.resize ?? "")),
                channelOrder: try XCTUnwrap(ChannelOrder(rawValue: input.channelOrder ?? "")))
            let picture = try ImageFile.read(path: dog.path)
            let values = try preprocessing.tensor(from: picture, shape: network.inputShape)
            // The executor as verify runs the candidate (parameters streamed): in float16 storage the kernel
            // chosen changes float32 sums in their last bits, which the rounding to float16 can show.
            let options = (dtype == "float16" ? VerificationPrecision.float16Storage : .float32).executorOptions(productThreading: .splitAcrossCores)
            let outputs = try Executor<Float>(network: network, options: options).run(input: values)
            let boxes = try folder.detections(headOutputs: folder.heads.map { outputs[$0.layer] })

            let json = blobs.deletingLastPathComponent().appendingPathComponent("verify.json")
            let result = try CommandRunner.run(["verify"] + model + ["--blobs", blobs.path, "--image", dog.path, "--json", json.path])
            XCTAssertEqual(result.status, 0, result.stdout.suffix(2000) + result.stderr)
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any] ?? [:]
            let detections = try XCTUnwrap(report["detections"] as? [String: Any])
            let verified = try XCTUnwrap(detections["candidateDetections"] as? [[String: Any]])
            XCTAssertFalse(verified.isEmpty, dtype)
            let (w, h) = (Float(picture.width), Float(picture.height))
            /// A box in image pixels clipped to the image, as verify reports it (stretch: the whole input).
            func pixels(_ d: Detection) -> Detection {
                let left = max(0, (d.x - d.width / 2) * w), right = min(w, (d.x + d.width / 2) * w)
                let top = max(0, (d.y - d.height / 2) * h), bottom = min(h, (d.y + d.height / 2) * h)
                return Detection(
                    classIndex: d.classIndex, score: d.score, objectness: d.objectness, x: (left + right) / 2, y: (top + bottom) / 2,
                    width: right - left, height: bottom - top)
            }
            let reported = verified.map { e -> Detection in
                let l = Float(e["left"] as? Double ?? 0), r = Float(e["right"] as? Double ?? 0)
                let t = Float(e["top"] as? Double ?? 0), b = Float(e["bottom"] as? Double ?? 0)
                return Detection(
                    classIndex: e["classIndex"] as? Int ?? -1, score: Float(e["score"] as? Double ?? 0), objectness: 0, x: (l + r) / 2,
                    y: (t + b) / 2, width: r - l, height: b - t)
            }
            if dtype == "float32" {
                // The same float32 network, decoder and NMS: the same boxes in the same order.
                XCTAssertEqual(boxes.map(\.classIndex), reported.map(\.classIndex), dtype)
                for (box, expected) in zip(boxes, reported) {
                    XCTAssertEqual(box.score, expected.score, accuracy: 1e-6, dtype)
                    XCTAssertGreaterThan(pixels(box).iou(expected), 0.9999, "\(dtype): \(box) vs \(expected)")
                }
            } else {
                // float16 storage rounds every layer's float32 sums; sums that differ in their last float32 bits
                // (the kernel a run picks) round apart, so scores move by float16's resolution and boxes near the
                // threshold may swap. Every box clearly above it (by 0.02) has its counterpart of the same class
                // within verify's own box allowance (the report's minimumIoU) and 2^-7 in score.
                let minimumIoU = Float(detections["minimumIoU"] as? Double ?? 1)
                for box in boxes where box.score > 0.32 {
                    let best = reported.filter { $0.classIndex == box.classIndex }.max { pixels(box).iou($0) < pixels(box).iou($1) }
                    let match = try XCTUnwrap(best, "\(dtype): no reported box of class \(box.classIndex)")
                    XCTAssertGreaterThanOrEqual(pixels(box).iou(match), minimumIoU, "\(dtype): \(box) vs \(match)")
                    XCTAssertEqual(box.score, match.score, accuracy: 0x1.0p-7, "\(dtype): \(box) vs \(match)")
                }
            }
        }
    }

    /// A folded value past 65504 refuses float16 blobs naming the layer, and nothing is written.
    func testFloat16OverflowIsRefusedNamingTheLayer() throws {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weights = dir.appendingPathComponent("w.weights")
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 4, to: weights.path)
        // Layer 0's first float after the 20-byte header is its first bias (batch-norm beta): 1e5.
        var bytes = try Data(contentsOf: weights)
        withUnsafeBytes(of: Float(1e5).bitPattern.littleEndian) { bytes.replaceSubrange(20..<24, with: $0) }
        try bytes.write(to: weights)
        let out = dir.appendingPathComponent("blobs")
        let refused = try CommandRunner.run(["convert", cfg, weights.path, "--out", out.path, "--dtype", "float16"])
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("layer 0") && refused.stderr.contains("65504"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing is written")
        let float32 = try CommandRunner.run(["convert", cfg, weights.path, "--out", out.path])
        XCTAssertEqual(float32.status, 0, "float32 blobs hold it: " + float32.stderr)
    }
}
