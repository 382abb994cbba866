import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

final class CfgParserTests: XCTestCase {
    func testCommentsWhitespaceAndLineNumbers() throws {
        let text = """
            # a comment
            [net]
            ; another comment
              width = 416
            height=416\t
            anchors = 10,14,  23,27

            [convolutional]
            groups=112\t#96
            activation = leaky # inline comment
            """
        let cfg = try CfgParser.parse(text: text, path: "t.cfg")
        XCTAssertEqual(cfg.sections.map(\.name), ["net", "convolutional"])
        XCTAssertEqual(cfg.sections.map(\.line), [2, 8])
        let net = cfg.sections[0]
        XCTAssertEqual(net.options.map(\.key), ["width", "height", "anchors"])
        XCTAssertEqual(net.options.map(\.line), [4, 5, 6])
        XCTAssertEqual(try net.int("width", default: 0), 416)
        XCTAssertEqual(net.string("anchors", default: ""), "10,14,23,27")
        XCTAssertEqual(try net.floatList("anchors"), [10, 14, 23, 27])
        let conv = cfg.sections[1]
        XCTAssertEqual(try conv.int("groups", default: 1), 112)
        XCTAssertEqual(conv.string("activation", default: ""), "leaky")
        XCTAssertEqual(conv.option("activation")?.line, 10)
    }

    func testCRLFKeepsLineNumbers() throws {
        let cfg = try CfgParser.parse(text: "[net]\r\nwidth=8\r\n\r\n[maxpool]\r\nsize=2\r\n", path: "t.cfg")
        XCTAssertEqual(cfg.sections.map(\.line), [1, 4])
        XCTAssertEqual(cfg.sections[1].option("size")?.line, 5)
        XCTAssertEqual(try cfg.sections[1].int("size", default: 0), 2)
    }

    func testRepeatedKeyFirstOccurrenceWinsAsInDarknet() throws {
        let cfg = try CfgParser.parse(text: "[convolutional]\nfilters=16\nsize=3\nfilters=32\n", path: "t.cfg")
        let section = cfg.sections[0]
        XCTAssertEqual(section.options.count, 3)
        XCTAssertEqual(try section.int("filters", default: 0), 16)
        XCTAssertEqual(section.option("filters")?.line, 2)
    }

    func testDefaultsAndLists() throws {
        let section = try CfgParser.parse(text: "[route]\nlayers = -1, 61\n", path: "t.cfg").sections[0]
        XCTAssertEqual(try section.intList("layers"), [-1, 61])
        XCTAssertNil(try section.intList("mask"))
        XCTAssertEqual(try section.int("groups", default: 1), 1)
        XCTAssertEqual(try section.float("scale", default: 1.5), 1.5)
    }

    func testBadLinesNameTheLine() {
        func failure(_ text: String) -> FoldKitError? {
            do { _ = try CfgParser.parse(text: text, path: "bad.cfg"); return nil } catch { return error as? FoldKitError }
        }
        let noEquals = failure("[net]\nwidth=8\nheight\n")
        XCTAssertEqual(noEquals?.kind, .badInput)
        XCTAssertEqual(noEquals?.file, "bad.cfg")
        XCTAssertEqual(noEquals?.line, 3)

        let beforeSection = failure("# c\nwidth=8\n[net]\n")
        XCTAssertEqual(beforeSection?.line, 2)

        let unterminated = failure("[net]\nwidth=8\n[convolutional\n")
        XCTAssertEqual(unterminated?.line, 3)

        let emptyValue = failure("[net]\nwidth=\n")
        XCTAssertEqual(emptyValue?.line, 2)
    }

    func testNonIntegerValueNamesKeyAndLine() throws {
        let section = try CfgParser.parse(text: "[convolutional]\n\nfilters=abc\n", path: "t.cfg").sections[0]
        XCTAssertThrowsError(try section.int("filters", default: 1)) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.line, 3)
            XCTAssertEqual(e?.found, "'abc'")
            XCTAssertTrue(e?.message.contains("filters") ?? false)
        }
    }

    /// A cfg over 16 MiB is refused from its size, before it is read (a sparse file: nothing is written).
    func testOversizedCfgIsRefusedBeforeReading() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("oversized-\(UUID().uuidString).cfg")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data("[net]\n".utf8)))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(CfgParser.maximumBytes + 1))
        try handle.close()
        XCTAssertThrowsError(try CfgParser.parse(path: url.path)) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.file, url.path)
            XCTAssertEqual(e?.found, "\(CfgParser.maximumBytes + 1) bytes")
        }
    }
}
