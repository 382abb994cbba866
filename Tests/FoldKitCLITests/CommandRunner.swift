import Foundation
import XCTest

/// Runs the built `foldkit` executable and captures its exit code and output.
struct CommandRunner {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `foldkit` binary next to the test bundle (same build configuration).
    static var executable: URL {
        #if os(macOS)
            let dir = Bundle(for: Marker.self).bundleURL.deletingLastPathComponent()
        #else
            // On Linux the test bundle is an executable in the build products folder.
            let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #endif
        return dir.appendingPathComponent("foldkit")
    }

    private final class Marker {}

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}
