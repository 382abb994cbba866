/// A file of ../shared a test needs is missing while running under CI (where that is a failure, not a skip).
public struct MissingSharedFile: Error, CustomStringConvertible {
    /// The path below the shared folder, as the test asked for it.
    public let relativePath: String
    /// The full path that was looked at.
    public let path: String

    public var description: String {
        "missing shared file ../shared/\(relativePath) (looked at \(path)); CI is set, so a missing shared file fails instead of skipping"
    }
}
