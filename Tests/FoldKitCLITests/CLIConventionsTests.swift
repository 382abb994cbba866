import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// The command line's conventions (Docs/CLI.md "Conventions"): help with examples on every command,
/// --version, completion scripts, results on stdout and errors on stderr, --quiet, colour only on a
/// terminal without NO_COLOR.
final class CLIConventionsTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-cli")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    private func seededModel(in dir: URL) throws -> (cfg: String, weights: String) {
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("yolo-head.weights").path
        let seeded = try CommandRunner.run(["seed-weights", cfg, "--out", weights])
        XCTAssertEqual(seeded.status, 0, seeded.stderr)
        return (cfg, weights)
    }

    func testEveryCommandsHelpShowsExamplesOfItself() throws {
        for command in ["", "convert", "verify", "fixtures", "inspect", "seed-weights", "bench"] {
            let run = try CommandRunner.run((command.isEmpty ? [] : [command]) + ["--help"])
            XCTAssertEqual(run.status, 0, "\(command): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("EXAMPLES:"), "\(command) --help has no examples:\n\(run.stdout)")
            let example = command.isEmpty ? "foldkit convert " : "foldkit \(command)"
            let examples = run.stdout.components(separatedBy: "EXAMPLES:").last ?? ""
            XCTAssertTrue(examples.contains("  " + example), "\(command): no example of the command itself:\n\(examples)")
        }
    }

    func testVersionPrintsTheOneVersionString() throws {
        let run = try CommandRunner.run(["--version"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines), FoldKitVersion.string)
        XCTAssertNotNil(FoldKitVersion.string.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression), FoldKitVersion.string)
    }

    /// The bash script is valid bash (`bash -n`) and registers a completion for foldkit that knows the commands.
    func testCompletionScripts() throws {
        let dir = try temporaryFolder()
        for shell in ["bash", "zsh", "fish"] {
            let run = try CommandRunner.run(["--generate-completion-script", shell])
            XCTAssertEqual(run.status, 0, "\(shell): \(run.stderr)")
            for command in ["convert", "verify", "fixtures", "inspect"] {
                XCTAssertTrue(run.stdout.contains(command), "\(shell) script does not know \(command)")
            }
            if shell == "bash" {
                XCTAssertTrue(run.stdout.contains("complete -o filenames -F _foldkit foldkit"), run.stdout)
                let script = dir.appendingPathComponent("foldkit.bash")
                try Data(run.stdout.utf8).write(to: script)
                let check = Process()
                check.executableURL = URL(fileURLWithPath: "/bin/bash")
                check.arguments = ["-n", script.path]
                try check.run()
                check.waitUntilExit()
                XCTAssertEqual(check.terminationStatus, 0, "bash -n rejects the completion script")
            }
        }
    }

    func testErrorsGoToStderrAndExit1() throws {
        let run = try CommandRunner.run(["inspect", "/nonexistent/model.cfg", "--json"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "", "nothing on stdout when there is no result")
        XCTAssertTrue(run.stderr.hasPrefix("error: "), run.stderr)
        XCTAssertTrue(run.stderr.contains("/nonexistent/model.cfg"), run.stderr)
    }

    func testQuietPrintsNothingAndKeepsExitCodes() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel(in: dir)
        let blobs = dir.appendingPathComponent("blobs").path
        for arguments in [
            ["convert", cfg, weights, "--out", blobs, "--quiet"], ["verify", cfg, weights, "-q"],
            ["fixtures", cfg, weights, "--out", dir.appendingPathComponent("fx").path, "-q"], ["inspect", cfg, "-q"],
        ] {
            let run = try CommandRunner.run(arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stdout, "", "\(arguments)")
            XCTAssertEqual(run.stderr, "", "\(arguments)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: blobs + "/manifest.json"), "--quiet still converts")
        // Over tolerance: still exit 2, still nothing printed.
        let failing = try CommandRunner.run(["verify", cfg, weights, "--rtol", "1e-15", "--quiet"])
        XCTAssertEqual(failing.status, 2, failing.stderr)
        XCTAssertEqual(failing.stdout, "")
    }

    /// Colour needs a terminal: under `script` (a pseudo-terminal) the verdict is coloured, unless NO_COLOR
    /// is set; through a pipe it never is.
    func testColourOnlyOnATerminalWithoutNoColor() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel(in: dir)
        let escape = "\u{1B}["
        let piped = try CommandRunner.run(["verify", cfg, weights], environment: ["NO_COLOR": ""])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertFalse(piped.stdout.contains(escape), "colour in a pipe")
        XCTAssertTrue(piped.stdout.contains("PASS: "), piped.stdout)

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            if TestData.isContinuousIntegration { XCTFail("script (util-linux) is needed for the terminal half of this test") }
            throw XCTSkip("/usr/bin/script (util-linux) is absent: cannot run foldkit on a pseudo-terminal")
        }
        func onTerminal(_ environment: [String: String]) throws -> String {
            let command = ([CommandRunner.executable.path, "verify", cfg, weights]).map { "'\($0)'" }.joined(separator: " ")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", command, "/dev/null"]
            var env = ProcessInfo.processInfo.environment
            env["TERM"] = "xterm"
            env.removeValue(forKey: "NO_COLOR")
            for (k, v) in environment { env[k] = v }
            process.environment = env
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            return String(decoding: data, as: UTF8.self)
        }
        let coloured = try onTerminal([:])
        XCTAssertTrue(coloured.contains("\(escape)1;32mPASS: "), "no green PASS on a terminal:\n\(coloured.suffix(300))")
        let plain = try onTerminal(["NO_COLOR": "1"])
        XCTAssertTrue(plain.contains("PASS: "), plain)
        XCTAssertFalse(plain.contains("\(escape)1;"), "NO_COLOR=1 yet coloured:\n\(plain.suffix(300))")
    }
}
