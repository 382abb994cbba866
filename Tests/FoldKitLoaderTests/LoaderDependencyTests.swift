import FoldKitTestSupport
import Foundation
import XCTest

/// An app links FoldKitLoader without HDF5, BLAS or any package: the target declares no dependency and
/// its sources import Foundation and (on Apple platforms, guarded) CryptoKit only.
final class LoaderDependencyTests: XCTestCase {
    func testLoaderNeedsFoundationOnly() throws {
        let manifest = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(".target(name: \"FoldKitLoader\")"), "FoldKitLoader is declared without dependencies")
        XCTAssertTrue(manifest.contains(".library(name: \"FoldKitLoader\", targets: [\"FoldKitLoader\"])"))

        let folder = TestData.repositoryRoot.appendingPathComponent("Sources/FoldKitLoader")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 3)
        for file in files {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            for (number, line) in lines.enumerated() where line.hasPrefix("import ") {
                let module = String(line.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces)
                XCTAssertTrue(["Foundation", "CryptoKit"].contains(module), "\(file):\(number + 1) imports \(module)")
                if module == "CryptoKit" {
                    XCTAssertEqual(number > 0 ? lines[number - 1].trimmingCharacters(in: .whitespaces) : "", "#if canImport(CryptoKit)", "\(file): CryptoKit import is guarded")
                }
            }
        }
    }
}
