import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads little-endian float32 runs from files with positioned reads (no whole-file buffering).
package enum FloatFileReader {
    package static func read(_ span: FileSpan) throws -> [Float] {
        let reader = FloatSpanReader()
        return try [Float](unsafeUninitializedCapacity: span.count) { buffer, initialized in
            try reader.read(span, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<span.count]))
            initialized = span.count
        }
    }

    /// Decodes little-endian IEEE-754 float32 values from raw bytes.
    package static func decodeLittleEndianFloats(_ data: Data) -> [Float] {
        let count = data.count / 4
        var result = [Float](repeating: 0, count: count)
        result.withUnsafeMutableBytes { dst in
            data.withUnsafeBytes { src in
                dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<(count * 4)]))
            }
        }
        #if _endian(big)
            for i in 0..<count { result[i] = Float(bitPattern: UInt32(littleEndian: result[i].bitPattern)) }
        #endif
        return result
    }
}
