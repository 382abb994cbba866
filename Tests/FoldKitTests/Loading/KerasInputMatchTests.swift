import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitIO
@testable import FoldKitKeras

/// Matching an input array against a Keras model's declared input: the shapes Keras takes (batch 1
/// first, or no batch axis), undefined sizes filled from the array, and the transposition to C x H x W.
final class KerasInputMatchTests: XCTestCase {
    private let pnet = KerasInputDeclaration(dims: [nil, nil, 3], channelsFirst: false)
    private let vector = KerasInputDeclaration(dims: [100], channelsFirst: false)
    private let theano = KerasInputDeclaration(dims: [1, 28, 28], channelsFirst: true)

    private func array(_ shape: [Int]) -> InputArray {
        InputArray(path: "x.npy", shape: shape, values: (0..<shape.reduce(1, *)).map(Float.init))
    }

    private func usageError(_ body: () throws -> Any) -> FoldKitError? {
        do { _ = try body(); return nil } catch let error as FoldKitError { return error } catch { return nil }
    }

    func testBatchFirstAndUnbatchedShapesAreTaken() throws {
        XCTAssertEqual(try KerasInputMatch.dims(of: array([1, 100]), declaration: vector, height: nil, width: nil, modelFile: "m.h5"), [100])
        XCTAssertEqual(try KerasInputMatch.dims(of: array([100]), declaration: vector, height: nil, width: nil, modelFile: "m.h5"), [100])
        XCTAssertEqual(
            try KerasInputMatch.dims(of: array([1, 1, 28, 28]), declaration: theano, height: nil, width: nil, modelFile: "m.h5"), [1, 28, 28])
    }

    func testUndefinedSizesComeFromTheArray() throws {
        XCTAssertEqual(
            try KerasInputMatch.dims(of: array([1, 12, 17, 3]), declaration: pnet, height: nil, width: nil, modelFile: "m.h5"), [12, 17, 3])
        XCTAssertEqual(try KerasInputMatch.dims(of: array([12, 17, 3]), declaration: pnet, height: 12, width: 17, modelFile: "m.h5"), [12, 17, 3])
    }

    func testWrongShapesNameFileExpectedAndFound() {
        let rank = usageError {
            try KerasInputMatch.dims(of: self.array([1, 1, 1, 100]), declaration: self.vector, height: nil, width: nil, modelFile: "m.h5")
        }
        XCTAssertEqual(rank?.file, "x.npy")
        XCTAssertEqual(rank?.expected, "(1, 100) or (100,) for m.h5")
        XCTAssertEqual(rank?.found, "(1, 1, 1, 100)")
        let channels = usageError {
            try KerasInputMatch.dims(of: self.array([1, 12, 12, 4]), declaration: self.pnet, height: nil, width: nil, modelFile: "m.h5")
        }
        XCTAssertEqual(channels?.expected, "(1, H, W, 3) or (H, W, 3) for m.h5")
        let flagged = usageError {
            try KerasInputMatch.dims(of: self.array([1, 12, 12, 3]), declaration: self.pnet, height: 24, width: 24, modelFile: "m.h5")
        }
        XCTAssertEqual(flagged?.expected, "(1, 24, 24, 3) or (24, 24, 3) for m.h5")
        let batch = usageError {
            try KerasInputMatch.dims(of: self.array([2, 100]), declaration: self.vector, height: nil, width: nil, modelFile: "m.h5")
        }
        XCTAssertTrue(batch?.message.contains("only batch 1") ?? false, "\(String(describing: batch))")
        XCTAssertEqual(batch?.found, "(2, 100)")
    }

    /// (y, x, c) of an H x W x C array is element (y*W + x)*C + c; channel-major puts it at (c*H + y)*W + x.
    func testChannelsLastArraysAreTransposedToChannelMajor() {
        let (h, w, c) = (2, 3, 4)
        let values = (0..<(h * w * c)).map(Float.init)
        let out = KerasInputMatch.channelMajor(values, dims: [h, w, c], declaration: pnet)
        for y in 0..<h {
            for x in 0..<w {
                for ch in 0..<c {
                    XCTAssertEqual(out[(ch * h + y) * w + x], values[(y * w + x) * c + ch])
                }
            }
        }
        XCTAssertEqual(KerasInputMatch.channelMajor(values, dims: [c, h, w], declaration: theano), values)
        XCTAssertEqual(KerasInputMatch.channelMajor(values, dims: [24], declaration: vector), values)
    }
}
