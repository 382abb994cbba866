import FoldKitCore
import FoldKitRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Atomically swaps two paths in one step: after `exchange(a, b)` the item that was at `a` is at `b`
/// and the other way round, with no moment at which either path is missing.
///
/// Linux: `renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)` (kernel 3.15+, looked up with dlsym
/// because the Glibc module map does not declare it). Darwin: `renamex_np(a, b, RENAME_SWAP)`.
/// Returns false when the platform or the file system cannot swap (ENOSYS, EINVAL, ENOTSUP); callers
/// then fall back to two plain renames. Other failures throw.
enum FolderExchange {
    static func exchange(_ a: String, _ b: String) throws -> Bool {
        #if canImport(Glibc)
            typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
            guard let symbol = DynamicSymbol.address(of: "renameat2") else { return false }
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            let renameExchange: UInt32 = 1 << 1  // RENAME_EXCHANGE in <linux/fs.h>
            let result = renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange)
        #elseif canImport(Darwin)
            let result = renamex_np(a, b, UInt32(RENAME_SWAP))
        #else
            return false
        #endif
        if result == 0 { return true }
        let code = errno
        if code == ENOSYS || code == EINVAL || code == ENOTSUP || code == EOPNOTSUPP { return false }
        throw FoldKitError(.io, "cannot swap the finished output into place: \(String(cString: strerror(code)))", file: b)
    }
}
