import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// A short, a long and a header-only weights file, and a cfg with an unknown section: each error names
/// the file, the layer and the byte offset (or line). conv-basic.cfg needs 1683 floats: 6752 bytes.
/// Its last layer (8) has 7 biases at byte 20 + 4*1655 = 6640 and 21 weights at 6668...6752.
final class WeightsFileErrorTests: XCTestCase {
    private var directory: URL!
    private let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path

    override func setUpWithError() throws {
        directory = try TestData.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func seeded(_ name: String, edit: (inout Data) -> Void) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 1, to: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        edit(&data)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    private func readError(cfg: String, weights: String?) -> FoldKitError? {
        do {
            _ = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
            return nil
        } catch {
            return error as? FoldKitError
        }
    }

    func testMissingLastFourBytes() throws {
        let path = try seeded("short.weights") { $0.removeLast(4) }
        let error = try XCTUnwrap(readError(cfg: cfg, weights: path))
        XCTAssertEqual(error.kind, .badInput)
        XCTAssertEqual(error.file, path)
        XCTAssertEqual(error.layer, "layer 8 [convolutional]")
        XCTAssertEqual(error.byteOffset, 6668)
        XCTAssertEqual(error.found, "6748 bytes")
        XCTAssertTrue(error.expected?.hasPrefix("6752 bytes") ?? false, error.description)
        XCTAssertTrue(error.message.contains("weights"), error.description)
    }

    func testCutInsideAnEarlierLayer() throws {
        // Keep the header and 300 floats: layer 0 has 248, layer 1's biases (6) start at 20 + 992 = 1012,
        // its weights (432 floats) at 1036 and are cut.
        let path = try seeded("cut.weights") { $0 = $0.prefix(20 + 4 * 300) }
        let error = try XCTUnwrap(readError(cfg: cfg, weights: path))
        XCTAssertEqual(error.layer, "layer 1 [convolutional]")
        XCTAssertEqual(error.byteOffset, 1036)
        XCTAssertEqual(error.found, "1220 bytes")
    }

    func testFourExtraBytes() throws {
        let path = try seeded("long.weights") { $0.append(contentsOf: [1, 2, 3, 4]) }
        let error = try XCTUnwrap(readError(cfg: cfg, weights: path))
        XCTAssertEqual(error.kind, .badInput)
        XCTAssertEqual(error.file, path)
        XCTAssertEqual(error.byteOffset, 6752)
        XCTAssertEqual(error.layer, "after layer 8 [convolutional]")
        XCTAssertEqual(error.found, "6756 bytes")
        XCTAssertTrue(error.message.contains("4 bytes left over"), error.description)
    }

    func testHeaderTooShort() throws {
        let path = try seeded("header.weights") { $0 = $0.prefix(10) }
        let error = try XCTUnwrap(readError(cfg: cfg, weights: path))
        XCTAssertEqual(error.kind, .badInput)
        XCTAssertEqual(error.file, path)
        XCTAssertEqual(error.byteOffset, 0)
    }

    func testMissingWeightsFileIsAnIOError() {
        let error = readError(cfg: cfg, weights: directory.appendingPathComponent("absent.weights").path)
        XCTAssertEqual(error?.kind, .io)
    }

    func testUnknownSectionNamesFileLineAndLayer() throws {
        let path = directory.appendingPathComponent("unknown.cfg").path
        try "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=leaky\n\n[frobnicate]\nsize=2\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let error = try XCTUnwrap(readError(cfg: path, weights: nil))
        XCTAssertEqual(error.kind, .unsupported)
        XCTAssertEqual(error.file, path)
        XCTAssertEqual(error.line, 12)
        XCTAssertEqual(error.layer, "layer 1 [frobnicate]")
        XCTAssertTrue(error.description.contains("unsupported layer [frobnicate]"), error.description)
    }
}
