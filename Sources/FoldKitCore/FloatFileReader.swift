import Foundation

/// Decodes little-endian float32 values from bytes already read (`FloatSpanReader` reads file spans).
package enum FloatFileReader {
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
