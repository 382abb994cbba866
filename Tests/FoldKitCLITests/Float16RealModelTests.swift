import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Every real model in ../shared/real-models as float16 blobs: half the bytes of its float32 blobs, and
/// `verify --blobs` exits 0 (the fold judged in float32, every blob value that fold rounded to float16,
/// the float16-storage pass run on the blob values). Injected errors: `FoldErrorInjectionTests`.
final class Float16RealModelTests: XCTestCase {
    func testEveryRealModelVerifiesFromFloat16Blobs() throws {
        let models = try RealModels.all()
        XCTAssertGreaterThanOrEqual(models.count, 20, "\(models.map(\.name))")
        XCTAssertTrue(Set(RealModels.refused).isSubset(of: models.map(\.name)), "the refused files are among the models")
        for model in models where !RealModels.refused.contains(model.name) {
            let dir = try TestData.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            // Darknet detectors run at 128 x 128 (fully convolutional) to keep the debug build quick; a Keras
            // model whose input size is undefined (MTCNN's 12net) is given 24 x 24.
            let fullyConvolutional = model.files[0].hasSuffix(".cfg") && !["cifar_small.cfg", "mnist_lenet.cfg"].contains(model.name)
            let size = fullyConvolutional ? ["--height", "128", "--width", "128"] : RealModels.kerasSize(model)
            var bytes: [String: Int] = [:]
            for dtype in ["float32", "float16"] {
                let out = dir.appendingPathComponent(dtype)
                let result = try CommandRunner.run(["convert"] + model.files + ["--out", out.path, "--dtype", dtype] + size)
                XCTAssertEqual(result.status, 0, "\(model.name) \(dtype): " + result.stderr)
                let manifest = try BlobFolderReader.manifest(in: out)
                XCTAssertTrue(manifest.tensors.allSatisfy { $0.dtype.rawValue == dtype }, model.name)
                bytes[dtype] = try manifest.tensors.reduce(0) { sum, entry in
                    sum + (try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(entry.file).path)[.size] as? Int ?? 0)
                }
            }
            XCTAssertEqual((bytes["float16"] ?? 0) * 2, bytes["float32"], "\(model.name): float16 blobs are half the size")
            let verify = try CommandRunner.run(["verify"] + model.files + ["--blobs", dir.appendingPathComponent("float16").path] + size)
            XCTAssertEqual(verify.status, 0, "\(model.name): " + verify.stdout.suffix(2500) + verify.stderr)
            XCTAssertTrue(verify.stdout.contains("the blobs are float16"), model.name)
            print("FLOAT16 | \(model.name) | \(bytes["float32"] ?? 0) -> \(bytes["float16"] ?? 0) bytes | exit \(verify.status) |")
        }
    }
}
