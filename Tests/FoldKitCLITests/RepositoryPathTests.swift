import FoldKitTestSupport
import Foundation
import XCTest

/// The repository must check out on case-insensitive file systems (macOS's default): no two tracked
/// paths, folders included, may differ only by letter case; and no tracked text keeps a merge conflict marker.
final class RepositoryPathTests: XCTestCase {
    func testNoTwoPathsDifferOnlyByCase() throws {
        let paths = try RepositoryPaths.tracked()
        XCTAssertGreaterThan(paths.count, 100, "expected the repository's files, found \(paths.count)")
        let clashes = RepositoryPaths.caseClashes(paths)
        XCTAssertTrue(clashes.isEmpty, "paths that differ only by letter case (one folder on macOS): \(clashes)")
    }

    func testClashDetectionFindsFoldersAndFiles() {
        XCTAssertEqual(
            RepositoryPaths.caseClashes(["Sources/FoldKit/a.swift", "Sources/foldkit/b.swift"]), [["Sources/FoldKit", "Sources/foldkit"]])
        XCTAssertEqual(RepositoryPaths.caseClashes(["Docs/readme.md", "Docs/README.md"]), [["Docs/README.md", "Docs/readme.md"]])
        XCTAssertEqual(RepositoryPaths.caseClashes(["A/b", "A/c", "B/b"]), [])
    }

    /// No tracked text file keeps a merge conflict marker (a half-resolved merge once left one in a
    /// Docs page).
    func testNoMergeConflictMarkersInTrackedText() throws {
        let textEndings = [".swift", ".md", ".sh", ".py", ".json", ".txt", ".cfg", ".c", ".h", ".modulemap"]
        var problems: [String] = []
        for path in try RepositoryPaths.tracked() where textEndings.contains(where: path.hasSuffix) {
            let url = TestData.repositoryRoot.appendingPathComponent(path)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            problems += RepositoryPaths.conflictMarkers(in: text).map { "\(path) \($0)" }
        }
        XCTAssertEqual(problems, [], "merge conflict markers left in tracked files")
    }

    func testConflictMarkerDetection() {
        let text = "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n// ======= not a marker\n"
        XCTAssertEqual(
            RepositoryPaths.conflictMarkers(in: text),
            ["line 2: <<<<<<< HEAD", "line 4: =======", "line 6: >>>>>>> branch"])
        XCTAssertEqual(RepositoryPaths.conflictMarkers(in: "no markers\n"), [])
    }
}
