import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// How the commands take a Keras model's input: the shape Keras takes (batch 1 first, or without
/// the batch axis), undefined sizes from the array or --height/--width, and errors that name the
/// file, the shapes taken, the shape found and command-line flags (never Swift API names).
final class KerasInputShapeCommandTests: XCTestCase {
    private static let vectorModel = "real-models/keras1_dl4j_batch_to_conv2d/batch_to_conv2d_tensorflow_1.h5"
    private static let pnet = "real-models/keras_dl4j_mtcnn_12net/12net.h5"

    private func array(_ shape: [Int], in folder: URL, name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        let count = shape.reduce(1, *)
        try NPYFile.encode(values: (0..<count).map { Float($0 % 7) / 7 }, shape: shape).write(to: url)
        return url.path
    }

    private func folder() throws -> URL {
        let url = try TestData.temporaryDirectory("foldkit-keras-input")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testVectorModelTakesBatchFirstAndUnbatchedVectors() throws {
        let model = try TestData.sharedFile(Self.vectorModel).path
        let dir = try folder()
        for shape in [[1, 100], [100]] {
            let input = try array(shape, in: dir, name: "v\(shape.count).npy")
            let result = try CommandRunner.run(["verify", model, "--input", input])
            XCTAssertEqual(result.status, 0, "\(shape): \(result.stderr)")
        }
        // Keras itself refuses (1, 1, 1, 100) for a (None, 100) model, and so does foldkit.
        let image = try array([1, 1, 1, 100], in: dir, name: "v4.npy")
        let refused = try CommandRunner.run(["verify", model, "--input", image])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("v4.npy") && refused.stderr.contains("(1, 100) or (100,)") && refused.stderr.contains("(1, 1, 1, 100)"),
            refused.stderr)
    }

    func testBatchOtherThanOneIsRefusedSayingSo() throws {
        let model = try TestData.sharedFile(Self.vectorModel).path
        let input = try array([2, 100], in: try folder(), name: "batch2.npy")
        let result = try CommandRunner.run(["verify", model, "--input", input])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stderr.contains("only batch 1") && result.stderr.contains("batch2.npy") && result.stderr.contains("(2, 100)"), result.stderr)
    }

    func testUndefinedSizeNamesTheFlagsNotTheAPI() throws {
        let model = try TestData.sharedFile(Self.pnet).path
        for command in ["verify", "inspect", "convert"] {
            let extra = command == "convert" ? ["--out", try folder().appendingPathComponent("blobs").path] : []
            let result = try CommandRunner.run([command, model] + extra)
            XCTAssertEqual(result.status, 1, "\(command): \(result.stdout)")
            XCTAssertTrue(
                result.stderr.contains("--height") && result.stderr.contains("--input") && result.stderr.contains("12net.h5"),
                "\(command): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("KerasReadOptions"), "\(command): \(result.stderr)")
        }
        let sized = try CommandRunner.run(["verify", model, "--height", "12", "--width", "12"])
        XCTAssertEqual(sized.status, 0, sized.stderr)
    }

    func testArrayMustAgreeWithDeclaredAndFlaggedSizes() throws {
        let model = try TestData.sharedFile(Self.pnet).path
        let dir = try folder()
        let fourChannels = try array([1, 12, 12, 4], in: dir, name: "c4.npy")
        let wrongChannels = try CommandRunner.run(["verify", model, "--input", fourChannels])
        XCTAssertEqual(wrongChannels.status, 1)
        XCTAssertTrue(
            wrongChannels.stderr.contains("(1, H, W, 3) or (H, W, 3)") && wrongChannels.stderr.contains("(1, 12, 12, 4)"), wrongChannels.stderr)
        let twelve = try array([12, 12, 3], in: dir, name: "hwc.npy")
        XCTAssertEqual(try CommandRunner.run(["verify", model, "--input", twelve]).status, 0)
        let disagreeing = try CommandRunner.run(["verify", model, "--input", twelve, "--height", "24", "--width", "24"])
        XCTAssertEqual(disagreeing.status, 1)
        XCTAssertTrue(disagreeing.stderr.contains("(1, 24, 24, 3) or (24, 24, 3)") && disagreeing.stderr.contains("(12, 12, 3)"), disagreeing.stderr)
    }
}
