import Foundation

/// How fast this machine computes SHA-256 (the manifest's checksums), in bytes per second on one core:
/// the floor under `convert`, which must hash every byte it reads and every byte it writes.
package enum ShaThroughput {
    /// Hashes a `megabytes` MB buffer `runs` times and returns the best rate in bytes per second.
    package static func measure(megabytes: Int = 64, runs: Int = 3) -> Double {
        let count = megabytes << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
        defer { buffer.deallocate() }
        for i in 0..<count { buffer[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        var digest = ""
        let timing = Timing.measure(runs: runs, warmup: 0) { digest = Checksum.sha256Hex(UnsafeRawBufferPointer(buffer)) }
        _ = digest
        return Double(count) / timing.minimum
    }
}
