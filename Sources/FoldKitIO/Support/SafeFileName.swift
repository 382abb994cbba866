import FoldKitBlobFormat

/// File names derived from model files (Keras layer names may hold '/', '..', NUL, spaces, any
/// Unicode, be hundreds of characters long, or differ only by letter case). Docs/Security.md,
/// "Name sanitising".
enum SafeFileName {
    /// The longest name `sanitize` returns, in bytes: room for a prefix (`layer_123_`), a suffix
    /// (`_shift.bin`, `_12345`) and a temporary name around it within NAME_MAX (255 bytes).
    static let maximumLength = 120

    /// Keeps [A-Za-z0-9_.-], replaces every other character with '_', never starts with '.' (so never
    /// '.', '..' or a hidden name) and never returns ''. A result longer than `maximumLength` is cut
    /// and ends in '-' plus 16 hex digits of the FNV-1a hash of the original name's UTF-8 bytes, so
    /// long names that share a beginning stay distinct.
    static func sanitize(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
        var out = String(name.map { allowed.contains($0) ? $0 : "_" })
        while out.hasPrefix(".") { out = "_" + out.dropFirst() }
        if out.isEmpty { return "_" }
        if out.utf8.count > maximumLength {
            let digest = String(fnv1a(name), radix: 16)
            let hash = String(repeating: "0", count: 16 - digest.count) + digest
            out = String(out.prefix(maximumLength - 17)) + "-" + hash
        }
        return out
    }

    /// True when `name` is one path component that stays inside its folder.
    static func isPlain(_ name: String) -> Bool { BlobFolderReader.isPlainFileName(name) }

    /// `base`, or when that is taken `base_<index>`, `base_<index>_2`, ... : the first candidate
    /// whose lowercase form is not in `taken` (which it is then added to). Comparing lowercase keeps
    /// names that differ only by letter case apart on case-insensitive file systems (macOS, Windows).
    static func unique(_ base: String, index: Int, taken: inout Set<String>) -> String {
        var candidate = base
        var attempt = 1
        while taken.contains(candidate.lowercased()) {
            candidate = attempt == 1 ? "\(base)_\(index)" : "\(base)_\(index)_\(attempt)"
            attempt += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// 64-bit FNV-1a of the UTF-8 bytes: offset basis 0xcbf29ce484222325, prime 0x100000001b3.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
