import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// [yolo] heads darknet loads though their anchors do not add up (darknet's cfg folder has both):
/// fewer anchor values than num * 2 (the rest are zeros, as darknet's calloc leaves them), and mask
/// values at or past num (darknet reads past its anchor array): the network reads, no boxes are decoded
/// for those mask values, and the verify report names them.
final class YoloAnchorEdgeCaseTests: XCTestCase {
    private func cfg(mask: String, anchors: String) -> String {
        """
        [net]
        width=32
        height=32
        channels=3

        [convolutional]
        filters=12
        size=1
        activation=linear

        [yolo]
        mask=\(mask)
        anchors=\(anchors)
        classes=1
        num=2
        """
    }

    private func write(_ text: String) throws -> (cfg: String, weights: String) {
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let cfg = directory.appendingPathComponent("t.cfg").path, weights = directory.appendingPathComponent("t.weights").path
        try text.write(toFile: cfg, atomically: true, encoding: .utf8)
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 1, generator: .uniform, to: weights)
        return (cfg, weights)
    }

    private func head(_ network: Network) throws -> DetectionHead {
        guard case .detection(let head) = network.layers[1].kind else { throw FixtureProblem("t.cfg", "layer 1 is not a detection head") }
        return head
    }

    func testMissingAnchorValuesAreZeros() throws {
        let files = try write(cfg(mask: "0,1", anchors: "10,13,16"))
        let head = try head(DarknetReader.read(cfgPath: files.cfg, weightsPath: files.weights))
        XCTAssertEqual(head.anchors, [10, 13, 16, 0])
        XCTAssertEqual(head.undecodedMask, [])
    }

    func testExtraAnchorValuesAreIgnored() throws {
        let files = try write(cfg(mask: "0,1", anchors: "10,13,16,30,33,23"))
        XCTAssertEqual(try head(DarknetReader.read(cfgPath: files.cfg, weightsPath: files.weights)).anchors, [10, 13, 16, 30])
    }

    func testMaskPastNumReadsAndIsNamedInTheReport() throws {
        let files = try write(cfg(mask: "1,3", anchors: "10,13,16,30,33,23"))
        let network = try DarknetReader.read(cfgPath: files.cfg, weightsPath: files.weights)
        XCTAssertEqual(try head(network).undecodedMask, [3])
        let input = ModelInput(values: (0..<network.inputShape.count).map { Float($0 % 7) / 7 }, origin: "test")
        let report = try Verifier.verify(original: network, folded: FoldBatchNorm.apply(to: network), input: input)
        XCTAssertEqual(report.undecodedAnchors?.count, 1)
        XCTAssertTrue(report.undecodedAnchors?.first?.contains("mask values 3 are past num=2") == true, "\(report.undecodedAnchors ?? [])")
        XCTAssertTrue(report.text().contains("not decoded: layer 1"), report.text())
        // Boxes come from anchor 1 only: every box's anchor slot is 0.
        XCTAssertTrue(report.detections?.pairs.allSatisfy { $0.reference.anchor == 0 } ?? false)
    }

    func testNegativeMaskAndHugeNumAreRefused() throws {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.cfg").path
        for (mask, num) in [("-1,0", "2"), ("0,1", "2000000000")] {
            try cfg(mask: mask, anchors: "1,2,3,4").replacingOccurrences(of: "num=2", with: "num=\(num)").write(
                toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try DarknetReader.read(cfgPath: path, weightsPath: nil), "mask \(mask) num \(num)") { error in
                XCTAssertEqual((error as? FoldKitError)?.line, 11, "\(error)")
            }
        }
    }
}
