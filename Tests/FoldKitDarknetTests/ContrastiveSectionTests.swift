import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// [contrastive] (yolov4-tiny_contrastive.cfg): read as an identity of its input, its `yolo_layer`
/// checked as darknet's parser checks it, and zeros in fixture packs (darknet's buffer at inference).
final class ContrastiveSectionTests: XCTestCase {
    private func cfg(yoloLayer: String) -> String {
        """
        [net]
        width=16
        height=16
        channels=3

        [convolutional]
        filters=12
        size=1
        activation=linear

        [yolo]
        mask=0,1
        anchors=10,13,16,30
        classes=1
        num=2

        [route]
        layers=-2

        [contrastive]
        classes=1
        yolo_layer=\(yoloLayer)
        """
    }

    private func read(_ text: String) throws -> Network {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.cfg").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try DarknetReader.read(cfgPath: path, weightsPath: nil)
    }

    func testReadsAsIdentityAndPacksHoldZeros() throws {
        for reference in ["-2", "1"] {
            let network = try read(cfg(yoloLayer: reference))
            let layer = network.layers[3]
            guard case .identity(let reason) = layer.kind else { return XCTFail("layer 3 is \(layer.kind.typeName)") }
            XCTAssertEqual(reason, "contrastive")
            XCTAssertEqual(layer.outputShape, network.layers[0].outputShape)
            let values = (0..<layer.outputShape.count).map { Float($0) + 1 }
            let transformed = try XCTUnwrap(DarknetLayerOutput.transform(layer, values: values))
            XCTAssertEqual(transformed.values, [Float](repeating: 0, count: values.count))
        }
    }

    func testYoloLayerMustNameAYoloHead() throws {
        for reference in ["0", "-1", "-3", "7"] {
            XCTAssertThrowsError(try read(cfg(yoloLayer: reference)), reference) { error in
                XCTAssertTrue("\(error)".contains("yolo_layer must name an earlier [yolo] layer"), "\(error)")
            }
        }
    }
}
