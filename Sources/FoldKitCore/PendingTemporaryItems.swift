import Foundation

/// The temporary files and folders this process is filling right now, so that a SIGINT or SIGTERM
/// handler can remove them before the process exits (Docs/Security.md, "Output safety").
///
/// Writers register a path when they create it and unregister it once it is renamed into place or
/// removed. `withLock` lets a writer make a rename and the matching unregistration one step that a
/// concurrent `removeAll()` cannot split: the handler either sees the temporary path (and removes it)
/// or does not see it (because it is already the finished output).
package enum PendingTemporaryItems {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [UUID: URL] = [:]

    /// Registers `url`; keep the token to unregister it.
    package static func register(_ url: URL) -> UUID {
        let token = UUID()
        withLock { paths[token] = url }
        return token
    }

    /// Forgets the item registered under `token` (it was renamed into place or already removed).
    package static func unregister(_ token: UUID) {
        withLock { _ = paths.removeValue(forKey: token) }
    }

    /// The paths registered now.
    package static var registered: [URL] { withLock { Array(paths.values) } }

    /// Runs `body` while no other thread can register, unregister or remove items.
    package static func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Removes every registered item and forgets it; returns the paths removed. A folder is first
    /// renamed to a `.discard-` sibling so that threads still writing into it cannot re-create files
    /// under the old path while it is being removed. Called from the termination-signal handler.
    @discardableResult
    package static func removeAll() -> [URL] {
        withLock {
            let removed = Array(paths.values)
            for url in removed {
                let discard = url.deletingLastPathComponent()
                    .appendingPathComponent(".\(url.lastPathComponent.prefix(80)).discard-\(UUID().uuidString)")
                let target = (try? FileManager.default.moveItem(at: url, to: discard)) != nil ? discard : url
                try? FileManager.default.removeItem(at: target)
            }
            paths.removeAll()
            return removed
        }
    }
}
