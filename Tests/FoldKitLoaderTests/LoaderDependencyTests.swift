import FoldKitTestSupport
import Foundation
import XCTest

/// An app links FoldKitLoader without HDF5, BLAS or any package: FoldKitLoader depends on FoldKitBlobFormat
/// and FoldKitDetection only, FoldKitBlobFormat on FoldKitDetection and (on Linux) the system library
/// CLibCrypto, FoldKitDetection on nothing, and their sources import Foundation and the platform's SHA-256
/// (CryptoKit or CLibCrypto, each guarded by `canImport`) besides those modules.
final class LoaderDependencyTests: XCTestCase {
    func testLoaderNeedsFoundationOnly() throws {
        let manifest = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(".target(name: \"FoldKitDetection\")"), "FoldKitDetection is declared without dependencies")
        XCTAssertTrue(
            manifest.contains(
                "name: \"FoldKitBlobFormat\",\n            dependencies: [\"FoldKitDetection\", .target(name: \"CLibCrypto\", condition: .when(platforms: [.linux]))]"
            ))
        XCTAssertTrue(manifest.contains(".target(name: \"FoldKitLoader\", dependencies: [\"FoldKitBlobFormat\", \"FoldKitDetection\"])"))
        XCTAssertTrue(
            manifest.contains(".library(name: \"FoldKitLoader\", targets: [\"FoldKitLoader\", \"FoldKitBlobFormat\", \"FoldKitDetection\"])"))

        for (target, allowed) in [
            ("FoldKitLoader", ["Foundation", "FoldKitBlobFormat", "FoldKitDetection"]),
            ("FoldKitBlobFormat", ["Foundation", "CryptoKit", "CLibCrypto", "FoldKitDetection"]), ("FoldKitDetection", ["Foundation", "Dispatch"]),
        ] {
            let folder = TestData.repositoryRoot.appendingPathComponent("Sources/\(target)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            XCTAssertGreaterThan(files.count, 1, target)
            for file in files {
                let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                for (number, text) in lines.enumerated() {
                    let line = text.trimmingCharacters(in: .whitespaces)
                    guard line.hasPrefix("import ") else { continue }
                    let module = String(line.dropFirst("import ".count)).trimmingCharacters(in: .whitespaces)
                    XCTAssertTrue(allowed.contains(module), "\(target)/\(file):\(number + 1) imports \(module)")
                    if module == "CryptoKit" || module == "CLibCrypto" {
                        let guardLine = number > 0 ? lines[number - 1].trimmingCharacters(in: .whitespaces) : ""
                        XCTAssertTrue(
                            ["#if canImport(\(module))", "#elseif canImport(\(module))"].contains(guardLine),
                            "\(target)/\(file): \(module) import is guarded by canImport")
                    }
                }
            }
        }
    }
}
