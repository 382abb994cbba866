import ArgumentParser
import FoldKit
import Foundation

/// `foldkit`: the root command. Exit codes: 0 success / pass, 1 error (bad input, usage),
/// 2 checked and over tolerance (verify, fixtures --check).
struct FoldKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foldkit",
        abstract: "Fold batch norm into Darknet and Keras weights, write blobs for on-device engines, and prove the result.",
        subcommands: [ConvertCommand.self, VerifyCommand.self, FixturesCommand.self, InspectCommand.self, SeedWeightsCommand.self, BenchCommand.self])
}

/// Thrown by commands that finished their check and found it over tolerance (exit code 2).
struct CheckFailed: Error {}

@main
enum FoldKitMain {
    static func main() {
        do {
            var command = try FoldKitCommand.parseAsRoot()
            try command.run()
        } catch is CheckFailed {
            exit(2)
        } catch let error as FoldKitError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        } catch {
            // Help and version requests exit 0 as usual; every other parse or validation error exits 1.
            let code = FoldKitCommand.exitCode(for: error)
            if code == .success { FoldKitCommand.exit(withError: error) }
            FileHandle.standardError.write(Data((FoldKitCommand.fullMessage(for: error) + "\n").utf8))
            exit(1)
        }
    }
}
