import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flushes a finished output folder to stable storage before it is renamed into place (with
/// `--durable`; by default outputs are atomic only), so that after a power loss the destination holds either the old output or the complete new one, never a renamed
/// folder whose blobs were still in the page cache (Docs/Security.md, "Output safety", item "Durability").
///
/// `fsync(2)` works on the file, not on the descriptor: opening each finished file read-only and
/// syncing it flushes what the writers wrote through their own descriptors. Then the folder itself is
/// synced (its entries), and after the rename the parent folder (the new name).
enum DurableFolder {
    /// `fsync` of every regular file inside `folder` and, depth first, of every subfolder's contents and
    /// the subfolder itself (a fixture pack's `test_data_set_0/`), then of `folder`; returns how many items
    /// were flushed (files and folders, `folder` included).
    @discardableResult
    static func syncContents(of folder: URL) throws -> Int {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw FoldKitError(.io, "cannot list the finished output: \(error.localizedDescription)", file: folder.path)
        }
        var flushed = 0
        for name in names.sorted() {
            let item = folder.appendingPathComponent(name)
            let type = (try? FileManager.default.attributesOfItem(atPath: item.path))?[.type] as? FileAttributeType
            if type == .typeDirectory {
                flushed += try syncContents(of: item)
            } else {
                try sync(item.path, directory: false)
                flushed += 1
            }
        }
        try sync(folder.path, directory: true)
        return flushed + 1
    }

    /// `fsync` of one file or folder (a folder: its entries).
    static func sync(_ path: String, directory: Bool) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : O_NOFOLLOW))
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot open to flush to disk: \(String(cString: strerror(errno)))", file: path)
        }
        defer { _ = close(descriptor) }
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            throw FoldKitError(.io, "flush to disk failed: \(String(cString: strerror(errno)))", file: path)
        }
    }
}
