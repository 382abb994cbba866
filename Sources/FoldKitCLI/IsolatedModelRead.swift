import FoldKit
import Foundation

/// How the `foldkit` command reads Keras models: in a helper process (`HDF5Helper`, whose helper is this
/// executable's hidden `read-check`, `ReadCheckCommand`), so that libhdf5 never runs on a file the command
/// was handed in the command's own process (Docs/Security.md, "HDF5 read in a helper process").
///
/// Only the `foldkit` executable isolates (its `main` sets `executable`); in-process tests read directly,
/// and so does the command with `FOLDKIT_HDF5_IN_PROCESS=1` (trusted files, benchmarks).
enum IsolatedModelRead {
    /// The foldkit executable, set once by `FoldKitMain` before any command runs; nil: read in process.
    nonisolated(unsafe) static var executable: URL?

    /// The helper the commands read Keras models with; nil reads them in this process.
    static var helper: HDF5Helper? {
        guard let executable, ProcessInfo.processInfo.environment[HDF5Helper.inProcessVariable] != "1" else { return nil }
        return HDF5Helper(executable: executable)
    }
}
