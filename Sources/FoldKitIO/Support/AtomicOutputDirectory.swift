import FoldKitCore
import Foundation

/// Writes a folder of outputs so that the destination is either absent, untouched or complete
/// (Docs/Security.md, "Output safety").
///
/// - Files go into a hidden temporary sibling (`.<name>.partial-<uuid>`), registered with
///   `PendingTemporaryItems` so a SIGINT/SIGTERM handler can remove it.
/// - `commit()` (only when `durable`) flushes every file and the folder to disk (`DurableFolder`), then
///   takes an exclusive lock on the parent folder (`DirectoryLock`, so concurrent writers of the same destination commit one
///   after the other), then swaps the folder into place in one step (`FolderExchange`; two renames
///   where the file system cannot swap) and removes the old output.
/// - An existing destination is replaced only when it is a real folder (not a symbolic link) that is
///   empty or holds a `manifest.json`, i.e. an earlier FoldKit output: `--out ~` must not wipe a home.
/// - If the work throws, `discard()` removes the temporary folder; nothing half-written is ever left
///   at the destination.
final class AtomicOutputDirectory {
    let destination: URL
    let temporary: URL
    /// Whether `commit()` makes the output durable (`fsync` of every file, the folder and, after the
    /// swap, its parent) or only atomic (Docs/Security.md, "Output safety", item "Durability").
    let durable: Bool
    /// Files and folders `commit()` flushed to disk: 0 unless `durable`.
    private(set) var flushedItems = 0
    private var registration: UUID?

    init(destination: URL, durable: Bool = false) throws {
        self.destination = destination.standardizedFileURL
        self.durable = durable
        let parent = self.destination.deletingLastPathComponent()
        // The name is cut so that the temporary name stays within NAME_MAX (255 bytes).
        let name = String(self.destination.lastPathComponent.utf8.prefix(160)) ?? "out"
        self.temporary = parent.appendingPathComponent(".\(name).partial-\(UUID().uuidString)")
        try Self.checkReplaceable(self.destination)
        // Registered before it exists, so that no signal can come between creating and registering it.
        let registration = PendingTemporaryItems.register(temporary)
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        } catch {
            PendingTemporaryItems.unregister(registration)
            throw FoldKitError(.io, "cannot create output folder: \(error.localizedDescription)", file: temporary.path)
        }
        self.registration = registration
    }

    /// Throws unless `destination` is absent or an earlier output that may be replaced: a real folder,
    /// empty or holding `manifest.json`.
    static func checkReplaceable(_ destination: URL) throws {
        let fm = FileManager.default
        guard let attributes = try? fm.attributesOfItem(atPath: destination.path) else { return }
        let type = attributes[.type] as? FileAttributeType
        guard type == .typeDirectory else {
            throw FoldKitError(
                .usage, "the output path exists and is not a folder (a symbolic link is not followed either)",
                file: destination.path, expected: "a new path or an earlier FoldKit output folder",
                found: type.map { $0.rawValue } ?? "unknown file type")
        }
        let entries = (try? fm.contentsOfDirectory(atPath: destination.path)) ?? []
        guard entries.isEmpty || entries.contains("manifest.json") else {
            throw FoldKitError(
                .usage, "refusing to replace a folder that is not a FoldKit output (no manifest.json)",
                file: destination.path, expected: "a new path, an empty folder or an earlier FoldKit output",
                found: "\(entries.count) entries")
        }
    }

    /// The URL for `fileName` inside the temporary folder. The name must be a plain file name
    /// (use `SafeFileName.sanitize` for names taken from model files).
    func url(for fileName: String) throws -> URL {
        guard SafeFileName.isPlain(fileName) else {
            throw FoldKitError(.usage, "refusing to write outside the output folder", found: fileName)
        }
        return temporary.appendingPathComponent(fileName)
    }

    /// The URL for `fileName` inside the subfolder `subfolder` of the temporary folder, which is created
    /// when missing. Both must be plain names (one level: a fixture pack's `test_data_set_0/`).
    func url(for fileName: String, in subfolder: String) throws -> URL {
        let folder = try url(for: subfolder)
        guard SafeFileName.isPlain(fileName) else {
            throw FoldKitError(.usage, "refusing to write outside the output folder", found: subfolder + "/" + fileName)
        }
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw FoldKitError(.io, "cannot create output folder: \(error.localizedDescription)", file: folder.path)
        }
        return folder.appendingPathComponent(fileName)
    }

    /// Swaps the finished folder into place, replacing an older one; when `durable`, flushes it to disk
    /// first and the parent folder after.
    func commit() throws {
        if durable { flushedItems += try DurableFolder.syncContents(of: temporary) }
        let parent = destination.deletingLastPathComponent()
        let lock = try DirectoryLock(folder: parent.path)
        defer { lock.unlock() }
        // Another writer may have committed since `init`: check again under the lock.
        try Self.checkReplaceable(destination)
        let fm = FileManager.default
        try PendingTemporaryItems.withLock {
            do {
                if fm.fileExists(atPath: destination.path) {
                    if try !FolderExchange.exchange(temporary.path, destination.path) {
                        // No atomic swap here: move the old output aside, then the new one in.
                        let old = parent.appendingPathComponent(temporary.lastPathComponent + ".old")
                        try fm.moveItem(at: destination, to: old)
                        do { try fm.moveItem(at: temporary, to: destination) } catch {
                            try? fm.moveItem(at: old, to: destination)
                            throw error
                        }
                        try fm.moveItem(at: old, to: temporary)
                    }
                    // The old output now sits at the temporary path, still registered: a signal from
                    // here on removes it, and so does the line below.
                } else {
                    try fm.moveItem(at: temporary, to: destination)
                }
            } catch let error as FoldKitError {
                throw error
            } catch {
                throw FoldKitError(.io, "cannot move the finished output into place: \(error.localizedDescription)", file: destination.path)
            }
        }
        try? fm.removeItem(at: temporary)
        if let registration { PendingTemporaryItems.unregister(registration) }
        registration = nil
        if durable {
            try DurableFolder.sync(parent.path, directory: true)
            flushedItems += 1
        }
    }

    /// Removes the temporary folder (after a failure).
    func discard() {
        try? FileManager.default.removeItem(at: temporary)
        if let registration { PendingTemporaryItems.unregister(registration) }
        registration = nil
    }

    /// Runs `body` with this folder, committing on success and discarding on any error.
    static func write<T>(to destination: URL, durable: Bool = false, _ body: (AtomicOutputDirectory) throws -> T) throws -> T {
        let folder = try AtomicOutputDirectory(destination: destination, durable: durable)
        do {
            let result = try body(folder)
            try folder.commit()
            return result
        } catch {
            folder.discard()
            throw error
        }
    }
}
