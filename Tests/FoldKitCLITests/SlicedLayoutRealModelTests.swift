import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `foldkit convert --layout sliced` on every real model in ../shared/real-models: each weights blob holds,
/// element by element, the OIHW blob of `--layout oihw` at the place Docs/BlobFormat.md "Sliced layout"
/// gives, and zeros in the padding; every other blob is byte-identical.
final class SlicedLayoutRealModelTests: XCTestCase {
    /// Keras models with the files and options `convert` takes (Docs/Formats); the Darknet pairs are found
    /// by listing the folders. qkeras-v3_3layer.keras is left out: its QDense layers are refused.
    private static let kerasModels: [(files: [String], options: [String])] = [
        (["keras_fer2013_mini_XCEPTION/fer2013_mini_XCEPTION.102-0.66.hdf5"], []),
        (["keras_fer2013_mini_XCEPTION/gender_mini_XCEPTION.21-0.95.hdf5"], []),
        (["keras_aXeleRate_mobilenet_yolov2/YOLO_best_mAP.h5"], []),
        (["keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.h5"], []),
        (["keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.json", "keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer_weights.h5"], []),
        (["keras_hls4ml_conv2d_model_sequential/keras_conv2d_model.h5"], []),
        (["keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model.json", "keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model_weights.h5"], []),
        (["keras_hls4ml_jetTagger_Conv2D_Small/keras_jetTagger_Conv2D_small.h5"], []),
        (
            [
                "keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small.json",
                "keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small_weights.h5",
            ], []
        ),
        (["keras_dl4j_mtcnn_12net/12net.h5"], ["--height", "24", "--width", "24"]),
        (["keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5"], []),
        (["keras1_dl4j_batch_to_conv2d/batch_to_conv2d_tensorflow_1.h5"], []),
        (["keras1_dl4j_batch_to_conv2d/batch_to_conv2d_tensorflow_2.h5"], []),
        (["keras1_dl4j_batch_to_conv2d/batch_to_conv2d_theano_1.h5"], []),
        (["keras1_dl4j_batch_to_conv2d/batch_to_conv2d_theano_2.h5"], []),
        (["keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_config.json", "keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_weights.h5"], []),
    ]
    private static let refusedKerasFiles: Set<String> = ["keras3_hls4ml_qkeras_v3_3layer/qkeras-v3_3layer.keras"]

    private func floats(_ url: URL) throws -> [Float] { FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: url)) }

    /// Every model file under real-models: Darknet (cfg, weights) pairs and the Keras list, which must
    /// name every Keras file there (a new model is not silently left out).
    private func allModels() throws -> [(files: [String], options: [String])] {
        let root = try TestData.sharedFile("real-models")
        var models: [(files: [String], options: [String])] = []
        var kerasFiles = Set<String>()
        for folder in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let path = root.appendingPathComponent(folder)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            let files = try FileManager.default.contentsOfDirectory(atPath: path.path).sorted()
            let cfgs = files.filter { $0.hasSuffix(".cfg") }, weights = files.filter { $0.hasSuffix(".weights") }
            if cfgs.count == 1, weights.count == 1 { models.append(([folder + "/" + cfgs[0], folder + "/" + weights[0]], [])) }
            for file in files where [".h5", ".hdf5", ".keras"].contains(where: file.hasSuffix) { kerasFiles.insert(folder + "/" + file) }
        }
        let listed = Set(Self.kerasModels.flatMap(\.files)).union(Self.refusedKerasFiles)
        XCTAssertEqual(kerasFiles.subtracting(listed), [], "Keras files in real-models this test does not convert")
        XCTAssertGreaterThanOrEqual(models.count, 10, "Darknet pairs found")
        return models + Self.kerasModels
    }

    func testSlicedBlobsHoldTheOIHWBlobsAtTheDocumentedOffsets() throws {
        let root = try TestData.sharedFile("real-models")
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var weightBlobs = 0, depthwiseBlobs = 0, paddedBlobs = 0
        for (n, model) in try allModels().enumerated() {
            let paths = model.files.map { $0.hasPrefix("/") ? $0 : root.appendingPathComponent($0).path }
            let name = URL(fileURLWithPath: paths.last ?? "").lastPathComponent
            let oihwFolder = dir.appendingPathComponent("\(n)-oihw"), slicedFolder = dir.appendingPathComponent("\(n)-sliced")
            for (folder, layout) in [(oihwFolder, "oihw"), (slicedFolder, "sliced")] {
                let result = try CommandRunner.run(["convert"] + paths + model.options + ["--out", folder.path, "--layout", layout])
                XCTAssertEqual(result.status, 0, "\(name) \(layout): \(result.stderr)")
            }
            let oihw = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: oihwFolder.appendingPathComponent("manifest.json")))
            let sliced = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: slicedFolder.appendingPathComponent("manifest.json")))
            XCTAssertEqual(oihw.tensors.map(\.name), sliced.tensors.map(\.name), name)
            for (plain, slicedTensor) in zip(oihw.tensors, sliced.tensors) {
                let what = "\(name) \(plain.name)"
                let source = try floats(oihwFolder.appendingPathComponent(plain.file))
                let stored = try floats(slicedFolder.appendingPathComponent(slicedTensor.file))
                guard plain.role == .weights else {
                    XCTAssertEqual(stored, source, what)
                    XCTAssertEqual(slicedTensor.layout, plain.layout, what)
                    continue
                }
                weightBlobs += 1
                XCTAssertEqual(plain.layout, .oihw, what)
                guard plain.shape.count == 4 else { XCTFail("\(what): weights of shape \(plain.shape)"); continue }
                let (O, I, kh, kw) = (plain.shape[0], plain.shape[1], plain.shape[2], plain.shape[3])
                let entry = oihw.layers.first { $0.index == plain.layer }
                let depthwise = (entry?.groups ?? 1) > 1 && entry?.groups == O && I == 1
                let paddedInputs = (I + 3) / 4 * 4, slices = (O + 3) / 4
                XCTAssertEqual(slicedTensor.layout, depthwise ? .slicedDepthwise : .sliced, what)
                XCTAssertEqual(slicedTensor.shape, depthwise ? [slices, kh, kw, 4] : [O, kh, kw, paddedInputs], what)
                XCTAssertEqual(stored.count, slicedTensor.shape.reduce(1, *), what)
                XCTAssertEqual(slicedTensor.byteCount, stored.count * 4, what)
                guard stored.count == slicedTensor.shape.reduce(1, *) else { continue }
                depthwiseBlobs += depthwise ? 1 : 0
                paddedBlobs += stored.count > source.count ? 1 : 0
                var covered = [Bool](repeating: false, count: stored.count)
                var mismatches = 0
                for o in 0..<O {
                    for i in 0..<I {
                        for y in 0..<kh {
                            for x in 0..<kw {
                                let offset = depthwise ? (((o / 4) * kh + y) * kw + x) * 4 + o % 4 : ((o * kh + y) * kw + x) * paddedInputs + i
                                if stored[offset].bitPattern != source[((o * I + i) * kh + y) * kw + x].bitPattern { mismatches += 1 }
                                covered[offset] = true
                            }
                        }
                    }
                }
                XCTAssertEqual(mismatches, 0, "\(what): elements not at the documented offset")
                let nonZeroPadding = zip(covered, stored).filter { !$0.0 && $0.1.bitPattern != 0 }.count
                XCTAssertEqual(nonZeroPadding, 0, "\(what): padding that is not +0")
            }
        }
        XCTAssertGreaterThan(weightBlobs, 500)
        XCTAssertGreaterThan(depthwiseBlobs, 0, "some real model has depthwise convolutions")
        XCTAssertGreaterThan(paddedBlobs, 0, "some real model has channel counts that are not multiples of 4")
    }
}
