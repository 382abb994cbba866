import FoldKitCore
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `FixtureLayerChoice`: parsing `--layers` and resolving it against a network's layers.
final class FixtureLayerChoiceTests: XCTestCase {
    /// yolo-head.cfg read for shapes only: 7 sections, [yolo] heads at 2 and 6.
    private func network() throws -> Network {
        try ModelLoader.load(paths: [TestData.fixture("darknet/cfg/yolo-head.cfg").path], requireWeights: false)
    }

    func testParsing() throws {
        XCTAssertEqual(try FixtureLayerChoice(argument: "all"), .all)
        XCTAssertEqual(try FixtureLayerChoice(argument: "outputs"), .outputs)
        XCTAssertEqual(try FixtureLayerChoice(argument: " 3 ,1"), .list(["3", "1"]))
        XCTAssertThrowsError(try FixtureLayerChoice(argument: "1,")) { XCTAssertTrue("\($0)".contains("empty entry"), "\($0)") }
        XCTAssertThrowsError(try FixtureLayerChoice(argument: ""))
    }

    func testResolution() throws {
        let network = try network()
        XCTAssertEqual(try FixtureLayerChoice.all.layerIndices(in: network), Array(0..<7))
        XCTAssertEqual(try FixtureLayerChoice.outputs.layerIndices(in: network), [2, 6])
        XCTAssertEqual(try FixtureLayerChoice.list(["5", "0", "5"]).layerIndices(in: network), [0, 5])
        XCTAssertThrowsError(try FixtureLayerChoice.list(["-1", "2", "x"]).layerIndices(in: network)) { error in
            let text = "\(error)"
            XCTAssertEqual((error as? FoldKitError)?.kind, .usage)
            for word in ["'-1'", "'x'", "0...6"] { XCTAssertTrue(text.contains(word), text) }
            XCTAssertFalse(text.contains("'2'"), text)
        }
    }
}
