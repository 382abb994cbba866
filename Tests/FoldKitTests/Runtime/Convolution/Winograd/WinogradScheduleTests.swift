import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// Which Winograd layers run in blocks, how the blocks split the tiles, and the tile-row walk of a block.
final class WinogradScheduleTests: XCTestCase {
    func schedule(tiles: Int, c: Int, o: Int, bytes: Int = 4, workers: Int = 2, allowed: Bool = true) -> WinogradSchedule {
        WinogradSchedule(
            tiles: tiles, points: 16, inputChannels: c, outputChannels: o, scalarBytes: bytes,
            workers: workers, blocksAllowed: allowed)
    }

    func testFewTilesOrOneCoreOrAThreadedBLASRunWide() {
        for s in [
            schedule(tiles: 127, c: 256, o: 512), schedule(tiles: 49, c: 512, o: 1024),
            schedule(tiles: 2704, c: 64, o: 128, workers: 1), schedule(tiles: 2704, c: 64, o: 128, allowed: false),
        ] {
            XCTAssertFalse(s.isBlocked)
            XCTAssertEqual(s.blockTiles, s.tiles)
            XCTAssertEqual(s.scratchCount, 16 * s.tiles * (s.inputChannels + s.outputChannels))
        }
    }

    func testOnlyNarrowWideFloat64ProductsAreTransposed() {
        XCTAssertTrue(schedule(tiles: 49, c: 1024, o: 1024, bytes: 8).transposesProducts)
        XCTAssertTrue(schedule(tiles: 127, c: 512, o: 1024, bytes: 8).transposesProducts)
        XCTAssertTrue(schedule(tiles: 256, c: 512, o: 1024, bytes: 8, workers: 1).transposesProducts)
        XCTAssertFalse(schedule(tiles: 257, c: 512, o: 1024, bytes: 8, workers: 1).transposesProducts)
        XCTAssertFalse(schedule(tiles: 128, c: 512, o: 1024, bytes: 8).transposesProducts, "blocked")
        XCTAssertFalse(schedule(tiles: 49, c: 1024, o: 1024, bytes: 4).transposesProducts)
        XCTAssertFalse(schedule(tiles: 49, c: 1024, o: 1024, bytes: 8, allowed: false).transposesProducts)
        XCTAssertFalse(schedule(tiles: 2704, c: 64, o: 128, bytes: 8).transposesProducts)
    }

    func testBlocksAreEqualRunsPerCoreCoveringEveryTile() {
        // yolov3 at 416: 104x104 (2704 tiles, 64 -> 128) and 52x52 (676 tiles, 128 -> 256), float32 and float64;
        // tiny-yolo-voc's 16 -> 32 at 208x208 (2704 F(4x4) tiles, 36 points counted as 16 here: 1408 bytes a tile).
        for (tiles, c, o, bytes, blocks) in [
            (2704, 64, 128, 4, 42), (2704, 64, 128, 8, 42), (676, 128, 256, 4, 10), (676, 128, 256, 8, 10),
            (2704, 16, 6, 4, 6), (128, 8, 8, 4, 2),
        ] {
            let s = schedule(tiles: tiles, c: c, o: o, bytes: bytes)
            XCTAssertTrue(s.isBlocked)
            XCTAssertEqual(s.blockCount, blocks, "\(tiles) tiles, \(c) -> \(o), \(bytes)-byte scalars")
            XCTAssertEqual(s.blockCount % s.workers, 0)
            XCTAssertGreaterThanOrEqual(s.blockCount * s.blockTiles, tiles)
            XCTAssertLessThan((s.blockCount - 1) * s.blockTiles, tiles)
            // A block's V and M within the target, unless that would make blocks narrower than the minimum.
            XCTAssertTrue(
                s.blockTiles * 16 * (c + o) * bytes <= WinogradSchedule.defaultBlockBytes * 2
                    || s.blockTiles <= 2 * WinogradSchedule.minimumBlockTiles)
            XCTAssertEqual(s.scratchCount, s.workers * 16 * s.blockTiles * (c + o))
        }
    }

    /// Block ranges are contiguous, non-empty, at most `blockTiles` long and cover every tile once, for tile
    /// counts that do not divide evenly (a block count of ceil-sized blocks could leave the last ones empty).
    func testBlockRangesCoverEveryTileOnce() {
        for tiles in stride(from: 128, through: 3000, by: 7) {
            for (c, o, bytes) in [(16, 32, 4), (3, 8, 8), (64, 128, 4), (512, 1024, 8)] {
                let s = schedule(tiles: tiles, c: c, o: o, bytes: bytes)
                guard s.isBlocked else { continue }
                var next = 0
                for block in 0..<s.blockCount {
                    let range = s.blockRange(block)
                    XCTAssertEqual(range.lowerBound, next, "\(tiles) tiles, block \(block)")
                    XCTAssertFalse(range.isEmpty, "\(tiles) tiles, block \(block) of \(s.blockCount)")
                    XCTAssertLessThanOrEqual(range.count, s.blockTiles)
                    next = range.upperBound
                }
                XCTAssertEqual(next, tiles)
            }
        }
    }

    func testRowSegmentsWalkARunOfTilesRowByRow() {
        var segments: [[Int]] = []
        WinogradSchedule.rowSegments(7..<30, across: 10) { segments.append([$0, $1, $2]) }
        XCTAssertEqual(segments, [[0, 7, 10], [1, 0, 10], [2, 0, 10]])
        segments = []
        WinogradSchedule.rowSegments(12..<15, across: 10) { segments.append([$0, $1, $2]) }
        XCTAssertEqual(segments, [[1, 2, 5]])
        segments = []
        WinogradSchedule.rowSegments(20..<20, across: 10) { segments.append([$0, $1, $2]) }
        XCTAssertEqual(segments, [])
    }
}
