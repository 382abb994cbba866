import FoldKitTestSupport
import Foundation
import XCTest

/// The repository must check out on case-insensitive file systems (macOS's default): no two tracked
/// paths, folders included, may differ only by letter case.
final class RepositoryPathTests: XCTestCase {
    func testNoTwoPathsDifferOnlyByCase() throws {
        let paths = try RepositoryPaths.tracked()
        XCTAssertGreaterThan(paths.count, 100, "expected the repository's files, found \(paths.count)")
        let clashes = RepositoryPaths.caseClashes(paths)
        XCTAssertTrue(clashes.isEmpty, "paths that differ only by letter case (one folder on macOS): \(clashes)")
    }

    func testClashDetectionFindsFoldersAndFiles() {
        XCTAssertEqual(RepositoryPaths.caseClashes(["Sources/FoldKit/a.swift", "Sources/foldkit/b.swift"]), [["Sources/FoldKit", "Sources/foldkit"]])
        XCTAssertEqual(RepositoryPaths.caseClashes(["Docs/readme.md", "Docs/README.md"]), [["Docs/README.md", "Docs/readme.md"]])
        XCTAssertEqual(RepositoryPaths.caseClashes(["A/b", "A/c", "B/b"]), [])
    }
}
