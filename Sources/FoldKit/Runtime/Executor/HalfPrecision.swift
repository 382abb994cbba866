import Foundation

/// Whether Swift's `Float16` exists on this platform (not on Intel Macs).
enum HalfPrecision {
    #if os(macOS) && arch(x86_64)
        static let isAvailable = false
    #else
        static let isAvailable = true
    #endif
}
