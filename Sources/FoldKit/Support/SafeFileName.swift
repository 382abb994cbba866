/// File names derived from model files (Keras layer names may hold '/', '..', spaces).
enum SafeFileName {
    /// Keeps [A-Za-z0-9_.-], replaces everything else with '_', and never returns '.', '..' or ''.
    static func sanitize(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
        var out = String(name.map { allowed.contains($0) ? $0 : "_" })
        while out.hasPrefix(".") { out = "_" + out.dropFirst() }
        return out.isEmpty ? "_" : out
    }

    /// True when `name` is one path component that stays inside its folder.
    static func isPlain(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\\") && !name.contains("\0")
    }
}
