import FoldKitDarknet
import FoldKitDetection
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// YOLO9000's hierarchical [region] (`tree=`): the tree file read as darknet's `read_tree` groups it,
/// its damaged or inconsistent forms refused with file, line and byte offset, and yolo9000.cfg of
/// darknet's cfg folder read, folded and verified with a whole tree of its 9418 classes.
final class ClassTreeFileTests: XCTestCase {
    private func cfg(classes: Int, tree: String) -> String {
        """
        [net]
        width=32
        height=32
        channels=3

        [convolutional]
        filters=\(2 * (classes + 5))
        size=1
        activation=linear

        [region]
        classes=\(classes)
        coords=4
        num=2
        softmax=1
        anchors=1,1,2,2
        tree=\(tree)
        """
    }

    /// A folder holding t.cfg (naming `treePath`) and, when given, the tree text at `treePath`.
    private func folder(classes: Int, treePath: String = "data/t.tree", treeText: String?) throws -> String {
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let cfg = directory.appendingPathComponent("t.cfg").path
        try self.cfg(classes: classes, tree: treePath).write(toFile: cfg, atomically: true, encoding: .utf8)
        if let treeText {
            // darknet's cfgs name data/9k.tree; the file beside the cfg is found too.
            try Data(treeText.utf8).write(to: directory.appendingPathComponent(URL(fileURLWithPath: treePath).lastPathComponent))
        }
        return cfg
    }

    private func head(_ network: Network) throws -> DetectionHead {
        guard case .detection(let head) = network.layers[1].kind else { throw FixtureProblem("t.cfg", "layer 1 is not a detection head") }
        return head
    }

    func testGroupsAreRunsOfOneParentAsDarknetReadsThem() throws {
        let cfg = try folder(classes: 8, treeText: "a -1\r\nb -1\r\nc 0\r\nd 0\r\ne 1\r\nf 1\r\ng 0\r\nh 2\r\n")
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: nil)
        let tree = try XCTUnwrap(try head(network).tree)
        XCTAssertEqual(tree.parents, [-1, -1, 0, 0, 1, 1, 0, 2])
        // g returns to parent 0 after e and f: a group of its own, as darknet's read_tree makes it.
        XCTAssertEqual(tree.groups, [0..<2, 2..<4, 4..<6, 6..<7, 7..<8])
        XCTAssertTrue(network.sourceFiles.contains { $0.hasSuffix("/t.tree") }, "\(network.sourceFiles)")
    }

    func testInconsistentTreesAreRefusedWithTheirLine() throws {
        let cases: [(text: String, classes: Int, line: Int?, offset: Int?, words: String)] = [
            ("a -1\nb 2\nc 0\n", 3, 2, 5, "not an earlier class"),
            ("a -1\n\nb 0\n", 2, 2, 5, "'name parent'"),
            ("a -1\nb 0 x\n", 2, 2, 5, "'name parent'"),
            ("a -1\nb -2\n", 2, 2, 5, "not an earlier class"),
            ("a -1\nb 0\n", 3, nil, nil, "another number of classes"),
            ("a -1\nb\u{0}\u{0} 0\n", 2, 2, 6, "NUL byte"),
        ]
        for (text, classes, line, offset, words) in cases {
            let cfg = try folder(classes: classes, treeText: text)
            XCTAssertThrowsError(try DarknetReader.read(cfgPath: cfg, weightsPath: nil), text) { error in
                guard let e = error as? FoldKitError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.kind, .badInput, text)
                XCTAssertTrue(e.file?.hasSuffix("t.tree") == true, "\(text): \(e)")
                XCTAssertEqual(e.layer, "layer 1 [region]", text)
                XCTAssertEqual(e.line, line, text)
                XCTAssertEqual(e.byteOffset, offset, text)
                XCTAssertTrue(e.description.contains(words), "\(text): \(e)")
            }
        }
    }

    func testMissingTreeNamesWhereItLooked() throws {
        let cfg = try folder(classes: 2, treePath: "data/absent.tree", treeText: nil)
        XCTAssertThrowsError(try DarknetReader.read(cfgPath: cfg, weightsPath: nil)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("data/absent.tree was not found"), text)
            XCTAssertTrue(text.contains("/data/absent.tree") && text.contains("/absent.tree"), text)
            XCTAssertEqual((error as? FoldKitError)?.line, 17, text)
        }
    }

    /// The 9k.tree of ../shared/darknet-cfg-all (upstream's cfg/9k.tree) has runs of NUL bytes where lines
    /// should be (8714 lines for 9418 classes): yolo9000.cfg beside it alone (its `data/9k.tree` absent, so
    /// the tree is found by file name beside the cfg) is refused at the first NUL byte, naming the file.
    func testDamagedSharedTreeIsRefusedAtItsFirstNulByte() throws {
        let shared = try TestData.sharedFile("darknet-cfg-all")
        let treeBytes = try [UInt8](Data(contentsOf: shared.appendingPathComponent("9k.tree")))
        guard let firstNul = treeBytes.firstIndex(of: 0) else { throw XCTSkip("this copy of 9k.tree holds no NUL byte") }
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        for name in ["yolo9000.cfg", "9k.tree"] {
            try FileManager.default.copyItem(at: shared.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        XCTAssertThrowsError(try DarknetReader.read(cfgPath: directory.appendingPathComponent("yolo9000.cfg").path, weightsPath: nil)) {
            error in
            guard let e = error as? FoldKitError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.file, directory.appendingPathComponent("9k.tree").path, "\(e)")
            XCTAssertEqual(e.byteOffset, firstNul)
            XCTAssertEqual(e.layer, "layer 24 [region]")
            XCTAssertTrue(e.description.contains("NUL byte"), "\(e)")
        }
    }

    /// yolo9000.cfg in ../shared/darknet-cfg-all reads with the whole tree its `tree=data/9k.tree` names
    /// (darknet's data/9k.tree, 9418 lines, found under the cfg's folder before the damaged copy beside it).
    func testSharedYolo9000ReadsItsWholeDataTree() throws {
        let cfg = try TestData.sharedFile("darknet-cfg-all/yolo9000.cfg")
        let network = try DarknetReader.read(cfgPath: cfg.path, weightsPath: nil)
        guard case .detection(let head)? = network.layers.last?.kind else { return XCTFail("yolo9000 ends in its [region] head") }
        XCTAssertEqual(head.tree?.parents.count, 9418)
        XCTAssertTrue(network.sourceFiles.contains { $0.hasSuffix("darknet-cfg-all/data/9k.tree") }, "\(network.sourceFiles)")
    }

    /// yolo9000.cfg with a whole tree of its 9418 classes (a synthetic hierarchy: 18 roots, each class
    /// k >= 18 under class (k - 18) / 4, so groups of four siblings): it reads, its head carries the tree,
    /// and the folded network verifies against the original with seeded weights (64 x 64: a 2 x 2 grid).
    func testYolo9000WithAWholeTreeVerifies() throws {
        let shared = try TestData.sharedFile("darknet-cfg-all/yolo9000.cfg")
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let cfg = directory.appendingPathComponent("yolo9000.cfg").path
        try FileManager.default.copyItem(atPath: shared.path, toPath: cfg)
        let lines = (0..<9418).map { k in "n\(k) \(k < 18 ? -1 : (k - 18) / 4)" }
        try (lines.joined(separator: "\n") + "\n").write(to: directory.appendingPathComponent("9k.tree"), atomically: true, encoding: .utf8)
        let weights = directory.appendingPathComponent("yolo9000.weights").path
        let options = DarknetReadOptions(inputHeight: 64, inputWidth: 64)
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 2, generator: .he, to: weights)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights, options: options)
        let index = try XCTUnwrap(network.outputIndices.first)
        guard case .detection(let head) = network.layers[index].kind else { return XCTFail("no head") }
        XCTAssertEqual(head.tree?.count, 9418)
        XCTAssertEqual(head.tree?.groups.first, 0..<18)
        let input = ModelInput(values: (0..<network.inputShape.count).map { Float($0 % 13) / 13 }, origin: "test")
        let report = try Verifier.verify(original: network, folded: FoldBatchNorm.apply(to: network), input: input)
        XCTAssertEqual(report.verdict, .pass, report.text())
        XCTAssertNotNil(report.detections, "the head is decoded")
    }
}
