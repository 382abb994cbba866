import FoldKitTestSupport
import Foundation
import XCTest

/// An app links FoldKitLoader without HDF5, BLAS or any package: FoldKitLoader depends on FoldKitBlobFormat,
/// FoldKitDetection and FoldKitCore only, FoldKitBlobFormat on FoldKitCore and (on Linux) the system library
/// CLibCrypto, FoldKitDetection on FoldKitCore, FoldKitCore on nothing, and their sources import Foundation,
/// the C library and the platform's SHA-256 (CryptoKit or CLibCrypto, each guarded by `canImport`) besides
/// those modules.
final class LoaderDependencyTests: XCTestCase {
    func testLoaderNeedsFoundationOnly() throws {
        let manifest = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(".target(name: \"FoldKitCore\")"), "FoldKitCore is declared without dependencies")
        XCTAssertTrue(manifest.contains(".target(name: \"FoldKitDetection\", dependencies: [\"FoldKitCore\"])"))
        XCTAssertTrue(
            manifest.contains(
                "name: \"FoldKitBlobFormat\",\n            dependencies: [\"FoldKitCore\", .target(name: \"CLibCrypto\", condition: .when(platforms: [.linux]))]"
            ))
        XCTAssertTrue(
            manifest.contains(".target(name: \"FoldKitLoader\", dependencies: [\"FoldKitBlobFormat\", \"FoldKitDetection\", \"FoldKitCore\"])"))
        XCTAssertTrue(
            manifest.contains(
                ".library(name: \"FoldKitLoader\", targets: [\"FoldKitLoader\", \"FoldKitBlobFormat\", \"FoldKitDetection\", \"FoldKitCore\"])"))

        for (target, allowed) in [
            ("FoldKitLoader", ["Foundation", "FoldKitBlobFormat", "FoldKitDetection", "FoldKitCore"]),
            ("FoldKitBlobFormat", ["Foundation", "CryptoKit", "CLibCrypto", "FoldKitCore"]),
            ("FoldKitDetection", ["Foundation", "Dispatch", "FoldKitCore"]),
            ("FoldKitCore", ["Foundation", "Dispatch", "Glibc", "Darwin"]),
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
