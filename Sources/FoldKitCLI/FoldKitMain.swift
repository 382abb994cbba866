import ArgumentParser
import FoldKit
import Foundation

@main
enum FoldKitMain {
    static func main() {
        // The HDF5 helper enters its sandbox while it has one thread (HelperSandbox): no signal thread for it.
        // It removes nothing on SIGINT or SIGTERM (the command that started it removes its folder); it ignores
        // them from the early guard on, and dies with that command.
        if CommandLine.arguments.dropFirst().first != "read-check" { TerminationSignals.install() }
        IsolatedModelRead.executable = Bundle.main.executableURL
        if let message = CommandSuggestion.message(for: Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardError.write(Data("\(TerminalStyle.standardError.paint("error:", .red)) \(message)\n".utf8))
            exit(1)
        }
        do {
            var command = try FoldKitCommand.parseAsRoot()
            try command.run()
        } catch is CheckFailed {
            exit(2)
        } catch let error as FoldKitError {
            // A write that failed because a SIGINT/SIGTERM handler removed the output: the handler exits.
            TerminationSignals.parkIfTerminating()
            FileHandle.standardError.write(Data("\(TerminalStyle.standardError.paint("error:", .red)) \(error)\n".utf8))
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
