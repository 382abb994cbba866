import Foundation

/// A model file the engine writers (FoldKitONNX, FoldKitNCNN) stream, one part at a time, so memory holds
/// one weight tensor, never the model: created (or truncated) at `url`, each `append` written at once and
/// counted, every failure a `FoldKitError` naming the file.
package final class ModelFileAppender {
    /// The file written.
    package let url: URL
    /// Bytes written so far.
    package private(set) var written = 0
    private let handle: FileHandle

    /// Creates (or truncates) the file at `url`.
    package init(url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw FoldKitError(.io, "cannot create the model file", file: url.path)
        }
        self.url = url
        do { handle = try FileHandle(forWritingTo: url) } catch {
            throw FoldKitError(.io, "cannot open the model file: \(error.localizedDescription)", file: url.path)
        }
    }

    deinit { try? handle.close() }

    /// Writes `data` after what was written before.
    package func append(_ data: Data) throws {
        do { try handle.write(contentsOf: data) } catch {
            throw FoldKitError(.io, "cannot write the model file: \(error.localizedDescription)", file: url.path)
        }
        written += data.count
    }
}
