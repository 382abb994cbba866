import ArgumentParser
import CEarlySignals
import FoldKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `foldkit read-check` (hidden): the helper process of `HDF5Helper`, the only process in which libhdf5
/// opens a file a command was handed. It limits itself (data size, death with its parent, `HelperSandbox`),
/// reads the model exactly as the command would in process (the same files, options and --input
/// matching), writes what it read to its standard output (`LoadedModelTransfer`) and ends: exit 0 when the
/// read succeeds; exit 1 with the error as one JSON object on standard output (`FoldKitError` is Codable) when
/// FoldKit refuses the file. Anything else - a signal from inside libhdf5, an allocation refused by the
/// limit, SIGXCPU at the CPU-time limit, the parent's wall-clock limit - is the parent's to report.
struct ReadCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-check", abstract: "Read a model in a helper process (used by the other commands).", shouldDisplay: false)

    @OptionGroup var model: ModelArguments

    @Option(help: "The --input array the command will read with the model.")
    var input: String?

    @Option(name: .customLong("data-limit"), help: "RLIMIT_DATA for this process, in bytes.")
    var dataLimit: Int

    @Option(name: .customLong("cpu-limit"), help: "RLIMIT_CPU for this process, in seconds (SIGXCPU then, SIGKILL a second later).")
    var cpuLimit: Int?

    @Option(help: "The command's folder for this helper: its TMPDIR and the only folder it may write in.")
    var scratch: String?

    @Flag(name: .customLong("no-model"), help: "Read the model without handing it back (exit 0 or the error).")
    var noModel = false

    @Flag(name: .customLong("sandbox-probe"), help: "Enter the sandbox, try what it refuses, print the outcomes as JSON and exit (tests).")
    var sandboxProbe = false

    func run() throws {
        _ = foldkit_die_with_parent()
        var limit = rlimit(rlim_cur: rlim_t(dataLimit), rlim_max: rlim_t(dataLimit))
        var cpu = rlimit(rlim_cur: rlim_t(cpuLimit ?? 0), rlim_max: rlim_t((cpuLimit ?? 0) + 1))
        #if canImport(Glibc)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), &limit)
            if cpuLimit != nil { _ = setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu) }
        #else
            _ = setrlimit(RLIMIT_DATA, &limit)
            if cpuLimit != nil { _ = setrlimit(RLIMIT_CPU, &cpu) }
        #endif
        let sandbox = HelperSandbox.enter(readable: model.files + (input.map { [$0] } ?? []), writable: scratch)
        if sandboxProbe {
            FileHandle.standardOutput.write(try JSONEncoder().encode(HelperSandbox.probe(sandbox, scratch: scratch)))
            return
        }
        do {
            let loaded: LoadedModelTransfer.Loaded
            if let input {
                let array = try InputArray.header(path: input)
                let (network, declaration) = try ModelLoader.kerasNetwork(paths: model.files, options: model.options, array: array)
                loaded = LoadedModelTransfer.Loaded(network: network, inputDeclaration: declaration)
            } else {
                loaded = LoadedModelTransfer.Loaded(network: try ModelLoader.load(paths: model.files, options: model.options))
            }
            if !noModel { try LoadedModelTransfer.write(loaded, to: FileHandle.standardOutput.fileDescriptor) }
        } catch let error as FoldKitError {
            let data = try JSONEncoder().encode(error)
            FileHandle.standardOutput.write(data)
            Foundation.exit(1)
        }
    }
}
