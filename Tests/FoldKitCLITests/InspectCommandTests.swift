import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit inspect`: the layer table's columns, and for Fixtures/darknet/cfg/conv-basic.cfg the shapes,
/// parameter counts and weights-file byte ranges worked out by hand from the cfg.
final class InspectCommandTests: XCTestCase {
    func testConvBasicTable() throws {
        let dir = try TestData.temporaryDirectory("foldkit-inspect")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weights = dir.appendingPathComponent("conv-basic.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let run = try CommandRunner.run(["inspect", cfg, weights])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("layer") }, run.stdout)
        let columns = header.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        XCTAssertEqual(columns, ["layer", "name", "type", "inputs", "output CxHxW", "params", "weights bytes", "bn epsilon"], header)

        func row(_ index: Int) -> [String]? {
            lines.first { $0.hasPrefix("\(index) ") }.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        }
        // Darknet writes per convolution: biases [n], then (batch_normalize) scales, mean, variance [n] each,
        // then weights [n * c/groups * size * size]; the file starts with a 20-byte header.
        // 0: bn, 3 -> 8, 3x3: 8*3*9 + 4*8 = 248 floats, bytes 20 ..< 20 + 4*248 = 1012; output 8x13x11.
        // 1: no bn, 8 -> 6, 3x3 stride 2: 6*8*9 + 6 = 438 floats, 1012 ..< 2764; (13+2-3)/2+1 = 7, (11+2-3)/2+1 = 6.
        // 2: bn, depthwise 6, 3x3: 6*1*9 + 4*6 = 78, 2764 ..< 3076.
        // 4: bn, 4 -> 5, 5x5: 5*4*25 + 4*5 = 520 floats.
        let expected: [Int: (type: String, shape: String, params: Int, bytes: String)] = [
            0: ("conv", "8x13x11", 248, "20..<1012"),
            1: ("conv", "6x7x6", 438, "1012..<2764"),
            2: ("conv(depthwise)", "6x7x6", 78, "2764..<3076"),
            3: ("conv(groups=2)", "4x7x6", 4 * 3 * 9 + 4, "3076..<3524"),
            4: ("conv", "5x7x6", 520, "3524..<5604"),
        ]
        for (index, e) in expected {
            let cells = try XCTUnwrap(row(index), "row \(index) in\n\(run.stdout)")
            XCTAssertTrue(cells.contains(e.type), "\(index): \(cells)")
            XCTAssertTrue(cells.contains(e.shape), "\(index): \(cells)")
            XCTAssertTrue(cells.contains(String(e.params)), "\(index): \(cells)")
            XCTAssertTrue(cells.contains(e.bytes), "\(index): \(cells)")
        }
        // Batch-normalised layers show the epsilon, the others a dash.
        XCTAssertTrue(try XCTUnwrap(row(0)).suffix(2) == ["1e-05", "inside"], "\(row(0) ?? [])")
        XCTAssertEqual(try XCTUnwrap(row(1)).last, "-")
        // Totals: 248 + 438 + 78 + 112 + 520 + (6*5 + 6) + (4*6*4 + 16) + (3*4*9 + 3) + (7*3 + 7) = 1683 floats.
        XCTAssertTrue(run.stdout.contains("9 layers, 1683 parameters"), run.stdout)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: weights)[.size] as? NSNumber).intValue
        XCTAssertEqual(size, 20 + 4 * 1683)
    }

    /// The "bn epsilon" column comes from each operation's declaration (`LayerOperation.epsilonConvention`):
    /// a layer or group normalization shows the epsilon Keras saved with it (the fixtures' generator sets
    /// 1e-6, 1e-3 and 1e-5), inside the square root, and a convolution without batch norm a dash.
    func testNormalizationLayersShowTheirEpsilon() throws {
        let cases: [(file: String, rows: [String: [String]])] = [
            ("keras/layer_normalization.keras", ["ln": ["1e-06", "inside"], "conv": ["-"]]),
            ("keras/group_normalization.keras", ["gn": ["0.001", "inside"], "gn_beta": ["1e-05", "inside"], "conv2": ["-"]]),
        ]
        for (file, expected) in cases {
            let run = try CommandRunner.run(["inspect", TestData.fixture(file).path])
            XCTAssertEqual(run.status, 0, run.stderr)
            let rows = run.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            for (name, tail) in expected {
                let cells = try XCTUnwrap(rows.first { $0.count > 2 && $0[1] == name }, "\(file): no row \(name) in\n\(run.stdout)")
                XCTAssertEqual(Array(cells.suffix(tail.count)), tail, "\(file) \(name): \(cells)")
            }
        }
    }
}
