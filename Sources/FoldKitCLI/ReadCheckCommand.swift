import ArgumentParser
import CEarlySignals
import FoldKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `foldkit read-check` (hidden): the helper process of `IsolatedModelRead`. It reads the model exactly
/// as the command that started it will (the same files, options and --input), under a data-size limit,
/// and ends: exit 0 when the read succeeds; exit 1 with the error as one JSON object on standard output
/// (`FoldKitError` is Codable) when FoldKit refuses the file. Anything else - a signal from inside libhdf5, an
/// allocation refused by the limit, the parent's time limit - is the parent's to report.
struct ReadCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-check", abstract: "Read a model in a helper process (used by the other commands).", shouldDisplay: false)

    @OptionGroup var model: ModelArguments

    @Option(help: "The --input array the command will read with the model.")
    var input: String?

    @Option(name: .customLong("data-limit"), help: "RLIMIT_DATA for this process, in bytes.")
    var dataLimit: Int

    func run() throws {
        _ = foldkit_die_with_parent()
        var limit = rlimit(rlim_cur: rlim_t(dataLimit), rlim_max: rlim_t(dataLimit))
        #if canImport(Glibc)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit)
        #else
            _ = setrlimit(RLIMIT_DATA, &limit)
        #endif
        do {
            if let input {
                _ = try ModelLoader.load(paths: model.files, options: model.options, inputPath: input)
            } else {
                _ = try ModelLoader.load(paths: model.files, options: model.options)
            }
        } catch let error as FoldKitError {
            let data = try JSONEncoder().encode(error)
            FileHandle.standardOutput.write(data)
            Foundation.exit(1)
        }
    }
}
