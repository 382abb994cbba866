import Foundation
import XCTest

/// Locations of the project's own fixtures and of the shared real-model files, found from this file's
/// path so tests work from any working directory.
public enum TestData {
    /// The package root (the folder holding Package.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/` in this repository: small cfgs, seeded weights, reference outputs made by OpenCV/Keras.
    public static let fixtures = repositoryRoot.appendingPathComponent("Fixtures")

    /// `../shared` beside the repository (real trained models and cfgs; never committed here).
    public static let shared = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")

    /// A file under `Fixtures/`.
    public static func fixture(_ relativePath: String) -> URL {
        fixtures.appendingPathComponent(relativePath)
    }

    /// A file under `../shared`, or an `XCTSkip` saying why the test cannot run when it is absent.
    public static func sharedFile(_ relativePath: String) throws -> URL {
        let url = shared.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("needs ../shared/\(relativePath) (the shared real-model files beside the repository); not found at \(url.path)")
        }
        return url
    }

    /// A fresh empty temporary folder, removed by the caller's `addTeardownBlock` if wanted.
    public static func temporaryDirectory(_ name: String = "foldkit-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
