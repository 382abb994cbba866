import FoldKitCore
import Foundation

/// Size, modification time and file identity (device and inode) of the model's source files, taken
/// before a command reads their weights and compared when it has finished with them.
///
/// The weights are read lazily, layer by layer, and `convert` hashes the source file on a thread of its
/// own: a file rewritten meanwhile (a training run saving a checkpoint over it) would leave blobs, the
/// manifest's source digest or verify's two passes from different versions. `checkUnchanged` turns that
/// into an error naming the file instead.
package struct SourceFileSnapshot: Sendable {
    struct State: Equatable, Sendable {
        var size: UInt64
        var modified: Date
        var device: UInt64
        var inode: UInt64
    }

    private let states: [(path: String, state: State)]

    /// Records the current state of every file in `paths` that exists (a network built in memory may
    /// name sources that are not files).
    package init(_ paths: [String]) {
        states = paths.compactMap { path in (try? Self.state(of: path)).map { (path, $0) } }
    }

    /// Throws a `FoldKitError` (`.io`) naming the first file whose size, modification time or identity
    /// differs from the snapshot (or that is gone).
    package func checkUnchanged() throws {
        for (path, before) in states {
            let now = try? Self.state(of: path)
            guard now == before else {
                throw FoldKitError(
                    .io, "the file changed while it was being read (size, modification time or identity differ)",
                    file: path, expected: "\(before.size) bytes, modified \(before.modified.timeIntervalSince1970)",
                    found: now.map { "\($0.size) bytes, modified \($0.modified.timeIntervalSince1970)" } ?? "no file")
            }
        }
    }

    private static func state(of path: String) throws -> State {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw FoldKitError(.io, "cannot read the file's attributes: \(error.localizedDescription)", file: path)
        }
        return State(
            size: (attributes[.size] as? NSNumber)?.uint64Value ?? 0,
            modified: attributes[.modificationDate] as? Date ?? .distantPast,
            device: (attributes[.systemNumber] as? NSNumber)?.uint64Value ?? 0,
            inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0)
    }
}
