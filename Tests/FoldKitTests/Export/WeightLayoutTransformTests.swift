import FoldKitBlobFormat
import FoldKitBlobNetwork
import XCTest

@testable import FoldKit
@testable import FoldKitIO

final class WeightLayoutTransformTests: XCTestCase {
    /// Each element's value encodes its OIHW coordinates, so where it lands tells whether the move is right.
    private func coded(_ o: Int, _ i: Int, _ y: Int, _ x: Int) -> Float { Float(o * 1000 + i * 100 + y * 10 + x) }

    func testOHWIandHWIOPlaceEveryElementByTheFormula() throws {
        let (O, I, KH, KW) = (3, 2, 2, 3)
        var source: [Float] = []
        for o in 0..<O { for i in 0..<I { for y in 0..<KH { for x in 0..<KW { source.append(coded(o, i, y, x)) } } } }
        let dims = [O, I, KH, KW]
        let ohwi = try WeightLayoutTransform.fromOIHW(source, dims: dims, to: .ohwi)
        let hwio = try WeightLayoutTransform.fromOIHW(source, dims: dims, to: .hwio)
        for o in 0..<O {
            for i in 0..<I {
                for y in 0..<KH {
                    for x in 0..<KW {
                        XCTAssertEqual(ohwi[((o * KH + y) * KW + x) * I + i], coded(o, i, y, x))
                        XCTAssertEqual(hwio[((y * KW + x) * I + i) * O + o], coded(o, i, y, x))
                    }
                }
            }
        }
        XCTAssertEqual(try WeightLayoutTransform.fromOIHW(source, dims: dims, to: .oihw), source)
        XCTAssertEqual(WeightLayoutTransform.shape(dims, in: .ohwi), [3, 2, 3, 2])
        XCTAssertEqual(WeightLayoutTransform.shape(dims, in: .hwio), [2, 3, 2, 3])
    }

    /// The in-place form on runs of whole output rows (as conversion streams them) gives the same rows as
    /// the whole tensor for row-local layouts, and `toOIHW` undoes every layout.
    func testChunksOfRowsAndTheInverse() throws {
        let (O, I, KH, KW) = (5, 3, 2, 2)
        var source: [Float] = []
        for o in 0..<O { for i in 0..<I { for y in 0..<KH { for x in 0..<KW { source.append(coded(o, i, y, x)) } } } }
        let dims = [O, I, KH, KW], row = I * KH * KW
        for layout in WeightLayout.allCases {
            let whole = try WeightLayoutTransform.fromOIHW(source, dims: dims, to: layout)
            XCTAssertEqual(try WeightLayoutTransform.toOIHW(whole, dims: dims, from: layout), source, layout.rawValue)
            for o in 0..<O {
                for i in 0..<I {
                    for y in 0..<KH {
                        for x in 0..<KW {
                            let index = WeightLayoutTransform.storedIndex(o: o, i: i, y: y, x: x, dims: (O, I, KH, KW), in: layout)
                            XCTAssertEqual(whole[index], coded(o, i, y, x), layout.rawValue)
                        }
                    }
                }
            }
            guard WeightLayoutTransform.isRowLocal(layout) else { continue }
            var chunked = source
            try chunked.withUnsafeMutableBufferPointer { all in
                for first in stride(from: 0, to: O, by: 2) {
                    let end = min(O, first + 2)
                    try WeightLayoutTransform.rearrange(
                        inPlace: UnsafeMutableBufferPointer(rebasing: all[(first * row)..<(end * row)]),
                        dims: [end - first, I, KH, KW], to: layout)
                }
            }
            XCTAssertEqual(chunked, whole, layout.rawValue)
        }
    }

    /// Sliced: OHWI with I padded to a multiple of 4 (Docs/BlobFormat.md "Sliced layout"), the padding zero.
    func testSlicedPlacesEveryElementByTheFormulaAndPadsWithZero() throws {
        let (O, I, KH, KW) = (3, 6, 2, 3)
        var source: [Float] = []
        for o in 0..<O { for i in 0..<I { for y in 0..<KH { for x in 0..<KW { source.append(coded(o, i, y, x) + 1) } } } }
        let dims = [O, I, KH, KW]
        let sliced = try WeightLayoutTransform.fromOIHW(source, dims: dims, to: .sliced)
        XCTAssertEqual(WeightLayoutTransform.shape(dims, in: .sliced), [3, 2, 3, 8])
        XCTAssertEqual(sliced.count, 3 * 2 * 3 * 8)
        for o in 0..<O {
            for y in 0..<KH {
                for x in 0..<KW {
                    for i in 0..<8 {
                        let value = sliced[((o * KH + y) * KW + x) * 8 + i]
                        XCTAssertEqual(value, i < I ? coded(o, i, y, x) + 1 : 0, "o \(o) y \(y) x \(x) i \(i)")
                    }
                }
            }
        }
        XCTAssertEqual(try WeightLayoutTransform.toOIHW(sliced, dims: dims, from: .sliced), source)
        XCTAssertThrowsError(try WeightLayoutTransform.toOIHW(Array(sliced.dropLast()), dims: dims, from: .sliced))
    }

    /// Depthwise sliced: the kernels of 4 channels side by side, (((o/4)*kh + y)*kw + x)*4 + o%4, last slice padded.
    func testDepthwiseSlicedPutsFourChannelsPerTexel() throws {
        let (O, KH, KW) = (6, 3, 2)
        var source: [Float] = []
        for o in 0..<O { for y in 0..<KH { for x in 0..<KW { source.append(coded(o, 0, y, x) + 1) } } }
        let dims = [O, 1, KH, KW]
        XCTAssertTrue(WeightLayoutTransform.isDepthwise(groups: 6, dims: dims))
        XCTAssertFalse(WeightLayoutTransform.isDepthwise(groups: 1, dims: dims))
        XCTAssertFalse(WeightLayoutTransform.isDepthwise(groups: 3, dims: dims), "depth multiplier 2 is not the depthwise form")
        let sliced = try WeightLayoutTransform.fromOIHW(source, dims: dims, to: .sliced, depthwise: true)
        XCTAssertEqual(WeightLayoutTransform.shape(dims, in: .sliced, depthwise: true), [2, 3, 2, 4])
        XCTAssertEqual(sliced.count, 2 * 3 * 2 * 4)
        for s in 0..<2 {
            for y in 0..<KH {
                for x in 0..<KW {
                    for lane in 0..<4 {
                        let o = s * 4 + lane
                        XCTAssertEqual(sliced[((s * KH + y) * KW + x) * 4 + lane], o < O ? coded(o, 0, y, x) + 1 : 0)
                    }
                }
            }
        }
        XCTAssertEqual(try WeightLayoutTransform.toOIHW(sliced, dims: dims, from: .sliced, depthwise: true), source)
        XCTAssertThrowsError(try WeightLayoutTransform.fromOIHW([Float](repeating: 1, count: 8), dims: [2, 4, 1, 1], to: .sliced, depthwise: true))
    }

    func testLayoutNamesReadInAnyCase() {
        XCTAssertEqual(WeightLayout(caseInsensitive: "sliced"), .sliced)
        XCTAssertEqual(WeightLayout(caseInsensitive: "Ohwi"), .ohwi)
        XCTAssertNil(WeightLayout(caseInsensitive: "nchw"))
    }

    func testMismatchedShapeThrows() {
        XCTAssertThrowsError(try WeightLayoutTransform.fromOIHW([1, 2, 3], dims: [1, 1, 2, 2], to: .ohwi))
        XCTAssertThrowsError(try WeightLayoutTransform.toOIHW([1, 2, 3], dims: [1, 1, 2, 2], from: .hwio))
    }
}
