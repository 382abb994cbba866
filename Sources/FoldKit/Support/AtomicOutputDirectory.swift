import Foundation

/// Writes a folder of outputs so that the destination is either absent, untouched or complete.
///
/// Files go into a hidden temporary sibling (`.<name>.partial-<uuid>`); `commit()` swaps it into
/// place (an existing destination is replaced only then). If the work throws, `discard()` removes
/// the temporary folder, so nothing half-written is ever left at the destination.
final class AtomicOutputDirectory {
    let destination: URL
    let temporary: URL

    init(destination: URL) throws {
        self.destination = destination.standardizedFileURL
        let parent = self.destination.deletingLastPathComponent()
        self.temporary = parent.appendingPathComponent(".\(self.destination.lastPathComponent).partial-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        } catch {
            throw FoldKitError(.io, "cannot create output folder: \(error.localizedDescription)", file: temporary.path)
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

    /// Moves the finished folder into place, replacing an older one.
    func commit() throws {
        let fm = FileManager.default
        do {
            if fm.fileExists(atPath: destination.path) {
                let old = destination.deletingLastPathComponent()
                    .appendingPathComponent(".\(destination.lastPathComponent).old-\(UUID().uuidString)")
                try fm.moveItem(at: destination, to: old)
                try fm.moveItem(at: temporary, to: destination)
                try? fm.removeItem(at: old)
            } else {
                try fm.moveItem(at: temporary, to: destination)
            }
        } catch {
            throw FoldKitError(.io, "cannot move the finished output into place: \(error.localizedDescription)", file: destination.path)
        }
    }

    /// Removes the temporary folder (after a failure).
    func discard() {
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Runs `body` with this folder, committing on success and discarding on any error.
    static func write<T>(to destination: URL, _ body: (AtomicOutputDirectory) throws -> T) throws -> T {
        let folder = try AtomicOutputDirectory(destination: destination)
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
