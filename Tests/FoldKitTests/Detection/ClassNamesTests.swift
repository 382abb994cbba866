import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

final class ClassNamesTests: XCTestCase {
    private func folder(_ files: [String: String]) throws -> URL {
        let dir = try TestData.temporaryDirectory("class-names")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    /// The file named like the cfg wins over others; the only .names file is taken; several others: none.
    func testNamesFileBesideTheCfg() throws {
        let both = try folder(["net.cfg": "", "net.names": "a\nb\n", "coco.names": "x\n"])
        XCTAssertEqual(ClassNames.discover(besideConfig: both.appendingPathComponent("net.cfg").path), both.appendingPathComponent("net.names").path)
        let single = try folder(["net.cfg": "", "voc.names": "a\n"])
        XCTAssertEqual(
            ClassNames.discover(besideConfig: single.appendingPathComponent("net.cfg").path), single.appendingPathComponent("voc.names").path)
        let ambiguous = try folder(["net.cfg": "", "voc.names": "a\n", "coco.names": "b\n"])
        XCTAssertNil(ClassNames.discover(besideConfig: ambiguous.appendingPathComponent("net.cfg").path))
        XCTAssertNil(ClassNames.discover(besideConfig: try folder(["net.cfg": ""]).appendingPathComponent("net.cfg").path))
    }

    /// One name a line, surrounding blanks and trailing empty lines dropped.
    func testReadTrimsLines() throws {
        let dir = try folder(["x.names": "dog\r\n traffic light \n\n"])
        XCTAssertEqual(try ClassNames.read(path: dir.appendingPathComponent("x.names").path), ["dog", "traffic light"])
    }

    /// The real models' names files are found and match their heads' class counts.
    func testRealModelNamesAreFound() throws {
        let cfg = try TestData.sharedFile("real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg")
        let network = try ModelLoader.load(paths: [cfg.path, cfg.deletingPathExtension().appendingPathExtension("weights").path])
        let names = try ClassNames.load(path: nil, for: network)
        XCTAssertEqual(names?.count, 80)
        XCTAssertEqual(names?[16], "dog")
    }
}
