import FoldKitTestSupport
import Foundation
import XCTest

/// flatc (Debian: flatbuffers-compiler, pinned by .ci/install) decoding a binary FlatBuffer to JSON with a
/// schema: `flatc --json --raw-binary --strict-json --defaults-json SCHEMA -- FILE`. Without flatc the test
/// skips saying so, and fails when `CI` is set.
enum FlatcDecoder {
    struct Missing: Error { var message: String }

    /// The decoded JSON object of `data` read with `schema`.
    static func decode(_ data: [UInt8], schema: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let flatc = try executable(file: file, line: line)
        let dir = try TestData.temporaryDirectory("foldkit-flatc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("model.bin")
        try Data(data).write(to: binary)
        let process = Process()
        process.executableURL = flatc
        process.currentDirectoryURL = dir
        process.arguments = ["--json", "--raw-binary", "--strict-json", "--defaults-json", "-o", dir.path, schema.path, "--", binary.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("flatc could not decode the buffer: \(output)", file: file, line: line)
            throw Missing(message: output)
        }
        let json = try Data(contentsOf: dir.appendingPathComponent("model.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any], file: file, line: line)
    }

    /// flatc from PATH.
    static func executable(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("flatc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        let message = "needs flatc (Debian: flatbuffers-compiler; bash .ci/install)"
        guard !TestData.isContinuousIntegration else {
            XCTFail(message + "; CI is set, so this fails instead of skipping", file: file, line: line)
            throw Missing(message: message)
        }
        throw XCTSkip(message)
    }
}
