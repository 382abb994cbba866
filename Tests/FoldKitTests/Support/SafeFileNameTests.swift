import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// Names taken from model files become file names that stay inside the output folder, fit NAME_MAX
/// and do not collide, also on case-insensitive file systems (Docs/Security.md, "Name sanitising").
final class SafeFileNameTests: XCTestCase {
    func testSeparatorsParentReferencesAndNULBecomePlainNames() {
        for hostile in ["../../etc/passwd", "/absolute", "a/b", "a\\b", "..", ".", "", "nul\0byte", ".hidden", "\0", "..\0/.."] {
            let name = SafeFileName.sanitize(hostile)
            XCTAssertTrue(SafeFileName.isPlain(name), "\(hostile.debugDescription) -> \(name)")
            XCTAssertFalse(name.hasPrefix("."), "\(hostile.debugDescription) -> \(name)")
            XCTAssertFalse(name.contains("/") || name.contains("\\") || name.contains("\0"), name)
        }
        // '/' becomes '_', then the leading '.' becomes '_': ".._.._etc_passwd" -> "_._.._etc_passwd".
        XCTAssertEqual(SafeFileName.sanitize("../../etc/passwd"), "_._.._etc_passwd")
        XCTAssertEqual(SafeFileName.sanitize("nul\0byte"), "nul_byte")
        XCTAssertEqual(SafeFileName.sanitize("conv2d_1"), "conv2d_1", "ordinary Keras names are kept")
        XCTAssertEqual(SafeFileName.sanitize("block 1/conv:0"), "block_1_conv_0")
        XCTAssertEqual(SafeFileName.sanitize("Ünïcödé"), "_n_c_d_")
    }

    func testLongNamesAreCutWithAHashThatKeepsThemApart() {
        let long = String(repeating: "layer", count: 200)
        let a = SafeFileName.sanitize(long + "a"), b = SafeFileName.sanitize(long + "b")
        XCTAssertEqual(a.utf8.count, SafeFileName.maximumLength)
        XCTAssertEqual(b.utf8.count, SafeFileName.maximumLength)
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(a.hasPrefix("layerlayer"))
        // Room left for the longest prefix and suffix within NAME_MAX (255 bytes).
        XCTAssertLessThanOrEqual(("layer_999_" + a + "_99999_shift.bin").utf8.count, 255)
        XCTAssertEqual(SafeFileName.sanitize(long + "a"), a, "the same name gives the same file name")
        let exactly = String(repeating: "x", count: SafeFileName.maximumLength)
        XCTAssertEqual(SafeFileName.sanitize(exactly), exactly, "a name at the limit is kept whole")
    }

    func testFNV1aMatchesItsPublishedTestVectors() {
        // FNV-1a 64-bit vectors from the reference test suite (isthe.com/chongo/tech/comp/fnv).
        XCTAssertEqual(SafeFileName.fnv1a(""), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(SafeFileName.fnv1a("a"), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(SafeFileName.fnv1a("foobar"), 0x8594_4171_f739_67e8)
    }

    func testNamesDifferingOnlyByCaseOrBySanitisingGetDistinctFiles() {
        var taken = Set<String>()
        let names = [("Conv", 0), ("conv", 1), ("CONV", 2), ("a/b", 3), ("a_b", 4), ("conv_1", 5), ("conv", 6)]
        let files = names.map { SafeFileName.unique(SafeFileName.sanitize($0.0), index: $0.1, taken: &taken) }
        XCTAssertEqual(files, ["Conv", "conv_1", "CONV_2", "a_b", "a_b_4", "conv_1_5", "conv_6"])
        XCTAssertEqual(Set(files.map { $0.lowercased() }).count, files.count, "distinct also when letter case is ignored")
    }

    func testOutputFolderRefusesNamesThatLeaveIt() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-safe-name-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = try AtomicOutputDirectory(destination: parent.appendingPathComponent("out"))
        defer { folder.discard() }
        for hostile in ["../escape.bin", "/etc/passwd", "..", ".", "", "a\0b"] {
            XCTAssertThrowsError(try folder.url(for: hostile), hostile.debugDescription)
        }
        XCTAssertEqual(
            try folder.url(for: "conv0_W.bin").deletingLastPathComponent().standardizedFileURL.path, folder.temporary.standardizedFileURL.path)
    }
}
