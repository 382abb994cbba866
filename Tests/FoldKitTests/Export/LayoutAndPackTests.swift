import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

final class LayoutAndPackTests: XCTestCase {
    /// The sliced layout (four channels per slice), written out independently: (c/4)*H*W*4 + y*W*4 + x*4 + c%4, zero padding,
    /// and C <= 2 stored unpadded with C components per pixel.
    func testSlicedLayoutFollowsTheFormula() {
        for channels in [1, 2, 3, 4, 5, 255] {
            let shape = ActivationShape(channels: channels, height: 3, width: 2)
            let chw = (0..<shape.count).map { Float($0 + 1) }
            let (sliced, dims) = FixtureWriter.arrange(chw, shape: shape, layout: .sliced)
            if channels <= 2 {
                XCTAssertEqual(dims, [3, 2, channels])
                for c in 0..<channels {
                    for y in 0..<3 {
                        for x in 0..<2 {
                            XCTAssertEqual(sliced[(y * 2 + x) * channels + c], chw[(c * 3 + y) * 2 + x])
                        }
                    }
                }
                continue
            }
            let slices = (channels + 3) / 4
            XCTAssertEqual(dims, [slices, 3, 2, 4], "C=\(channels)")
            XCTAssertEqual(sliced.count, slices * 3 * 2 * 4)
            for c in 0..<(slices * 4) {
                for y in 0..<3 {
                    for x in 0..<2 {
                        let value = sliced[(c / 4) * 3 * 2 * 4 + y * 2 * 4 + x * 4 + c % 4]
                        XCTAssertEqual(value, c < channels ? chw[(c * 3 + y) * 2 + x] : 0, "C=\(channels) c=\(c)")
                    }
                }
            }
            XCTAssertEqual(TensorLayout.slicedToCHW(sliced, shape: shape), chw)
        }
    }

    func testNHWCAndBack() {
        let shape = ActivationShape(channels: 3, height: 2, width: 4)
        let chw = (0..<24).map(Float.init)
        let (hwc, dims) = FixtureWriter.arrange(chw, shape: shape, layout: .nhwc)
        XCTAssertEqual(dims, [1, 2, 4, 3])
        XCTAssertEqual(hwc[(1 * 4 + 2) * 3 + 1], chw[(1 * 2 + 1) * 4 + 2])
        XCTAssertEqual(TensorLayout.hwcToCHW(hwc, shape: shape), chw)
    }

    func testReadsNumpysNPZ() throws {
        let members = try NPZArchive.read(url: TestData.fixture("npy/pack.npz"))
        XCTAssertEqual(members["a"]?.shape, [2, 3])
        XCTAssertEqual(members["a"]?.values, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(members["b"]?.values, [0.5])
    }

    func testNPZRoundTripIsDeflatedAndDeterministic() throws {
        let dir = try TestData.temporaryDirectory()
        let arrays: [(name: String, values: [Float], shape: [Int])] = [
            ("input", Array(repeating: 1, count: 4096), [1, 4096]), ("layer_000", [1, 2, 3], [3]),
        ]
        try NPZArchive.write(arrays: arrays, to: dir.appendingPathComponent("a.npz"))
        try NPZArchive.write(arrays: arrays, to: dir.appendingPathComponent("b.npz"))
        let a = try Data(contentsOf: dir.appendingPathComponent("a.npz"))
        XCTAssertEqual(a, try Data(contentsOf: dir.appendingPathComponent("b.npz")))
        XCTAssertLessThan(a.count, 4096 * 4 / 4, "constant data must deflate")
        let back = try NPZArchive.read(url: dir.appendingPathComponent("a.npz"))
        XCTAssertEqual(back["layer_000"]?.values, [1, 2, 3])
        XCTAssertEqual(back["input"]?.shape, [1, 4096])
    }
}
