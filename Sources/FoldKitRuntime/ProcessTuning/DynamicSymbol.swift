#if canImport(Glibc)
    import Glibc
#endif

/// The address of a C function in the running process, for functions FoldKit calls only where they exist:
/// OpenBLAS's `blas_thread_shutdown_` (`OpenBLASThreads`) and glibc's `mallopt` (`MallocReuse`), which the
/// module maps do not declare. Used by `ProcessTuning` only.
///
/// With glibc it is `dlsym(RTLD_DEFAULT, name)` (the default handle is a null pointer there). Elsewhere
/// (Darwin with Accelerate, musl) every lookup gives nil, so those callers do nothing.
package enum DynamicSymbol {
    package static func address(of name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Glibc)
            return dlsym(nil, name)
        #else
            return nil
        #endif
    }
}
