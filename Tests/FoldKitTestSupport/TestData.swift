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

    /// `../shared` beside the repository (real trained models and cfgs; never committed here), or the
    /// folder named by the environment variable `FOLDKIT_SHARED` when it is set (a copy elsewhere, or a
    /// missing folder to check that every test needing it skips).
    public static let shared: URL = {
        if let override = ProcessInfo.processInfo.environment["FOLDKIT_SHARED"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// True when the environment variable `CI` is set to anything but empty, "0" or "false": a missing
    /// shared file is then a failure, not a skip, so a renamed or deleted file turns the run red.
    public static var isContinuousIntegration: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !(value.isEmpty || value == "0" || value == "false")
    }

    /// A file under `Fixtures/`.
    public static func fixture(_ relativePath: String) -> URL {
        fixtures.appendingPathComponent(relativePath)
    }

    /// A file (or folder) under `../shared`. When it is absent: an `XCTSkip` saying why the test cannot
    /// run; under CI (`isContinuousIntegration`) a recorded failure naming the path plus a thrown
    /// `MissingSharedFile`, so the test fails even where the error itself would be swallowed.
    /// Call it before any assertion closure: an `XCTSkip` thrown inside `XCTAssertThrowsError` counts as
    /// the expected error, not as a skip.
    public static func sharedFile(_ relativePath: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let url = shared.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            if isContinuousIntegration {
                let missing = MissingSharedFile(relativePath: relativePath, path: url.path)
                XCTFail(missing.description, file: file, line: line)
                throw missing
            }
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
